// Line splitting and prefix stripping for logs (tilescope/logs/logtext.h). Hand-written
// scanners, not regular expressions: they run on every line of a 200,000-line log.
#include <cctype>

#include "tilescope/logs/logtext.h"

namespace tilescope {
namespace {

using sv = std::string_view;

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r'; }

sv trimLeft(sv s) {
  while (!s.empty() && isSpace(s.front())) s.remove_prefix(1);
  return s;
}

sv trim(sv s) {
  s = trimLeft(s);
  while (!s.empty() && (isSpace(s.back()) || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

// Consumes `n` digits (at least min, at most max); false when there are fewer than min.
bool digits(sv& s, std::size_t min, std::size_t max) {
  std::size_t n = 0;
  while (n < s.size() && n < max && isDigit(s[n])) ++n;
  if (n < min) return false;
  s.remove_prefix(n);
  return true;
}

bool literal(sv& s, char c) {
  if (s.empty() || s.front() != c) return false;
  s.remove_prefix(1);
  return true;
}

// hh:mm:ss[.frac]
bool clock(sv& s) {
  sv t = s;
  if (!digits(t, 1, 2) || !literal(t, ':') || !digits(t, 2, 2) || !literal(t, ':') || !digits(t, 2, 2))
    return false;
  if (!t.empty() && (t.front() == '.' || t.front() == ',')) {
    t.remove_prefix(1);
    digits(t, 1, 12);
  }
  s = t;
  return true;
}

// 2025-02-26T07:40:38.123Z, 2021-08-05 11:50:49.209319, optional zone, then ':' or space.
bool isoTimestamp(sv& s) {
  sv t = s;
  if (!digits(t, 4, 4) || !literal(t, '-') || !digits(t, 2, 2) || !literal(t, '-') || !digits(t, 2, 2))
    return false;
  if (t.empty() || (t.front() != 'T' && t.front() != ' ')) return false;
  t.remove_prefix(1);
  if (!clock(t)) return false;
  if (!t.empty() && t.front() == 'Z') t.remove_prefix(1);
  if (!t.empty() && (t.front() == '+' || t.front() == '-') && t.size() > 1 && isDigit(t[1])) {
    t.remove_prefix(1);
    digits(t, 2, 2);
    literal(t, ':');
    digits(t, 2, 2);
  }
  literal(t, ':');
  s = t;
  return true;
}

// glog: E0213 12:41:17.931882   59040 rendezvous.cc:98]   (also inside brackets)
bool glogHeader(sv& s, bool bracketed) {
  sv t = s;
  if (t.empty() || std::string_view("EWIFD").find(t.front()) == sv::npos) return false;
  t.remove_prefix(1);
  const bool dated = digits(t, 3, 4);
  t = trimLeft(t);
  if (dated && !clock(t)) return false;
  t = trimLeft(t);
  digits(t, 0, 10);  // thread id
  t = trimLeft(t);
  // file:line]
  const auto close = t.find(']');
  if (close == sv::npos || close > 120) return false;
  const sv loc = t.substr(0, close);
  const auto colon = loc.rfind(':');
  if (colon == sv::npos || colon + 1 >= loc.size()) return false;
  for (char c : loc.substr(colon + 1))
    if (!isDigit(c)) return false;
  if (loc.find(' ') != sv::npos) return false;
  // "E foo:3]" alone is too weak outside brackets; "E tensorflow/x/y.cc:29]" is glog
  if (!dated && !bracketed && loc.find('.') == sv::npos) return false;
  t.remove_prefix(close + 1);
  s = t;
  return true;
}

// [rank3]:  [Rank 3]  [80746]  [15:21:23]  [Step 3/7]  [E321 02:07:08.4 ProcessGroupNCCL.cpp:607]  [1]
bool bracketPrefix(sv& s) {
  if (s.empty() || s.front() != '[') return false;
  const auto close = s.find(']');
  if (close == sv::npos || close > 160) return false;
  sv in = s.substr(1, close - 1);
  sv t = in;
  bool ok = false;
  if (t.size() > 4 && (t.substr(0, 4) == "rank" || t.substr(0, 5) == "Rank ")) {
    t.remove_prefix(t[4] == ' ' ? 5 : 4);
    ok = digits(t, 1, 6) && t.empty();
  } else if (sv d = t; digits(d, 1, 10) && d.empty()) {
    ok = true;
  } else if (sv c = t; clock(c) && c.empty()) {
    ok = true;
  } else if (t.substr(0, 5) == "Step " || t.substr(0, 6) == "error]" || t == "error") {
    ok = true;
  } else if (sv g = s.substr(1); glogHeader(g, true)) {
    s = g;  // glogHeader consumed the ']'
    literal(s, ':');
    return true;
  } else if (sv ts = t; isoTimestamp(ts) && trim(ts).empty()) {
    ok = true;
  }
  if (!ok) return false;
  s.remove_prefix(close + 1);
  literal(s, ':');
  return true;
}

// (RayWorkerWrapper pid=4009)
bool rayPrefix(sv& s) {
  if (s.empty() || s.front() != '(') return false;
  const auto close = s.find(')');
  if (close == sv::npos || close > 80) return false;
  const sv in = s.substr(1, close - 1);
  const auto pid = in.find(" pid=");
  if (pid == sv::npos) return false;
  s.remove_prefix(close + 1);
  return true;
}

// ERROR 01-28 03:21:01 engine.py:387]
bool levelDatePrefix(sv& s) {
  for (sv level : {"ERROR ", "WARNING ", "INFO ", "DEBUG "}) {
    if (s.substr(0, level.size()) != level) continue;
    sv t = s.substr(level.size());
    if (!digits(t, 2, 2) || !literal(t, '-') || !digits(t, 2, 2) || !literal(t, ' ') || !clock(t))
      return false;
    const auto close = t.find("] ");
    if (close == sv::npos || close > 80) return false;
    t.remove_prefix(close + 1);
    s = t;
    return true;
  }
  return false;
}

bool oneStrip(sv& s) {
  s = trimLeft(s);
  if (s.empty()) return false;
  const sv before = s;
  if (s.size() >= 5 && s.substr(0, 5) == "=====") {  // compute-sanitizer, pytest separators
    while (!s.empty() && s.front() == '=') s.remove_prefix(1);
    return true;
  }
  if (s.substr(0, 2) == "##" && s.find(']') != sv::npos && s.find(']') < 20) {  // GitHub ##[error]
    s.remove_prefix(s.find(']') + 1);
    return true;
  }
  if (isoTimestamp(s)) return true;
  if (bracketPrefix(s)) return true;
  if (rayPrefix(s)) return true;
  if (levelDatePrefix(s)) return true;
  if (glogHeader(s, false)) return true;
  // TensorFlow after its timestamp: ": E tensorflow/...cc:29] "
  if (s.size() > 2 && s[0] == ':' && s[1] == ' ') {
    sv t = trimLeft(s.substr(1));
    if (sv g = t; glogHeader(g, true)) {
      s = g;
      return true;
    }
  }
  // MSVC build lines: "1>  ptxas info"
  if (sv t = s; digits(t, 1, 3) && literal(t, '>')) {
    s = t;
    return true;
  }
  // A Markdown quote or the Python prompt: "> RuntimeError ...", ">>> import triton"
  if (s.front() == '>' && (s.size() == 1 || s[1] == ' ' || s[1] == '>')) {
    while (!s.empty() && s.front() == '>') s.remove_prefix(1);
    return true;
  }
  // pytest failure lines: "E       AssertionError: ..."
  if (s.size() > 3 && s[0] == 'E' && s[1] == ' ' && s[2] == ' ') {
    s.remove_prefix(1);
    return true;
  }
  return s.size() != before.size();
}

}  // namespace

std::string_view stripLogPrefixes(std::string_view line) {
  sv s = line;
  for (int i = 0; i < 8 && oneStrip(s); ++i) {
  }
  return trim(s);
}

LogLines splitLogLines(std::string_view text, const LogLimits& limits) {
  LogLines out;
  std::size_t start = 0, number = 0;
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == sv::npos) end = text.size();
    spans.emplace_back(start, end);
    start = end + 1;
  }
  out.total = spans.size();
  const bool cut = spans.size() > limits.headLines + limits.tailLines;
  for (std::size_t i = 0; i < spans.size(); ++i) {
    ++number;
    if (cut && i >= limits.headLines && i < spans.size() - limits.tailLines) continue;
    sv raw = text.substr(spans[i].first, spans[i].second - spans[i].first);
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    sv body = stripLogPrefixes(raw.substr(0, limits.maxLineChars + 256));
    if (body.size() > limits.maxLineChars) body = body.substr(0, limits.maxLineChars);
    out.lines.push_back({number, raw, body});
  }
  out.skipped = cut ? spans.size() - limits.headLines - limits.tailLines : 0;
  return out;
}

LogLines splitLogLines(const LogText& log, const LogLimits& limits) {
  LogLines out = splitLogLines(std::string_view(log.text), limits);
  if (log.gapOffset == std::string::npos || log.gapLines == 0) return out;
  // Lines after the gap were numbered as if it were not there.
  for (LogLine& l : out.lines)
    if (static_cast<std::size_t>(l.raw.data() - log.text.data()) >= log.gapOffset) l.number += log.gapLines;
  out.total += log.gapLines;
  out.skipped += log.gapLines;
  return out;
}

}  // namespace tilescope
