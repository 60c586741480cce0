// The non-template parts of json_fields.h: messages with JSON paths, and the
// values with a shape of their own (enums as names, small tuples as arrays).
#include <algorithm>

#include "tilescope/model/json_fields.h"

namespace tilescope {

ReportError::ReportError(std::string path, const std::string& problem)
    : std::runtime_error(path.empty() ? problem : path + ": " + problem), m_path(std::move(path)) {}

namespace json_io {

std::string kindOf(const json& j) {
  switch (j.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::object:
      return "an object";
    case json::value_t::array:
      return "an array";
    case json::value_t::string:
      return "a string";
    case json::value_t::boolean:
      return j.get<bool>() ? "true" : "false";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "an integer";
    case json::value_t::number_float:
      return "a number";
    default:
      return "a binary value";
  }
}

void fail(const std::string& path, const std::string& problem) { throw ReportError(path, problem); }

void expected(const std::string& path, const char* what, const json& found) {
  fail(path, std::string("expected ") + what + ", found " + kindOf(found));
}

std::string child(const std::string& path, const char* key) { return path.empty() ? key : path + "." + key; }

std::string element(const std::string& path, std::size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

void Reader::rest(json& open) const {
  open = json::object();
  for (const auto& [k, v] : m_obj.items())
    if (std::find(m_seen.begin(), m_seen.end(), k) == m_seen.end()) open[k] = v;
}

json toValue(Verdict v) { return verdictName(v); }
json toValue(Severity v) { return severityName(v); }
json toValue(const ByteRange& v) { return json::array({v.first, v.last}); }
json toValue(const BadTile& v) { return json::array({v.row, v.col, v.count, v.maxErr}); }
json toValue(const CurvePoint& v) { return json::array({v.x, v.occupancy}); }

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

// [a, b, ...]: exactly `n` values (a shorter list is a truncated file, not a default).
const json& tuple(const json& j, std::size_t n, const std::string& path) {
  if (!j.is_array()) expected(path, "an array", j);
  if (j.size() != n)
    fail(path, "expected " + std::to_string(n) + " values, found " + std::to_string(j.size()));
  return j;
}

}  // namespace

void fromValue(const json& j, Verdict& out, const std::string& path) { fromName(j, out, path, parseVerdict); }
void fromValue(const json& j, Severity& out, const std::string& path) {
  fromName(j, out, path, parseSeverity);
}

void fromValue(const json& j, ByteRange& out, const std::string& path) {
  tuple(j, 2, path);
  fromValue(j[0], out.first, element(path, 0));
  fromValue(j[1], out.last, element(path, 1));
}

void fromValue(const json& j, BadTile& out, const std::string& path) {
  tuple(j, 4, path);
  fromValue(j[0], out.row, element(path, 0));
  fromValue(j[1], out.col, element(path, 1));
  fromValue(j[2], out.count, element(path, 2));
  fromValue(j[3], out.maxErr, element(path, 3));
}

void fromValue(const json& j, CurvePoint& out, const std::string& path) {
  tuple(j, 2, path);
  fromValue(j[0], out.x, element(path, 0));
  fromValue(j[1], out.occupancy, element(path, 1));
}

}  // namespace json_io
}  // namespace tilescope
