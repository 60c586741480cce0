// tilescope-run: the headless command line (README.md; exit statuses in docs/report.md).
#include <CLI/CLI.hpp>

#include <iostream>

#include "commands.h"
#include "tilescope/model/report.h"

using namespace tilescope::cli;
using tilescope::kExitOk;
using tilescope::kExitUsage;

int main(int argc, char** argv) {
  CLI::App app{"TileScope: run GPU kernels under control and see where they go wrong", "tilescope-run"};
  app.set_version_flag("--version", tilescope::toolVersion());
  app.require_subcommand(1);

  CheckArgs check;
  auto* c = app.add_subcommand("check", "validate a config and analyse it without a GPU");
  c->add_option("CONFIG", check.config, "kernel configuration (.tscfg.json)")->required();
  c->add_option("--device", check.device, "device of the database (tilescope-run devices), default h100");
  c->add_option("-o,--output", check.output, "write the report (JSON) here");
  c->add_flag("--no-compile", check.noCompile, "skip compiling the kernel");
  c->add_option("--compile-timeout", check.compileTimeoutS,
                "stop a compile after this many seconds (default 120)")
      ->check(CLI::PositiveNumber);
  c->add_flag("--allow-outside-paths", check.allowOutsidePaths,
              "read sources, includes and .npy files outside the config's folder");

  // Consent to what a config may ask for (docs/security.md).
  auto addConsent = [](CLI::App* s, Consent& c) {
    s->add_flag("--allow-commands", c.commands,
                "run the programs the config names (a command baseline, compiler options such as -ccbin)");
    s->add_flag("--allow-outside-paths", c.outsidePaths,
                "read sources, includes and .npy files outside the config's folder");
  };
  auto addRemote = [](CLI::App* s, std::string& host, bool& shared) {
    s->add_option("--remote", host,
                  "run the workers on this host over ssh (the config's files are copied there)");
    s->add_flag("--remote-shared", shared,
                "with --remote: the host sees the same paths (a shared filesystem); copy nothing");
  };
  RunArgs run, sweep;
  auto addRunOptions = [&addConsent, &addRemote](CLI::App* s, RunArgs& a) {
    s->add_option("CONFIG", a.config, "kernel configuration (.tscfg.json)")->required();
    s->add_option("-o,--output", a.output, "write the report (JSON) here");
    s->add_option("--trials", a.trials, "repeat each point N times (default: the config's trials)")
        ->check(CLI::Range(1, 1000));
    s->add_option("--timeout", a.timeoutS, "watchdog limit per worker in seconds");
    s->add_option("--launch-timeout", a.launchTimeoutS,
                  "watchdog limit from a kernel's launch to its completion (s)")
        ->check(CLI::PositiveNumber);
    s->add_flag("--stream", a.stream, "print tilescope.stream/1 events on stdout (for the GUI)");
    addRemote(s, a.remote, a.remoteShared);
    s->add_flag("--trace", a.trace,
                "trace each point's kernel through the Sanitizer API first (docs/report.md)");
    s->add_option("--trace-mode", a.traceMode, "full (default) or memory: without the shared-memory hazards")
        ->check(CLI::IsMember({"full", "memory"}));
    s->add_option("--trace-cells", a.traceCells,
                  "footprint map cells per tensor in the report (default 65536)")
        ->check(CLI::Range(1, 1 << 24));
    s->add_flag("--fresh-workers", a.freshWorkers,
                "a fresh worker process for every capture (by default a worker serves capture after capture "
                "until one faults)");
    addConsent(s, a.consent);
  };
  auto* r = app.add_subcommand("run", "one capture in an isolated worker (needs a GPU)");
  addRunOptions(r, run);
  auto* s = app.add_subcommand("sweep", "every sweep point (x trials), each isolated (needs a GPU)");
  addRunOptions(s, sweep);
  s->add_option("--jobs", sweep.jobs, "points at once, spread over the local GPUs")->check(CLI::Range(1, 64));
  s->add_option("--shard", sweep.shard,
                "K/N: run only shard K (0-based) of N contiguous blocks of the points");
  SlurmArgs slurm;
  s->add_flag("--slurm", slurm.enabled,
              "submit the sweep to Slurm as a job array and gather the parts (README)");
  s->add_option("--slurm-dir", slurm.dir,
                "with --slurm: a folder every node sees (default: a new one beside the config)");
  s->add_option("--sbatch", slurm.sbatchOptions,
                "with --slurm: sbatch options, e.g. --sbatch=\"--gres=gpu:1 -p gpu\"");
  s->add_option("--shards", slurm.shards, "with --slurm: array tasks (default: one per point, at most 32)")
      ->check(CLI::Range(1, 10000));
  s->add_option("--slurm-retries", slurm.retries,
                "with --slurm: resubmit a failed task up to R times (default 1)")
      ->check(CLI::Range(0, 100));
  s->add_option("--slurm-exe", slurm.exe,
                "with --slurm: the tilescope-run the tasks run (default: this one)");
  s->add_option("--slurm-poll", slurm.pollS,
                "with --slurm: seconds between queries of squeue/sacct (default 5)")
      ->check(CLI::Range(0.1, 600.0));
  s->add_flag("--dry-run", slurm.dryRun,
              "with --slurm: print the batch script and the sbatch command, submit nothing");

  WorkerArgs worker;
  auto* w = app.add_subcommand("worker", "internal: capture one point and stream the result");
  w->add_option("CONFIG", worker.config)->required();
  w->add_option("--point", worker.point);
  w->add_option("--trial", worker.trial);
  w->add_option("--gpu", worker.gpu);
  w->add_flag("--serve", worker.serve, "capture each request read on stdin, one per line (a warm worker)");
  w->add_option("--align-shift", worker.alignShift, "shift tensor base pointers by N bytes");
  w->add_option("--sentinel-variant", worker.sentinelVariant,
                "0 or 1: which poison pattern outputs start with");
  w->add_option("--input-scale", worker.inputScale, "multiply every generated float input by F")
      ->check(CLI::PositiveNumber);
  w->add_flag("--no-timing", worker.noTiming);
  w->add_flag("--no-baseline", worker.noBaseline, "do not time the baseline");
  w->add_flag("--no-counters", worker.noCounters, "skip the profiling pass (hardware counters, PC sampling)");
  w->add_option("--set", worker.overrides, "NAME=VALUE: override a define or param");
  w->add_flag("--trace", worker.trace, "trace the kernel first");
  w->add_option("--trace-mode", worker.traceMode, "full | memory")->check(CLI::IsMember({"full", "memory"}));
  w->add_option("--trace-cells", worker.traceCells, "footprint map cells per tensor in the report");
  w->add_flag("--oracle", worker.oracle,
              "for compute-sanitizer as an oracle: no guard zones, exact allocations, outputs without init "
              "unwritten");
  addConsent(w, worker.consent);

  bool devicesJson = false;
  auto* d = app.add_subcommand("devices", "list the device database (and the local GPUs)");
  d->add_flag("--json", devicesJson, "print JSON");

  std::string classifyInput = "-";
  bool classifyJson = false;
  auto* cl = app.add_subcommand("classify",
                                "classify a pasted error log (CUDA, NVRTC/nvcc, Triton, TileLang, Python)");
  cl->add_option("LOGFILE", classifyInput, "log file, or - for stdin (default)");
  cl->add_flag("--json", classifyJson, "print JSON");

  DiagnoseArgs diag;
  auto* dg = app.add_subcommand("diagnose",
                                "run, then the follow-up experiments the troubleshooting tree calls for");
  dg->add_option("CONFIG", diag.config, "kernel configuration (.tscfg.json)")->required();
  dg->add_option("-o,--output", diag.output, "write the report (JSON) here");
  dg->add_option("--timeout", diag.timeoutS, "watchdog limit per worker in seconds");
  dg->add_flag("--stream", diag.stream, "print tilescope.stream/1 events on stdout");
  addRemote(dg, diag.remote, diag.remoteShared);
  dg->add_flag("--no-trace", diag.noTrace,
               "no traced run (by default one runs when the baseline faults, NaN sit in "
               "partial tiles, trials disagree or a slow kernel uses shared memory)");
  addConsent(dg, diag.consent);

  InitTritonArgs initTriton;
  auto* it = app.add_subcommand("init-triton", "write a starting config from a Triton kernel's signature");
  it->add_option("KERNEL", initTriton.target, "FILE.py::KERNEL (the @triton.jit function)")->required();
  it->add_option("-o,--output", initTriton.output, "config to write (default FILE_KERNEL.tscfg.json)");
  it->add_flag("--force", initTriton.force, "overwrite an existing file");

  ExportArgs exp;
  auto* e = app.add_subcommand("export", "render a report");
  e->add_option("REPORT", exp.report)->required();
  e->add_option("--format", exp.format, "html | md | json | pdf (pdf: through the GUI binary, needs -o)")
      ->required()
      ->check(CLI::IsMember({"html", "md", "json", "pdf"}));
  e->add_option("-o,--output", exp.output, "output file (default: stdout)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& err) {
    int rc = app.exit(err);
    return rc == 0 ? kExitOk : kExitUsage;
  }
  try {
    if (*c) return cmdCheck(check);
    if (*r) {
      run.verb = "run";
      return cmdRun(run);
    }
    if (*s) {
      sweep.verb = "sweep";
      if (slurm.enabled) return cmdSlurm(sweep, slurm);
      if (!slurm.dir.empty() || !slurm.sbatchOptions.empty() || slurm.shards > 0 || slurm.dryRun ||
          !slurm.exe.empty())
        return usageError("--slurm-dir, --sbatch, --shards, --slurm-exe and --dry-run go with --slurm");
      return cmdRun(sweep);
    }
    if (*w) return cmdWorker(worker);
    if (*d) return cmdDevices(devicesJson);
    if (*cl) return cmdClassify(classifyInput, classifyJson);
    if (*dg) return cmdDiagnose(diag);
    if (*e) return cmdExport(exp);
    if (*it) return cmdInitTriton(initTriton);
  } catch (const std::exception& ex) {
    std::cerr << "tilescope-run: error: " << ex.what() << '\n';
    return kExitUsage;
  }
  return kExitUsage;
}
