// `diagnose`: the first point's capture, then the follow-up experiments
// (core/diagnose.h), each in its own `tilescope-run worker` process; this process
// never touches the GPU.
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>

#include "commands.h"
#include "options.h"
#include "tilescope/base/process.h"
#include "tilescope/config/config.h"
#include "tilescope/diagnose/diagnose.h"
#include "tilescope/export/summary.h"
#include "tilescope/run/stream.h"

namespace tilescope::cli {

int cmdDiagnose(const DiagnoseArgs& a) {
  Config cfg;
  if (auto status = admitConfig(a.config, a.consent, false, &cfg)) return *status;
  if (!cfg.sweep.empty())
    std::cerr << "note: " << cfg.name << " has a sweep; `diagnose` works on its first point\n";

  DiagnoseOptions opts;
  opts.session.workerCommand = {selfExecutable()};
  opts.session.configPath = std::filesystem::absolute(a.config).string();
  std::unique_ptr<RemoteFolder> remoteCopy;  // removed from the host when diagnose ends
  if (!a.remote.empty())
    if (std::string why = setUpRemote(a.remote, a.remoteShared, cfg, opts.session, remoteCopy); !why.empty())
      return usageError(why);
  opts.session.timeoutS = a.timeoutS;
  opts.trace = !a.noTrace;
  opts.budgetS = a.maxSeconds;
  opts.session.allowCommands = a.consent.commands;
  opts.session.extraWorkerArgs = consentArgs(a.consent);
  for (const std::string& c : counterArgs(a.counters)) opts.session.extraWorkerArgs.push_back(c);
  std::mutex io;
  opts.session.onEvent = [&](const StreamEvent& e) {
    std::lock_guard<std::mutex> lock(io);
    if (a.stream) std::cout << toLine(e) << '\n' << std::flush;
    const std::string& exp = e.tags.experiment;
    if (const auto* pr = std::get_if<ProgressEvent>(&e.body)) {
      if (pr->stage == "diagnose")
        std::cerr << "diagnose: " << pr->message << '\n';
      else
        std::cerr << "  [" << exp << "] " << pr->message << '\n';
    } else if (const auto* pe = std::get_if<PointEvent>(&e.body)) {
      std::cerr << "  [" << exp << "] verdict " << verdictName(pe->point.verdict) << '\n';
    }
  };
  std::cerr << "diagnose " << cfg.name << ": a baseline capture, then at most " << opts.maxCaptures - 1
            << " follow-up experiment(s)\n";
  Report report = diagnose(cfg, opts);

  if (report.noGpu) return noGpuExit(report.points.front().status);
  if (!report.findings.empty() && !report.findings.front().experiment.empty())
    std::cerr << "diagnosis (" << report.findings.front().experiment
              << "): " << report.findings.front().category << ": " << report.findings.front().message << '\n';
  return finishReport(report, a.output, a.stream);
}

Verb addDiagnoseCommand(CLI::App& app) {
  auto a = std::make_shared<DiagnoseArgs>();
  auto* dg = app.add_subcommand("diagnose",
                                "run, then the follow-up experiments the troubleshooting tree calls for");
  dg->add_option("CONFIG", a->config, "kernel configuration (.tscfg.json)")->required();
  dg->add_option("-o,--output", a->output, "write the report (JSON) here");
  dg->add_option("--timeout", a->timeoutS, "watchdog limit per worker in seconds");
  dg->add_flag("--stream", a->stream, "print tilescope.stream/1 events on stdout");
  addRemoteOptions(dg, a->remote, a->remoteShared);
  addCounterOption(dg, a->counters);
  dg->add_flag("--no-trace", a->noTrace,
               "no traced run (by default every diagnose traces the kernel once: a right output can still "
               "read past a tensor, leave elements unwritten or conflict on shared-memory banks)");
  dg->add_option("--max-seconds", a->maxSeconds,
                 "start no experiment that would end past S seconds (the report lists what was not run); "
                 "default: no budget, but 30 s after a baseline that hung, whose follow-ups get a 5 s "
                 "launch watchdog, and 45 s after a baseline slower than 10 s")
      ->check(CLI::Range(0.0, 86400.0));
  addConsentOptions(dg, a->consent);
  return {dg, [a] { return cmdDiagnose(*a); }};
}

}  // namespace tilescope::cli
