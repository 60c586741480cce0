// The SASS of the findings' lines in the exports (document_detail.h): under each
// finding that names a source line, what `--stages` summarised for it; and a
// section that quotes each such line's SASS from the SASS stage, and that of the
// hottest line of PC sampling, the instructions a finding, the trace or PC
// sampling names marked, as the Source view's SASS pane marks them
// (analysis/stage_map.h).
#include <cstdio>
#include <map>
#include <set>
#include <utility>

#include "document_detail.h"
#include "tilescope/analysis/stage_map.h"
#include "tilescope/model/report.h"

namespace tilescope::doc_detail {

namespace {

/// The most source lines the section quotes, and instructions per line.
constexpr std::size_t kMaxSassLines = 8;
constexpr std::size_t kMaxSassInstructions = 64;

/// The point whose stages summarise `file`:`line`: the focus point first.
const Point* pointWithLine(const Report& r, const std::string& file, int line) {
  const int focus = focusPoint(r);
  if (focus >= 0 && r.points[std::size_t(focus)].stages.find(file, line))
    return &r.points[std::size_t(focus)];
  for (const auto& p : r.points)
    if (p.stages.find(file, line)) return &p;
  return nullptr;
}

std::string where(const Point& p, const std::string& file, int line) {
  return file + ":" + std::to_string(line) + " (" + p.stages.arch + ", point " + pointLabel(p) + ")";
}

/// The line's instructions as the SASS stage has them, each mark written after its
/// instruction ("<- oob_write (trace)"): the first kMaxSassInstructions and every
/// marked one after them, "... N more" where some were left out; the summary's
/// first ones where the text was clipped before the line.
std::string sassCode(const Point& p, const StageLineSummary& l, const std::map<int, std::string>& marks) {
  const CompilerStage* sass = p.stages.stage("sass");
  const auto lines = sass && sass->present ? stageExcerpt(*sass, l.file, l.line, std::size_t(-1))
                                           : std::vector<StageExcerptLine>{};
  std::string code;
  std::size_t left = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto m = marks.find(lines[i].textLine);
    if (i >= kMaxSassInstructions && m == marks.end()) {
      ++left;
      continue;
    }
    if (left > 0) code += "... " + std::to_string(std::exchange(left, 0)) + " more\n";
    code += compactSassLine(lines[i].text) + (m == marks.end() ? "" : "    <- " + m->second) + "\n";
  }
  if (lines.empty()) {
    for (const auto& i : l.instructions) code += i + "\n";
    left = std::size_t(std::max(0, l.sass - int(l.instructions.size())));
  }
  if (left > 0) code += "... " + std::to_string(left) + " more\n";
  return code;
}

/// ", the hottest line: 29.2 % of the samples, most short_scoreboard".
std::string hotText(const HotLine& hot, std::int64_t total) {
  char share[64];
  std::snprintf(share, sizeof share, "%.1f %%", 100.0 * double(hot.samples) / double(total));
  return std::string(", the hottest line: ") + share + " of the samples" +
         (hot.stalls.empty() ? "" : ", most " + hot.stalls.front().reason);
}

}  // namespace

std::vector<DocBlock> findingSass(const Report& r, const Finding& f) {
  if (!f.location.line || *f.location.line <= 0) return {};
  const Point* p = pointWithLine(r, f.location.file, *f.location.line);
  if (!p) return {};
  const StageLineSummary* l = p->stages.find(f.location.file, *f.location.line);
  std::string text = "SASS of " + f.location.file + ":" + std::to_string(*f.location.line) + " (" +
                     p->stages.arch + "): " + stageLineSummaryText(*l);
  if (f.location.sassOffset)
    text += "; the finding's instruction: " + sassAddress(f.location.function, *f.location.sassOffset);
  return {DocParagraph{text + " (section \"SASS of the findings' lines\")."}};
}

DocSection sassSection(const Report& r) {
  DocSection s{"sass", "SASS of the findings' lines", {}, false};
  std::set<std::pair<std::string, int>> done;
  std::map<const Point*, std::map<int, std::string>> marks;
  auto quote = [&](const Point& p, const StageLineSummary& l, const std::string& file,
                   const std::string& heading) {
    if (!marks.count(&p)) marks[&p] = stageMarkTags(sassMarks(p));
    s.blocks.push_back(DocSubheading{"SASS of " + where(p, file, l.line) + heading});
    s.blocks.push_back(DocParagraph{stageLineSummaryText(l) + "."});
    s.blocks.push_back(DocCode{"", sassCode(p, l, marks[&p])});
  };
  std::size_t skipped = 0;
  for (const Finding& f : r.findings) {
    if (!f.location.line || *f.location.line <= 0) continue;
    const Point* p = pointWithLine(r, f.location.file, *f.location.line);
    const StageLineSummary* l = p ? p->stages.find(f.location.file, *f.location.line) : nullptr;
    if (!l || !done.insert({l->file, l->line}).second) continue;
    if (done.size() > kMaxSassLines) {
      ++skipped;
      continue;
    }
    quote(*p, *l, f.location.file, "");
  }
  // The hottest line of the focus point's PC samples, where no finding names it:
  // a slow kernel's SASS where the warps wait.
  const int focus = focusPoint(r);
  if (focus >= 0) {
    const Point& fp = r.points[std::size_t(focus)];
    const PcSamplingInfo& pc = fp.counters.pcSampling;
    const StageLineSummary* l = pc.collected && pc.totalSamples > 0 && !pc.lines.empty()
                                    ? fp.stages.find(pc.lines.front().file, pc.lines.front().line)
                                    : nullptr;
    if (l && done.size() < kMaxSassLines && done.insert({l->file, l->line}).second)
      quote(fp, *l, l->file, hotText(pc.lines.front(), pc.totalSamples));
  }
  if (skipped > 0)
    s.blocks.push_back(DocParagraph{
        "The first " + std::to_string(kMaxSassLines) + " lines are quoted; " + std::to_string(skipped) +
            " more that findings name are in the report's stages section (the GUI's Source view shows them).",
        true});
  if (!s.blocks.empty())
    s.blocks.insert(
        s.blocks.begin(),
        DocParagraph{"Each source line a finding names, and the hottest line of PC sampling, in the SASS "
                     "that --stages compiled for it "
                     "(nvdisasm, with line information); \"<-\" marks an instruction a finding "
                     "or the trace names by its offset, and the hottest ones of PC sampling "
                     "(\"hot N %\" of the kernel's samples, with the top stall reason)."});
  return s;
}

}  // namespace tilescope::doc_detail
