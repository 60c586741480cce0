// The non-template parts of json_fields.h: messages with JSON paths, and the
// values with a shape of their own (enums as names, 64-bit hex strings,
// run-length vectors).
#include <algorithm>
#include <charconv>
#include <cstdio>

#include "tilescope/model/json_fields.h"

namespace tilescope {

ReportError::ReportError(std::string path, const std::string& problem)
    : std::runtime_error(path.empty() ? problem : path + ": " + problem), m_path(std::move(path)) {}

namespace json_io {

void fail(const std::string& path, const std::string& problem) { throw ReportError(path, problem); }

void expected(const std::string& path, const char* what, const json& found) {
  fail(path, std::string("expected ") + what + ", found " + jsonKind(found));
}

void checkArray(const json& j, std::size_t n, const std::string& path) {
  if (!j.is_array()) expected(path, "an array", j);
  if (j.size() != n)
    fail(path, "expected " + std::to_string(n) + " values, found " + std::to_string(j.size()));
}

void Reader::rest(json& open) const {
  open = json::object();
  for (const auto& [k, v] : m_obj.items())
    if (std::find(m_seen.begin(), m_seen.end(), k) == m_seen.end()) open[k] = v;
}

json toValue(Verdict v) { return verdictName(v); }
json toValue(Severity v) { return severityName(v); }

json toValue(Hex64<const std::uint64_t> v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v.value));
  return b;
}

void fromValue(const json& j, Hex64<std::uint64_t> out, const std::string& path) {
  if (j.is_number_integer() || j.is_number_unsigned()) return fromInteger(j, out.value, path);
  if (!j.is_string()) expected(path, "a hex string", j);
  const std::string& s = j.get_ref<const std::string&>();
  const bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  const char* begin = s.data() + (hex ? 2 : 0);
  const char* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(begin, end, out.value, hex ? 16 : 10);
  if (begin == end || ec != std::errc() || ptr != end)
    fail(path, "expected a 64-bit hex value (\"0x1a0\"), found \"" + clipForMessage(s, 40) + "\"");
}

json toValue(RunLength<const std::vector<std::int64_t>> v) { return rleEncode(v.values); }

void fromValue(const json& j, RunLength<std::vector<std::int64_t>> out, const std::string& path) {
  std::vector<std::int64_t> runs;
  fromValue(j, runs, path);
  if (runs.size() % 2)
    fail(path, "expected [value, run] pairs, found " + std::to_string(runs.size()) + " values");
  std::int64_t total = 0;
  for (std::size_t i = 1; i < runs.size(); i += 2) {
    if (runs[i] < 0) fail(jsonPathIndex(path, i), "a run of " + std::to_string(runs[i]) + " values");
    if (runs[i] > kMaxRunLengthValues - total)  // before adding: a run near 2^63 must not overflow
      fail(path, "more than " + std::to_string(kMaxRunLengthValues) + " values");
    total += runs[i];
  }
  out.values = rleDecode(runs);
}

namespace {

// A name of a closed set: the parse function's message names the known ones.
template <class E, class Parse>
void fromName(const json& j, E& out, const std::string& path, Parse parse) {
  if (!j.is_string()) expected(path, "a string", j);
  try {
    out = parse(j.get<std::string>());
  } catch (const std::invalid_argument& e) {
    fail(path, e.what());
  }
}

}  // namespace

void fromValue(const json& j, Verdict& out, const std::string& path) { fromName(j, out, path, parseVerdict); }
void fromValue(const json& j, Severity& out, const std::string& path) {
  fromName(j, out, path, parseSeverity);
}

}  // namespace json_io
}  // namespace tilescope
