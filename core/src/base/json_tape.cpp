// A JSON text read with simdjson (json_tape.h): the parse, one walk checking the
// limits parseJson checks that simdjson does not (depth, members, a key twice),
// and JsonView reading simdjson's document in place. At the first thing it does
// not take it gives up: parseJson then reads the text and says why.
#include "tilescope/base/json_tape.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#ifdef TILESCOPE_HAVE_SIMDJSON
#include <simdjson.h>
#endif

namespace tilescope {

using value_t = nlohmann::json::value_t;

#ifdef TILESCOPE_HAVE_SIMDJSON

namespace dom = simdjson::dom;
static_assert(simdjson::SIMDJSON_PADDING <= kJsonPadding);

namespace {

// simdjson's element and iterators are a document and a position: trivially
// copied into a JsonHandle and back.
template <class T>
JsonHandle handleOf(const T& x) {
  static_assert(sizeof(T) == sizeof(JsonHandle) && std::is_trivially_copyable_v<T>);
  JsonHandle h;
  std::memcpy(h.data(), static_cast<const void*>(&x), sizeof h);
  return h;
}

template <class T>
T fromHandle(const JsonHandle& h) {
  static_assert(sizeof(T) == sizeof(JsonHandle) && std::is_trivially_copyable_v<T>);
  T x;
  std::memcpy(static_cast<void*>(&x), h.data(), sizeof x);
  return x;
}

/// What simdjson's document holds that parseJson would refuse: more depth or
/// members than the limits allow, a key twice in an object.
class LimitWalk {
 public:
  explicit LimitWalk(const JsonLimits& limits) : m_limits(limits) {}
  /// `e` and everything in it; `depth` containers around it.
  bool value(dom::element e, int depth) {
    if (e.type() == dom::element_type::ARRAY) {
      if (depth + 1 > m_limits.maxDepth) return false;
      const dom::array a = e.get_array().value_unsafe();
      for (const dom::element x : a)
        if (!value(x, depth + 1)) return false;
    } else if (e.type() == dom::element_type::OBJECT) {
      if (depth + 1 > m_limits.maxDepth) return false;
      const dom::object o = e.get_object().value_unsafe();
      if (!uniqueKeys(o)) return false;
      for (const dom::key_value_pair member : o)
        if (!value(member.value, depth + 1)) return false;
    }
    return true;
  }

 private:
  bool uniqueKeys(dom::object o) {
    m_keys.clear();
    for (const dom::key_value_pair member : o) {
      if (m_keys.size() >= m_limits.maxMembers) return false;
      m_keys.push_back(member.key);
    }
    // Writers that sort (nlohmann's std::map) need no sort: each key below the next.
    if (std::adjacent_find(m_keys.begin(), m_keys.end(), std::greater_equal<>()) == m_keys.end()) return true;
    std::sort(m_keys.begin(), m_keys.end());
    return std::adjacent_find(m_keys.begin(), m_keys.end()) == m_keys.end();
  }

  const JsonLimits& m_limits;
  std::vector<std::string_view> m_keys;
};

}  // namespace

bool JsonTape::available() { return true; }

std::optional<JsonTape> JsonTape::build(const std::string& text, const JsonLimits& limits) {
  if (text.size() > limits.maxBytes) return std::nullopt;
  if (!limits.rejectDuplicateKeys) return std::nullopt;  // nlohmann's rule for a key twice is parseJson's
  auto parser = std::make_shared<dom::parser>();
  const bool padded = text.capacity() - text.size() >= kJsonPadding;
  dom::element root;
  if (parser->parse(text.data(), text.size(), !padded).get(root) != simdjson::SUCCESS) return std::nullopt;
  if (!LimitWalk(limits).value(root, 0)) return std::nullopt;
  JsonTape tape;
  tape.m_parser = std::move(parser);
  tape.m_root = handleOf(root);
  return tape;
}

JsonView::JsonView(const JsonHandle& element) : m_element(element) {
  const auto e = fromHandle<dom::element>(element);
  switch (e.type()) {
    case dom::element_type::ARRAY:
      m_type = value_t::array;
      break;
    case dom::element_type::OBJECT:
      m_type = value_t::object;
      break;
    case dom::element_type::STRING:
      m_type = value_t::string;
      break;
    case dom::element_type::INT64: {
      // As nlohmann reads integers: unsigned unless negative (simdjson reads
      // "-0" as 0, nlohmann as a signed 0: the same integer to every reader).
      const std::int64_t i = e.get_int64().value_unsafe();
      m_type = i < 0 ? value_t::number_integer : value_t::number_unsigned;
      m_bits = static_cast<std::uint64_t>(i);
      break;
    }
    case dom::element_type::UINT64:
      m_type = value_t::number_unsigned;
      m_bits = e.get_uint64().value_unsafe();
      break;
    case dom::element_type::DOUBLE:
      m_type = value_t::number_float;
      m_bits = std::bit_cast<std::uint64_t>(e.get_double().value_unsafe());
      break;
    case dom::element_type::BOOL:
      m_type = value_t::boolean;
      m_bits = e.get_bool().value_unsafe() ? 1 : 0;
      break;
    default:
      m_type = value_t::null;
  }
}

std::size_t JsonView::size() const {
  const auto e = fromHandle<dom::element>(m_element);
  std::size_t n = 0;
  if (is_array()) {
    const dom::array a = e.get_array().value_unsafe();
    n = a.size();
    if (n == 0xFFFFFF) {  // saturated: counted
      n = 0;
      for (auto it = a.begin(); it != a.end(); ++it) ++n;
    }
  } else if (is_object()) {
    n = e.get_object().value_unsafe().size();  // at most maxMembers
  } else {
    n = is_null() ? 0 : 1;
  }
  return n;
}

std::string_view JsonView::str() const {
  if (!is_string()) return {};
  return fromHandle<dom::element>(m_element).get_string().value_unsafe();
}

std::optional<JsonView> JsonView::find(std::string_view key) const {
  if (!is_object()) return std::nullopt;
  const dom::object o = fromHandle<dom::element>(m_element).get_object().value_unsafe();
  dom::element x;
  if (o.at_key(key).get(x) != simdjson::SUCCESS) return std::nullopt;
  return JsonView(handleOf(x));
}

JsonView JsonView::Iterator::operator*() const {
  return JsonView(handleOf(*fromHandle<dom::array::iterator>(m_at)));
}

JsonView::Iterator& JsonView::Iterator::operator++() {
  auto it = fromHandle<dom::array::iterator>(m_at);
  m_at = handleOf(++it);
  return *this;
}

JsonView::Iterator JsonView::begin() const {
  if (!is_array()) return Iterator(m_element);
  const dom::array a = fromHandle<dom::element>(m_element).get_array().value_unsafe();
  return Iterator(handleOf(a.begin()));
}

JsonView::Iterator JsonView::end() const {
  if (!is_array()) return Iterator(m_element);
  const dom::array a = fromHandle<dom::element>(m_element).get_array().value_unsafe();
  return Iterator(handleOf(a.end()));
}

std::pair<std::string_view, JsonView> JsonView::Members::Iterator::operator*() const {
  const auto it = fromHandle<dom::object::iterator>(m_at);
  return {it.key(), JsonView(handleOf(it.value()))};
}

JsonView::Members::Iterator& JsonView::Members::Iterator::operator++() {
  auto it = fromHandle<dom::object::iterator>(m_at);
  m_at = handleOf(++it);
  return *this;
}

JsonView::Members JsonView::items() const {
  if (!is_object()) return Members(m_element, m_element);
  const dom::object o = fromHandle<dom::element>(m_element).get_object().value_unsafe();
  return Members(handleOf(o.begin()), handleOf(o.end()));
}

#else  // built without simdjson: every text is parseJson's, and no view is ever made

bool JsonTape::available() { return false; }
std::optional<JsonTape> JsonTape::build(const std::string&, const JsonLimits&) { return std::nullopt; }
JsonView::JsonView(const JsonHandle& element) : m_element(element), m_type(value_t::null) {}
std::size_t JsonView::size() const { return 0; }
std::string_view JsonView::str() const { return {}; }
std::optional<JsonView> JsonView::find(std::string_view) const { return std::nullopt; }
JsonView JsonView::Iterator::operator*() const { return JsonView(m_at); }
JsonView::Iterator& JsonView::Iterator::operator++() { return *this; }
JsonView::Iterator JsonView::begin() const { return Iterator(m_element); }
JsonView::Iterator JsonView::end() const { return Iterator(m_element); }
std::pair<std::string_view, JsonView> JsonView::Members::Iterator::operator*() const {
  return {{}, JsonView(m_at)};
}
JsonView::Members::Iterator& JsonView::Members::Iterator::operator++() { return *this; }
JsonView::Members JsonView::items() const { return Members(m_element, m_element); }

#endif

JsonView JsonTape::root() const { return JsonView(m_root); }

nlohmann::json JsonView::toJson() const {
  switch (type()) {
    case value_t::boolean:
      return get<bool>();
    case value_t::number_unsigned:
      return get<std::uint64_t>();
    case value_t::number_integer:
      return get<std::int64_t>();
    case value_t::number_float:
      return get<double>();
    case value_t::string:
      return get<std::string>();
    case value_t::array: {
      nlohmann::json a = nlohmann::json::array();
      a.get_ref<nlohmann::json::array_t&>().reserve(size());
      for (const JsonView x : *this) a.push_back(x.toJson());
      return a;
    }
    case value_t::object: {
      nlohmann::json o = nlohmann::json::object();
      for (const auto& [k, x] : items()) o.emplace(std::string(k), x.toJson());
      return o;
    }
    default:
      return nullptr;
  }
}

std::string jsonKind(const JsonView& v) { return jsonKind(v.type()); }

}  // namespace tilescope
