// What an export carries from a file anyone wrote (docs/security.md, "Denial of service"): a
// triage document's texts cut at the document's sizes, and control characters
// shown, not passed on, in Markdown, HTML and terminal lines.
#include <gtest/gtest.h>

#include <sstream>

#include "tilescope/base/format.h"
#include "tilescope/export/document.h"
#include "tilescope/triage/triage_document.h"

using namespace tilescope;

namespace {

TriageReport oneEntryNamed(const std::string& name, const std::string& note) {
  TriageReport r;
  TriageEntry e;
  e.id = "problems/a_new.py";
  e.name = name;
  e.kind = EntryKind::problem;
  e.status = EntryStatus::not_run;
  e.note = note;
  r.entries.push_back(e);
  return r;
}

std::size_t longestLine(const std::string& text) {
  std::istringstream in(text);
  std::size_t longest = 0;
  for (std::string line; std::getline(in, line);) longest = std::max(longest, line.size());
  return longest;
}

}  // namespace

TEST(ExportLimits, ATriageDocumentCutsEveryText) {
  const Document d = buildTriageDocument(oneEntryNamed(std::string(1000000, 'N'), std::string(5000000, 'm')));
  for (const DocSection& s : d.sections)
    for (const DocBlock& b : s.blocks) {
      if (const auto* t = std::get_if<DocTable>(&b)) {
        for (const auto& row : t->rows)
          for (const std::string& cell : row) {
            EXPECT_LT(cell.size(), kMaxDocCellBytes + 64);
          }
      }
      if (const auto* p = std::get_if<DocParagraph>(&b)) {
        EXPECT_LT(p->text.size(), kMaxDocLineBytes + 64);
      }
    }
  const std::string md = renderMarkdown(d);
  EXPECT_LT(md.size(), std::size_t{64} << 10);
  EXPECT_LT(longestLine(md), std::size_t{16} << 10);  // a table row of cut cells
  EXPECT_NE(md.find("1000000 bytes, cut at 1024"), std::string::npos);
  EXPECT_LT(renderHtml(d).size(), std::size_t{64} << 10);
}

TEST(ExportLimits, ControlCharactersAreShown) {
  EXPECT_EQ(htmlEscape("a\x1b[31mb\x07"), "a\\x1b[31mb\\x07");
  EXPECT_EQ(htmlEscape("tab\tline\nCR\r"), "tab\tline\nCR\r");
  EXPECT_EQ(htmlEscape("csi\xc2\x9b"
                       "2J <x>"),
            "csi\\u009b2J &lt;x&gt;");
  EXPECT_EQ(htmlEscape("é"), "é");  // U+00E9 is no control character
  EXPECT_EQ(markdownEscape("a\x1b"
                           "b"),
            "a\\\\x1bb");  // renders as a\x1bb
  EXPECT_EQ(markdownEscape(std::string("nul\0end", 7)), "nul\\\\x00end");
  EXPECT_EQ(visibleControls("one\ntwo\x7f"), "one\\x0atwo\\x7f");
  EXPECT_EQ(visibleControls("one\r\ntwo", true), "one\r\ntwo");
  const Document d = buildTriageDocument(oneEntryNamed("evil\x1b]0;title\x07", "x"));
  EXPECT_EQ(renderMarkdown(d).find('\x1b'), std::string::npos);
  EXPECT_EQ(renderHtml(d).find('\x1b'), std::string::npos);
}
