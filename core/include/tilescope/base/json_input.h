// Reading JSON that someone else wrote (configs, reports, worker streams) with
// limits: a file size, a nesting depth and a member count per object. Deep
// nesting would otherwise overflow the stack of every recursive walk over the
// document (dump, copy, compare), and a million-key object makes an ordered
// object quadratic to build. Errors name where: "line:col" for broken JSON, the
// JSON path for a limit.
#pragma once

#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace tilescope {

struct JsonLimits {
  std::size_t maxBytes = std::size_t{16} << 20;  ///< text size
  int maxDepth = 64;                             ///< arrays and objects inside each other
  std::size_t maxMembers = 4096;                 ///< keys of one object
  bool rejectDuplicateKeys = true;               ///< {"a": 1, "a": 2} is an error
};

/// A JSON text that breaks a limit or is not JSON. `where` is "line:col" for a
/// syntax error or the JSON path (`kernel.defines.X[0]`, "" at the top level)
/// for a limit; `problem` says what is wrong.
struct JsonInputError : std::runtime_error {
  JsonInputError(std::string where, std::string problem, bool syntax, std::string position = {});
  std::string where;
  std::string problem;
  bool syntax = false;  ///< `where` is line:col (invalid JSON), not a JSON path
  /// "line:col" in the text where known: a syntax error's `where`, and the
  /// bracket that nests too deep (a path of a hundred "[0]" locates nothing).
  std::string position;
};

/// Bytes a text read by readInputFile has allocated past its end (its
/// capacity), which a SIMD parser may read: no copy of a large report to pad it.
inline constexpr std::size_t kJsonPadding = 64;

/// Reads a whole file of at most `maxBytes`; refuses a directory, a device or a
/// FIFO (only regular files) and a larger file, without reading more than
/// maxBytes + 1 bytes. Throws JsonInputError with `where` = "".
std::string readInputFile(const std::filesystem::path& file, std::size_t maxBytes);

/// Checks `text` against `limits` (one streaming pass, no document built), then
/// parses it. Throws JsonInputError.
nlohmann::ordered_json parseJsonOrdered(const std::string& text, const JsonLimits& limits);
/// Same, into nlohmann::json (keys sorted).
nlohmann::json parseJson(const std::string& text, const JsonLimits& limits);

/// `s` cut to at most `maxBytes` on a UTF-8 character boundary, "…" appended when
/// cut: for echoing user text (names, expressions) in error messages.
std::string clipForMessage(const std::string& s, std::size_t maxBytes = 80);

/// Appends `key` to a JSON path the way the config loader writes paths
/// ("a.b", "a[3]"): `key` is clipped for messages. The one path joiner of the
/// config loader, the report and stream codecs.
std::string jsonPathChild(const std::string& path, const std::string& key);
/// Appends an array index to a JSON path: "a[3]".
std::string jsonPathIndex(const std::string& path, std::size_t index);

/// A JSON path spelled out only when a message needs it (str(), with
/// jsonPathChild and jsonPathIndex): a reader descending a report names every
/// value's path, and building those strings eagerly cost more than reading the
/// values (docs/report.md, "Reading and writing"). A child refers to its parent and its key without
/// copying them: make children as arguments of the call that reads the value,
/// and never keep one past its parent or its key.
class JsonPath {
 public:
  JsonPath(const std::string& root) : m_text(root) {}  // NOLINT: a path given as text
  JsonPath(const char* root) : m_text(root) {}         // NOLINT
  JsonPath child(std::string_view key) const { return {this, key, 0, Kind::key}; }
  JsonPath index(std::size_t i) const { return {this, {}, i, Kind::index}; }
  std::string str() const;

 private:
  enum class Kind : unsigned char { root, key, index };
  JsonPath(const JsonPath* parent, std::string_view text, std::size_t i, Kind kind)
      : m_parent(parent), m_text(text), m_index(i), m_kind(kind) {}
  const JsonPath* m_parent = nullptr;
  std::string_view m_text;  ///< the root path, or the key
  std::size_t m_index = 0;
  Kind m_kind = Kind::root;
};

/// What a JSON value is, for messages ("expected an object, found an array"):
/// "an object", "an array", "a string", "an integer", "a number", "a boolean" or "null".
std::string jsonKind(const nlohmann::json& j);
std::string jsonKind(const nlohmann::ordered_json& j);
std::string jsonKind(nlohmann::json::value_t type);

}  // namespace tilescope
