// A JSON text read without nlohmann's document: simdjson parses it (the
// grammar, UTF-8, escapes) into its own compact document, one walk checks the
// limits of json_input.h (depth, members, a key twice), and JsonView reads the
// values in place with the part of nlohmann::json's interface the report codec
// uses (json_fields.h), so one field list decodes either. Building nlohmann's
// document of a 20,000-point sweep (209 MB) took 5.7 s and freeing it 1.9 s, its
// lexer alone 3.4 s (docs/measurements.md, "Opening a long sweep"); simdjson parses it in under a second.
//
// The tape accepts a subset of what parseJson accepts and reads every value as
// parseJson would (the same integer/unsigned/float split, the same doubles):
// anything it refuses (a syntax error, a limit, an integer beyond 64 bits, a
// number beyond a double) is for parseJson to read or to name, with its own
// message. An object's members are iterated in the text's order (a document
// sorts them). simdjson stays inside json_tape.cpp: built without it
// (TILESCOPE_HAVE_SIMDJSON unset), build() takes no text. Internal to core.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <nlohmann/json.hpp>

#include "tilescope/base/json_input.h"

namespace tilescope {

class JsonView;

/// simdjson's handles (an element, an iterator: a document and a position),
/// held as bytes so that its header stays out of this one.
using JsonHandle = std::array<std::uint64_t, 2>;

class JsonTape {
 public:
  /// The tape of `text`, or nullopt where parseJson(text, limits) would refuse it
  /// or the tape does not take it (see above). simdjson reads kJsonPadding bytes
  /// past the text's end where its capacity has them (as readInputFile leaves
  /// it), and a padded copy otherwise. The tape holds what it read: `text` may go.
  static std::optional<JsonTape> build(const std::string& text, const JsonLimits& limits);
  /// Whether this build has simdjson; without it build() takes no text.
  static bool available();
  JsonView root() const;

 private:
  std::shared_ptr<void> m_parser;  ///< simdjson's parser, which owns the document
  JsonHandle m_root{};
};

/// One value of a tape (the tape must outlive it): the read-only part of
/// nlohmann::json's interface the codec uses, with the same meanings
/// (is_number_integer() holds for unsigned numbers too, get<double>() converts).
class JsonView {
 public:
  using value_t = nlohmann::json::value_t;
  explicit JsonView(const JsonHandle& element);

  value_t type() const { return m_type; }
  bool is_null() const { return type() == value_t::null; }
  bool is_boolean() const { return type() == value_t::boolean; }
  bool is_number_unsigned() const { return type() == value_t::number_unsigned; }
  bool is_number_integer() const { return is_number_unsigned() || type() == value_t::number_integer; }
  bool is_number_float() const { return type() == value_t::number_float; }
  bool is_number() const { return is_number_integer() || is_number_float(); }
  bool is_string() const { return type() == value_t::string; }
  bool is_array() const { return type() == value_t::array; }
  bool is_object() const { return type() == value_t::object; }
  /// Elements or members; 0 for null, 1 for any other value (as json::size()).
  std::size_t size() const;

  /// A string's text (decoded).
  std::string_view str() const;
  template <class T>
  T get() const {
    if constexpr (std::is_same_v<T, std::string>) {
      return std::string(str());
    } else if constexpr (std::is_same_v<T, bool>) {
      return m_bits != 0;
    } else {
      switch (type()) {
        case value_t::number_unsigned:
          return static_cast<T>(m_bits);
        case value_t::number_integer:
          return static_cast<T>(static_cast<std::int64_t>(m_bits));
        default:
          return static_cast<T>(std::bit_cast<double>(m_bits));
      }
    }
  }

  /// An object's member, or nullopt.
  std::optional<JsonView> find(std::string_view key) const;

  /// An array's elements in order.
  class Iterator {
   public:
    JsonView operator*() const;
    Iterator& operator++();
    bool operator!=(const Iterator& o) const { return m_at != o.m_at; }

   private:
    friend class JsonView;
    explicit Iterator(const JsonHandle& at) : m_at(at) {}
    JsonHandle m_at;
  };
  Iterator begin() const;
  Iterator end() const;

  /// An object's members as (key, value), in the text's order.
  class Members {
   public:
    class Iterator {
     public:
      std::pair<std::string_view, JsonView> operator*() const;
      Iterator& operator++();
      bool operator!=(const Iterator& o) const { return m_at != o.m_at; }

     private:
      friend class Members;
      explicit Iterator(const JsonHandle& at) : m_at(at) {}
      JsonHandle m_at;
    };
    Iterator begin() const { return Iterator(m_begin); }
    Iterator end() const { return Iterator(m_end); }

   private:
    friend class JsonView;
    Members(const JsonHandle& begin, const JsonHandle& end) : m_begin(begin), m_end(end) {}
    JsonHandle m_begin, m_end;
  };
  Members items() const;

  /// The value as a document (nlohmann::json), for the open parts of a report.
  nlohmann::json toJson() const;
  std::string dump() const { return toJson().dump(); }

 private:
  JsonHandle m_element;
  value_t m_type;
  std::uint64_t m_bits = 0;  ///< a number's bits (a double's, an integer's) or a boolean
};

/// "an object", "an integer", ... as jsonKind of a document.
std::string jsonKind(const JsonView& v);

}  // namespace tilescope
