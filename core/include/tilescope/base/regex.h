// Regular expressions matched in linear time, for every text TileScope did not write
// (logs, source files, names, a user's --kernel pattern). libstdc++'s std::regex
// backtracks recursively, about one stack frame per character: a 100 KB line in a
// Triton log overflowed the stack (docs/security.md, "Denial of service"). This wrapper runs RE2, whose
// automata never backtrack: time is linear in the text and the stack stays flat,
// whatever the input. RE2's types stay in regex.cpp.
//
// The syntax is RE2's (Perl-like: `\d \w \s \b`, `(?:…)`, lazy `*?`, `(?i)`, `(?m)`);
// backreferences and lookaround are refused with a RegexError. Two details keep the
// ECMAScript behaviour the callers were written for: bytes are matched as Latin-1
// characters, so any byte string (invalid UTF-8 included) is searched as std::regex
// searched it, and `.` matches any character but a line end ('\n' or '\r').
// `^` and `$` anchor the whole text unless RegexOptions::multiline (or `(?m)`).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tilescope {

/// A pattern that does not compile; what() names the pattern and the reason.
class RegexError : public std::invalid_argument {
 public:
  RegexError(const std::string& pattern, const std::string& reason);
  const std::string& reason() const { return m_reason; }

 private:
  std::string m_reason;
};

struct RegexOptions {
  bool icase = false;      ///< ASCII letters match either case
  bool multiline = false;  ///< `^`/`$` also match at line starts and ends
};

/// The groups of one match, as views into the searched text (which must outlive them).
class RegexMatch {
 public:
  /// Groups, the whole match (0) included.
  std::size_t size() const { return m_groups.size(); }
  /// Group `i`; "" for a group that took no part in the match (or beyond size()).
  std::string_view operator[](std::size_t i) const { return i < m_groups.size() ? m_groups[i] : ""; }
  /// Whether group `i` took part in the match (an empty group that did is matched).
  bool matched(std::size_t i) const { return i < m_groups.size() && m_groups[i].data() != nullptr; }
  std::string str(std::size_t i) const { return std::string((*this)[i]); }
  /// Offset of group `i` in the searched text (npos when it took no part).
  std::size_t position(std::size_t i) const;

 private:
  friend class Regex;
  const char* m_text = nullptr;
  std::vector<std::string_view> m_groups;
};

/// A compiled pattern; cheap to copy (copies share it) and safe to use from many threads.
class Regex {
 public:
  /// Matches nothing.
  Regex() = default;
  /// Throws RegexError when `pattern` does not compile.
  explicit Regex(std::string_view pattern, RegexOptions options = {});

  /// The pattern as given.
  const std::string& pattern() const;
  /// Capturing groups in the pattern (group 0, the whole match, not counted).
  std::size_t groups() const;

  /// Whether the pattern matches somewhere in `text` (leftmost match, as Perl chooses it).
  bool search(std::string_view text) const;
  bool search(std::string_view text, RegexMatch& m) const;
  /// Whether the pattern matches the whole of `text`.
  bool fullMatch(std::string_view text) const;
  bool fullMatch(std::string_view text, RegexMatch& m) const;
  /// Calls `f` with every non-overlapping match, left to right, until `f` returns false;
  /// returns the number of matches passed to `f`.
  std::size_t forEachMatch(std::string_view text, const std::function<bool(const RegexMatch&)>& f) const;
  /// `text` with every non-overlapping match replaced by `replacement`, taken literally.
  std::string replaceAll(std::string_view text, std::string_view replacement) const;

 private:
  struct Impl;
  bool match(std::string_view text, std::size_t from, bool anchorBoth, RegexMatch* m) const;
  std::shared_ptr<const Impl> m_impl;
};

}  // namespace tilescope
