// The config's codec: one field list per struct of config.h, read and written by
// the same code, as the report's (model/json_fields.h). A struct describes itself
// once:
//
//   template <class IO, Is<TensorSpec> S> void fields(IO& io, S& t) {
//     io("dtype", t.dtype, Opt{.required = true});
//     io("seed", t.seed, Opt{.skip = t.seed == hash}, nonNegative);  // checked as read
//     if constexpr (IO::reading) io.check([&](const Node& n, ReadContext& ctx) { ... });
//   }
//
// Writer (S const) builds the ordered document in the list's order, leaving out
// what Opt::skip says; Reader (S mutable) reads a Node with the config's own
// messages and JSON paths; KeyLister collects the list's keys, which make a
// section's "unknown key (allowed here: ...)" check. The check runs before the
// first field a Reader reads; `first` fields (kernel.language, reference.op) are
// read before it, since they decide which keys the section has. A field's Check
// (a callable of the value's Node and the ReadContext, or each(f) for every
// element of a list) validates the value as it is read, before an integer is
// narrowed to its member; io.check hooks (reader only) validate across fields
// and set what is derived (a source's resolved path, the symbols). A hook that
// fails at a field finds it by its member, io.at(r.maxReps).fail(...): the key
// comes from the list (fieldKey), not a second spelling.
#pragma once

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "config_detail.h"
#include "tilescope/base/json_input.h"

namespace tilescope::detail {

/// `S` is `T` or `const T`: one template per struct serves the writer and the reader.
template <class S, class T>
concept Is = std::same_as<std::remove_const_t<S>, T>;

/// What a Reader knows beyond its node: the config so far, and which symbols
/// expressions are checked against (null: not checked).
struct ReadContext {
  Config* config = nullptr;
  const SymbolCheck* symbols = nullptr;
  SymbolCheck base, tiles, own;       ///< the main expressions', tiles' and a reference kernel's
  const ArgSpec* bytesArg = nullptr;  ///< the bytes argument being read (its relocations' checks)
  std::string trialsPath = "trials";  ///< where the trials count was given
};

/// A field's options: required when reading, left out when writing, a string's limit.
struct Opt {
  bool required = false;
  bool skip = false;       ///< the writer leaves the key out
  bool omitEmpty = false;  ///< the writer leaves out an object or array that came out empty
  std::size_t maxBytes = ConfigLimits::kMaxStringBytes;
  bool anyLength = false;  ///< a list without ConfigLimits::kMaxListLength (run.metrics)
  bool point = false;      ///< a sweep point or --set sets it: PointWriter writes it over the document
  bool draftSkip = false;  ///< a draft's writer (draftDocument) leaves the key out too
};

struct NoCheck {
  template <class... A>
  void operator()(A&&...) const {}
};
/// A check of every element of a list, as each is read.
template <class F>
struct Each {
  F f;
};
template <class F>
Each<F> each(F f) {
  return {std::move(f)};
}

// ---------------------------------------------------------------- value shapes

/// `T` is an instance of the shape template `Shape` (Expr<const std::string>, ...).
template <class T, template <class...> class Shape>
struct IsShape : std::false_type {};
template <template <class...> class Shape, class... A>
struct IsShape<Shape<A...>, Shape> : std::true_type {};

/// An expression: a JSON integer or a string; written back as an integer when it is one.
template <class Str>
struct Expr {
  Str& s;
};
template <class Str>
Expr<Str> expr(Str& s) {
  return {s};
}

/// A non-empty list of expressions; `length(node, list, context)` checks its length before
/// the symbols are checked; `pad3` fills missing trailing dimensions with 1.
template <class V, class L>
struct Exprs {
  V& v;
  L length;
  bool pad3 = false;
};
template <class V, class L = NoCheck>
Exprs<V, L> exprs(V& v, L length = {}, bool pad3 = false) {
  return {v, std::move(length), pad3};
}

/// Defines (CUDA) or constexprs (a Python kernel's, which may be booleans): name -> value.
template <class V>
struct Defines {
  V& v;
  bool allowBool = false;
};
template <class V>
Defines<V> defines(V& v, bool allowBool) {
  return {v, allowBool};
}

/// An object of named structs (tensors by name, tiles by tensor) kept in file order.
template <class V>
struct Named {
  V& v;
  const char* ifEmpty = nullptr;  ///< the error of an empty object; null: allowed
};
template <class V>
Named<V> named(V& v, const char* ifEmpty = nullptr) {
  return {v, ifEmpty};
}

/// The launch block of a kernel (a Python kernel's has `grid` only).
template <class L>
struct LaunchOf {
  L& launch;
  const KernelSpec& kernel;
};
template <class L>
LaunchOf<L> launchOf(L& launch, const KernelSpec& kernel) {
  return {launch, kernel};
}

/// A bytes argument's content written as hex digits (`hex`).
template <class B>
struct Hex {
  B& bytes;
};
template <class B>
Hex<B> hex(B& bytes) {
  return {bytes};
}

/// `run.counters`: true / false, or a counter set by name.
template <class R>
struct Counters {
  R& run;
};
template <class R>
Counters<R> counters(R& run) {
  return {run};
}

/// The key of a struct kept in an object by name (Named).
inline std::string& keyOf(TensorSpec& t) { return t.name; }
inline const std::string& keyOf(const TensorSpec& t) { return t.name; }
inline std::string& keyOf(TileSpec& t) { return t.tensor; }
inline const std::string& keyOf(const TileSpec& t) { return t.tensor; }

// ---------------------------------------------------------------- the three IOs

class KeyLister {
 public:
  static constexpr bool reading = false;
  std::vector<const char*> keys;
  template <class T, class C = NoCheck>
  void operator()(const char* key, T&&, Opt = {}, C = {}) {
    keys.push_back(key);
  }
  template <class T, class C = NoCheck>
  void first(const char* key, T&&, Opt = {}, C = {}) {
    keys.push_back(key);
  }
  template <class F>
  void check(F&&) {}
  void checkKeys() {}
};

/// Fails at the first key of `n` not in `allowed` ("unknown key (allowed here: ...)").
void onlyKeys(const Node& n, const std::vector<const char*>& allowed);

/// Finds the key a field list gives one member: the field that reads `target`
/// itself, or the member a shape wraps (hex(a.bytes) is a.bytes's field).
template <class M>
class MemberFinder {
 public:
  static constexpr bool reading = false;
  explicit MemberFinder(const M& target) : m_target(&target) {}
  const char* key = nullptr;
  template <class T, class C = NoCheck>
  void operator()(const char* k, const T& v, Opt = {}, C = {}) {
    if (!key && reads(v)) key = k;
  }
  template <class T, class C = NoCheck>
  void first(const char* k, const T& v, Opt o = {}, C c = {}) {
    (*this)(k, v, o, c);
  }
  template <class F>
  void check(F&&) {}
  void checkKeys() {}

 private:
  template <class T>
  bool reads(const T& v) const {
    if constexpr (IsShape<T, Expr>::value)
      return same(v.s);
    else if constexpr (IsShape<T, Exprs>::value || IsShape<T, Defines>::value || IsShape<T, Named>::value)
      return same(v.v);
    else if constexpr (IsShape<T, Hex>::value)
      return same(v.bytes);
    else if constexpr (IsShape<T, LaunchOf>::value)
      return same(v.launch);
    else if constexpr (IsShape<T, Counters>::value)
      return false;  // wraps the whole RunSettings, not one member
    else
      return same(v);
  }
  // The type as well as the address: a struct and its first member share one.
  template <class T>
  bool same(const T& v) const {
    if constexpr (std::is_same_v<std::remove_cv_t<T>, M>)
      return &v == m_target;
    else
      return false;
  }
  const M* m_target;
};

/// The key `obj`'s field list reads `member` from (a member of obj, or of a struct
/// its list reads inline: a reference's kernel): a message located at a field
/// names it through the list instead of spelling it again.
template <class S, class M>
const char* fieldKey(const S& obj, const M& member) {
  MemberFinder<M> finder(member);
  fields(finder, obj);
  if (!finder.key) throw std::logic_error("fieldKey: no field of the list reads this member");
  return finder.key;
}

/// `n`'s value of the field that reads `member` ("missing (required)" when absent).
template <class S, class M>
Node fieldNode(const Node& n, const S& obj, const M& member) {
  return n.at(fieldKey(obj, member));
}
template <class S, class M>
bool hasField(const Node& n, const S& obj, const M& member) {
  return n.has(fieldKey(obj, member));
}

template <class T>
concept Listed = requires(KeyLister& l, const T& t) {
  fields(l, t);
};

// ---------------------------------------------------------------- writing

inline bool isDecimalInteger(const std::string& s) {
  if (s.empty() || s.size() > 16) return false;  // below 2^53: 16 digits at most
  std::size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size()) return false;
  if (s[i] == '0' && s.size() > i + 1) return false;  // "007" stays a string
  for (; i < s.size(); ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  return s != "-0";
}

class Writer;
template <class T>
Json toValue(const T& v);
// Values with a shape of their own (config_fields.cpp).
Json toValue(const ArgSpec& a);
Json toValue(const BaselineSpec& b);
Json toValue(const std::vector<SweepAxis>& sweep);

/// Writes a struct in its list's order. A draft's writer (a config a person will
/// finish, init-triton's) also leaves out what Opt::draftSkip says; the sections
/// inside are written by plain writers.
class Writer {
 public:
  static constexpr bool reading = false;
  explicit Writer(Json& out, bool draft = false) : m_out(out), m_draft(draft) {
    if (!m_out.is_object()) m_out = Json::object();
  }
  template <class T, class C = NoCheck>
  void operator()(const char* key, const T& v, Opt o = {}, C = {}) {
    if (o.skip || (m_draft && o.draftSkip)) return;
    Json j = toValue(v);
    if (o.omitEmpty && (j.is_object() || j.is_array()) && j.empty()) return;
    m_out[key] = std::move(j);
  }
  template <class T, class C = NoCheck>
  void first(const char* key, const T& v, Opt o = {}, C c = {}) {
    (*this)(key, v, o, c);
  }
  template <class F>
  void check(F&&) {}
  void checkKeys() {}

 private:
  Json& m_out;
  bool m_draft = false;
};

/// Writes the fields a sweep point or --set sets (Opt::point) over a loaded document
/// (configToJson): a value the writer leaves out (Opt::skip) is written only where the
/// document gives its key, and one that comes out empty under Opt::omitEmpty (a point's
/// sweep) is removed. The document's other keys stay as they were written.
class PointWriter {
 public:
  static constexpr bool reading = false;
  explicit PointWriter(Json& out) : m_out(out) {
    if (!m_out.is_object()) m_out = Json::object();
  }
  template <class T, class C = NoCheck>
  void operator()(const char* key, const T& v, Opt o = {}, C = {}) {
    if (!o.point) return;
    const bool given = m_out.contains(key);
    if constexpr (Listed<T>) {
      Json section = given ? m_out[key] : Json::object();
      PointWriter w(section);
      fields(w, v);
      if (given || !section.empty()) m_out[key] = std::move(section);
    } else {
      Json j = toValue(v);
      if (o.omitEmpty && (j.is_object() || j.is_array()) && j.empty())
        m_out.erase(key);
      else if (!o.skip || given)
        m_out[key] = std::move(j);
    }
  }
  template <class T, class C = NoCheck>
  void first(const char* key, const T& v, Opt o = {}, C c = {}) {
    (*this)(key, v, o, c);
  }
  template <class F>
  void check(F&&) {}
  void checkKeys() {}

 private:
  Json& m_out;
};

inline Json numberValue(double d) {
  // An integral number is written as an integer (0, not 0.0), as a person writes it.
  if (std::isfinite(d) && d == std::trunc(d) && std::fabs(d) < 9007199254740992.0 &&
      !(d == 0 && std::signbit(d)))
    return static_cast<std::int64_t>(d);
  return d;
}

template <class T>
Json toValue(const T& v) {
  if constexpr (std::is_same_v<T, bool> || std::is_integral_v<T> || std::is_same_v<T, std::string>) {
    return Json(v);
  } else if constexpr (std::is_floating_point_v<T>) {
    return numberValue(v);
  } else if constexpr (std::is_same_v<T, DType>) {
    return dtypeName(v);
  } else if constexpr (IsShape<T, Expr>::value) {
    return isDecimalInteger(v.s) ? Json(std::stoll(v.s)) : Json(v.s);
  } else if constexpr (IsShape<T, Exprs>::value) {
    Json j = Json::array();
    for (const auto& e : v.v) j.push_back(toValue(expr(e)));
    return j;
  } else if constexpr (IsShape<T, Defines>::value) {
    Json j = Json::object();
    for (const auto& [name, d] : v.v) j[name] = Json::parse(d.toJson().dump());
    return j;
  } else if constexpr (IsShape<T, Named>::value) {
    Json j = Json::object();
    for (const auto& x : v.v) {
      Json& e = j[keyOf(x)];
      Writer w(e);
      fields(w, x);
    }
    return j;
  } else if constexpr (IsShape<T, Hex>::value) {
    static const char* digits = "0123456789abcdef";
    std::string s;
    for (std::uint8_t b : v.bytes) s += {digits[b >> 4], digits[b & 15]};
    return s;
  } else if constexpr (IsShape<T, Counters>::value) {
    if (!v.run.counterSet.empty()) return v.run.counterSet;
    return v.run.counters;
  } else if constexpr (std::is_same_v<T, std::optional<double>>) {
    return v ? numberValue(*v) : Json();
  } else if constexpr (std::is_same_v<T, std::vector<std::pair<std::string, std::int64_t>>>) {
    Json j = Json::object();
    for (const auto& [name, x] : v) j[name] = x;
    return j;
  } else if constexpr (Listed<T>) {
    Json j = Json::object();
    Writer w(j);
    fields(w, v);
    return j;
  } else if constexpr (requires {
                         v.begin();
                         v.size();
                       }) {
    Json j = Json::array();
    for (const auto& x : v) j.push_back(toValue(x));
    return j;
  } else {
    static_assert(sizeof(T) == 0, "no config JSON shape for this type");
  }
}

// ---------------------------------------------------------------- reading

template <class S>
class Reader;

/// Reads an object into a struct of a field list (its keys checked first).
template <class S>
void readObject(const Node& n, S& out, ReadContext& ctx) {
  n.needObject();
  Reader<S> r(n, out, ctx);
  fields(r, out);
  r.checkKeys();  // a section of `first` fields only
}

// Values with a shape of their own (config_codec.cpp).
void readArgs(const Node& n, std::vector<ArgSpec>& out, ReadContext& ctx);
void readBaseline(const Node& n, BaselineSpec& out, ReadContext& ctx);
void readSweep(const Node& n, std::vector<SweepAxis>& out, ReadContext& ctx);
void readParams(const Node& n, std::vector<std::pair<std::string, std::int64_t>>& out, ReadContext& ctx);
void readCounters(const Node& n, RunSettings& out);
DType readDType(const Node& n);

template <class T, class Check>
void readValue(const Node& x, T& v, const Opt& o, ReadContext& ctx, Check& check);

/// A list's elements, each checked (Each) as it is read.
template <class T, class Check>
void readList(const Node& x, std::vector<T>& v, const Opt& o, ReadContext& ctx, Check& check) {
  if (o.anyLength)
    x.needArray();
  else
    x.needShortArray();
  v.clear();
  for (std::size_t i = 0; i < x.j.size(); ++i) {
    T e{};
    const Node n = x.at(i);
    NoCheck none;
    if constexpr (IsShape<Check, Each>::value) {
      if constexpr (std::is_integral_v<T>) {
        const std::int64_t wide = n.integer();
        check.f(n, ctx);
        e = static_cast<T>(wide);
      } else {
        readValue(n, e, o, ctx, none);
        check.f(n, ctx);
      }
    } else {
      readValue(n, e, o, ctx, none);
    }
    v.push_back(std::move(e));
  }
}

template <class T, class Check>
void readValue(const Node& x, T& v, const Opt& o, ReadContext& ctx, Check& check) {
  // A narrowed integer's check ran before it was narrowed; Each checks per element.
  constexpr bool checksAfter =
      !std::is_integral_v<T> || std::is_same_v<T, bool> || std::is_same_v<T, std::int64_t>;
  if constexpr (std::is_same_v<T, bool>) {
    v = x.boolean();
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    v = x.integer();
  } else if constexpr (std::is_integral_v<T>) {
    // Checked wide, then narrowed: a 2^40 in an int field is its check's error.
    const std::int64_t wide = x.integer();
    check(x, ctx);
    if (wide < std::int64_t(std::numeric_limits<T>::min()) ||
        (wide > 0 && std::uint64_t(wide) > std::uint64_t(std::numeric_limits<T>::max())))
      x.fail("out of range: " + std::to_string(wide));
    v = static_cast<T>(wide);
  } else if constexpr (std::is_floating_point_v<T>) {
    v = x.number();
  } else if constexpr (std::is_same_v<T, std::optional<double>>) {
    v = x.number();
  } else if constexpr (std::is_same_v<T, std::string>) {
    v = x.str(o.maxBytes);
  } else if constexpr (std::is_same_v<T, DType>) {
    v = readDType(x);
  } else if constexpr (std::is_same_v<T, std::vector<ArgSpec>>) {
    readArgs(x, v, ctx);
  } else if constexpr (std::is_same_v<T, BaselineSpec>) {
    readBaseline(x, v, ctx);
  } else if constexpr (std::is_same_v<T, std::vector<SweepAxis>>) {
    readSweep(x, v, ctx);
  } else if constexpr (std::is_same_v<T, std::vector<std::pair<std::string, std::int64_t>>>) {
    readParams(x, v, ctx);
  } else if constexpr (IsShape<T, Expr>::value) {
    v.s = x.expr();
    if (ctx.symbols) ctx.symbols->check(x, v.s);
  } else if constexpr (IsShape<T, Exprs>::value) {
    auto list = x.exprList();
    v.length(x, list, ctx);
    if (ctx.symbols)
      for (std::size_t i = 0; i < list.size(); ++i) ctx.symbols->check(x.at(i), list[i]);
    if (v.pad3)
      while (list.size() < 3) list.push_back("1");
    v.v = std::move(list);
  } else if constexpr (IsShape<T, Defines>::value) {
    v.v.clear();
    KernelSpec k;
    parseDefines(x, k, v.allowBool);
    v.v = std::move(k.defines);
  } else if constexpr (IsShape<T, Named>::value) {
    x.needObject();
    if (v.ifEmpty && x.j.empty()) x.fail(v.ifEmpty);
    v.v.clear();
    for (auto it = x.j.begin(); it != x.j.end(); ++it) {
      const Node m = x.member(it);
      typename std::remove_cvref_t<decltype(v.v)>::value_type e{};
      keyOf(e) = it.key();
      readObject(m, e, ctx);
      v.v.push_back(std::move(e));
    }
  } else if constexpr (IsShape<T, Hex>::value) {
    v.bytes = parseHex(x);
  } else if constexpr (IsShape<T, Counters>::value) {
    readCounters(x, v.run);
  } else if constexpr (Listed<T>) {
    readObject(x, v, ctx);
  } else if constexpr (requires { v.push_back(std::declval<typename T::value_type>()); }) {
    readList(x, v, o, ctx, check);
  } else {
    static_assert(sizeof(T) == 0, "no config JSON shape for this type");
  }
  if constexpr (checksAfter && !IsShape<Check, Each>::value) check(x, ctx);
}

template <class S>
class Reader {
 public:
  static constexpr bool reading = true;
  Reader(const Node& n, S& obj, ReadContext& ctx) : m_n(n), m_obj(obj), m_ctx(ctx) {}
  template <class T, class Check = NoCheck>
  void operator()(const char* key, T&& v, Opt o = {}, Check check = {}) {
    checkKeys();
    field(key, v, o, check);
  }
  /// A field that decides which keys the section has: read before they are checked.
  template <class T, class Check = NoCheck>
  void first(const char* key, T&& v, Opt o = {}, Check check = {}) {
    field(key, v, o, check);
  }
  /// A hook of the reader alone: `f(node, context)` validates or derives.
  template <class F>
  void check(F&& f) {
    f(m_n, m_ctx);
  }
  /// The value of the field that reads `member` (a hook's located message: io.at(r.op).fail(...)).
  template <class M>
  Node at(const M& member) const {
    return fieldNode(m_n, std::as_const(m_obj), member);
  }
  /// Whether the section gives the field that reads `member`.
  template <class M>
  bool has(const M& member) const {
    return hasField(m_n, std::as_const(m_obj), member);
  }
  /// The section's unknown keys, once (before its first field that is not `first`).
  void checkKeys() {
    if (m_keysChecked) return;
    m_keysChecked = true;
    KeyLister keys;
    fields(keys, std::as_const(m_obj));
    onlyKeys(m_n, keys.keys);
  }

 private:
  template <class T, class Check>
  void field(const char* key, T& v, const Opt& o, Check& check) {
    if (!m_n.has(key)) {
      if (o.required) (void)m_n.at(key);  // "missing (required)" at its path
      return;
    }
    readValue(m_n.at(key), v, o, m_ctx, check);
  }
  const Node& m_n;
  S& m_obj;
  ReadContext& m_ctx;
  bool m_keysChecked = false;
};

}  // namespace tilescope::detail
