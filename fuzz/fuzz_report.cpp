// Fuzzes the report reader (parseJson + reportFromJson, what loadReport does
// with a file's text) and what `tilescope-run export` and every verb's summary
// do with a report it accepted: the export document (document.h), its Markdown
// and HTML renderers, and printSummary. A report the reader accepts must write back and read again to
// the same text (docs/report.md "Reading and writing"), and render without
// throwing. The tape (json_tape.h, reportFromText: how loadReport reads a file)
// must take no text parseJson refuses, read every value as it does, and give the
// same report or the same error, or leave the text to parseJson.
#include <optional>
#include <sstream>

#include "fuzz_common.h"
#include "tilescope/base/json_tape.h"
#include "tilescope/export/document.h"
#include "tilescope/export/summary.h"
#include "tilescope/model/report.h"

using namespace tilescope;

namespace {

Report read(const std::string& text) { return reportFromJson(parseJson(text)); }

/// Same values of the same kinds (json's == takes 3 for 3.0; an integer is one
/// kind, signed or not: "-0" is nlohmann's signed 0, simdjson's 0).
bool same(const nlohmann::json& a, const nlohmann::json& b) {
  if (jsonKind(a) != jsonKind(b) || a.size() != b.size()) return false;
  if (a.is_array()) {
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!same(a[i], b[i])) return false;
    return true;
  }
  if (a.is_object()) {
    for (auto x = a.begin(), y = b.begin(); x != a.end(); ++x, ++y)
      if (x.key() != y.key() || !same(*x, *y)) return false;
    return true;
  }
  return a.dump() == b.dump();
}

/// The tape against the document: the JSON values, then the report or its error.
void checkTape(const std::string& text) {
  if (const std::optional<JsonTape> tape = JsonTape::build(text, reportJsonLimits())) {
    nlohmann::json dom;
    try {
      dom = parseJson(text);
    } catch (const std::runtime_error& e) {
      fuzz::violated(std::string("the tape took a text parseJson refuses: ") + e.what());
    }
    if (!same(tape->root().toJson(), dom)) fuzz::violated("the tape reads a value other than parseJson");
  }
  std::string oldError, fastError;
  Report old;
  std::optional<Report> fast;
  try {
    old = read(text);
  } catch (const std::runtime_error& e) {
    oldError = e.what();
  }
  try {
    fast = reportFromText(text);
  } catch (const std::runtime_error& e) {
    fastError = e.what();
  }
  if (!fastError.empty() && fastError != oldError)
    fuzz::violated("reportFromText's error differs: " + fastError + " | " + oldError);
  if (fast && (!oldError.empty() || dumpJson(toJson(*fast)) != dumpJson(toJson(old))))
    fuzz::violated("reportFromText reads another report");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  checkTape(fuzz::text(data, size));
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
