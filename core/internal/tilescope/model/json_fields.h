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
// conversion with undefined behaviour). A reader reads a document
// (nlohmann::json) or a tape (JsonView, json_tape.h: how a report file is read,
// without building a document) with the same results and messages; a path
// (JsonPath) is spelled out only for a message.
//
// Values with a JSON shape of their own: hex64(x) (a 64-bit address as
// "0x7f00001234"), runLength(v) (a vector as [value, run, ...]), std::tie(a, b)
// (members as one array), and any struct with a tupleOf(S&) beside it that
// returns std::tie of its members ([row, col, count, max_err]).
// Internal to core (the report, the stream codec, the capture records).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilescope/base/json_input.h"
#include "tilescope/base/json_tape.h"
#include "tilescope/model/report.h"

namespace tilescope::json_io {

using nlohmann::json;

/// `S` is `T` or `const T`: one template per struct serves the writer and the reader.
template <class S, class T>
concept Is = std::same_as<std::remove_const_t<S>, T>;

/// What a reader reads: a document, or a value of a tape.
template <class V>
concept Value = std::same_as<V, json> || std::same_as<V, JsonView>;

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
[[noreturn]] void fail(const JsonPath& path, const std::string& problem);
[[noreturn]] void expected(const JsonPath& path, const char* what, const json& found);
[[noreturn]] void expected(const JsonPath& path, const char* what, const JsonView& found);

/// A value as a document: itself, or a tape's value built into one (the open parts).
inline const json& jsonOf(const json& j) { return j; }
inline json jsonOf(const JsonView& v) { return v.toJson(); }

/// An object's member, or none (`!x`).
inline const json* member(const json& obj, const char* key) {
  const auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}
inline std::optional<JsonView> member(const JsonView& obj, const char* key) { return obj.find(key); }

class Writer;
template <Value V>
class BasicReader;
using Reader = BasicReader<json>;

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
template <Value V>
void fromValue(const V& j, Hex64<std::uint64_t> out, const JsonPath& path);

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
template <Value V>
void fromValue(const V& j, RunLength<std::vector<std::int64_t>> out, const JsonPath& path);

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

template <Value V, class T>
void fromValue(const V& j, T& out, const JsonPath& path);

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};

/// Types with their own JSON shape (enums as names, small tuples as arrays) or
/// their own checks; defined in report_json.cpp. The generic ones cover the rest.
/// Readers are instantiated for both Values where they are defined.
json toValue(Verdict v);
json toValue(Severity v);
json toValue(const Location& v);  ///< location_json.cpp
// The report's own structs, for codecs in other files (the stream): report_json.cpp.
json toValue(const Point& v);
json toValue(const Report& v);
json toValue(const DeviceInfo& v);
json toValue(const GpuRecord& v);
template <Value V>
void fromValue(const V& j, GpuRecord& out, const JsonPath& path);
template <Value V>
void fromValue(const V& j, Point& out, const JsonPath& path);
/// A sweep's points; from a tape, decoded over threads (the first wrong point named).
template <Value V>
void fromValue(const V& j, std::vector<Point>& out, const JsonPath& path);
// The trace section (trace_json.cpp) and the counters section (counters_model.cpp).
json toValue(const TraceInfo& v);
template <Value V>
void fromValue(const V& j, TraceInfo& out, const JsonPath& path);
json toValue(const CountersInfo& v);
template <Value V>
void fromValue(const V& j, CountersInfo& out, const JsonPath& path);
json toValue(const StagesInfo& v);  ///< the compiler stages (stages_json.cpp)
template <Value V>
void fromValue(const V& j, StagesInfo& out, const JsonPath& path);
template <Value V>
void fromValue(const V& j, Report& out, const JsonPath& path);
template <Value V>
void fromValue(const V& j, DeviceInfo& out, const JsonPath& path);
template <Value V>
void fromValue(const V& j, Verdict& out, const JsonPath& path);
template <Value V>
void fromValue(const V& j, Severity& out, const JsonPath& path);
template <Value V>
void fromValue(const V& j, Location& out, const JsonPath& path);  ///< also older writers' shapes
template <Value V>
void fromValue(const V& j, CellMap& out, const JsonPath& path);  ///< checks rows × cols = states
template <Value V>
void fromValue(const V& j, ErrorMap& out, const JsonPath& path);  ///< checks rows × cols = max_abs

/// Reads an object into a described struct (what fromValue does for them; the
/// overloads above that check more call it first).
template <Value V, class T>
void readObject(const V& j, T& out, const JsonPath& path);

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

template <Value V>
class BasicReader {
 public:
  static constexpr bool reading = true;
  /// `obj` must be an object (fromValue checks before constructing a Reader).
  BasicReader(const V& obj, const JsonPath& path) : m_obj(obj), m_path(path) {}
  /// `v` a field, or a shape made for it (hex64(x), std::tie(a, b)).
  template <class T>
  void operator()(const char* key, T&& v, Skip = {}) {
    const auto x = find(key);
    if (!x || x->is_null()) return;
    fromValue(*x, v, m_path.child(key));
  }
  template <class Body>
  void object(const char* key, Body&& body, Skip = {}, bool = false) {
    const auto x = find(key);
    if (!x || x->is_null()) return;
    const JsonPath path = m_path.child(key);
    if (!x->is_object()) expected(path, "an object", *x);
    BasicReader r(*x, path);
    body(r);
  }
  /// Every key no typed field read, into an open object.
  void rest(json& open) const {
    open = json::object();
    const auto begin = m_seen.begin(), end = begin + static_cast<std::ptrdiff_t>(m_seenCount);
    for (const auto& [k, v] : m_obj.items())
      if (std::find(begin, end, k) == end &&
          std::find(m_seenMore.begin(), m_seenMore.end(), k) == m_seenMore.end())
        open[std::string(k)] = jsonOf(v);
  }
  std::string path() const { return m_path.str(); }

 private:
  auto find(const char* key) {
    // The keys asked for, for rest(): in place for a field list's length (a
    // vector per object cost a malloc per key doubling, 100 a point).
    if (m_seenCount < m_seen.size())
      m_seen[m_seenCount++] = key;
    else
      m_seenMore.push_back(key);
    return member(m_obj, key);
  }
  const V& m_obj;
  JsonPath m_path;
  std::array<std::string_view, 32> m_seen;  ///< the field lists' keys (literals)
  std::size_t m_seenCount = 0;
  std::vector<std::string_view> m_seenMore;
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
template <Value V>
void checkArray(const V& j, std::size_t n, const JsonPath& path) {
  if (!j.is_array()) expected(path, "an array", j);
  if (j.size() != n)
    fail(path, "expected " + std::to_string(n) + " values, found " + std::to_string(j.size()));
}

template <Value V, class... M>
void readTuple(const V& j, std::tuple<M...>& out, const JsonPath& path) {
  checkArray(j, sizeof...(M), path);
  std::size_t i = 0;
  auto x = j.begin();
  std::apply([&](auto&... m) { ((fromValue(*x, m, path.index(i)), ++x, ++i), ...); }, out);
}

template <Value V, class T>
void fromInteger(const V& j, T& out, const JsonPath& path) {
  if (j.is_number_unsigned()) {
    const auto u = j.template get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<T>::max()))
      fail(path, "out of range: " + j.dump());
    out = static_cast<T>(u);
  } else if (j.is_number_integer()) {
    const auto i = j.template get<std::int64_t>();
    if (i < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
        (i > 0 && static_cast<std::uint64_t>(i) > static_cast<std::uint64_t>(std::numeric_limits<T>::max())))
      fail(path, "out of range: " + j.dump());
    out = static_cast<T>(i);
  } else if (j.is_number_float()) {
    // 3.0 reads as 3 (some writers print every number as a double); 3.5 does not.
    const double d = j.template get<double>();
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

/// A fixed number of values (std::array, a C array).
template <Value V, class T>
void readFixed(const V& j, T& out, const JsonPath& path) {
  constexpr std::size_t n = [] {
    if constexpr (std::is_array_v<T>)
      return std::extent_v<T>;
    else
      return std::tuple_size<T>::value;
  }();
  checkArray(j, n, path);
  std::size_t i = 0;
  for (const auto& x : j) {
    fromValue(x, out[i], path.index(i));
    ++i;
  }
}

template <Value V, class T>
void fromValue(const V& j, T& out, const JsonPath& path) {
  if constexpr (std::is_same_v<T, json>) {
    out = jsonOf(j);
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!j.is_boolean()) expected(path, "true or false", j);
    out = j.template get<bool>();
  } else if constexpr (std::is_integral_v<T>) {
    fromInteger(j, out, path);
  } else if constexpr (std::is_floating_point_v<T>) {
    // JSON has no NaN: writers print it (and ±Inf) as null, read back as NaN.
    if (j.is_null())
      out = std::numeric_limits<T>::quiet_NaN();
    else if (!j.is_number())
      expected(path, "a number", j);
    else
      out = j.template get<T>();
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!j.is_string()) expected(path, "a string", j);
    out = j.template get<std::string>();
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
    if constexpr (std::is_same_v<V, JsonView>) {
      // A tape's members come in the text's order: read in a document's (sorted),
      // so that of two wrong values the same one is named.
      std::vector<std::pair<std::string_view, JsonView>> members;
      for (const auto& m : j.items()) members.push_back(m);
      std::sort(members.begin(), members.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
      for (const auto& [k, x] : members) fromValue(x, out[std::string(k)], path.child(k));
    } else {
      for (const auto& [k, x] : j.items()) fromValue(x, out[std::string(k)], path.child(k));
    }
  } else if constexpr (std::is_array_v<T> || requires { std::tuple_size<T>::value; }) {
    readFixed(j, out, path);
  } else if constexpr (requires { out.push_back(std::declval<typename T::value_type>()); }) {
    if (!j.is_array()) expected(path, "an array", j);
    out.clear();
    out.reserve(j.size());
    std::size_t i = 0;
    for (const auto& x : j) fromValue(x, out.emplace_back(), path.index(i++));
  } else {
    static_assert(sizeof(T) == 0, "no JSON shape for this type");
  }
}

template <Value V, class T>
void readObject(const V& j, T& out, const JsonPath& path) {
  if (!j.is_object()) expected(path, "an object", j);
  BasicReader<V> r(j, path);
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
