// The export's trace section (docs/report.md, "trace"): what a traced launch
// measured, as the Source, coverage and mask views show it: the source lines the
// bad accesses and hazards came from (an excerpt of the kernel's source where it
// is found), every tensor's footprint, the bad accesses and the hazards.
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "document_detail.h"
#include "tilescope/base/resources.h"

namespace tilescope::doc_detail {

namespace {

namespace fs = std::filesystem;

std::string dims(const std::vector<std::int64_t>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? " × " : "") + std::to_string(v[i]);
  return s;
}

std::string index(const std::vector<std::int64_t>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return "[" + s + "]";
}

std::string dim3(const Dim3& d) {
  return "(" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) + ")";
}

std::string siteText(const TraceSite& s) {
  const std::string file = fs::path(s.file).filename().string();
  return s.line > 0 ? file + ":" + std::to_string(s.line) : "SASS +" + std::to_string(s.sassOffset);
}

/// The kernel source `file` names: as given, then by name in sourceDirs, then in the
/// zoo's kernels/<family>/ folders. Empty when not found or larger than 8 MiB.
std::vector<std::string> readSource(const std::string& file, const std::vector<fs::path>& sourceDirs) {
  if (file.empty()) return {};
  std::vector<fs::path> candidates{file};
  const fs::path name = fs::path(file).is_absolute() ? fs::path(file).filename() : fs::path(file);
  for (const fs::path& d : sourceDirs) candidates.push_back(d / name);
  std::error_code ec;
  const fs::path zoo = resourceDir() / ".." / "kernels";
  for (fs::directory_iterator it(zoo, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory(ec)) candidates.push_back(it->path() / name);
  for (const fs::path& c : candidates) {
    if (!fs::is_regular_file(c, ec) || fs::file_size(c, ec) > (std::uintmax_t{8} << 20)) continue;
    std::ifstream in(c);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    if (!lines.empty()) return lines;
  }
  return {};
}

/// What the trace says about one line, for the excerpt's marker.
struct LineFacts {
  std::uint64_t bad = 0, hazards = 0;
  std::set<std::string> kinds;
};

std::map<int, LineFacts> flaggedLines(const TraceInfo& t) {
  std::map<int, LineFacts> out;
  for (const TraceFault& f : t.faults)
    if (f.site.line > 0) {
      out[f.site.line].bad += f.count;
      out[f.site.line].kinds.insert(f.kind + (f.tensor.empty() ? "" : " of " + f.tensor));
    }
  for (const TraceHazardInfo& h : t.hazards)
    for (const TraceSite* s : {&h.first, &h.second})
      if (s->line > 0) {
        out[s->line].hazards += h.count;
        out[s->line].kinds.insert(h.kind + " hazard");
      }
  return out;
}

std::string factsText(const LineFacts& f) {
  std::string kinds;
  for (const std::string& k : f.kinds) kinds += (kinds.empty() ? "" : ", ") + k;
  std::string s = kinds;
  if (f.bad) s += ": " + std::to_string(f.bad) + " bad access(es)";
  if (f.hazards) s += (f.bad ? ", " : ": ") + std::to_string(f.hazards) + " hazard(s)";
  return s;
}

/// The flagged lines with three lines of context each (at most four excerpts).
void sourceExcerpt(DocSection* s, const TraceInfo& t, const DocumentOptions& o) {
  const std::map<int, LineFacts> flagged = flaggedLines(t);
  if (flagged.empty()) return;
  const std::string file = t.file.empty() ? (t.faults.empty() ? "" : t.faults.front().site.file) : t.file;
  const std::vector<std::string> src = readSource(file, o.sourceDirs);
  s->blocks.push_back(DocSubheading{"Source: " + fs::path(file).filename().string()});
  if (src.empty()) {
    std::string lines;
    for (const auto& [line, facts] : flagged) lines += (lines.empty() ? "" : "; ") + std::to_string(line);
    s->blocks.push_back(DocParagraph{
        file +
            ": the source was not found beside the report nor in the kernels folder; the trace flags "
            "line(s) " +
            lines,
        true});
    return;
  }
  int shown = 0;
  for (const auto& [line, facts] : flagged) {
    if (++shown > 4) break;
    s->blocks.push_back(DocParagraph{"Line " + std::to_string(line) + ": " + factsText(facts)});
    std::ostringstream code;
    const int first = std::max(1, line - 3), last = std::min<int>(int(src.size()), line + 3);
    for (int l = first; l <= last; ++l) {
      std::string number = std::to_string(l);
      number.insert(0, number.size() < 5 ? 5 - number.size() : 0, ' ');
      code << (l == line ? ">" : " ") << number << " | " << src[std::size_t(l - 1)] << "\n";
    }
    s->blocks.push_back(DocCode{"", code.str()});
  }
  if (flagged.size() > 4)
    s->blocks.push_back(DocParagraph{
        std::to_string(flagged.size() - 4) + " more flagged line(s) in the report's JSON", true});
}

void footprints(DocSection* s, const TraceInfo& t) {
  if (t.footprints.empty()) return;
  std::map<std::string, std::uint64_t> badReads, badWrites;
  for (const TraceFault& f : t.faults) (f.write ? badWrites : badReads)[f.tensor] += f.count;
  DocTable table{"Footprints: the cells each tensor's accesses touched (the coverage view's Measured layers)",
                 {"Tensor", "Shape", "Cells read", "Cells written", "Written by more than one CTA",
                  "Bad reads", "Bad writes", "Cell (elements)"},
                 {}};
  for (const TraceFootprint& fp : t.footprints)
    table.rows.push_back({fp.tensor, dims(fp.shape), std::to_string(fp.cellsRead),
                          std::to_string(fp.cellsWritten), std::to_string(fp.cellsMultiWriter),
                          std::to_string(badReads[fp.tensor]), std::to_string(badWrites[fp.tensor]),
                          std::to_string(fp.cellH) + " × " + std::to_string(fp.cellW)});
  s->blocks.push_back(table);
}

void faultsAndHazards(DocSection* s, const TraceInfo& t, const DocumentOptions& o) {
  if (!t.faults.empty()) {
    DocTable table{"Bad accesses: the first of each kind at each instruction",
                   {"Kind", "Tensor", "Line", "SASS offset", "Count", "Element", "Block", "Thread"},
                   {}};
    for (const TraceFault& f : t.faults) {
      if (table.rows.size() >= o.maxEvidenceRows) break;
      table.rows.push_back({f.kind, f.tensor, siteText(f.site), std::to_string(f.site.sassOffset),
                            std::to_string(f.count), index(f.element), dim3(f.block), dim3(f.thread)});
    }
    s->blocks.push_back(table);
    if (t.faults.size() > table.rows.size())
      s->blocks.push_back(DocParagraph{
          std::to_string(t.faults.size() - table.rows.size()) + " more instruction(s) in the report's JSON",
          true});
  }
  if (t.hazards.empty()) {
    s->blocks.push_back(DocParagraph{"Hazards: none (RAW, WAW, WAR) in " +
                                     std::to_string(t.counts.sharedAccesses) + " shared-memory accesses."});
    return;
  }
  DocTable table{"Shared-memory hazards", {"Kind", "First", "Second", "Count", "Shared offset", "Block"}, {}};
  for (const TraceHazardInfo& h : t.hazards) {
    if (table.rows.size() >= o.maxEvidenceRows) break;
    table.rows.push_back({h.kind, siteText(h.first), siteText(h.second), std::to_string(h.count),
                          std::to_string(h.sharedOffset), dim3(h.block)});
  }
  s->blocks.push_back(table);
}

}  // namespace

DocSection traceSection(const Report& r, const DocumentOptions& o) {
  DocSection s{"trace", "Trace", {}, false};
  // The focus point's trace, else the first traced point's.
  const int focus = focusPoint(r);
  const Point* p =
      focus >= 0 && r.points[std::size_t(focus)].trace.traced() ? &r.points[std::size_t(focus)] : nullptr;
  for (const Point& q : r.points)
    if (!p && q.trace.traced()) p = &q;
  if (!p) return s;
  const TraceInfo& t = p->trace;
  const TraceCounts& c = t.counts;
  s.blocks.push_back(DocParagraph{
      "Point " + pointLabel(*p) + " was traced (" + (t.mode.empty() ? "full" : t.mode) + "): kernel " +
      t.kernel + ", grid " + dim3(t.grid) + " × block " + dim3(t.block) + "; " +
      std::to_string(c.globalAccesses) + " global and " + std::to_string(c.sharedAccesses) +
      " shared accesses, " + std::to_string(c.barriers) + " barriers; " + std::to_string(c.badAccesses) +
      " bad accesses, " + std::to_string(c.hazards) + " shared-memory hazards, " +
      std::to_string(c.uninitReads) + " reads of never-written memory."});
  sourceExcerpt(&s, t, o);
  footprints(&s, t);
  faultsAndHazards(&s, t, o);
  return s;
}

}  // namespace tilescope::doc_detail
