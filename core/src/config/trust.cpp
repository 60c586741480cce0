// Commands and paths a config asks for (trust.h). Compiler options are judged
// against a list of options known to be harmless: an unknown option may run a
// program (nvcc's -ccbin, the host compiler's -wrapper, -fplugin, -B) or write
// a file (-o, -time, -keep), so it needs consent rather than a guess.
#include "tilescope/config/trust.h"

#include <algorithm>
#include <iterator>
#include <string_view>

#include "tilescope/base/json_input.h"
#include "tilescope/config/config_inputs.h"

namespace tilescope {

namespace fs = std::filesystem;

namespace {

// Flags without a value that only change code generation or diagnostics
// (NVRTC, nvcc and ptxas spellings).
constexpr std::string_view kSafeFlags[] = {"-G",
                                           "--device-debug",
                                           "-lineinfo",
                                           "--generate-line-info",
                                           "-use_fast_math",
                                           "--use_fast_math",
                                           "-rdc=true",
                                           "-rdc=false",
                                           "-ewp",
                                           "--extensible-whole-program",
                                           "-w",
                                           "--disable-warnings",
                                           "-restrict",
                                           "--restrict",
                                           "-default-device",
                                           "--device-as-default-execution-space",
                                           "--device-int128",
                                           "-device-int128",
                                           "--extra-device-vectorization",
                                           "-extra-device-vectorization",
                                           "--expt-relaxed-constexpr",
                                           "-expt-relaxed-constexpr",
                                           "--expt-extended-lambda",
                                           "-expt-extended-lambda",
                                           "--extended-lambda",
                                           "-extended-lambda",
                                           "-Wno-deprecated-gpu-targets",
                                           "--Wno-deprecated-gpu-targets",
                                           "-Wno-deprecated-declarations",
                                           "--Wno-deprecated-declarations",
                                           "-Werror=all-warnings",
                                           "--Werror=all-warnings",
                                           "--display-error-number",
                                           "--no-display-error-number",
                                           "--brief-diagnostics",
                                           "-brief-diagnostics",
                                           "--resource-usage",
                                           "-res-usage",
                                           "-src-in-ptx",
                                           "--source-in-ptx",
                                           "-v",
                                           "--verbose",
                                           "--warn-on-spills",
                                           "--warn-on-local-memory-usage",
                                           "--allow-expensive-optimizations",
                                           "-dlto"};

// Options taking a value (joined with '=' or as the next element) that only
// change code generation or diagnostics.
constexpr std::string_view kSafeValued[] = {"-arch",
                                            "--gpu-architecture",
                                            "-code",
                                            "--gpu-code",
                                            "-gencode",
                                            "--generate-code",
                                            "-std",
                                            "--std",
                                            "-maxrregcount",
                                            "--maxrregcount",
                                            "-ftz",
                                            "--ftz",
                                            "-prec-div",
                                            "--prec-div",
                                            "-prec-sqrt",
                                            "--prec-sqrt",
                                            "-fmad",
                                            "--fmad",
                                            "-rdc",
                                            "--relocatable-device-code",
                                            "-dopt",
                                            "--dopt",
                                            "-diag-suppress",
                                            "--diag-suppress",
                                            "-diag-error",
                                            "--diag-error",
                                            "-diag-warn",
                                            "--diag-warn",
                                            "-dlcm",
                                            "--def-load-cache",
                                            "-dscm",
                                            "--def-store-cache",
                                            "--modify-stack-limit",
                                            "-split-compile",
                                            "--split-compile",
                                            "--jump-table-density",
                                            "-O",
                                            "--optimize"};

// Options that name a program to run or a file to write: named in the message.
struct Risky {
  std::string_view name, why;
  bool valued;  // its value is the next element unless joined with '='
};
constexpr Risky kKnownRisky[] = {
    {"-ccbin", "names the host compiler nvcc runs", true},
    {"--compiler-bindir", "names the host compiler nvcc runs", true},
    {"-Xcompiler", "passes options to the host compiler, which can run programs (-wrapper, -fplugin, -B)",
     true},
    {"--compiler-options",
     "passes options to the host compiler, which can run programs (-wrapper, -fplugin, -B)", true},
    {"-Xlinker", "passes options to the host linker", true},
    {"--linker-options", "passes options to the host linker", true},
    {"-Xnvlink", "passes options to nvlink", true},
    {"-Xarchive", "passes options to the archiver", true},
    {"-Xfatbin", "passes options to fatbinary", true},
    {"-Xcudafe", "passes options to the front end", true},
    {"-arbin", "names the archiver nvcc runs", true},
    {"--archiver-binary", "names the archiver nvcc runs", true},
    {"-run", "runs the compiled program", false},
    {"--run", "runs the compiled program", false},
    {"-optf", "reads further options (which may name programs) from a file", true},
    {"--options-file", "reads further options (which may name programs) from a file", true},
    {"-o", "writes the output to a file of its choosing", true},
    {"--output-file", "writes the output to a file of its choosing", true},
    {"-odir", "writes the output into a folder of its choosing", true},
    {"-keep", "writes intermediate files", false},
    {"-keep-dir", "writes intermediate files into a folder of its choosing", true},
    {"-MF", "writes a dependency file of its choosing", true},
    {"-time", "writes a timing file of its choosing", true},
    {"--time", "writes a timing file of its choosing", true},
};

// ptxas options behind -Xptxas (comma separated).
constexpr std::string_view kSafePtxas[] = {"-v",
                                           "--verbose",
                                           "-O0",
                                           "-O1",
                                           "-O2",
                                           "-O3",
                                           "--warn-on-spills",
                                           "--warn-on-local-memory-usage",
                                           "--warn-on-double-precision-use",
                                           "--allow-expensive-optimizations",
                                           "-warn-spills",
                                           "-warn-lmem-usage"};
constexpr std::string_view kSafePtxasValued[] = {"--maxrregcount",   "-maxrregcount", "-dlcm",
                                                 "--def-load-cache", "-dscm",         "--def-store-cache"};

template <std::size_t N>
bool contains(const std::string_view (&list)[N], std::string_view s) {
  return std::find(std::begin(list), std::end(list), s) != std::end(list);
}

/// "-name=value" -> "-name"; others unchanged.
std::string_view nameOf(std::string_view option) {
  const auto eq = option.find('=');
  return eq == std::string_view::npos ? option : option.substr(0, eq);
}

bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string ptxasRisk(std::string_view value) {
  std::size_t start = 0;
  while (start <= value.size()) {
    const auto comma = value.find(',', start);
    const std::string_view sub =
        value.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (!sub.empty() && !contains(kSafePtxas, sub) && !contains(kSafePtxasValued, nameOf(sub)))
      return "passes '" + clipForMessage(std::string(sub)) +
             "' to ptxas, an option TileScope does not know to be harmless";
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return "";
}

}  // namespace

std::string compilerOptionRisk(const std::vector<std::string>& options, std::size_t i,
                               std::size_t* consumed) {
  *consumed = 1;
  const std::string_view o = options[i];
  const bool hasNext = i + 1 < options.size();
  const std::string_view name = nameOf(o);
  const bool joined = name.size() != o.size();
  auto value = [&]() -> std::string_view {
    if (joined) return o.substr(name.size() + 1);
    if (!hasNext) return {};
    *consumed = 2;
    return options[i + 1];
  };
  // Macros and include paths (where include paths point is checked elsewhere).
  for (std::string_view p : {"-D", "-U", "-I", "-isystem"})
    if (startsWith(o, p) && o.size() > p.size()) return "";
  for (std::string_view p : {"-D", "-U", "-I", "-isystem", "--define-macro", "--undefine-macro",
                             "--include-path", "--system-include", "-include", "--pre-include"})
    if (name == p) {
      (void)value();
      return "";
    }
  if (startsWith(o, "-O") && o.size() == 3 && o[2] >= '0' && o[2] <= '3') return "";
  if (contains(kSafeFlags, o)) return "";
  if (name == "-Xptxas" || name == "--ptxas-options") return ptxasRisk(value());
  if (contains(kSafeValued, name)) {
    (void)value();
    return "";
  }
  for (const Risky& r : kKnownRisky)
    if (name == r.name) {
      if (r.valued) (void)value();
      return std::string(name) + " " + std::string(r.why);
    }
  return "'" + clipForMessage(std::string(o)) +
         "' is not an option TileScope knows to be harmless (it could run a program or write a file)";
}

namespace {

void optionIssues(const KernelSpec& k, const std::string& base, std::vector<TrustIssue>& out) {
  for (std::size_t i = 0; i < k.options.size();) {
    std::size_t used = 1;
    std::string risk = compilerOptionRisk(k.options, i, &used);
    if (!risk.empty()) out.push_back({base + ".options[" + std::to_string(i) + "]", risk});
    i += used;
  }
}

}  // namespace

std::vector<TrustIssue> commandIssues(const Config& config) {
  std::vector<TrustIssue> out;
  if (config.baseline.kind == "command")
    out.push_back(
        {"baseline.command", "runs `" + clipForMessage(config.baseline.command, 200) + "` through /bin/sh"});
  optionIssues(config.kernel, "kernel", out);
  if (config.reference.op == "kernel") optionIssues(config.reference.kernel, "reference", out);
  return out;
}

std::vector<fs::path> trustedRoots(const Config& config, const fs::path& toolkitRoot) {
  std::vector<fs::path> roots;
  std::error_code ec;
  fs::path dir = fs::weakly_canonical(config.dir.empty() ? fs::path(".") : config.dir, ec);
  if (!ec) roots.push_back(dir);
  if (!toolkitRoot.empty()) {
    fs::path t = fs::weakly_canonical(toolkitRoot, ec);
    if (!ec) roots.push_back(t);
  }
  return roots;
}

bool insideRoots(const fs::path& file, const std::vector<fs::path>& roots) {
  std::error_code ec;
  const fs::path real = fs::weakly_canonical(file, ec);
  if (ec) return false;
  for (const auto& root : roots) {
    // Component-wise prefix: /a/bc is not inside /a/b.
    auto r = root.begin();
    auto f = real.begin();
    for (; r != root.end() && f != real.end() && *r == *f; ++r, ++f) {
    }
    if (r == root.end() || (std::next(r) == root.end() && r->empty())) return true;
  }
  return false;
}

namespace {

void checkPath(const fs::path& p, const std::string& jsonPath, const std::string& shown,
               const std::vector<fs::path>& roots, std::vector<TrustIssue>& out) {
  if (insideRoots(p, roots)) return;
  std::error_code ec;
  const fs::path real = fs::weakly_canonical(p, ec);
  out.push_back({jsonPath, "'" + clipForMessage(shown, 200) + "' resolves to " + (ec ? p : real).string() +
                               ", outside the config's folder" +
                               (roots.empty() ? "" : " (" + roots.front().string() + ")")});
}

/// An #include line of the config's kernels that reads outside `roots`, or that
/// names its file through a macro (nobody can say where it points).
void includeIssue(const ConfigInput& in, const std::vector<fs::path>& toolkit,
                  const std::vector<fs::path>& roots, std::vector<TrustIssue>& out) {
  if (!toolkit.empty() && insideRoots(in.from, toolkit)) return;  // the toolkit's own headers
  const std::string site = in.from.filename().string() + ":" + std::to_string(in.line);
  if (in.kind == ConfigInput::Kind::computedInclude) {
    out.push_back(
        {in.jsonPath, "#include " + clipForMessage(in.spelled) + " (" + site +
                          ") names its file through a macro: TileScope cannot check where it points"});
  } else if (!in.path.empty() && !insideRoots(in.path, roots)) {
    std::error_code ec;
    out.push_back({in.jsonPath, "#include " + clipForMessage(in.spelled) + " (" + site + ") reads " +
                                    fs::weakly_canonical(in.path, ec).string() +
                                    ", outside the config's folder"});
  }
}

}  // namespace

std::vector<TrustIssue> pathIssues(const Config& config, const fs::path& toolkitRoot) {
  std::vector<TrustIssue> out;
  const std::vector<fs::path> roots = trustedRoots(config, toolkitRoot);
  std::error_code ec;
  const std::vector<fs::path> toolkit = toolkitRoot.empty()
                                            ? std::vector<fs::path>{}
                                            : std::vector<fs::path>{fs::weakly_canonical(toolkitRoot, ec)};
  bool inIncludes = false, skipIncludes = false;
  for (const ConfigInput& in : configInputs(config, toolkitRoot)) {
    const bool include =
        in.kind == ConfigInput::Kind::include || in.kind == ConfigInput::Kind::computedInclude;
    // The #include lines themselves: a kernel may name any file ("/etc/passwd",
    // "../../secret.h"), and the compiler would copy its first lines into the log.
    // Where a source or folder is outside already, that is said once: a kernel's
    // #include lines are skipped when an issue precedes them.
    if (include && !inIncludes) skipIncludes = !out.empty();
    inIncludes = include;
    if (include) {
      if (!skipIncludes) includeIssue(in, toolkit, roots, out);
    } else if (in.kind != ConfigInput::Kind::config && in.kind != ConfigInput::Kind::module) {
      // Not the config (the file the user named) nor modules (read from the source's folder, which is
      // checked).
      checkPath(in.path, in.jsonPath, in.spelled, roots, out);
    }
  }
  return out;
}

std::string describeIssues(const std::vector<TrustIssue>& issues) {
  std::string s;
  for (const auto& i : issues) s += (s.empty() ? "" : "; ") + i.path + ": " + i.what;
  return s;
}

}  // namespace tilescope
