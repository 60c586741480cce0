// `compare CONFIG --toolchain A --toolchain B`: one config compiled under two
// toolchains (docs/toolchains.md), each side a `tilescope-run check --stages`
// of its own (a Triton version's interpreter through TILESCOPE_PYTHON, a CUDA
// compiler and its options through --compiler/--compile-option), then the
// compile results, resources and stages side by side, and the first stage
// whose ops differ (analysis/stage_diff.h). `--bisect V1,V2,...` walks a
// version list to the first one whose compile differs from the first's.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include "commands.h"
#include "options.h"
#include "tilescope/analysis/stage_diff.h"
#include "tilescope/base/format.h"
#include "tilescope/base/process.h"
#include "tilescope/base/toolchain.h"
#include "tilescope/export/report_diff.h"

namespace tilescope::cli {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// One toolchain's compile of the config.
struct Side {
  Toolchain toolchain;
  std::string unavailable;  ///< why it did not compile at all (not installed, the check failed)
  std::shared_ptr<Report> report;
  bool noGpu = false;  ///< --run without a GPU
  const Point* point() const { return report && !report->points.empty() ? &report->points.front() : nullptr; }
  bool compiled() const { return point() && point()->compile.ok; }
};

struct TempDir {
  fs::path path;
  TempDir() {
    std::string t = (fs::temp_directory_path() / "tilescope-toolchains-XXXXXX").string();
    if (::mkdtemp(t.data())) path = t;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

/// What a toolchain can build: a Python package's spec for a Python kernel, a
/// compiler for CUDA C++.
std::string mismatch(const Toolchain& t, const Config& cfg) {
  const bool cuda = !t.compiler.empty();
  if (cfg.kernel.isPython() && cuda)
    return t.spec + ": a CUDA C++ compiler, and " + cfg.name + " is a " + cfg.kernel.language + " kernel";
  if (!cfg.kernel.isPython() && !cuda)
    return t.spec + ": a Python toolchain, and " + cfg.name + " is a CUDA C++ kernel (name nvrtc or nvcc)";
  if (!t.package.empty() && cfg.kernel.isPython() && t.package != cfg.kernel.language)
    return t.spec + ": " + cfg.name + " is a " + cfg.kernel.language + " kernel";
  return {};
}

Side compileSide(const ToolchainCompareArgs& a, const Config& cfg, Toolchain t, const fs::path& dir,
                 int index) {
  Side s;
  s.toolchain = std::move(t);
  ToolchainInstall how;
  how.offline = a.offline;
  how.wheelhouse = a.wheelhouse;
  how.install = !a.noInstall;
  how.progress = [&](const std::string& m) { std::cerr << "toolchain: " << m << '\n'; };
  if (std::string why = resolveToolchain(s.toolchain, how); !why.empty()) {
    s.unavailable = why;
    return s;
  }
  // Installed first, so that a version pip does not know says so (tests/cli/toolchains.sh).
  if (std::string why = unsupportedVersion(s.toolchain.package, s.toolchain.version); !why.empty()) {
    s.unavailable = why;
    return s;
  }
  const fs::path out = dir / ("side" + std::to_string(index) + ".json");
  // A check compiles for a device of the database; a run for the GPU it runs on.
  std::vector<std::string> argv{selfExecutable(), a.run ? "run" : "check", a.config, "--stages", "-o",
                                out.string()};
  const std::string device = !s.toolchain.device.empty() ? s.toolchain.device : a.device;
  if (!device.empty() && !a.run) argv.insert(argv.end(), {"--device", device});
  if (!s.toolchain.compiler.empty()) argv.insert(argv.end(), {"--compiler", s.toolchain.compiler});
  for (const auto& o : s.toolchain.options) argv.push_back("--compile-option=" + o);
  if (a.consent.commands) argv.push_back("--allow-commands");
  if (a.consent.outsidePaths) argv.push_back("--allow-outside-paths");
  std::vector<std::string> env;
  if (!s.toolchain.python.empty()) env.push_back("TILESCOPE_PYTHON=" + s.toolchain.python);
  std::cerr << "toolchain " << s.toolchain.spec << ": compile " << cfg.name << '\n';
  ChildResult c = runChild(
      argv, a.timeoutS, [](const std::string&) {}, {}, {}, env);
  std::error_code ec;
  if (!fs::is_regular_file(out, ec)) {
    s.noGpu = a.run && c.started && c.exitCode == kExitNoGpu;
    s.unavailable = std::string(a.run ? "the run" : "the check") + " under " + s.toolchain.spec +
                    " wrote no report (" + (c.started ? "exit " + std::to_string(c.exitCode) : c.startError) +
                    "): " + lastLine(c.stderrText);
    return s;
  }
  try {
    s.report = std::make_shared<Report>(loadReport(out));
  } catch (const std::exception& e) {
    s.unavailable = "the report under " + s.toolchain.spec + " does not read: " + e.what();
    return s;
  }
  if (s.report->noGpu || !s.point()) {
    s.unavailable =
        "no run under " + s.toolchain.spec + ": " +
        (s.point() && !s.point()->status.captureError.empty() ? s.point()->status.captureError : "no GPU");
    s.noGpu = s.report->noGpu;
    s.report.reset();
    return s;
  }
  // An interpreter's Triton (python=PATH, the default one) too old for the helper:
  // its "does not compile" would be the helper's, not the kernel's.
  const std::string& compiler = s.point()->compile.compiler;
  if (compiler.rfind("triton ", 0) == 0)
    if (std::string why = unsupportedVersion("triton", compiler.substr(7)); !why.empty()) {
      s.unavailable = why;
      s.report.reset();
    }
  return s;
}

json sideJson(const Side& s) {
  json j = {{"toolchain", s.toolchain.spec}};
  if (!s.toolchain.python.empty()) j["python"] = s.toolchain.python;
  if (!s.unavailable.empty()) {
    j["unavailable"] = s.unavailable;
    return j;
  }
  const Point& p = *s.point();
  j["verdict"] = verdictName(p.verdict);
  j["compiled"] = p.compile.ok;
  j["compiler"] = p.stages.compiler.empty() ? p.compile.compiler : p.stages.compiler;
  j["arch"] = p.compile.arch;
  if (p.compile.regs >= 0) j["registers"] = p.compile.regs;
  if (p.compile.smemStatic >= 0) j["static_shared_bytes"] = p.compile.smemStatic;
  if (p.compile.spillStores >= 0) j["spill_store_bytes"] = p.compile.spillStores;
  j["shared_bytes"] = p.launch.sharedBytes;
  if (!p.compile.ok) {
    const CompileFailure why = compileFailure(p);
    if (!why.message.empty()) j["error"] = why.message;
    if (!why.location.empty()) j["error_location"] = why.location;
    if (!why.sourceLine.empty()) j["error_source_line"] = why.sourceLine;
  }
  json stages = json::object();
  for (const auto& st : p.stages.stages) stages[st.name] = st.present ? json(st.lines) : json(nullptr);
  j["stage_lines"] = stages;
  return j;
}

/// The two sides' difference: compile result, resources, the stages.
json diffJson(const Side& a, const Side& b, std::string* firstStage) {
  json d = json::object();
  if (!a.point() || !b.point()) return d;
  const Point &pa = *a.point(), &pb = *b.point();
  d["compile"] = pa.compile.ok == pb.compile.ok ? (pa.compile.ok ? "both compile" : "neither compiles")
                 : pa.compile.ok                ? "only " + a.toolchain.spec + " compiles"
                                                : "only " + b.toolchain.spec + " compiles";
  if (pa.compile.regs >= 0 && pb.compile.regs >= 0) d["registers"] = {pa.compile.regs, pb.compile.regs};
  d["shared_bytes"] = {pa.launch.sharedBytes, pb.launch.sharedBytes};
  const StagesDiff sd = diffStages(pa.stages, pb.stages);
  *firstStage = sd.firstDiffering;
  d["stages"] = toJson(sd);
  return d;
}

std::string bisectText(const json& r) {
  return r.contains("bisect") ? "  bisect: " + r["bisect"]["summary"].get<std::string>() + "\n" : "";
}

/// When one side made no stage at all (it did not compile), one line for the
/// stage table: the other side's stages and their ops. False when both made some.
bool stagesOfOneSide(const json& r, std::ostringstream& o) {
  const json& stages = r["diff"]["stages"]["stages"];
  auto none = [&](const char* present) {
    return std::none_of(stages.begin(), stages.end(),
                        [&](const json& st) { return st[present].get<bool>(); });
  };
  const bool noneA = none("present_a"), noneB = none("present_b");
  if (noneA == noneB) return false;
  const std::string empty = r["sides"][noneA ? 0 : 1]["toolchain"].get<std::string>();
  const std::string other = r["sides"][noneA ? 1 : 0]["toolchain"].get<std::string>();
  o << "    no stage under " << empty << "; under " << other << ":";
  for (const auto& st : stages)
    if (st[noneA ? "present_b" : "present_a"].get<bool>())
      o << ' ' << st["stage"].get<std::string>() << ' ' << st[noneA ? "ops_b" : "ops_a"].get<int>() << " ops"
        << (&st == &stages.back() ? "" : ",");
  o << '\n';
  return true;
}

std::string text(const json& r) {
  std::ostringstream o;
  o << "compare " << r["config"].get<std::string>() << " under " << r["sides"].size() << " toolchains\n";
  for (const auto& s : r["sides"]) {
    o << "  " << s["toolchain"].get<std::string>() << ": ";
    if (s.contains("unavailable")) {
      o << "unavailable: " << s["unavailable"].get<std::string>() << '\n';
      continue;
    }
    o << (s["compiled"].get<bool>() ? "compiles" : "does not compile");
    if (!s["compiler"].get<std::string>().empty())
      o << " (" << s["compiler"].get<std::string>() << ", " << s["arch"].get<std::string>() << ")";
    if (s.contains("registers")) o << ", " << s["registers"].get<int>() << " registers";
    if (s["compiled"].get<bool>()) o << ", " << s["shared_bytes"].get<std::int64_t>() << " B shared";
    if (s.contains("error"))
      o << "\n      error"
        << (s.contains("error_location") ? " at " + s["error_location"].get<std::string>() : "") << ": "
        << s["error"].get<std::string>();
    if (s.contains("error_source_line")) o << "\n        " << s["error_source_line"].get<std::string>();
    o << '\n';
  }
  if (r.contains("diff") && r["diff"].contains("stages")) {
    const json& d = r["diff"];
    o << "  " << d["compile"].get<std::string>() << "; first stage that differs: "
      << (r["first_differing_stage"].get<std::string>().empty()
              ? "none (every stage's ops agree)"
              : r["first_differing_stage"].get<std::string>())
      << '\n';
    if (stagesOfOneSide(r, o)) return o.str() + bisectText(r);
    for (const auto& st : d["stages"]["stages"]) {
      o << "    " << st["stage"].get<std::string>() << ": ";
      if (!st["present_a"].get<bool>() || !st["present_b"].get<bool>()) {
        o << (st["present_a"].get<bool>() ? "present" : "absent") << " / "
          << (st["present_b"].get<bool>() ? "present" : "absent") << '\n';
        continue;
      }
      o << st["ops_a"].get<int>() << " / " << st["ops_b"].get<int>() << " ops";
      int shown = 0;
      for (const auto& c : st["changed"]) {
        if (shown++ == 4) break;
        o << (shown == 1 ? ": " : ", ") << c["op"].get<std::string>() << " " << c["a"].get<int>() << " -> "
          << c["b"].get<int>();
      }
      o << '\n';
    }
  }
  return o.str() + bisectText(r);
}

}  // namespace

namespace {

/// The outcome bisect compares: compiled or not, and the check's verdict.
std::string outcome(const Side& s) {
  if (!s.unavailable.empty()) return "unavailable";
  return std::string(s.compiled() ? "compiles" : "does not compile") + ", " + verdictName(s.point()->verdict);
}

std::vector<std::string> bisectSpecs(const std::string& list, const Config& cfg) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : list + ",") {
    if (c != ',') {
      cur += c;
      continue;
    }
    cur = std::string(trimmed(cur));
    // A bare version is the config's language's; a whole spec (triton, python=...) stays.
    const bool version = !cur.empty() && std::isdigit(static_cast<unsigned char>(cur.front()));
    if (!cur.empty()) out.push_back(version ? cfg.kernel.language + "==" + cur : cur);
    cur.clear();
  }
  return out;
}

/// Walks `specs` (oldest first) to the first whose outcome differs from the
/// first's; sides[0] and sides[1] become the last like it and the first unlike.
json bisect(const ToolchainCompareArgs& a, const Config& cfg, const std::vector<Toolchain>& specs,
            const fs::path& dir, std::vector<Side>* sides) {
  std::map<std::size_t, Side> tried;
  auto at = [&](std::size_t i) -> const Side& {
    if (!tried.count(i)) tried[i] = compileSide(a, cfg, specs[i], dir, static_cast<int>(i));
    return tried[i];
  };
  const std::string first = outcome(at(0));
  json j = {{"versions", json::array()}};
  for (const auto& t : specs) j["versions"].push_back(t.spec);
  std::size_t lo = 0, hi = specs.size() - 1;
  if (outcome(at(hi)) == first) {
    j["summary"] = "every version " + first.substr(0, first.find(',')) + " as " + specs[0].spec + " does (" +
                   std::to_string(tried.size()) + " tried)";
    sides->push_back(at(0));
    sides->push_back(at(hi));
  } else {
    while (hi - lo > 1) {
      const std::size_t mid = lo + (hi - lo) / 2;
      (outcome(at(mid)) == first ? lo : hi) = mid;
    }
    j["last_good"] = specs[lo].spec;
    j["first_bad"] = specs[hi].spec;
    j["summary"] = specs[hi].spec + " is the first that " + outcome(at(hi)) + " (" + specs[lo].spec + ": " +
                   first + "; " + std::to_string(tried.size()) + " of " + std::to_string(specs.size()) +
                   " versions tried)";
    sides->push_back(at(lo));
    sides->push_back(at(hi));
  }
  j["tried"] = json::object();
  for (const auto& [i, s] : tried) j["tried"][specs[i].spec] = outcome(s);
  return j;
}

}  // namespace

int compareToolchains(const ToolchainCompareArgs& a) {
  Config cfg;
  if (auto status = admitConfig(a.config, a.consent, false, &cfg)) return *status;
  std::vector<Toolchain> specs;
  try {
    for (const auto& s : a.bisect.empty() ? a.toolchains : bisectSpecs(a.bisect, cfg))
      specs.push_back(parseToolchain(s));
  } catch (const std::exception& e) {
    return usageError(e.what());
  }
  if (specs.size() < 2)
    return usageError(a.bisect.empty() ? "compare CONFIG needs two toolchains: --toolchain A --toolchain B"
                                       : "--bisect needs at least two versions (V1,V2,...)");
  for (const auto& t : specs) {
    if (std::string why = mismatch(t, cfg); !why.empty()) return usageError(why);
    // A bisect over a version the helper cannot use would find the helper's change, not the kernel's.
    if (std::string why = unsupportedVersion(t.package, t.version); !a.bisect.empty() && !why.empty())
      return usageError("--bisect " + t.spec + ": " + why + "; start the list at " + kOldestTriton +
                        " or later");
  }
  TempDir dir;
  if (dir.path.empty()) return usageError("could not create a temporary folder");
  std::vector<Side> sides;
  json r = {{"schema", "tilescope.toolchains/1"}, {"config", a.config}};
  if (!a.bisect.empty()) {
    r["bisect"] = bisect(a, cfg, specs, dir.path, &sides);
  } else {
    for (std::size_t i = 0; i < specs.size(); ++i)
      sides.push_back(compileSide(a, cfg, specs[i], dir.path, static_cast<int>(i)));
  }
  r["sides"] = json::array();
  for (const auto& s : sides) r["sides"].push_back(sideJson(s));
  std::string firstStage;
  r["diff"] = diffJson(sides[0], sides[1], &firstStage);
  r["first_differing_stage"] = firstStage;
  // On a GPU: the two runs' verdicts, correctness, timing and counters (docs/compare.md).
  std::string runText;
  if (a.run && sides[0].report && sides[1].report) {
    const ReportDiff rd = diffReports(*sides[0].report, sides[0].toolchain.spec, 0, *sides[1].report,
                                      sides[1].toolchain.spec, 0);
    r["run_diff"] = toJson(rd);
    runText = renderPlainText(buildCompareDocument(rd));
  }
  const bool anyUnavailable =
      std::any_of(sides.begin(), sides.end(), [](const Side& s) { return !s.unavailable.empty(); });
  if (!a.output.empty()) {
    try {
      writeFileAtomically(a.output, r.dump(1) + "\n");
    } catch (const std::exception& e) {
      return usageError(a.output + ": cannot write: " + e.what());
    }
    std::cerr << "comparison written to " << a.output << '\n';
  }
  std::cout << (a.format == "json" ? r.dump(1) + "\n" : text(r) + runText);
  // Exit 3 when --run found no GPU, 2 when a side could not compile at all (not
  // installed, no report): the comparison is incomplete; else 0, whatever the
  // compilers said.
  if (std::any_of(sides.begin(), sides.end(), [](const Side& s) { return s.noGpu; })) return kExitNoGpu;
  return anyUnavailable ? kExitUsage : kExitOk;
}

void addToolchainCompareOptions(CLI::App* c, ToolchainCompareArgs& a) {
  c->add_option("--toolchain", a.toolchains,
                "compare CONFIG: a toolchain (triton==3.5.1, tilelang==0.1.15, python=PATH, "
                "\"nvcc -O0 -G\", \"nvrtc device=a100\"); give two (docs/toolchains.md)");
  c->add_option("--bisect", a.bisect,
                "compare CONFIG: versions oldest first (3.5.0,3.5.1,3.6.0): the first whose compile "
                "differs from the first's");
  c->add_flag("--run", a.run,
              "compare CONFIG: run each side on the GPU (tilescope-run run) and compare the runs too: "
              "verdicts, correctness, timing, counters");
  c->add_flag("--offline", a.offline, "install toolchains without the network (pip --no-index)");
  c->add_option("--wheelhouse", a.wheelhouse,
                "a folder of wheels to install toolchains from (pip --find-links)");
  c->add_flag("--no-install", a.noInstall, "use only toolchains already installed");
  c->add_option("--device", a.device, "compile for this device of the database (default h100)");
  c->add_flag("--allow-commands", a.consent.commands,
              "compile with options that run programs, and import a Python kernel unconfined");
  c->add_flag("--allow-outside-paths", a.consent.outsidePaths,
              "read sources and includes outside the config's folder");
}

}  // namespace tilescope::cli
