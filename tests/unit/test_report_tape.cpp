// Reading a report without a document (docs/measurements.md, "Opening a long sweep"): the tape (json_tape.h)
// takes no text parseJson refuses and reads every value as parseJson does;
// reportFromText gives the Report reportFromJson(parseJson(text)) gives, for every
// shipped report and fixture, and the same error, naming the JSON path, for a
// wrong value deep in a long sweep; a text it leaves is still read or refused
// by loadReport with the message it always had.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "tilescope/base/json_input.h"
#include "tilescope/base/json_tape.h"
#include "tilescope/model/report.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace tilescope;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The same values of the same JSON kinds (json's == takes 3 for 3.0; an
/// integer is one kind, signed or not: "-0" is nlohmann's signed 0, simdjson's 0).
::testing::AssertionResult same(const json& a, const json& b, const std::string& at = "") {
  if (jsonKind(a) != jsonKind(b) || (!a.is_structured() && a != b))
    return ::testing::AssertionFailure() << "at '" << at << "': " << a.dump() << " vs " << b.dump();
  if (a.size() != b.size()) return ::testing::AssertionFailure() << "at '" << at << "': sizes differ";
  if (a.is_array())
    for (std::size_t i = 0; i < a.size(); ++i)
      if (auto r = same(a[i], b[i], jsonPathIndex(at, i)); !r) return r;
  if (a.is_object())
    for (auto x = a.begin(), y = b.begin(); x != a.end(); ++x, ++y) {
      if (x.key() != y.key()) return ::testing::AssertionFailure() << "at '" << at << "': keys differ";
      if (auto r = same(*x, *y, jsonPathChild(at, x.key())); !r) return r;
    }
  return ::testing::AssertionSuccess();
}

bool parses(const std::string& text, const JsonLimits& limits = {}) {
  try {
    (void)parseJson(text, limits);
    return true;
  } catch (const JsonInputError&) {
    return false;
  }
}

/// Without simdjson the tape takes no text, and every report is parseJson's.
#define SKIP_WITHOUT_TAPE() \
  if (!JsonTape::available()) GTEST_SKIP() << "built without simdjson: reports are read by parseJson"

TEST(JsonTape, ReadsValuesAsParseJsonDoes) {
  SKIP_WITHOUT_TAPE();
  const std::vector<std::string> texts = {
      "0",
      "-0",
      "-0.0",
      "1",
      "-1",
      "3.0",
      "1e5",
      "1E-5",
      "-1.5e+3",
      "0.1",
      "1.7976931348623157e308",
      "4.9e-324",
      "18446744073709551615",
      "-9223372036854775808",
      "true",
      "false",
      "null",
      "\"\"",
      R"("a\"b\\c\/d\b\f\n\r\t")",
      R"("\u00e9\u4e2d\ud83d\ude00\u0000")",
      "\"é中😀\"",
      " [ ] ",
      "{}",
      R"({"b": 1, "a": [1, {"": {}, " ": []}], "A": null, "ab": "x", "a\u0000": 2})",
      "[[[[[]]]], {\"k\": [true, false, null, -2, 2.5, \"s\"]}]",
      "\t\r\n{\"x\"\t:\n1\r}\n"};
  for (const std::string& text : texts) {
    const std::optional<JsonTape> tape = JsonTape::build(text, JsonLimits{});
    ASSERT_TRUE(tape) << text;
    EXPECT_TRUE(same(tape->root().toJson(), parseJson(text, JsonLimits{}))) << text;
  }
  // Integers beyond 64 bits, which nlohmann reads as doubles: the tape leaves
  // them to parseJson, or reads them as it does.
  for (const std::string text : {"18446744073709551616", "-9223372036854775809",
                                 "123456789012345678901234567890", "\xEF\xBB\xBF{\"a\": 1}"}) {
    if (const std::optional<JsonTape> tape = JsonTape::build(text, JsonLimits{})) {
      EXPECT_TRUE(same(tape->root().toJson(), parseJson(text, JsonLimits{}))) << text;
    }
  }
}

TEST(JsonTape, TakesNoTextParseJsonRefuses) {
  SKIP_WITHOUT_TAPE();
  const std::vector<std::string> texts = {"",
                                          " ",
                                          "01",
                                          "-01",
                                          "1.",
                                          ".5",
                                          "-",
                                          "+1",
                                          "1e",
                                          "1e+",
                                          "0x10",
                                          "tru",
                                          "nul",
                                          "truex",
                                          "[1,]",
                                          "[,1]",
                                          "[1 2]",
                                          "{\"a\":1,}",
                                          "{a:1}",
                                          "{\"a\" 1}",
                                          "{\"a\":}",
                                          "[1]]",
                                          "[1] x",
                                          "\"abc",
                                          "\"\\x\"",
                                          "\"\\u12\"",
                                          "\"\\ud800\"",
                                          "\"\\ud800\\u0041\"",
                                          "\"\\udc00\"",
                                          "\"a\nb\"",
                                          std::string("\"\x01\""),
                                          std::string("\"\xC0\x80\""),
                                          std::string("\"\xED\xA0\x80\""),
                                          std::string("\"\xF4\x90\x80\x80\""),
                                          std::string("\"\xE2\x82\""),
                                          std::string("\"\x80\""),
                                          std::string("[1\0]", 4),
                                          "1e400",
                                          "-1e400",
                                          "[NaN]",
                                          "{\"a\": 1, \"a\": 2}",
                                          "{\"b\": 1, \"a\": {\"c\": 1, \"c\": 1}}",
                                          "// c\n1"};
  for (const std::string& text : texts) {
    EXPECT_FALSE(parses(text)) << "the test's premise: " << text;
    EXPECT_FALSE(JsonTape::build(text, JsonLimits{})) << text;
  }
  // The limits: depth, members, size.
  JsonLimits l;
  l.maxDepth = 3;
  EXPECT_TRUE(JsonTape::build("[[[]]]", l));
  EXPECT_FALSE(JsonTape::build("[[[[]]]]", l));
  EXPECT_FALSE(JsonTape::build(std::string(300000, '[') + std::string(300000, ']'), JsonLimits{}));
  l = {};
  l.maxMembers = 2;
  EXPECT_TRUE(JsonTape::build(R"({"a": 1, "b": {"c": 1, "d": 2}})", l));
  EXPECT_FALSE(JsonTape::build(R"({"a": 1, "b": {"c": 1, "d": 2, "e": 3}})", l));
  l = {};
  l.maxBytes = 4;
  EXPECT_FALSE(JsonTape::build("[1,2]", l));
  // A key twice where the limits allow it: nlohmann's rule (the last one) is parseJson's.
  l = {};
  l.rejectDuplicateKeys = false;
  EXPECT_FALSE(JsonTape::build(R"({"a": 1})", l));
}

TEST(JsonTape, MembersInTextOrderAndFound) {
  SKIP_WITHOUT_TAPE();
  const std::string text = R"({"b": 2, "a": 1, "ba": 3, "B": 4})";
  const std::optional<JsonTape> tape = JsonTape::build(text, JsonLimits{});
  ASSERT_TRUE(tape);
  std::string keys;
  for (const auto& [k, v] : tape->root().items()) keys += std::string(k) + "=" + v.dump() + " ";
  EXPECT_EQ(keys, "b=2 a=1 ba=3 B=4 ");
  EXPECT_EQ(tape->root().find("ba")->get<int>(), 3);
  EXPECT_FALSE(tape->root().find("c"));
  EXPECT_EQ(jsonKind(tape->root()), "an object");
}

TEST(JsonPath, SpellsPathsAsThePathJoiner) {
  const JsonPath root("points");
  const JsonPath point = root.index(12345);
  EXPECT_EQ(point.child("timing").child("kernel_ns").str(), "points[12345].timing.kernel_ns");
  EXPECT_EQ(point.child("a.b").index(0).str(), jsonPathIndex(jsonPathChild("points[12345]", "a.b"), 0));
  EXPECT_EQ(JsonPath("").child("").str(), jsonPathChild("", ""));
  EXPECT_EQ(JsonPath("").child("schema").str(), "schema");
}

std::vector<fs::path> reportFixtures() {
  std::vector<fs::path> files;
  const fs::path src(TILESCOPE_SOURCE_DIR);
  for (const fs::path& dir :
       {src / "resources" / "sample", src / "tests" / "data" / "reports",
        src / "tests" / "data" / "reports_charts", src / "tests" / "data" / "reports_counters",
        src / "tests" / "data" / "issue31"})
    for (const auto& e : fs::recursive_directory_iterator(dir))
      if (e.path().extension() == ".json") files.push_back(e.path());
  return files;
}

TEST(ReportFromText, EveryReportReadsAsFromADocument) {
  int reports = 0;
  for (const fs::path& file : reportFixtures()) {
    const std::string text = slurp(file);
    Report old;
    try {
      old = reportFromJson(parseJson(text));
    } catch (const std::exception& e) {  // not a report (a config, a triage), or a broken fixture
      std::optional<Report> r;
      try {
        r = reportFromText(text);
      } catch (const std::exception& f) {
        EXPECT_EQ(std::string(f.what()), std::string(e.what())) << file;
        continue;
      }
      EXPECT_FALSE(r) << file;
      continue;
    }
    const std::optional<Report> fast = reportFromText(text);
    if (!JsonTape::available()) {
      EXPECT_FALSE(fast);
      continue;
    }
    ASSERT_TRUE(fast) << file;
    EXPECT_TRUE(*fast == old) << file;
    EXPECT_EQ(dumpJson(toJson(*fast), 1), dumpJson(toJson(old), 1)) << file;
    ++reports;
  }
  if (JsonTape::available()) {
    EXPECT_GE(reports, 10);
  }
}

/// A sweep of `n` small points (the fixture's header, a few fields a point).
json sweepOf(int n) {
  json r =
      parseJson(slurp(fs::path(TILESCOPE_SOURCE_DIR) / "tests" / "data" / "reports" / "gemm_sweep.json"));
  const json curve = json::array(
      {json::array({32, 0.5}), json::array({64, 0.75}), json::array({96, 1.0}), json::array({128, 0.5})});
  r["points"] = json::array();
  for (int i = 0; i < n; ++i)
    r["points"].push_back({{"index", i},
                           {"label", "P=" + std::to_string(i)},
                           {"verdict", "ok"},
                           {"timing", {{"measured", false}}},
                           {"occupancy", {{"computed", true}, {"curves", {{"block_size", curve}}}}},
                           {"wall_s", 0.25}});
  return r;
}

std::string errorOf(const std::function<void()>& read) {
  try {
    read();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ReportFromText, AnErrorInPoint12345NamesItsPath) {
  SKIP_WITHOUT_TAPE();
  json r = sweepOf(12346);
  r["points"][12345]["timing"]["kernel_ns"] = {{"median", "fast"}};
  r["points"][12345]["timing"]["measured"] = true;
  const std::string text = r.dump();
  const std::string fast = errorOf([&] { (void)reportFromText(text); });
  EXPECT_EQ(fast, "points[12345].timing.kernel_ns.median: expected a number, found a string");
  EXPECT_EQ(fast, errorOf([&] { (void)reportFromJson(parseJson(text)); }));

  r = sweepOf(12346);
  r["points"][12345]["verdict"] = "bogus";
  r["points"][12345]["occupancy"]["curves"]["block_size"][3] = json::array({1, 2, 3});
  const std::string text2 = r.dump();
  const std::string fast2 = errorOf([&] { (void)reportFromText(text2); });
  EXPECT_EQ(fast2.rfind("points[12345].", 0), 0u) << fast2;
  EXPECT_EQ(fast2, errorOf([&] { (void)reportFromJson(parseJson(text2)); }));

  // The first wrong point is named, as a document's reader names it.
  r["points"][12000]["wall_s"] = "slow";
  r["points"][40]["index"] = 1.5;
  const std::string text3 = r.dump();
  EXPECT_EQ(errorOf([&] { (void)reportFromText(text3); }),
            "points[40].index: expected an integer, found 1.5");
  r["points"][40]["index"] = 40;
  const std::string text4 = r.dump();
  EXPECT_EQ(errorOf([&] { (void)reportFromText(text4); }),
            "points[12000].wall_s: expected a number, found a string");
}

TEST(ReportFromText, ALimitInPoint12345IsLoadReportsToName) {
  std::string text = sweepOf(12346).dump();
  const std::size_t at = text.find("\"label\":\"P=12345\"");
  ASSERT_NE(at, std::string::npos);
  text.insert(at, "\"label\":\"again\",");
  EXPECT_FALSE(reportFromText(text));
  const fs::path file =
      fs::temp_directory_path() / ("tilescope_tape_" + std::to_string(::getpid()) + ".json");
  std::ofstream(file, std::ios::binary) << text;
  const std::string message = errorOf([&] { (void)loadReport(file); });
  fs::remove(file);
  EXPECT_EQ(message, file.string() + ": points[12345].label: duplicate key 'label'");
}

}  // namespace
