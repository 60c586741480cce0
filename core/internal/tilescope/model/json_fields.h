// One field list per serialised struct, driving both directions (RenderDoc's
// DoSerialise, on nlohmann's values). A struct describes itself once:
//
//   template <class IO, json_io::Is<Stats> S> void fields(IO& io, S& s) {
//     io("median", s.median);
//     io("regs", s.regs, skipIf(s.regs < 0));   // omitted when unmeasured
//   }
//
// and Writer (S const) builds the JSON object while Reader (S mutable) fills
// the struct, checking every value's type and naming its JSON path in the
// error ("points[3].timing.kernel_ns.median: expected a number, found a
// string"). Absent and null keys leave the default; unknown keys are ignored
// unless the list ends with io.rest(openJson), which keeps them. Integers are
// range-checked (a 1e300 in an int field is an error naming its path, never a
// conversion with undefined behaviour).
//
// Values with a JSON shape of their own: hex64(x) (a 64-bit address as
// "0x7f00001234"), runLength(v) (a vector as [value, run, ...]), std::tie(a, b)
// (members as one array), and any struct with a tupleOf(S&) beside it that
// returns std::tie of its members ([row, col, count, max_err]).
// Internal to core (the report, the stream codec, the capture records).
#pragma once

#include <array>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilescope/base/json_input.h"
#include "tilescope/model/report.h"

namespace tilescope::json_io {

using nlohmann::json;

/// `S` is `T` or `const T`: one template per struct serves the writer and the reader.
template <class S, class T>
concept Is = std::same_as<std::remove_const_t<S>, T>;

/// A writer option: leave the key out (a reader ignores it).
struct Skip {
  bool yes = false;
};
inline Skip skipIf(bool condition) { return {condition}; }
template <class T>
Skip skipIfEmpty(const T& v) {
  if constexpr (requires { v.empty(); })
    return {v.empty()};
  else
    return {!v.has_value()};
}

/// Throw ReportError; `expected` names what was found (jsonKind: "a string", ...).
[[noreturn]] void fail(const std::string& path, const std::string& problem);
[[noreturn]] void expected(const std::string& path, const char* what, const json& found);

class Writer;
class Reader;

template <class T>
concept Described = requires(Writer& w, const T& t) {
  fields(w, t);
};

// ---------------------------------------------------------------- value shapes

/// A 64-bit value (an address, a PC) written as a hex string, "0x7f00001234": a
/// JSON number above 2^53 loses digits in most readers. Reads that string (or a
/// decimal one) or a non-negative integer.
template <class U>
struct Hex64 {
  U& value;
};
inline Hex64<const std::uint64_t> hex64(const std::uint64_t& v) { return {v}; }
inline Hex64<std::uint64_t> hex64(std::uint64_t& v) { return {v}; }
json toValue(Hex64<const std::uint64_t> v);
void fromValue(const json& j, Hex64<std::uint64_t> out, const std::string& path);

/// A vector written run-length encoded, [value, run, value, run, ...] (the
/// trace's footprint maps, mostly long runs of -1). The reader refuses a
/// negative run, an odd length and more than kMaxRunLengthValues values.
template <class V>
struct RunLength {
  V& values;
};
inline constexpr std::int64_t kMaxRunLengthValues = std::int64_t{1} << 24;
inline RunLength<const std::vector<std::int64_t>> runLength(const std::vector<std::int64_t>& v) {
  return {v};
}
inline RunLength<std::vector<std::int64_t>> runLength(std::vector<std::int64_t>& v) { return {v}; }
json toValue(RunLength<const std::vector<std::int64_t>> v);
void fromValue(const json& j, RunLength<std::vector<std::int64_t>> out, const std::string& path);

template <class T>
struct IsTie : std::false_type {};
template <class... M>
struct IsTie<std::tuple<M...>> : std::true_type {};

/// A struct written as one array of its members: tupleOf(s) returns std::tie of them.
template <class T>
concept AsTuple = requires(T& t) {
  tupleOf(t);
};

// ---------------------------------------------------------------- values

template <class T>
json toValue(const T& v);

template <class T>
void fromValue(const json& j, T& out, const std::string& path);

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};

/// Types with their own JSON shape (enums as names, small tuples as arrays) or
/// their own checks; defined in report_json.cpp. The generic ones cover the rest.
json toValue(Verdict v);
json toValue(Severity v);
json toValue(const Location& v);  ///< location_json.cpp
// The report's own structs, for codecs in other files (the stream): report_json.cpp.
json toValue(const Point& v);
json toValue(const Report& v);
json toValue(const DeviceInfo& v);
json toValue(const GpuRecord& v);
void fromValue(const json& j, GpuRecord& out, const std::string& path);
void fromValue(const json& j, Point& out, const std::string& path);
// The trace section (trace_json.cpp) and the counters section (counters_model.cpp).
json toValue(const TraceInfo& v);
void fromValue(const json& j, TraceInfo& out, const std::string& path);
json toValue(const CountersInfo& v);
void fromValue(const json& j, CountersInfo& out, const std::string& path);
void fromValue(const json& j, Report& out, const std::string& path);
void fromValue(const json& j, DeviceInfo& out, const std::string& path);
void fromValue(const json& j, Verdict& out, const std::string& path);
void fromValue(const json& j, Severity& out, const std::string& path);
void fromValue(const json& j, Location& out, const std::string& path);  ///< also older writers' shapes
void fromValue(const json& j, CellMap& out, const std::string& path);   ///< checks rows × cols = states
void fromValue(const json& j, ErrorMap& out, const std::string& path);  ///< checks rows × cols = max_abs

/// Reads an object into a described struct (what fromValue does for them; the
/// overloads above that check more call it first).
template <class T>
void readObject(const json& j, T& out, const std::string& path);

class Writer {
 public:
  static constexpr bool reading = false;
  explicit Writer(json& out) : m_out(out) {
    if (!m_out.is_object()) m_out = json::object();
  }
  template <class T>
  void operator()(const char* key, const T& v, Skip skip = {}) {
    if (skip.yes) return;
    if constexpr (IsOptional<T>::value) {
      if (!v.has_value()) return;  // an unset optional: not measured, not written
    }
    m_out[key] = toValue(v);
  }
  /// A JSON object that is not a struct of its own ("sm_clock_mhz": {before, after}).
  template <class Body>
  void object(const char* key, Body&& body, Skip skip = {}, bool omitEmpty = false) {
    if (skip.yes) return;
    json sub = json::object();
    Writer w(sub);
    body(w);
    if (omitEmpty && sub.empty()) return;
    m_out[key] = std::move(sub);
  }
  /// The keys of an open object that no typed field wrote (typed fields win).
  void rest(const json& open) {
    if (!open.is_object()) return;
    for (const auto& [k, v] : open.items())
      if (!m_out.contains(k)) m_out[k] = v;
  }

 private:
  json& m_out;
};

class Reader {
 public:
  static constexpr bool reading = true;
  /// `obj` must be an object (fromValue checks before constructing a Reader).
  Reader(const json& obj, std::string path) : m_obj(obj), m_path(std::move(path)) {}
  /// `v` a field, or a shape made for it (hex64(x), std::tie(a, b)).
  template <class T>
  void operator()(const char* key, T&& v, Skip = {}) {
    const json* x = find(key);
    if (!x || x->is_null()) return;
    fromValue(*x, v, jsonPathChild(m_path, key));
  }
  template <class Body>
  void object(const char* key, Body&& body, Skip = {}, bool = false) {
    const json* x = find(key);
    if (!x || x->is_null()) return;
    if (!x->is_object()) expected(jsonPathChild(m_path, key), "an object", *x);
    Reader r(*x, jsonPathChild(m_path, key));
    body(r);
  }
  /// Every key no typed field read, into an open object.
  void rest(json& open) const;
  const std::string& path() const { return m_path; }

 private:
  const json* find(const char* key) {
    m_seen.push_back(key);
    auto it = m_obj.find(key);
    return it == m_obj.end() ? nullptr : &*it;
  }
  const json& m_obj;
  std::string m_path;
  std::vector<std::string> m_seen;
};

template <class T>
json toValue(const T& v) {
  if constexpr (std::is_same_v<T, json> || std::is_arithmetic_v<T> || std::is_same_v<T, std::string>) {
    return json(v);
  } else if constexpr (Described<T>) {
    json j = json::object();
    Writer w(j);
    fields(w, v);
    return j;
  } else if constexpr (AsTuple<T>) {
    return toValue(tupleOf(v));
  } else if constexpr (IsTie<T>::value) {
    return std::apply([](const auto&... m) { return json::array({toValue(m)...}); }, v);
  } else if constexpr (IsOptional<T>::value) {
    return v.has_value() ? toValue(*v) : json();
  } else if constexpr (requires { typename T::mapped_type; }) {
    json j = json::object();
    for (const auto& [k, x] : v) j[k] = toValue(x);
    return j;
  } else if constexpr (std::is_array_v<T> || requires {
                         v.begin();
                         v.size();
                       }) {
    json j = json::array();
    for (const auto& x : v) j.push_back(toValue(x));
    return j;
  } else {
    static_assert(sizeof(T) == 0, "no JSON shape for this type");
  }
}

/// `j` is an array of exactly `n` values (a shorter list is a truncated file, not a default).
void checkArray(const json& j, std::size_t n, const std::string& path);

template <class... M>
void readTuple(const json& j, std::tuple<M...>& out, const std::string& path) {
  checkArray(j, sizeof...(M), path);
  std::size_t i = 0;
  std::apply([&](auto&... m) { ((fromValue(j[i], m, jsonPathIndex(path, i)), ++i), ...); }, out);
}

template <class T>
void fromInteger(const json& j, T& out, const std::string& path) {
  if (j.is_number_unsigned()) {
    const auto u = j.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<T>::max()))
      fail(path, "out of range: " + j.dump());
    out = static_cast<T>(u);
  } else if (j.is_number_integer()) {
    const auto i = j.get<std::int64_t>();
    if (i < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
        (i > 0 && static_cast<std::uint64_t>(i) > static_cast<std::uint64_t>(std::numeric_limits<T>::max())))
      fail(path, "out of range: " + j.dump());
    out = static_cast<T>(i);
  } else if (j.is_number_float()) {
    // 3.0 reads as 3 (some writers print every number as a double); 3.5 does not.
    const double d = j.get<double>();
    // Range first: converting an out-of-range double is undefined.
    if (!(d >= static_cast<double>(std::numeric_limits<T>::min()) &&
          d < static_cast<double>(std::numeric_limits<T>::max()) + 1.0))
      fail(path, "out of range: " + j.dump());
    if (d != std::trunc(d)) fail(path, "expected an integer, found " + j.dump());
    out = static_cast<T>(d);
  } else {
    expected(path, "an integer", j);
  }
}

template <class T>
void fromValue(const json& j, T& out, const std::string& path) {
  if constexpr (std::is_same_v<T, json>) {
    out = j;
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!j.is_boolean()) expected(path, "true or false", j);
    out = j.get<bool>();
  } else if constexpr (std::is_integral_v<T>) {
    fromInteger(j, out, path);
  } else if constexpr (std::is_floating_point_v<T>) {
    // JSON has no NaN: writers print it (and ±Inf) as null, read back as NaN.
    if (j.is_null())
      out = std::numeric_limits<T>::quiet_NaN();
    else if (!j.is_number())
      expected(path, "a number", j);
    else
      out = j.get<T>();
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!j.is_string()) expected(path, "a string", j);
    out = j.get<std::string>();
  } else if constexpr (Described<T>) {
    readObject(j, out, path);
  } else if constexpr (AsTuple<T>) {
    auto members = tupleOf(out);
    fromValue(j, members, path);
  } else if constexpr (IsTie<T>::value) {
    readTuple(j, out, path);
  } else if constexpr (IsOptional<T>::value) {
    typename T::value_type v{};
    fromValue(j, v, path);
    out = std::move(v);
  } else if constexpr (requires { typename T::mapped_type; }) {
    if (!j.is_object()) expected(path, "an object", j);
    out.clear();
    for (const auto& [k, x] : j.items()) fromValue(x, out[k], jsonPathChild(path, k));
  } else if constexpr (std::is_array_v<T> || requires { std::tuple_size<T>::value; }) {
    constexpr std::size_t n = [] {
      if constexpr (std::is_array_v<T>)
        return std::extent_v<T>;
      else
        return std::tuple_size<T>::value;
    }();
    checkArray(j, n, path);
    for (std::size_t i = 0; i < n; ++i) fromValue(j[i], out[i], jsonPathIndex(path, i));
  } else if constexpr (requires { out.push_back(std::declval<typename T::value_type>()); }) {
    if (!j.is_array()) expected(path, "an array", j);
    out.clear();
    out.reserve(j.size());
    for (std::size_t i = 0; i < j.size(); ++i) fromValue(j[i], out.emplace_back(), jsonPathIndex(path, i));
  } else {
    static_assert(sizeof(T) == 0, "no JSON shape for this type");
  }
}

template <class T>
void readObject(const json& j, T& out, const std::string& path) {
  if (!j.is_object()) expected(path, "an object", j);
  Reader r(j, path);
  fields(r, out);
}

}  // namespace tilescope::json_io

namespace tilescope {

// The report's small tuples: [first, last], [row, col, count, max_err], [x, occupancy].
template <json_io::Is<ByteRange> S>
auto tupleOf(S& v) {
  return std::tie(v.first, v.last);
}
template <json_io::Is<BadTile> S>
auto tupleOf(S& v) {
  return std::tie(v.row, v.col, v.count, v.maxErr);
}
template <json_io::Is<CurvePoint> S>
auto tupleOf(S& v) {
  return std::tie(v.x, v.occupancy);
}

}  // namespace tilescope
