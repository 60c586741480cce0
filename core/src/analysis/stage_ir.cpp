// Source lines of Triton's IR (compiler_stages.h): MLIR's `loc(...)` (TTIR,
// TTGIR) and LLVM IR's `!dbg` metadata, read line by line in linear time.
#include <map>

#include "stage_text.h"
#include "tilescope/analysis/compiler_stages.h"

namespace tilescope {

using namespace stage_text;

namespace {

struct FileLine {
  std::string file;
  int line = 0;
};

/// The text between `open` (just past a '(' or '[') and its matching bracket.
std::string_view balanced(std::string_view s, std::size_t open) {
  int depth = 1;
  bool inQuote = false;
  for (std::size_t i = open; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"') inQuote = !inQuote;
    if (inQuote) continue;
    if (c == '(' || c == '[') ++depth;
    if ((c == ')' || c == ']') && --depth == 0) return s.substr(open, i - open);
  }
  return s.substr(open);
}

class MlirLocs {
 public:
  void define(std::string_view t) {
    // #loc12 = loc("/dir/k.py":21:37)
    const auto eq = t.find(" = loc(");
    if (eq == std::string_view::npos) return;
    m_alias[std::string(t.substr(0, eq))] = std::string(balanced(t, eq + 7));
  }
  /// The file and line of a location expression (what is inside `loc(...)`).
  FileLine resolve(std::string_view e, int depth = 0) const {
    e = trim(e);
    if (depth > 32 || e.empty()) return {};
    if (e[0] == '#') {
      const auto it = m_alias.find(std::string(e.substr(0, e.find_first_of(" ,)]"))));
      return it == m_alias.end() ? FileLine{} : resolve(it->second, depth + 1);
    }
    if (startsWith(e, "callsite(")) {
      const auto inner = balanced(e, 9);
      const auto at = inner.find(" at ");  // callsite(callee at caller): the callee's line
      return resolve(inner.substr(0, at), depth + 1);
    }
    if (startsWith(e, "fused")) {
      const auto open = e.find('[');
      return open == std::string_view::npos ? FileLine{} : resolve(balanced(e, open + 1), depth + 1);
    }
    if (e[0] != '"') return {};
    std::size_t end = 0;
    std::string name = quoted(e, &end);
    if (end < e.size() && e[end] == '(') return resolve(balanced(e, end + 1), depth + 1);  // "name"(loc)
    if (end >= e.size() || e[end] != ':') return {};
    const long long line = leadingInt(e.substr(end + 1), nullptr);
    return line > 0 && line < (1 << 30) ? FileLine{std::move(name), int(line)} : FileLine{};
  }

 private:
  std::map<std::string, std::string> m_alias;
};

}  // namespace

std::vector<StageSpan> mlirSpans(std::string_view mlir) {
  const auto lines = splitLines(mlir);
  MlirLocs locs;
  for (auto l : lines)
    if (const auto t = trim(l); startsWith(t, "#loc")) locs.define(t);
  SpanBuilder spans;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto t = trim(lines[i]);
    if (t.empty() || t[0] == '#') continue;
    const auto at = t.rfind("loc(");
    if (at == std::string_view::npos) continue;
    const FileLine fl = locs.resolve(balanced(t, at + 4));
    spans.add(int(i + 1), fl.file, fl.line);
  }
  return spans.take();
}

namespace {

/// `!42` at `key` in a metadata line ("scope: !4"), or -1.
long long refAfter(std::string_view t, std::string_view key) {
  const auto at = t.find(key);
  if (at == std::string_view::npos) return -1;
  return leadingInt(t.substr(at + key.size()), nullptr);
}

struct DebugMeta {
  std::map<long long, FileLine> locations;   ///< DILocation: line, scope in `file` as "!S"
  std::map<long long, long long> scopeFile;  ///< DISubprogram, DILexicalBlock...: file: !F
  std::map<long long, std::string> files;    ///< DIFile: directory/filename
  std::map<long long, long long> locScope;

  void read(std::string_view t) {
    if (t.size() < 2 || t[0] != '!' || t[1] < '0' || t[1] > '9') return;
    const long long id = leadingInt(t.substr(1), nullptr);
    if (t.find("!DILocation(") != std::string_view::npos) {
      const long long line = refAfter(t, "line: ");
      locations[id] = {{}, line > 0 && line < (1 << 30) ? int(line) : 0};
      locScope[id] = refAfter(t, "scope: !");
    } else if (t.find("!DIFile(") != std::string_view::npos) {
      const auto f = t.find("filename: ");
      const auto d = t.find("directory: ");
      std::string name = f == std::string_view::npos ? std::string() : quoted(t.substr(f), nullptr);
      const std::string dir = d == std::string_view::npos ? std::string() : quoted(t.substr(d), nullptr);
      files[id] = !dir.empty() && !name.empty() && name[0] != '/' ? dir + "/" + name : name;
    } else if (const long long f = refAfter(t, "file: !"); f >= 0) {
      scopeFile[id] = f;
    }
  }
  FileLine at(long long id) const {
    const auto it = locations.find(id);
    if (it == locations.end()) return {};
    FileLine fl = it->second;
    const auto scope = locScope.find(id);
    if (scope != locScope.end())
      if (const auto sf = scopeFile.find(scope->second); sf != scopeFile.end())
        if (const auto f = files.find(sf->second); f != files.end()) fl.file = f->second;
    return fl;
  }
};

}  // namespace

std::vector<StageSpan> llvmSpans(std::string_view llir) {
  const auto lines = splitLines(llir);
  DebugMeta meta;
  for (auto l : lines) meta.read(trim(l));
  SpanBuilder spans;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto t = trim(lines[i]);
    if (t.empty() || t[0] == '!' || t[0] == ';' || startsWith(t, "define ")) continue;
    const long long id = refAfter(t, "!dbg !");
    if (id < 0) {
      if (t.find(" = ") != std::string_view::npos || startsWith(t, "store ") || startsWith(t, "call "))
        spans.gap();  // an instruction without a line
      continue;
    }
    const FileLine fl = meta.at(id);
    spans.add(int(i + 1), fl.file, fl.line);
  }
  return spans.take();
}

}  // namespace tilescope
