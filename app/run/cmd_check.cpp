// `check`: validate, evaluate, analyse statically and (with CUDA) compile, for a
// device of the database. Needs no GPU.
#include <iostream>

#include "commands.h"
#include "tilescope/config.h"
#include "tilescope/devices.h"
#include "tilescope/locations.h"
#include "tilescope/static_analysis.h"
#include "tilescope/summary.h"
#ifdef TILESCOPE_HAVE_CUDA
#include "tilescope/cuda/compile.h"
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

namespace {

/// A compile_error finding from a failed compile: the first error with its line.
Finding compileErrorFinding(const Config& cfg, const CompileInfo& ci) {
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

Point checkPoint(const SweepPoint& sp, const DeviceSpec& dev, bool compile) {
  const Config& cfg = sp.config;
  CompileInfo ci;
#ifdef TILESCOPE_HAVE_CUDA
  if (compile) ci = cuda::compileKernel(cfg.kernel, cfg.kernel.defines, dev.arch, nullptr);
#else
  (void)compile;
  ci.log = "built without CUDA: the kernel was not compiled";
#endif
  Point p = analyzeStatic(cfg, dev, ci);
  p.index = sp.index;
  p.label = sp.label();
  p.compile = ci;
  if (ci.attempted && !ci.ok) p.findings.insert(p.findings.begin(), compileErrorFinding(cfg, ci));
  fillDefaultLocations(p, cfg);
  p.verdict = verdictForFindings(p.findings);
  return p;
}

int cmdCheck(const CheckArgs& a) {
  Config cfg;
  try {
    cfg = loadConfig(a.config);
  } catch (const ConfigError& e) {
    return usageError(configMessage(a.config, e));
  }
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
  std::vector<SweepPoint> points = expandSweep(cfg);
  for (const auto& sp : points) {
    try {
      (void)resolvePoint(sp.config);
    } catch (const ConfigError& e) {
      return usageError(configMessage(a.config, e) + (points.size() > 1 ? " (sweep point " + sp.label() + ")" : ""));
    }
    std::cerr << "check " << cfg.name << (points.size() > 1 ? " [" + sp.label() + "]" : "") << " on " << dev->name
              << " (" << dev->arch << ")\n";
    report.points.push_back(checkPoint(sp, *dev, !a.noCompile));
  }
  report.finalize();
  printSummary(report, std::cerr);
  if (!a.output.empty()) {
    saveReport(report, a.output);
    std::cerr << "report written to " << a.output << '\n';
  }
  return exitCodeFor(report);
}

}  // namespace tilescope::cli
