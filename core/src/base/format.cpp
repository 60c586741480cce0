// The unit ladders and the formatters every reader of a report shares.
#include "tilescope/base/format.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace tilescope {

const std::vector<Unit>& durationUnits() {
  static const std::vector<Unit> units = {{1.0, "ns"}, {1e3, "µs"}, {1e6, "ms"}, {1e9, "s"}};
  return units;
}

const std::vector<Unit>& byteUnits() {
  static const std::vector<Unit> units = {{1.0, "B"},
                                          {1024.0, "KiB"},
                                          {1024.0 * 1024, "MiB"},
                                          {1024.0 * 1024 * 1024, "GiB"},
                                          {1024.0 * 1024 * 1024 * 1024, "TiB"}};
  return units;
}

const std::vector<Unit>& flopsUnits() {
  static const std::vector<Unit> units = {{1.0, "FLOP/s"},  {1e3, "kFLOP/s"},  {1e6, "MFLOP/s"},
                                          {1e9, "GFLOP/s"}, {1e12, "TFLOP/s"}, {1e15, "PFLOP/s"}};
  return units;
}

const Unit& pickUnit(const std::vector<Unit>& ladder, double magnitude) {
  magnitude = std::fabs(magnitude);
  const Unit* best = &ladder.front();
  for (const Unit& u : ladder)
    if (u.factor <= magnitude * (1.0 + 1e-9)) best = &u;
  return *best;
}

namespace {

std::string printed(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

/// `v` with `significant` digits, without an exponent and without trailing zeros.
std::string significantDigits(double v, int significant) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", significant, v);
  std::string s = buf;
  if (s.find('e') == std::string::npos) return s;
  // %g switched to an exponent (a value beyond the ladder): print it plainly.
  return printed("%.0f", v);
}

}  // namespace

std::string formatWithUnit(double value, const std::vector<Unit>& ladder, int significant) {
  if (!std::isfinite(value)) return "n/a";
  std::size_t i = static_cast<std::size_t>(&pickUnit(ladder, value) - ladder.data());
  std::string digits = significantDigits(value / ladder[i].factor, significant);
  // 999.96 ns rounds to "1000": that is 1 µs.
  if (i + 1 < ladder.size() &&
      std::fabs(std::strtod(digits.c_str(), nullptr)) * ladder[i].factor >= ladder[i + 1].factor) {
    ++i;
    digits = significantDigits(value / ladder[i].factor, significant);
  }
  if (digits == "-0") digits = "0";
  return digits + " " + ladder[i].suffix;
}

std::string formatDuration(double ns) { return formatWithUnit(ns, durationUnits()); }

std::string formatBytes(double bytes) {
  // Small byte counts are exact integers: "48 B", not "48.0 B".
  if (std::isfinite(bytes) && std::fabs(bytes) < 1024) return printed("%.0f B", bytes);
  return formatWithUnit(bytes, byteUnits());
}

std::string formatFlops(double flopsPerSecond) { return formatWithUnit(flopsPerSecond, flopsUnits()); }

std::string formatPercent(double fraction, int decimals) {
  if (!std::isfinite(fraction)) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f %%", decimals, fraction * 100.0);
  return buf;
}

std::string formatRatio(double factor) {
  if (!std::isfinite(factor)) return "n/a";
  const double a = std::fabs(factor);
  // Three significant digits, the trailing zero kept: "48.0×" reads as measured to a tenth.
  const std::string digits = a >= 100  ? printed("%.0f", factor)
                             : a >= 10 ? printed("%.1f", factor)
                             : a >= 1  ? printed("%.2f", factor)
                                       : significantDigits(factor, 3);
  return digits + "×";
}

std::string formatCount(double count) {
  if (!std::isfinite(count)) return "n/a";
  std::string digits = printed("%.0f", std::fabs(count));
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3)
    digits.insert(static_cast<std::size_t>(i), "\u2009");
  return count <= -0.5 ? "-" + digits : digits;
}

std::string formatNumber(double value) {
  if (!std::isfinite(value)) return std::isnan(value) ? "NaN" : (value > 0 ? "inf" : "-inf");
  if (value == std::round(value) && std::fabs(value) < 1e15) return printed("%.0f", value);
  return printed("%.4g", value);
}

std::string shellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

namespace {

/// The length of a control character at s[i] (a C0 byte, DEL, or a C1 code
/// point U+0080..U+009F in UTF-8), 0 for any other character.
std::size_t controlAt(const std::string& s, std::size_t i) {
  const auto u = static_cast<unsigned char>(s[i]);
  if (u < 0x20 || u == 0x7f) return 1;
  if (u == 0xc2 && i + 1 < s.size()) {
    const auto v = static_cast<unsigned char>(s[i + 1]);
    if (v >= 0x80 && v <= 0x9f) return 2;
  }
  return 0;
}

/// "\x1b" for ESC, "\u009b" for a C1 CSI: visible, and inert in every reader.
void appendVisibleControl(std::string& o, const std::string& s, std::size_t i, std::size_t len) {
  static const char* hex = "0123456789abcdef";
  const auto u = static_cast<unsigned char>(s[i + len - 1]);
  o += len == 1 ? "\\x" : "\\u00";
  o += hex[u >> 4];
  o += hex[u & 15];
}

}  // namespace

std::string visibleControls(const std::string& s, bool keepNewlines) {
  std::string o;
  o.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t len = controlAt(s, i);
    if (len == 0 || s[i] == '\t' || (keepNewlines && (s[i] == '\n' || s[i] == '\r'))) {
      o += s[i++];
      continue;
    }
    appendVisibleControl(o, s, i, len);
    i += len;
  }
  return o;
}

std::string_view trimmed(std::string_view s) {
  auto blank = [](char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
  };
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

std::string lastLine(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  const auto nl = text.rfind('\n');
  return std::string(nl == std::string_view::npos ? text : text.substr(nl + 1));
}

}  // namespace tilescope
