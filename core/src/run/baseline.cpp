#include "tilescope/run/baseline.h"

#include <map>

#include "tilescope/base/format.h"
#include "tilescope/base/process.h"
#include "tilescope/run/remote.h"

namespace tilescope {

using nlohmann::json;

std::optional<Finding> compareWithBaseline(Point& p, double slowFactor) {
  if (!p.timing.measured || !p.baseline.measured || p.timing.kernelNs.median <= 0) return std::nullopt;
  p.speedup = p.baseline.kernelNs.median / p.timing.kernelNs.median;
  if (*p.speedup >= 1.0 / slowFactor) return std::nullopt;
  Finding f;
  f.category = "slow_vs_baseline";
  f.severity = Severity::warning;
  f.message = "the kernel takes " + formatRatio(1.0 / *p.speedup) + " the time of the " + p.baseline.name +
              " baseline";
  f.evidence = {{"kernel_median_ns", p.timing.kernelNs.median},
                {"baseline_median_ns", p.baseline.kernelNs.median},
                {"slow_factor", slowFactor}};
  f.treeNode = "perf.fallback_to_baseline";
  return f;
}

namespace {

/// Runs the baseline command for one sweep point; fills `b`.
void runCommand(const Config& cfg, const Point& p, double timeoutS, const std::string& host,
                const std::string& remoteDir, BaselineInfo& b) {
  b.name = "command";
  std::vector<std::string> env;
  for (const auto& [k, v] : p.defines.items())
    env.push_back("TILESCOPE_" + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump()));
  for (const auto& [k, v] : p.params.items()) env.push_back("TILESCOPE_" + k + "=" + v.dump());
  std::string last;
  const std::string dir = !host.empty() ? remoteDir : cfg.dir.empty() ? std::string(".") : cfg.dir.string();
  std::string script = "cd " + shellQuote(dir) + " && ";
  // ssh passes no environment: the point's values travel on the command line.
  if (!host.empty())
    for (const auto& kv : env)
      script += "export " + kv.substr(0, kv.find('=')) + "=" + shellQuote(kv.substr(kv.find('=') + 1)) + "; ";
  script += cfg.baseline.command;
  ChildResult r = runChild(
      baselineArgv(script, host), timeoutS,
      [&](const std::string& line) {
        if (line.find('{') != std::string::npos) last = line;
      },
      {}, {}, env);
  if (!r.started || r.timedOut || r.exitCode != 0) {
    b.error = "baseline command " +
              (r.timedOut   ? std::string("timed out")
               : !r.started ? r.startError
                            : "exited with status " + std::to_string(r.exitCode)) +
              (r.stderrText.empty() ? "" : ": " + r.stderrText.substr(0, 500));
    return;
  }
  json j = json::parse(last, nullptr, false);
  if (!j.is_object() || !j.contains("median_ns") || !j["median_ns"].is_number()) {
    b.error = "baseline command printed no {\"median_ns\": N} line (last JSON-looking line: '" + last + "')";
    return;
  }
  b.measured = true;
  b.kernelNs.median = j["median_ns"].get<double>();
  b.kernelNs.n = j.value("n", 1);
  for (const char* k : {"p10", "p90", "min"}) {
    if (!j.contains(std::string(k) + "_ns")) continue;
    double v = j[std::string(k) + "_ns"].get<double>();
    if (k[0] == 'p' && k[1] == '1')
      b.kernelNs.p10 = v;
    else if (k[0] == 'p')
      b.kernelNs.p90 = v;
    else
      b.kernelNs.min = v;
  }
  b.kernels = j.value("kernels", 0);
}

}  // namespace

std::vector<std::string> baselineArgv(const std::string& script, const std::string& remoteHost) {
  if (remoteHost.empty()) return {"/bin/sh", "-c", script};
  std::vector<std::string> argv = sshCommand(remoteHost);
  argv.back() = "/bin/sh -c " + shellQuote(script);  // in place of tilescope-run
  return argv;
}

void applyCommandBaseline(std::vector<Point>& points, const Config& cfg, double timeoutS,
                          const std::string& remoteHost, const std::string& remoteConfigDir) {
  if (cfg.baseline.kind != "command") return;
  std::map<int, BaselineInfo> byIndex;  // once per sweep point, shared by its trials
  for (Point& p : points) {
    // Only a point whose kernel was timed has anything to compare: a machine
    // without a GPU (or a point that failed) never runs the command.
    if (!p.timing.measured) continue;
    auto it = byIndex.find(p.index);
    if (it == byIndex.end()) {
      BaselineInfo b;
      runCommand(cfg, p, timeoutS, remoteHost, remoteConfigDir, b);
      it = byIndex.emplace(p.index, b).first;
    }
    p.baseline = it->second;
    if (auto f = compareWithBaseline(p, cfg.run.slowFactor)) {
      p.findings.push_back(*f);
      p.verdict = worse(p.verdict, Verdict::slow);
    }
  }
}

}  // namespace tilescope
