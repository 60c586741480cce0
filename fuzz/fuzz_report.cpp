// Fuzzes the report reader (parseJson + reportFromJson, what loadReport does
// with a file's text) and what `tilescope-run export` and every verb's summary
// do with a report it accepted: the export document (document.h), its Markdown
// and HTML renderers, and printSummary. A report the reader accepts must write back and read again to
// the same text (docs/report.md "Reading and writing"), and render without
// throwing.
#include <sstream>

#include "fuzz_common.h"
#include "tilescope/export/document.h"
#include "tilescope/export/summary.h"
#include "tilescope/model/report.h"

using namespace tilescope;

namespace {

Report read(const std::string& text) { return reportFromJson(parseJson(text)); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Report r;
  try {
    r = read(fuzz::text(data, size));
  } catch (const std::runtime_error& e) {  // ReportError, or the JSON text's own error
    if (std::string(e.what()).empty()) fuzz::violated("an error without a message");
    return 0;
  }
  const std::string written = dumpJson(toJson(r), 1);
  Report again;
  try {
    again = read(written);
  } catch (const std::exception& e) {
    fuzz::violated(std::string("a report the reader accepted does not read back after writing: ") + e.what());
  }
  if (dumpJson(toJson(again), 1) != written) fuzz::violated("a report changes when written and read again");
  std::ostringstream summary;
  printSummary(r, summary);
  const Document doc = buildDocument(r);
  const std::string md = renderMarkdown(doc), html = renderHtml(doc);
  if (md.empty() || html.empty()) fuzz::violated("an empty rendering");
  return 0;
}
