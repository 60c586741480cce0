// Every number a person reads goes through these formatters, so the CLI summary,
// the exports and the GUI's tables and charts show the same median the same way.
// One unit ladder per quantity (durations, bytes, FLOP/s); the GUI's axis tickers
// (ui/charts/unitticker) place their ticks on the same ladders.
#pragma once

#include <string>
#include <vector>

namespace tilescope {

/// One display unit: the value is divided by `factor` and `suffix` appended.
struct Unit {
  double factor;
  const char* suffix;
};

/// Unit ladders, smallest unit first.
const std::vector<Unit>& durationUnits();  ///< ns, µs, ms, s (values in ns)
const std::vector<Unit>& byteUnits();      ///< B, KiB, MiB, GiB, TiB (values in bytes)
const std::vector<Unit>& flopsUnits();     ///< FLOP/s … PFLOP/s (values in FLOP/s)

/// The largest unit whose factor is <= |magnitude| (the smallest for 0).
const Unit& pickUnit(const std::vector<Unit>& ladder, double magnitude);

/// `significant` significant digits in the unit of the value itself, trailing zeros
/// dropped: "1.235 ms", "850 ns", "2 s". A value that rounds up to the next unit's
/// factor is shown in that unit ("1 µs", not "1000 ns"). "n/a" for NaN and infinity.
std::string formatWithUnit(double value, const std::vector<Unit>& ladder, int significant = 4);

/// Durations in ns: "1.235 ms", "12.3 µs", "2 s".
std::string formatDuration(double ns);
/// "48 B" (exact below 1 KiB), "48 KiB", "1.5 MiB".
std::string formatBytes(double bytes);
/// "312.5 TFLOP/s".
std::string formatFlops(double flopsPerSecond);
/// A fraction 0..1 as percent: 0.625 → "62.5 %".
std::string formatPercent(double fraction, int decimals = 1);
/// A factor (speedup, slowdown): "48.0×", "1.84×", "0.0208×", "123×".
std::string formatRatio(double factor);
/// An integer count with every digit, grouped by thin spaces as ncu prints them: "1 234 567".
std::string formatCount(double count);
/// A measured number without a unit: integers exactly, others with 4 significant digits.
std::string formatNumber(double value);

/// Control characters as visible text: "\x1b" for a C0 byte or DEL, "\u009b"
/// for a C1 code point (U+0080..U+009F, UTF-8); tabs kept, and newlines and CRs
/// too when `keepNewlines`. For a terminal line, a log or an export holding a
/// name from anyone (an ESC sequence rewrote the terminal).
std::string visibleControls(const std::string& s, bool keepNewlines = false);

/// `s` single-quoted for a POSIX shell ('it'\''s').
std::string shellQuote(const std::string& s);

/// `s` without leading and trailing whitespace (space, tab, CR, LF, FF, VT).
std::string_view trimmed(std::string_view s);

/// The last non-blank line of `text` (trailing newlines and spaces dropped).
std::string lastLine(std::string_view text);

}  // namespace tilescope
