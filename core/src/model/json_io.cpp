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

void fail(const JsonPath& path, const std::string& problem) { throw ReportError(path.str(), problem); }

void expected(const JsonPath& path, const char* what, const json& found) {
  fail(path, std::string("expected ") + what + ", found " + jsonKind(found));
}
void expected(const JsonPath& path, const char* what, const JsonView& found) {
  fail(path, std::string("expected ") + what + ", found " + jsonKind(found));
}

json toValue(Verdict v) { return verdictName(v); }
json toValue(Severity v) { return severityName(v); }

json toValue(Hex64<const std::uint64_t> v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v.value));
  return b;
}

namespace {
std::string_view stringOf(const json& j) { return j.get_ref<const std::string&>(); }
std::string_view stringOf(const JsonView& j) { return j.str(); }
}  // namespace

template <Value V>
void fromValue(const V& j, Hex64<std::uint64_t> out, const JsonPath& path) {
  if (j.is_number_integer() || j.is_number_unsigned()) return fromInteger(j, out.value, path);
  if (!j.is_string()) expected(path, "a hex string", j);
  const std::string_view s = stringOf(j);
  const bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  const char* begin = s.data() + (hex ? 2 : 0);
  const char* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(begin, end, out.value, hex ? 16 : 10);
  if (begin == end || ec != std::errc() || ptr != end)
    fail(path,
         "expected a 64-bit hex value (\"0x1a0\"), found \"" + clipForMessage(std::string(s), 40) + "\"");
}
template void fromValue(const json&, Hex64<std::uint64_t>, const JsonPath&);
template void fromValue(const JsonView&, Hex64<std::uint64_t>, const JsonPath&);

json toValue(RunLength<const std::vector<std::int64_t>> v) { return rleEncode(v.values); }

template <Value V>
void fromValue(const V& j, RunLength<std::vector<std::int64_t>> out, const JsonPath& path) {
  std::vector<std::int64_t> runs;
  fromValue(j, runs, path);
  if (runs.size() % 2)
    fail(path, "expected [value, run] pairs, found " + std::to_string(runs.size()) + " values");
  std::int64_t total = 0;
  for (std::size_t i = 1; i < runs.size(); i += 2) {
    if (runs[i] < 0) fail(path.index(i), "a run of " + std::to_string(runs[i]) + " values");
    if (runs[i] > kMaxRunLengthValues - total)  // before adding: a run near 2^63 must not overflow
      fail(path, "more than " + std::to_string(kMaxRunLengthValues) + " values");
    total += runs[i];
  }
  out.values = rleDecode(runs);
}
template void fromValue(const json&, RunLength<std::vector<std::int64_t>>, const JsonPath&);
template void fromValue(const JsonView&, RunLength<std::vector<std::int64_t>>, const JsonPath&);

namespace {

// A name of a closed set: the parse function's message names the known ones.
template <Value V, class E, class Parse>
void fromName(const V& j, E& out, const JsonPath& path, Parse parse) {
  if (!j.is_string()) expected(path, "a string", j);
  try {
    out = parse(j.template get<std::string>());
  } catch (const std::invalid_argument& e) {
    fail(path, e.what());
  }
}

}  // namespace

template <Value V>
void fromValue(const V& j, Verdict& out, const JsonPath& path) {
  fromName(j, out, path, parseVerdict);
}
template <Value V>
void fromValue(const V& j, Severity& out, const JsonPath& path) {
  fromName(j, out, path, parseSeverity);
}
template void fromValue(const json&, Verdict&, const JsonPath&);
template void fromValue(const JsonView&, Verdict&, const JsonPath&);
template void fromValue(const json&, Severity&, const JsonPath&);
template void fromValue(const JsonView&, Severity&, const JsonPath&);

}  // namespace json_io
}  // namespace tilescope
