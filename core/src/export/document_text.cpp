// An export document (document.h) as plain text for a terminal: the banner,
// headings underlined, paragraphs, tables with aligned columns. Widths are
// counted in code points (µs, –, × are one column each); control characters
// in report strings are shown as text (visibleControls), never sent to the terminal.
#include <algorithm>
#include <sstream>

#include "tilescope/base/format.h"
#include "tilescope/export/report_diff.h"

namespace tilescope {

namespace {

std::size_t columns(const std::string& s) {
  return static_cast<std::size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

/// One line of a cell: newlines would break the table.
std::string cellText(const std::string& s) {
  std::string t = visibleControls(s);
  std::replace(t.begin(), t.end(), '\n', ' ');
  return t;
}

void renderTable(std::ostringstream& o, const DocTable& t) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back(t.headers);
  for (const auto& r : t.rows) rows.push_back(r);
  std::vector<std::size_t> width;
  for (auto& r : rows)
    for (std::size_t c = 0; c < r.size(); ++c) {
      r[c] = cellText(r[c]);
      if (width.size() <= c) width.push_back(0);
      width[c] = std::max(width[c], columns(r[c]));
    }
  if (!t.caption.empty()) o << cellText(t.caption) << ":\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::string line = " ";
    for (std::size_t c = 0; c < rows[i].size(); ++c) {
      line += " " + rows[i][c];
      if (c + 1 < rows[i].size()) line += std::string(width[c] - columns(rows[i][c]) + 2, ' ');
    }
    o << line << "\n";
    if (i == 0) {
      std::size_t total = 0;
      for (std::size_t w : width) total += w + 3;
      o << "  " << std::string(total > 3 ? total - 3 : 0, '-') << "\n";
    }
  }
  o << "\n";
}

}  // namespace

std::string renderPlainText(const Document& doc) {
  std::ostringstream o;
  o << cellText(doc.title) << "\n" << std::string(columns(cellText(doc.title)), '=') << "\n";
  const std::string verdict = doc.banner.label.empty() ? verdictName(doc.banner.verdict) : doc.banner.label;
  o << "Verdict: " << cellText(verdict) << " — " << cellText(doc.banner.headline) << "\n\n";
  for (const DocSection& s : doc.sections) {
    o << cellText(s.heading) << "\n" << std::string(columns(cellText(s.heading)), '-') << "\n";
    for (const DocBlock& b : s.blocks) {
      if (const auto* p = std::get_if<DocParagraph>(&b)) o << visibleControls(p->text, true) << "\n\n";
      if (const auto* h = std::get_if<DocSubheading>(&b)) o << cellText(h->text) << "\n";
      if (const auto* t = std::get_if<DocTable>(&b)) renderTable(o, *t);
      if (const auto* c = std::get_if<DocCode>(&b)) o << visibleControls(c->text, true) << "\n\n";
    }
  }
  return o.str();
}

}  // namespace tilescope
