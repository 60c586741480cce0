// A source line followed through the compiler stages (stage_map.h): the
// stages' spans read both ways, instruction offsets found in nvdisasm's listing,
// and the marks a point's findings and trace put on SASS lines.
#include "tilescope/analysis/stage_map.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "stage_text.h"
#include "tilescope/analysis/compiler_stages.h"
#include "tilescope/model/point.h"

namespace tilescope {

using namespace stage_text;

namespace {

std::string_view fileName(std::string_view path) {
  const auto slash = path.find_last_of("/\\");
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

/// The identifier a demangled name is called by: "void ns::gemm<64>(float*)" -> "gemm".
std::string_view baseIdentifier(std::string_view name) {
  name = name.substr(0, name.find('('));
  name = name.substr(0, name.find('<'));
  if (const auto colons = name.rfind("::"); colons != std::string_view::npos) name = name.substr(colons + 2);
  if (const auto space = name.find_last_of(" *&"); space != std::string_view::npos)
    name = name.substr(space + 1);
  return name;
}

/// Whether listing symbol `symbol` is the function a finding or the trace names.
bool sameFunction(std::string_view symbol, std::string_view function) {
  if (symbol == function) return true;
  const std::string_view base = baseIdentifier(function);
  if (base.empty() || base == function) return false;
  if (symbol == base) return true;  // extern "C", written with its signature
  // Itanium mangling spells each name as its length, then the name: _Z10gemm_tiledPf.
  const std::string token = std::to_string(base.size()) + std::string(base);
  return symbol.substr(0, 2) == "_Z" && symbol.find(token) != std::string_view::npos;
}

int sassLineIn(const std::vector<SassInstruction>& listing, std::string_view function, std::uint64_t offset) {
  bool oneFunction = true;
  for (const auto& s : listing) oneFunction = oneFunction && s.function == listing.front().function;
  for (const auto& s : listing)
    if (s.offset == offset && (oneFunction || sameFunction(s.function, function))) return s.textLine;
  return 0;
}

void addWidths(std::string& out, const char* what, const std::vector<WidthCount>& v) {
  if (v.empty()) return;
  std::string part;
  int perThread = 0;  // a block copy (TMA) is neither vectorised nor not
  for (const auto& w : v) {
    part += (part.empty() ? "" : ", ") + std::to_string(w.count) + "×" +
            (w.bytes > 0 ? std::to_string(w.bytes) + " B" : std::string("block (TMA)"));
    perThread += w.bytes > 0 ? w.count : 0;
  }
  const int vec = vectorisedCount(v);
  if (perThread > 0)
    part += vec == perThread ? (perThread == 1 ? " (vectorised)" : " (all vectorised)")
            : vec == 0       ? " (none vectorised)"
                       : " (" + std::to_string(vec) + " of " + std::to_string(perThread) + " vectorised)";
  out += std::string("; ") + what + " " + part;
}

/// The marks of one point, before sorting: findings first, then the trace.
struct MarkSink {
  const std::vector<SassInstruction>& listing;
  std::vector<StageMark> marks;
  void add(const std::string& function, std::uint64_t offset, int severity, std::string label,
           const std::string& what, bool trace, bool sampled = false) {
    const int line = sassLineIn(listing, function, offset);
    if (line <= 0) return;
    std::string note = std::string(trace     ? "trace: "
                                   : sampled ? "samples: "
                                             : "") +
                       label + " at " + sassAddress(function, offset) + (what.empty() ? "" : ": " + what);
    marks.push_back({line, severity, std::move(note), std::move(label), trace, sampled});
  }
};

/// The hottest instructions that took at least 1 % of the kernel's samples.
void sampleMarks(MarkSink& sink, const PcSamplingInfo& pc) {
  if (!pc.collected || pc.totalSamples <= 0) return;
  for (const HotPc& h : pc.pcs) {
    const double share = 100.0 * double(h.samples) / double(pc.totalSamples);
    if (share < 1.0) continue;
    char label[80];
    std::snprintf(label, sizeof label, "hot %.1f %%%s%s", share, h.stalls.empty() ? "" : " ",
                  h.stalls.empty() ? "" : h.stalls.front().reason.c_str());
    std::string what = std::to_string(h.samples) + " of " + std::to_string(pc.totalSamples) + " samples";
    for (std::size_t i = 0; i < h.stalls.size() && i < 3; ++i)
      what += (i ? ", " : "; ") + h.stalls[i].reason + " " + std::to_string(h.stalls[i].samples);
    sink.add(h.function, h.offset, 0, label, what, false, true);
  }
}

void traceMarks(MarkSink& sink, const TraceInfo& t) {
  for (const TraceFault& f : t.faults) {
    std::string what = std::to_string(f.count) + " bad access" + (f.count == 1 ? "" : "es");
    if (!f.tensor.empty()) what += " of " + f.tensor;
    if (f.size > 0) what += ", " + std::to_string(f.size) + "-byte " + (f.write ? "write" : "read");
    sink.add(f.site.function, f.site.sassOffset, 2, f.kind, what, true);
  }
  for (const TraceHazardInfo& h : t.hazards) {
    const std::string n = std::to_string(h.count) + "× at shared offset " + std::to_string(h.sharedOffset);
    sink.add(h.first.function, h.first.sassOffset, 2, h.kind + " hazard", "the earlier access, " + n, true);
    sink.add(h.second.function, h.second.sassOffset, 2, h.kind + " hazard", "the access that collided, " + n,
             true);
  }
}

}  // namespace

bool sameSourceFile(std::string_view a, std::string_view b) {
  const auto na = fileName(a), nb = fileName(b);
  return !na.empty() && na == nb;
}

std::vector<int> stageLinesOf(const CompilerStage& stage, std::string_view file, int line) {
  std::vector<int> out;
  if (line <= 0) return out;
  for (const StageSpan& s : stage.spans)
    if (s.line == line && sameSourceFile(s.file, file))
      for (int i = s.first; i <= s.last; ++i) out.push_back(i);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

const StageSpan* stageSpanAt(const CompilerStage& stage, int textLine) {
  // Spans are in text order (every parser builds them so); not assumed: a linear scan.
  for (const StageSpan& s : stage.spans)
    if (textLine >= s.first && textLine <= s.last) return &s;
  return nullptr;
}

int sassLineOf(const CompilerStage& sass, std::string_view function, std::uint64_t offset) {
  return sassLineIn(parseNvdisasm(sass.text), function, offset);
}

std::string sassAddress(std::string_view function, std::uint64_t offset) {
  char hex[24];
  std::snprintf(hex, sizeof hex, "+0x%llx", static_cast<unsigned long long>(offset));
  return std::string(function) + hex;
}

std::vector<StageMark> sassMarks(const Point& p) {
  const CompilerStage* sass = p.stages.stage("sass");
  if (!sass || !sass->present) return {};
  const auto listing = parseNvdisasm(sass->text);
  MarkSink sink{listing, {}};
  for (const Finding& f : p.findings)
    if (f.location.sassOffset)
      sink.add(f.location.function, *f.location.sassOffset, int(f.severity), f.category,
               f.message.substr(0, 200), false);
  traceMarks(sink, p.trace);
  sampleMarks(sink, p.counters.pcSampling);
  std::vector<StageMark> out;
  std::set<std::pair<int, std::string>> seen;
  for (auto& m : sink.marks)
    if (seen.insert({m.textLine, m.note}).second) out.push_back(std::move(m));
  std::stable_sort(out.begin(), out.end(),
                   [](const StageMark& a, const StageMark& b) { return a.textLine < b.textLine; });
  return out;
}

std::map<int, std::string> stageMarkTags(const std::vector<StageMark>& marks) {
  std::map<int, std::vector<std::string>> labels;
  std::map<int, std::array<bool, 3>> from;  // a finding, the trace, PC sampling
  for (const StageMark& m : marks) {
    auto& l = labels[m.textLine];
    if (std::find(l.begin(), l.end(), m.label) == l.end()) l.push_back(m.label);
    from[m.textLine][m.trace ? 1 : m.sampled ? 2 : 0] = true;
  }
  static const char* const kSources[3] = {"finding", "trace", "samples"};
  std::map<int, std::string> out;
  for (const auto& [line, ls] : labels) {
    std::string tag, sources;
    for (const auto& l : ls) tag += (tag.empty() ? "" : ", ") + l;
    for (int i = 0; i < 3; ++i)
      if (from[line][std::size_t(i)]) sources += (sources.empty() ? "" : ", ") + std::string(kSources[i]);
    out[line] = tag + " (" + sources + ")";
  }
  return out;
}

std::vector<StageExcerptLine> stageExcerpt(const CompilerStage& stage, std::string_view file, int line,
                                           std::size_t max, std::size_t* more) {
  const std::vector<int> lines = stageLinesOf(stage, file, line);
  const auto text = splitLines(stage.text);
  std::vector<StageExcerptLine> out;
  std::size_t left = 0;
  for (int l : lines) {
    if (l < 1 || l > int(text.size())) continue;
    if (out.size() >= max) {
      ++left;
      continue;
    }
    out.push_back({l, std::string(trim(text[std::size_t(l - 1)]))});
  }
  if (more) *more = left;
  return out;
}

std::string compactSassLine(std::string_view line) {
  const std::string_view t = trim(line);
  if (startsWith(t, "/*")) {
    const auto close = t.find("*/");
    const auto op = close == std::string_view::npos ? close : t.find_first_not_of(" \t", close + 2);
    if (op == std::string_view::npos) return std::string(t);
    std::string out(t.substr(0, close + 2));
    // nvdisasm right-aligns a predicate before the opcode: one space each.
    std::string_view rest = t.substr(op);
    if (rest.front() == '@') {
      const auto sp = rest.find_first_of(" \t");
      const auto next = sp == std::string_view::npos ? sp : rest.find_first_not_of(" \t", sp);
      if (next != std::string_view::npos) {
        out += " " + std::string(rest.substr(0, sp));
        rest = rest.substr(next);
      }
    }
    return out + " " + std::string(rest);
  }
  if (!startsWith(t, "//## File")) return std::string(t);
  // //## File "/dir/k.cu", line 110 inlined at "/dir/k.cu", line 145
  std::string out;
  for (std::size_t at = 0; at < t.size();) {
    const auto open = t.find('"', at);
    const auto close = open == std::string_view::npos ? open : t.find('"', open + 1);
    if (close == std::string_view::npos) {
      out += t.substr(at);
      break;
    }
    out += std::string(t.substr(at, open + 1 - at)) +
           std::string(fileName(t.substr(open + 1, close - open - 1))) + '"';
    at = close + 1;
  }
  return out;
}

int vectorisedCount(const std::vector<WidthCount>& widths) {
  int n = 0;
  for (const auto& w : widths) n += w.bytes >= 8 ? w.count : 0;
  return n;
}

std::string stageLineSummaryText(const StageLineSummary& l) {
  std::string text = std::to_string(l.sass) + " SASS instruction" + (l.sass == 1 ? "" : "s");
  if (l.ptx > 0) text += " (" + std::to_string(l.ptx) + " PTX)";
  addWidths(text, "global loads", l.globalLoads);
  addWidths(text, "global stores", l.globalStores);
  addWidths(text, "shared loads", l.sharedLoads);
  addWidths(text, "shared stores", l.sharedStores);
  if (l.tensor > 0) {
    text += "; " + std::to_string(l.tensor) + " tensor-core";
    std::string ops;
    for (const auto& op : l.tensorOps) ops += (ops.empty() ? "" : ", ") + op;
    if (!ops.empty()) text += " (" + ops + ")";
  }
  if (l.localLoads + l.localStores > 0)
    text += "; spills: " + std::to_string(l.localStores) + " STL, " + std::to_string(l.localLoads) + " LDL";
  return text;
}

}  // namespace tilescope
