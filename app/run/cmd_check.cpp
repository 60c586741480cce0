// `check`: validate, evaluate, analyse statically and (with CUDA) compile, for a
// device of the database. Needs no GPU.
#include <algorithm>
#include <chrono>
#include <iostream>

#include "commands.h"
#include "options.h"
#include "tilescope/analysis/locations.h"
#include "tilescope/analysis/static_analysis.h"
#include "tilescope/base/format.h"
#include "tilescope/base/python.h"
#include "tilescope/config/config.h"
#include "tilescope/config/trust.h"
#include "tilescope/diagnose/compile_error.h"
#include "tilescope/export/open_document.h"
#include "tilescope/export/summary.h"
#include "tilescope/model/devices.h"
#ifdef TILESCOPE_HAVE_CUDA
#include "tilescope/cuda/compile.h"
#include "tilescope/cuda/profiler_host.h"
#endif

namespace tilescope::cli {

std::string configMessage(const std::string& file, const std::exception& e) {
  std::string what = e.what();
  if (what.rfind(file, 0) == 0) return what;
  return file + ": " + what;
}

int usageError(const std::string& message) {
  std::cerr << "tilescope-run: error: " << message << '\n';
  return kExitUsage;
}

std::string toolkitRoot() {
#ifdef TILESCOPE_HAVE_CUDA
  return cuda::cudaToolkitRoot();
#else
  return "";
#endif
}

std::string consentProblem(const Config& cfg, const Consent& consent) {
  // "<json path>: <what>; <json path>: <what> (pass --allow-... if you trust it)"
  std::string msg;
  auto add = [&](const std::vector<TrustIssue>& issues, const char* option) {
    if (issues.empty()) return;
    msg += std::string(msg.empty() ? "" : "; ") + describeIssues(issues) + " (pass " + option +
           " if you trust this config)";
  };
  if (!consent.commands) add(commandIssues(cfg), "--allow-commands");
  if (!consent.outsidePaths) add(pathIssues(cfg, toolkitRoot()), "--allow-outside-paths");
  return msg;
}

std::optional<int> admitConfig(const std::string& path, const Consent& consent, bool allPoints, Config* cfg) {
  try {
    *cfg = loadConfig(path);
  } catch (const ConfigError& e) {
    return usageError(configMessage(path, e));
  }
  if (std::string why = consentProblem(*cfg, consent); !why.empty()) return usageError(path + ": " + why);
  try {
    const std::vector<SweepPoint> points = expandSweep(*cfg);
    for (const auto& sp : points) {
      (void)resolvePoint(sp.config);
      if (!allPoints) break;
    }
  } catch (const ConfigError& e) {
    return usageError(configMessage(path, e));
  }
  return std::nullopt;
}

std::vector<std::string> consentArgs(const Consent& consent) {
  std::vector<std::string> args;
  if (consent.commands) args.push_back("--allow-commands");
  if (consent.outsidePaths) args.push_back("--allow-outside-paths");
  return args;
}

std::string runMetricsError(const Config& cfg, const std::string& arch) {
#ifdef TILESCOPE_HAVE_CUDA
  if (cfg.run.metrics.empty()) return {};
  const std::string chip = cuda::chipForArch(arch);
  if (chip.empty()) return {};  // an architecture the table does not know: the profiling pass says it
  int bad = -1;
  std::string why = cuda::validateMetrics(chip, cfg.run.metrics, &bad);
  if (why.empty()) return {};
  return (bad >= 0 ? "run.metrics[" + std::to_string(bad) + "]: " : std::string("run.metrics: ")) + why;
#else
  (void)cfg;
  (void)arch;
  return {};
#endif
}

namespace {

/// A compile_error finding from a failed compile: the first error with its line.
Finding compileErrorFinding(const Config& cfg, const CompileInfo& ci) {
#ifdef TILESCOPE_HAVE_CUDA
  if (cfg.kernel.isPython()) {
    auto e = cuda::firstCompileError(ci.log);
    auto [line, column] = compileErrorPosition(ci.log);
    return pythonCompileErrorFinding(cfg, ci, line, column,
                                     e ? e->second : ci.log.substr(0, ci.log.find('\n')));
  }
#endif
  Finding f;
  f.category = "compile_error";
  f.severity = Severity::error;
  f.treeNode = "compile.cuda";
  f.detail = "cuda";
  std::string first = ci.log.substr(0, ci.log.find('\n'));
  int line = 0;
#ifdef TILESCOPE_HAVE_CUDA
  if (auto e = cuda::firstCompileError(ci.log)) {
    line = e->first;
    first = e->second;
  }
#endif
  f.message = cfg.kernel.source + (line > 0 ? ":" + std::to_string(line) : "") + ": " + first;
  f.location.file = cfg.kernel.source;
  if (line > 0) f.location.line = line;
  f.evidence = {{"compiler", ci.compiler}, {"arch", ci.arch}, {"first_error", first}};
  return f;
}

}  // namespace

std::string applyCompileOverrides(Config& cfg, const CompileOverrides& o) {
  if (o.compiler.empty() && o.options.empty()) return {};
  if (cfg.kernel.isPython())
    return "--compiler and --compile-option apply to CUDA C++ kernels; this one is " + cfg.kernel.language +
           " (compare it under another interpreter: docs/toolchains.md)";
  if (!o.compiler.empty()) cfg.kernel.compiler = o.compiler;
  cfg.kernel.options.insert(cfg.kernel.options.end(), o.options.begin(), o.options.end());
  return {};
}

void addCompileOverrideOptions(CLI::App* verb, CompileOverrides& o) {
  verb->add_option("--compiler", o.compiler, "compile a CUDA C++ kernel with this compiler instead")
      ->check(CLI::IsMember({"nvrtc", "nvcc"}));
  verb->add_option("--compile-option", o.options,
                   "add a compile option after the config's (repeatable; options that run programs need "
                   "--allow-commands)")
      ->allow_extra_args(false);
}

std::vector<std::string> compileOverrideArgs(const CompileOverrides& o) {
  std::vector<std::string> args;
  if (!o.compiler.empty()) args.insert(args.end(), {"--compiler", o.compiler});
  for (const auto& opt : o.options) args.push_back("--compile-option=" + opt);
  return args;
}

Point checkPoint(const SweepPoint& sp, const DeviceSpec& dev, bool compile, double compileTimeoutS,
                 bool allowCommands = false) {
  Config cfg = sp.config;
  CompileInfo ci;
  nlohmann::json triton, tilelang;
#ifdef TILESCOPE_HAVE_CUDA
  // check never runs a program the config names: options that could are not
  // passed to any compiler, and the kernel is not compiled (with --allow-commands it is).
  const auto commands = commandIssues(cfg);
  bool risky = false;
  for (const auto& i : commands) risky = risky || i.path.rfind("kernel.options", 0) == 0;
  if (compile && risky && !allowCommands) {
    ci.log = "not compiled: check never runs programs a config names: " + describeIssues(commands) +
             " (check --allow-commands compiles it)";
  } else if (compile && cfg.kernel.isPython()) {
    // The Triton/TileLang helper runs as a child process with its own time limit.
    cuda::CompiledKernel ck;
    ci = cuda::compilePoint(cfg, dev.arch, true, &ck);
    if (ck.triton) {
      // Triton sized the shared memory; the launch passes it as dynamic shared memory.
      cfg.launch.sharedBytes = std::to_string(ck.triton->sharedBytes);
      triton = ck.triton->toJson();
    }
    if (ck.tilelang) {
      // TileLang decided the block and the shared memory of its pipeline.
      for (int d = 0; d < 3; ++d) cfg.launch.block[std::size_t(d)] = std::to_string(ck.tilelang->block[d]);
      cfg.launch.sharedBytes = std::to_string(ck.tilelang->sharedBytes);
      tilelang = ck.tilelang->toJson();
    }
  } else if (compile) {
    ci = cuda::compileKernelIsolated(cfg.kernel, cfg.kernel.defines, dev.arch, compileTimeoutS);
  }
#else
  (void)compile;
  (void)compileTimeoutS;
  (void)allowCommands;
  ci.log = "built without CUDA: the kernel was not compiled";
#endif
  Point p = analyzeStatic(cfg, dev, ci);
  p.index = sp.index;
  p.label = sp.label();
  p.compile = ci;
  if (!triton.is_null()) p.extra["triton"] = triton;
  if (!tilelang.is_null()) p.extra["tilelang"] = tilelang;
  if (ci.attempted && !ci.ok) p.findings.insert(p.findings.begin(), compileErrorFinding(cfg, ci));
  fillDefaultLocations(p, cfg);
  p.verdict = verdictForFindings(p.findings);
  return p;
}

void attachStages(Point& p, const Config& point, const std::string& arch) {
#ifdef TILESCOPE_HAVE_CUDA
  if (p.compile.attempted && p.compile.ok) {
    p.stages = cuda::collectStages(point, arch);
    return;
  }
#endif
  p.stages.collected = true;
  p.stages.arch = arch;
  p.stages.note = p.compile.attempted ? "the kernel did not compile: no compiler stages"
                                      : "not compiled: no compiler stages (" + p.compile.log + ")";
  (void)point;
}

int cmdCheck(const CheckArgs& a) {
  Config cfg;
  try {
    const OpenedDocument doc = openDocument(a.config, DocumentKind::config);
    if (doc.kind == DocumentKind::report)
      return usageError(a.config + ": a report (" + kReportSchema +
                        "), not a config: `tilescope-run export` renders it");
    cfg = loadConfigDocument(doc);
  } catch (const ConfigError& e) {
    return usageError(configMessage(a.config, e));
  } catch (const std::exception& e) {  // a report that does not read
    return usageError(e.what());
  }
  if (std::string why = applyCompileOverrides(cfg, a.compile); !why.empty())
    return usageError(a.config + ": " + why);
  // Commands are never run by check (checkPoint skips them); paths outside the
  // config's folder would be read, so they need consent here too.
  const std::string paths = consentProblem(cfg, Consent{true, a.allowOutsidePaths});
  if (!paths.empty()) return usageError(a.config + ": " + paths);
  // A Python kernel's file runs when it compiles: confined unless --allow-commands.
  setPythonKernelsTrusted(a.allowCommands);
  DeviceDb db = DeviceDb::loadDefault();
  const std::string name = a.device.empty() ? "h100" : a.device;
  const DeviceSpec* dev = db.find(name);
  if (!dev) return usageError("unknown device '" + name + "'; known: " + db.keys());

  Report report;
  report.verb = "check";
  report.toolVersion = toolVersion();
  report.createdAt = nowIso8601();
  report.host = hostName();
  report.device = toDeviceInfo(*dev);
  report.config = configToJson(cfg);
  if (std::string why = runMetricsError(cfg, dev->arch); !why.empty())
    return usageError(a.config + ": " + why);
  std::vector<SweepPoint> points = expandSweep(cfg);
  // Each compile has its limit; so has the whole check (a sweep of 10,000
  // points x 120 s was allowed; docs/security.md, "Denial of service"): past it
  // no compile starts.
  const auto started = std::chrono::steady_clock::now();
  std::size_t skipped = 0;
  for (const auto& sp : points) {
    try {
      (void)resolvePoint(sp.config);
      std::cerr << "check " << cfg.name << (points.size() > 1 ? " [" + sp.label() + "]" : "") << " on "
                << dev->name << " (" << dev->arch << ")\n";
      const double left =
          a.checkTimeoutS - std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      capPythonCompileTimeout(std::max(left, 1.0));
      const bool compile = !a.noCompile && left > 0;
      report.points.push_back(
          checkPoint(sp, *dev, compile, std::min(a.compileTimeoutS, left), a.allowCommands));
      if (a.stages && report.points.size() <= std::size_t(kMaxStagePoints))
        attachStages(report.points.back(), sp.config, dev->arch);
      if (!a.noCompile && !compile) {
        ++skipped;
        report.points.back().compile.log = "not compiled: check's total time limit of " +
                                           formatDuration(a.checkTimeoutS * 1e9) +
                                           " (--check-timeout) was reached before this point";
      }
    } catch (const ConfigError& e) {
      // Includes what only the analysis finds (a tiling too large to map).
      return usageError(configMessage(a.config, e) +
                        (points.size() > 1 ? " (sweep point " + sp.label() + ")" : ""));
    }
  }
  report.finalize();
  printSummary(report, std::cerr);
  if (skipped > 0)
    std::cerr << "note: " << skipped << " of " << points.size()
              << " points were not compiled: check's total time limit of "
              << formatDuration(a.checkTimeoutS * 1e9) << " was reached (raise it with --check-timeout)\n";
  if (a.output == "-") {
    // The workbench's Check reads the report from a child's stdout (ui/controllers/checkcontroller.h).
    std::cout << dumpJson(toJson(report), 1) << std::endl;
  } else if (!a.output.empty()) {
    saveReport(report, a.output);
    std::cerr << "report written to " << a.output << '\n';
  }
  return exitCodeFor(report);
}

Verb addCheckCommand(CLI::App& app) {
  auto a = std::make_shared<CheckArgs>();
  auto* c = app.add_subcommand("check", "validate a config and analyse it without a GPU");
  c->add_option("CONFIG", a->config, "kernel configuration (.tscfg.json)")->required();
  c->add_option("--device", a->device, "device of the database (tilescope-run devices), default h100");
  c->add_option("-o,--output", a->output, "write the report (JSON) here; - for standard output");
  c->add_flag("--no-compile", a->noCompile, "skip compiling the kernel");
  c->add_option("--compile-timeout", a->compileTimeoutS,
                "stop a compile after this many seconds (default 120)")
      ->check(CLI::PositiveNumber);
  c->add_option("--check-timeout", a->checkTimeoutS,
                "start no compile after this many seconds of the whole check (default 600)")
      ->check(CLI::PositiveNumber);
  c->add_flag("--allow-outside-paths", a->allowOutsidePaths,
              "read sources, includes and .npy files outside the config's folder");
  c->add_flag("--allow-commands", a->allowCommands,
              "compile with options that run programs (-ccbin ...) and import a Python kernel unconfined");
  c->add_flag("--stages", a->stages,
              "add the compiler stages (PTX, SASS, Triton's IR) with source lines to the report");
  addCompileOverrideOptions(c, a->compile);
  return {c, [a] { return cmdCheck(*a); }};
}

}  // namespace tilescope::cli
