// RE2 behind tilescope/base/regex.h: linear-time matching of untrusted text.
#include "tilescope/base/regex.h"

#include <re2/re2.h>

namespace tilescope {

namespace {

// ECMAScript's `.` matches neither '\n' nor '\r'; RE2's matches '\r'. Every `.`
// outside a character class becomes `[^\n\r]`, so CRLF text matches as it did.
std::string ecmaDots(std::string_view p) {
  std::string out;
  out.reserve(p.size());
  bool inClass = false;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (c == '\\' && i + 1 < p.size()) {
      out += c;
      out += p[++i];
    } else if (inClass) {
      inClass = c != ']';
      out += c;
    } else if (c == '[') {
      inClass = true;
      out += c;
      // A ']' first in a class ("[]x]", "[^]x]") is a literal in RE2's syntax.
      if (i + 1 < p.size() && p[i + 1] == '^') out += p[++i];
      if (i + 1 < p.size() && p[i + 1] == ']') out += p[++i];
    } else if (c == '.') {
      out += "[^\\n\\r]";
    } else {
      out += c;
    }
  }
  return out;
}

// RE2 reads an empty text with a null pointer as "no text": groups would look unmatched.
re2::StringPiece piece(std::string_view text) {
  return text.data() ? re2::StringPiece(text.data(), text.size()) : re2::StringPiece("", 0);
}

}  // namespace

RegexError::RegexError(const std::string& pattern, const std::string& reason)
    : std::invalid_argument("regular expression '" + pattern + "' does not compile: " + reason),
      m_reason(reason) {}

std::size_t RegexMatch::position(std::size_t i) const {
  return matched(i) ? static_cast<std::size_t>(m_groups[i].data() - m_text) : std::string::npos;
}

struct Regex::Impl {
  std::string pattern;
  std::unique_ptr<re2::RE2> re;
};

Regex::Regex(std::string_view pattern, RegexOptions options) {
  re2::RE2::Options o;
  o.set_encoding(re2::RE2::Options::EncodingLatin1);  // bytes, as std::regex reads a std::string
  o.set_case_sensitive(!options.icase);
  o.set_log_errors(false);
  const std::string translated = ecmaDots(pattern);
  auto impl = std::make_shared<Impl>();
  impl->pattern = std::string(pattern);
  impl->re = std::make_unique<re2::RE2>(options.multiline ? "(?m)" + translated : translated, o);
  if (!impl->re->ok()) throw RegexError(impl->pattern, impl->re->error());
  m_impl = std::move(impl);
}

const std::string& Regex::pattern() const {
  static const std::string none;
  return m_impl ? m_impl->pattern : none;
}

std::size_t Regex::groups() const {
  return m_impl ? static_cast<std::size_t>(m_impl->re->NumberOfCapturingGroups()) : 0;
}

bool Regex::match(std::string_view text, std::size_t from, bool anchorBoth, RegexMatch* m) const {
  if (!m_impl || from > text.size()) return false;
  const re2::StringPiece t = piece(text);
  const int n = m ? 1 + m_impl->re->NumberOfCapturingGroups() : 0;
  std::vector<re2::StringPiece> groups(static_cast<std::size_t>(n));
  if (!m_impl->re->Match(t, from, t.size(), anchorBoth ? re2::RE2::ANCHOR_BOTH : re2::RE2::UNANCHORED,
                         groups.data(), n))
    return false;
  if (m) {
    m->m_text = t.data();
    m->m_groups.clear();
    for (const re2::StringPiece& g : groups)
      m->m_groups.push_back(g.data() ? std::string_view(g.data(), g.size()) : std::string_view());
  }
  return true;
}

bool Regex::search(std::string_view text) const { return match(text, 0, false, nullptr); }
bool Regex::search(std::string_view text, RegexMatch& m) const { return match(text, 0, false, &m); }
bool Regex::fullMatch(std::string_view text) const { return match(text, 0, true, nullptr); }
bool Regex::fullMatch(std::string_view text, RegexMatch& m) const { return match(text, 0, true, &m); }

std::size_t Regex::forEachMatch(std::string_view text,
                                const std::function<bool(const RegexMatch&)>& f) const {
  std::size_t count = 0, from = 0;
  RegexMatch m;
  while (from <= text.size() && match(text, from, false, &m)) {
    ++count;
    if (!f(m)) break;
    const std::size_t end = m.position(0) + m[0].size();
    // An empty match moves on by one character, as std::regex_iterator does.
    from = m[0].empty() ? end + 1 : end;
  }
  return count;
}

std::string Regex::replaceAll(std::string_view text, std::string_view replacement) const {
  std::string out;
  std::size_t copied = 0;
  forEachMatch(text, [&](const RegexMatch& m) {
    const std::size_t at = m.position(0);
    out.append(text.substr(copied, at - copied)).append(replacement);
    copied = at + m[0].size();
    return true;
  });
  return out.append(text.substr(std::min(copied, text.size())));
}

}  // namespace tilescope
