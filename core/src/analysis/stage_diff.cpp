// Counting a stage's operations and comparing two toolchains' stages.
#include "tilescope/analysis/stage_diff.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>

#include "tilescope/model/json_fields.h"
#include "tilescope/model/point.h"

namespace tilescope {

namespace {

bool identChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string_view word(std::string_view s) {
  std::size_t n = 0;
  while (n < s.size() && identChar(s[n])) ++n;
  return s.substr(0, n);
}

/// The part after "%a, %b = " (MLIR and LLVM results), or the line itself.
std::string_view afterResults(std::string_view s) {
  if (s.empty() || s.front() != '%') return s;
  const auto eq = s.find(" = ");
  return eq == std::string_view::npos ? s : trim(s.substr(eq + 3));
}

/// MLIR: `%3 = tt.load %2 : ...`, `tt.store ...`, `"tt.reduce"(...)`, `scf.for ...`:
/// a dialect-qualified name; block labels, braces and attributes are not ops.
std::string mlirOp(std::string_view line) {
  std::string_view s = afterResults(trim(line));
  if (!s.empty() && s.front() == '"') s.remove_prefix(1);
  const std::string_view w = word(s);
  if (w.find('.') == std::string_view::npos || !std::isalpha(static_cast<unsigned char>(w.front())))
    return {};
  return std::string(w);
}

/// LLVM IR inside a function: `%5 = load ...`, `store ...`, `br ...`; a call by its callee.
std::string llvmOp(std::string_view line) {
  if (line.empty() || !std::isspace(static_cast<unsigned char>(line.front())))
    return {};  // not an instruction
  std::string_view s = afterResults(trim(line));
  for (std::string_view skip : {"tail ", "musttail ", "notail "})
    if (s.rfind(skip, 0) == 0) s.remove_prefix(skip.size());
  std::string_view w = word(s);
  if (w.empty() || !std::islower(static_cast<unsigned char>(w.front()))) return {};
  if (w == "call") {
    const auto at = s.find('@');
    if (at != std::string_view::npos) return "call @" + std::string(word(s.substr(at + 1)));
  }
  return std::string(w);
}

/// PTX: `\tld.global.v4.f32 %r1, [%rd2];` or `@%p1 bra $L__BB0_2;`: the opcode.
std::string ptxOp(std::string_view line) {
  std::string_view s = trim(line);
  if (s.empty() || s.front() == '.' || s.front() == '/' || s.front() == '$' || s.front() == '{' ||
      s.front() == '}' || s.front() == ')' || s.front() == '(')
    return {};
  if (s.front() == '@') {
    const auto sp = s.find_first_of(" \t");
    if (sp == std::string_view::npos) return {};
    s = trim(s.substr(sp));
  }
  const std::string_view w = word(s);
  if (w.empty() || !std::islower(static_cast<unsigned char>(w.front())) ||
      s.find(';') == std::string_view::npos)
    return {};
  return std::string(w);
}

/// SASS (nvdisasm): `/*0560*/ @!P0 LDG.E.128 R4, desc[UR4][R2.64] ;`: the opcode.
std::string sassOp(std::string_view line) {
  std::string_view s = trim(line);
  const auto close = s.find("*/");
  if (s.rfind("/*", 0) != 0 || close == std::string_view::npos) return {};
  s = trim(s.substr(close + 2));
  if (!s.empty() && s.front() == '@') {
    const auto sp = s.find_first_of(" \t");
    if (sp == std::string_view::npos) return {};
    s = trim(s.substr(sp));
  }
  const std::string_view w = word(s);
  if (w.empty() || !std::isupper(static_cast<unsigned char>(w.front()))) return {};
  return std::string(w);
}

}  // namespace

std::vector<OpCount> stageOps(std::string_view stage, std::string_view text) {
  std::string (*op)(std::string_view) = stage == "ttir" || stage == "ttgir" ? mlirOp
                                        : stage == "llir"                   ? llvmOp
                                        : stage == "ptx"                    ? ptxOp
                                                                            : sassOp;
  std::map<std::string, int> counts;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string name = op(text.substr(at, end - at));
    if (!name.empty()) ++counts[name];
    at = end + 1;
  }
  std::vector<OpCount> out;
  for (auto& [name, n] : counts) out.push_back({name, n});
  std::stable_sort(out.begin(), out.end(),
                   [](const OpCount& x, const OpCount& y) { return x.count > y.count; });
  return out;
}

namespace {

StageDelta deltaOf(const std::string& name, const CompilerStage* a, const CompilerStage* b,
                   std::size_t maxOps) {
  StageDelta d;
  d.stage = name;
  d.presentA = a && a->present;
  d.presentB = b && b->present;
  d.absentA = a ? a->absent : "not collected";
  d.absentB = b ? b->absent : "not collected";
  d.linesA = d.presentA ? a->lines : 0;
  d.linesB = d.presentB ? b->lines : 0;
  d.clipped = (d.presentA && a->clipped) || (d.presentB && b->clipped);
  std::map<std::string, std::pair<int, int>> both;
  if (d.presentA)
    for (const auto& o : stageOps(name, a->text)) both[o.op].first = o.count, d.opsA += o.count;
  if (d.presentB)
    for (const auto& o : stageOps(name, b->text)) both[o.op].second = o.count, d.opsB += o.count;
  for (const auto& [op, n] : both)
    if (n.first != n.second) d.changed.push_back({op, n.first, n.second});
  std::stable_sort(d.changed.begin(), d.changed.end(), [](const OpDelta& x, const OpDelta& y) {
    return std::abs(x.b - x.a) > std::abs(y.b - y.a);
  });
  d.differs = d.presentA != d.presentB || !d.changed.empty();
  if (d.changed.size() > maxOps) d.changed.resize(maxOps);
  return d;
}

}  // namespace

StagesDiff diffStages(const StagesInfo& a, const StagesInfo& b, std::size_t maxOps) {
  StagesDiff out;
  for (const char* name : {"ttir", "ttgir", "llir", "ptx", "sass"}) {
    const CompilerStage* sa = a.stage(name);
    const CompilerStage* sb = b.stage(name);
    if (!sa && !sb) continue;
    if (sa && sb && !sa->present && !sb->present) continue;  // neither compiler makes it
    StageDelta d = deltaOf(name, sa, sb, maxOps);
    if (d.differs && out.firstDiffering.empty()) out.firstDiffering = name;
    out.stages.push_back(std::move(d));
  }
  return out;
}

// The JSON, on core's field-list codec (docs/toolchains.md).
template <class IO, json_io::Is<OpDelta> S>
void fields(IO& io, S& c) {
  io("op", c.op);
  io("a", c.a);
  io("b", c.b);
}

template <class IO, json_io::Is<StageDelta> S>
void fields(IO& io, S& d) {
  io("stage", d.stage);
  io("present_a", d.presentA);
  io("present_b", d.presentB);
  io("absent_a", d.absentA, json_io::skipIf(d.presentA));
  io("absent_b", d.absentB, json_io::skipIf(d.presentB));
  io("ops_a", d.opsA);
  io("ops_b", d.opsB);
  io("lines_a", d.linesA);
  io("lines_b", d.linesB);
  io("clipped", d.clipped, json_io::skipIf(!d.clipped));
  io("differs", d.differs);
  io("changed", d.changed);
}

template <class IO, json_io::Is<StagesDiff> S>
void fields(IO& io, S& d) {
  io("first_differing", d.firstDiffering);
  io("stages", d.stages);
}

nlohmann::json toJson(const StagesDiff& d) { return json_io::toValue(d); }

namespace {

std::string evidenceText(const nlohmann::json& evidence, const char* key) {
  if (!evidence.is_object()) return {};
  const auto it = evidence.find(key);
  return it != evidence.end() && it->is_string() ? std::string(trim(it->get<std::string>())) : std::string();
}

}  // namespace

CompileFailure compileFailure(const Point& p) {
  CompileFailure out;
  const auto f = std::find_if(p.findings.begin(), p.findings.end(),
                              [](const Finding& x) { return x.category == "compile_error"; });
  if (f == p.findings.end()) {
    out.message = std::string(trim(std::string_view(p.compile.log).substr(0, p.compile.log.find('\n'))));
    return out;
  }
  const Location& l = f->location;
  if (!l.file.empty()) {
    out.location = l.file;
    if (l.line) {
      out.location += ":" + std::to_string(*l.line);
      const auto c = l.extra.is_object() ? l.extra.find("column") : l.extra.end();
      if (c != l.extra.end() && c->is_number_integer() && c->get<int>() > 0)
        out.location += ":" + std::to_string(c->get<int>());
    }
  }
  out.message = evidenceText(f->evidence, "first_error");
  if (out.message.empty()) {
    // The message names the file (and line) first; the location says it already.
    out.message = f->message;
    for (const std::string& prefix :
         {l.file + (l.line ? ":" + std::to_string(*l.line) : "") + ": ", l.file + ": "})
      if (!l.file.empty() && out.message.rfind(prefix, 0) == 0) {
        out.message.erase(0, prefix.size());
        break;
      }
  }
  out.sourceLine = evidenceText(f->evidence, "source_line");
  return out;
}

}  // namespace tilescope
