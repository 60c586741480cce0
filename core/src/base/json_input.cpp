// Limited JSON reading: a SAX pass checks depth, member counts and duplicate
// keys while tracking the JSON path, so a limit names where it was hit; only a
// text that passes is built into a document.
#include "tilescope/base/json_input.h"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <unordered_set>
#include <vector>

namespace tilescope {

JsonInputError::JsonInputError(std::string w, std::string p, bool s, std::string at)
    : std::runtime_error((w.empty() ? std::string() : w + ": ") + p),
      where(std::move(w)),
      problem(std::move(p)),
      syntax(s),
      position(syntax && at.empty() ? where : std::move(at)) {}

std::string clipForMessage(const std::string& s, std::size_t maxBytes) {
  if (s.size() <= maxBytes) return s;
  std::size_t cut = maxBytes;
  // Back up to the first byte of a UTF-8 sequence (continuation bytes are 10xxxxxx).
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut) + "…";
}

std::string jsonPathChild(const std::string& path, const std::string& key) {
  const std::string k = clipForMessage(key, 64);
  // A key that is empty or holds the path's own punctuation is quoted: `[""]`,
  // `tensors["a.b"]` (an empty key once read as "the top level"); so is one with a
  // control character, escaped (a NUL ended the message there).
  const bool control = std::any_of(k.begin(), k.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 || u == 0x7f;
  });
  if (k.empty() || control || k.find_first_of(".[]\" ") != std::string::npos)
    return path + "[" + nlohmann::json(k).dump() + "]";
  return path.empty() ? k : path + "." + k;
}

std::string jsonPathIndex(const std::string& path, std::size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

std::string JsonPath::str() const {
  switch (m_kind) {
    case Kind::key:
      return jsonPathChild(m_parent->str(), std::string(m_text));
    case Kind::index:
      return jsonPathIndex(m_parent->str(), m_index);
    default:
      return std::string(m_text);
  }
}

std::string jsonKind(nlohmann::json::value_t type) {
  using T = nlohmann::json::value_t;
  switch (type) {
    case T::null:
      return "null";
    case T::object:
      return "an object";
    case T::array:
      return "an array";
    case T::string:
      return "a string";
    case T::boolean:
      return "a boolean";
    case T::number_integer:
    case T::number_unsigned:
      return "an integer";
    case T::number_float:
      return "a number";
    default:
      return "a binary value";
  }
}

std::string jsonKind(const nlohmann::json& j) { return jsonKind(j.type()); }
std::string jsonKind(const nlohmann::ordered_json& j) { return jsonKind(j.type()); }

namespace {

std::string lineCol(const std::string& text, std::size_t byte) {
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return std::to_string(line) + ":" + std::to_string(col);
}

/// The byte offset of the first bracket nested deeper than `maxDepth` (brackets
/// in strings are text): SAX callbacks are not told where they are.
std::size_t tooDeepAt(const std::string& text, int maxDepth) {
  int depth = 0;
  bool inString = false, escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if ((c == '[' || c == '{') && ++depth > maxDepth) {
      return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return text.size();
}

/// nlohmann's what(): "[json.exception.parse_error.101] parse error at line 1, column 2: syntax error ...".
std::string parseProblem(const std::string& what) {
  std::string s = what;
  if (auto close = s.find("] "); s.rfind("[json.exception.", 0) == 0 && close != std::string::npos)
    s = s.substr(close + 2);
  if (s.rfind("parse error", 0) == 0)
    if (auto colon = s.find(": "); colon != std::string::npos) s = s.substr(colon + 2);
  return clipForMessage(s, 200);
}

class LimitChecker {
 public:
  using Json = nlohmann::json;
  LimitChecker(const std::string& text, const JsonLimits& limits) : m_text(text), m_limits(limits) {}

  bool null() { return value(); }
  bool boolean(bool) { return value(); }
  bool number_integer(Json::number_integer_t) { return value(); }
  bool number_unsigned(Json::number_unsigned_t) { return value(); }
  bool number_float(Json::number_float_t, const Json::string_t&) { return value(); }
  bool string(Json::string_t&) { return value(); }
  bool binary(Json::binary_t&) { return value(); }
  bool start_object(std::size_t) { return open(false); }
  bool start_array(std::size_t) { return open(true); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(Json::string_t& k) {
    Frame& f = m_frames.back();
    f.key = k;
    if (++f.count > m_limits.maxMembers)
      return fail(path(), "object has more than " + std::to_string(m_limits.maxMembers) + " members");
    if (m_limits.rejectDuplicateKeys && !f.keys.insert(k).second)
      return fail(path(), "duplicate key '" + clipForMessage(k, 64) + "'");
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) {
    // A number too large for a double (1e400) is a value problem: name its path.
    if (ex.id == 406) return fail(nextPath(), parseProblem(ex.what()));
    m_error = JsonInputError(lineCol(m_text, position), "invalid JSON: " + parseProblem(ex.what()), true);
    return false;
  }

  const std::optional<JsonInputError>& error() const { return m_error; }

 private:
  struct Frame {
    bool array = false;
    std::size_t count = 0;  // elements or members so far
    std::string key;        // the current member's key
    std::unordered_set<std::string> keys;
  };

  bool value() {
    if (!m_frames.empty() && m_frames.back().array) ++m_frames.back().count;
    return true;
  }
  bool open(bool array) {
    value();
    if (static_cast<int>(m_frames.size()) >= m_limits.maxDepth) {
      fail(path(), "nested deeper than " + std::to_string(m_limits.maxDepth) + " levels");
      m_error->position = lineCol(m_text, tooDeepAt(m_text, m_limits.maxDepth) + 1);
      return false;
    }
    m_frames.push_back(Frame{array, 0, {}, {}});
    return true;
  }
  bool close() {
    m_frames.pop_back();
    return true;
  }
  bool fail(const std::string& where, const std::string& problem) {
    m_error = JsonInputError(where, problem, false);
    return false;
  }
  /// The path of the value being read (array indices already advanced).
  std::string path(bool next = false) const {
    std::string p;
    for (std::size_t i = 0; i < m_frames.size(); ++i) {
      const Frame& f = m_frames[i];
      const bool last = i + 1 == m_frames.size();
      if (f.array)
        p = jsonPathIndex(p, next && last ? f.count : f.count - 1);
      else
        p = jsonPathChild(p, f.key);
    }
    return p;
  }
  std::string nextPath() const { return path(true); }

  const std::string& m_text;
  const JsonLimits& m_limits;
  std::vector<Frame> m_frames;
  std::optional<JsonInputError> m_error;
};

/// The limits checked and the document built in one pass: each event is checked,
/// then handed to nlohmann's own DOM builder. (Two passes, a check then
/// J::parse, took 6.3 s of a 4,000-point sweep's 7.2 s open.)
template <class J>
class CheckedDomBuilder : public LimitChecker {
 public:
  CheckedDomBuilder(const std::string& text, const JsonLimits& limits, J& out)
      : LimitChecker(text, limits), m_dom(out, false) {}

  bool null() { return LimitChecker::null() && m_dom.null(); }
  bool boolean(bool v) { return LimitChecker::boolean(v) && m_dom.boolean(v); }
  bool number_integer(Json::number_integer_t v) {
    return LimitChecker::number_integer(v) && m_dom.number_integer(v);
  }
  bool number_unsigned(Json::number_unsigned_t v) {
    return LimitChecker::number_unsigned(v) && m_dom.number_unsigned(v);
  }
  bool number_float(Json::number_float_t v, const Json::string_t& s) {
    return LimitChecker::number_float(v, s) && m_dom.number_float(v, s);
  }
  bool string(Json::string_t& v) { return LimitChecker::string(v) && m_dom.string(v); }
  bool binary(Json::binary_t& v) { return LimitChecker::binary(v) && m_dom.binary(v); }
  bool start_object(std::size_t n) { return LimitChecker::start_object(n) && m_dom.start_object(n); }
  bool start_array(std::size_t n) { return LimitChecker::start_array(n) && m_dom.start_array(n); }
  bool end_object() { return LimitChecker::end_object() && m_dom.end_object(); }
  bool end_array() { return LimitChecker::end_array() && m_dom.end_array(); }
  bool key(Json::string_t& k) { return LimitChecker::key(k) && m_dom.key(k); }

 private:
  nlohmann::detail::json_sax_dom_parser<J> m_dom;
};

template <class J>
J parseChecked(const std::string& text, const JsonLimits& limits) {
  if (text.size() > limits.maxBytes)
    throw JsonInputError("",
                         std::to_string(text.size()) + " bytes, over the limit of " +
                             std::to_string(limits.maxBytes) + " bytes",
                         false);
  J out;
  CheckedDomBuilder<J> builder(text, limits, out);
  const bool ok = J::sax_parse(text, &builder);
  if (builder.error()) throw *builder.error();
  if (!ok) throw JsonInputError("", "invalid JSON", true);  // every refusal above names itself
  return out;
}

}  // namespace

nlohmann::ordered_json parseJsonOrdered(const std::string& text, const JsonLimits& limits) {
  return parseChecked<nlohmann::ordered_json>(text, limits);
}

nlohmann::json parseJson(const std::string& text, const JsonLimits& limits) {
  return parseChecked<nlohmann::json>(text, limits);
}

std::string readInputFile(const std::filesystem::path& file, std::size_t maxBytes) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) throw JsonInputError("", "cannot open (no such file)", false);
  if (S_ISDIR(st.st_mode)) throw JsonInputError("", "is a directory, not a file", false);
  if (!S_ISREG(st.st_mode))
    throw JsonInputError("", "is not a regular file (a device, FIFO or socket)", false);
  if (static_cast<std::uint64_t>(st.st_size) > maxBytes)
    throw JsonInputError(
        "", std::to_string(st.st_size) + " bytes, over the limit of " + std::to_string(maxBytes) + " bytes",
        false);
  std::ifstream in(file, std::ios::binary);
  if (!in) throw JsonInputError("", "cannot open (permission denied?)", false);
  // Read at most maxBytes + 1: the file may have grown since stat(). The
  // capacity keeps kJsonPadding bytes past the text for simdjson (json_tape.h).
  const std::size_t want =
      maxBytes + 1 < std::size_t(st.st_size) + 1 ? maxBytes + 1 : std::size_t(st.st_size) + 1;
  std::string text(want + kJsonPadding, '\0');
  in.read(text.data(), static_cast<std::streamsize>(want));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > maxBytes)
    throw JsonInputError("", "more than " + std::to_string(maxBytes) + " bytes, over the limit", false);
  return text;
}

}  // namespace tilescope
