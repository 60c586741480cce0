// #include scanning (includes.h). A hand-written line reader, not a regex:
// std::regex recurses per character and a megabyte-long line would overflow
// the stack.
#include "tilescope/config/includes.h"

#include <fstream>
#include <set>
#include <string_view>

namespace tilescope {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxFileBytes = std::size_t{16} << 20;

bool readSmallFile(const fs::path& p, std::string* out) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return false;
  const auto size = fs::file_size(p, ec);
  if (ec || size > kMaxFileBytes) return false;
  std::ifstream in(p, std::ios::binary);
  if (!in) return false;
  out->assign(static_cast<std::size_t>(size), '\0');
  in.read(out->data(), static_cast<std::streamsize>(size));
  out->resize(static_cast<std::size_t>(in.gcount()));
  return true;
}

std::size_t skipBlanks(std::string_view s, std::size_t i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return i;
}

/// For an #include (or #include_next) line: the text after the keyword,
/// trimmed; std::nullopt for any other line.
bool includeOperand(std::string_view line, std::string_view* operand) {
  std::size_t i = skipBlanks(line, 0);
  if (i >= line.size() || line[i] != '#') return false;
  i = skipBlanks(line, i + 1);
  constexpr std::string_view kw = "include";
  if (line.substr(i, kw.size()) != kw) return false;
  i += kw.size();
  if (line.substr(i, 5) == "_next") i += 5;
  if (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '"' && line[i] != '<') return false;
  i = skipBlanks(line, i);
  std::size_t end = line.size();
  while (end > i && (line[end - 1] == ' ' || line[end - 1] == '\t' || line[end - 1] == '\r')) --end;
  *operand = line.substr(i, end - i);
  return true;
}

struct Walker {
  const IncludeSearch& search;
  IncludeScan& scan;
  std::set<std::string> seen;

  fs::path find(const fs::path& from, std::string_view name, bool quoted) const {
    std::vector<fs::path> candidates;
    const fs::path n{std::string(name)};
    if (n.is_absolute()) {
      candidates.push_back(n);
    } else {
      if (quoted) candidates.push_back(from.parent_path() / n);
      for (const auto& d : search.dirs) candidates.push_back(d / n);
    }
    std::error_code ec;
    for (const auto& c : candidates)
      if (fs::is_regular_file(c, ec)) return c.lexically_normal();
    return {};
  }

  void visit(const fs::path& file) {
    if (scan.files.size() >= IncludeScan::kMaxFiles) {
      scan.truncated = true;
      return;
    }
    std::error_code ec;
    const fs::path real = fs::weakly_canonical(file, ec);
    if (!seen.insert((ec ? file : real).string()).second) return;
    scan.files.push_back(ec ? file : real);
    std::string text;
    if (!readSmallFile(file, &text)) return;
    std::string_view all(text);
    int lineNo = 0;
    for (std::size_t pos = 0; pos <= all.size();) {
      std::size_t nl = all.find('\n', pos);
      if (nl == std::string_view::npos) nl = all.size();
      std::string_view line = all.substr(pos, nl - pos);
      pos = nl + 1;
      ++lineNo;
      std::string_view op;
      if (!includeOperand(line, &op)) continue;
      IncludeEdge e;
      e.from = file;
      e.line = lineNo;
      const bool quoted = !op.empty() && op.front() == '"';
      const bool angled = !op.empty() && op.front() == '<';
      const std::size_t close = quoted ? op.find('"', 1) : angled ? op.find('>', 1) : std::string_view::npos;
      if ((!quoted && !angled) || close == std::string_view::npos) {
        e.computed = true;
        e.spelled = std::string(op.substr(0, 200));
        scan.edges.push_back(e);
        continue;
      }
      const std::string_view name = op.substr(1, close - 1);
      e.spelled = std::string(op.substr(0, close + 1));
      e.to = find(file, name, quoted);
      scan.edges.push_back(e);
      if (!e.to.empty()) visit(e.to);
    }
  }
};

bool startsWith(const std::string& s, std::string_view p) { return s.compare(0, p.size(), p) == 0; }

/// The include-path options: {spelling, is a file (-include) rather than a folder}.
constexpr std::pair<std::string_view, bool> kPathOptions[] = {
    {"-I", false},      {"-isystem", false},    {"--include-path", false}, {"--system-include", false},
    {"-include", true}, {"--pre-include", true}};

fs::path against(const fs::path& base, const std::string& value) {
  fs::path p(value);
  return p.is_absolute() ? p : (base / p).lexically_normal();
}

/// Calls f(value, isFile, index) for each include path in `options`; f may
/// rewrite the value in place. `index` is that of the option naming the path.
template <class F>
void forEachPathOption(std::vector<std::string>& options, F&& f) {
  for (std::size_t i = 0; i < options.size(); ++i) {
    std::string& o = options[i];
    for (const auto& [p, isFile] : kPathOptions) {
      const std::string eq = std::string(p) + "=";
      if (o == p && i + 1 < options.size()) {
        f(options[i + 1], isFile, i);
        ++i;
        break;
      }
      if (startsWith(o, eq)) {
        std::string v = o.substr(eq.size());
        f(v, isFile, i);
        o = eq + v;
        break;
      }
      // Joined short forms: -Ifoo, -isystemfoo (not -include: "-includefoo" is not a form).
      if ((p == "-I" || p == "-isystem") && startsWith(o, p) && o.size() > p.size()) {
        std::string v = o.substr(p.size());
        f(v, isFile, i);
        o = std::string(p) + v;
        break;
      }
    }
  }
}

fs::path optionBase(const KernelSpec& k) {
  return fs::absolute(k.baseDir.empty() ? k.sourcePath.parent_path() : k.baseDir);
}

}  // namespace

IncludeScan scanIncludes(const fs::path& source, const IncludeSearch& search) {
  IncludeScan scan;
  Walker w{search, scan, {}};
  for (const auto& pre : search.preIncludes) w.visit(pre);
  w.visit(source);
  return scan;
}

std::vector<IncludePathOption> includePathOptions(const KernelSpec& k) {
  std::vector<std::string> options = k.options;
  const fs::path base = optionBase(k);
  std::vector<IncludePathOption> out;
  forEachPathOption(options, [&](std::string& v, bool isFile, std::size_t i) {
    out.push_back({i, v, against(base, v), isFile});
  });
  return out;
}

std::vector<std::string> absoluteIncludeOptions(const KernelSpec& k) {
  std::vector<std::string> options = k.options;
  const fs::path base = optionBase(k);
  forEachPathOption(options, [&](std::string& v, bool, std::size_t) { v = against(base, v).string(); });
  return options;
}

IncludeSearch includeSearchFor(const KernelSpec& k, const fs::path& toolkitRoot) {
  IncludeSearch s;
  s.dirs.push_back(fs::absolute(k.sourcePath).lexically_normal().parent_path());
  if (!toolkitRoot.empty()) s.dirs.push_back(toolkitRoot / "include");
  for (const IncludePathOption& o : includePathOptions(k))
    (o.isFile ? s.preIncludes : s.dirs).push_back(o.path);
  return s;
}

}  // namespace tilescope
