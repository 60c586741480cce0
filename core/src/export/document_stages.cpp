// The SASS of a finding's source line in the exports (document_detail.h): what
// `--stages` summarised for that line, read first when a finding names a line.
#include "document_detail.h"
#include "tilescope/model/report.h"

namespace tilescope::doc_detail {

namespace {

std::string widths(const char* what, const std::vector<WidthCount>& v) {
  std::string out;
  for (const auto& w : v)
    out += (out.empty() ? "" : ", ") + std::to_string(w.count) + "×" +
           (w.bytes > 0 ? std::to_string(w.bytes) + " B" : std::string("block (TMA)"));
  return out.empty() ? out : std::string(what) + " " + out;
}

std::string summaryText(const StageLineSummary& l) {
  std::string text = std::to_string(l.sass) + " SASS instruction" + (l.sass == 1 ? "" : "s");
  if (l.ptx > 0) text += " (" + std::to_string(l.ptx) + " PTX)";
  for (const auto& part : {widths("global loads", l.globalLoads), widths("global stores", l.globalStores),
                           widths("shared loads", l.sharedLoads), widths("shared stores", l.sharedStores)})
    if (!part.empty()) text += "; " + part;
  if (l.tensor > 0) text += "; " + std::to_string(l.tensor) + " tensor-core";
  if (l.localLoads + l.localStores > 0)
    text += "; spills: " + std::to_string(l.localStores) + " STL, " + std::to_string(l.localLoads) + " LDL";
  return text;
}

}  // namespace

std::vector<DocBlock> findingSass(const Report& r, const Finding& f) {
  if (!f.location.line || *f.location.line <= 0) return {};
  for (const auto& p : r.points) {
    const StageLineSummary* l = p.stages.find(f.location.file, *f.location.line);
    if (!l || l->instructions.empty()) continue;
    std::string code;
    for (const auto& i : l->instructions) code += i + "\n";
    if (l->sass > int(l->instructions.size()))
      code += "... " + std::to_string(l->sass - int(l->instructions.size())) + " more\n";
    return {DocParagraph{"SASS of " + f.location.file + ":" + std::to_string(*f.location.line) + " (" +
                         p.stages.arch + "): " + summaryText(*l) + "."},
            DocCode{"", code}};
  }
  return {};
}

}  // namespace tilescope::doc_detail
