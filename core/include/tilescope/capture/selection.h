// Which launches a capture records (`capture --kernel REGEX --launch-skip N
// --launch-count N`, as ncu selects): by name, then skip and count over the
// matching launches; with neither skip nor count, the first launch of each
// distinct (kernel, specialisation, shapes) key. One selector per recording
// process; the CUDA recorder answers for the Triton recorder too.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tilescope/base/regex.h"

namespace tilescope {

struct LaunchSelection {
  std::string kernelRegex;  ///< RE2 syntax (tilescope/base/regex.h), searched in the name; "" matches all
  std::int64_t skip = 0;
  std::optional<std::int64_t> count;                ///< unset: unlimited
  std::uint64_t maxBytes = std::uint64_t{4} << 30;  ///< a buffer above it is not saved

  /// From TILESCOPE_CAPTURE_KERNEL, _LAUNCH_SKIP, _LAUNCH_COUNT and _MAX_BYTES.
  /// Throws std::invalid_argument naming the variable of a bad value.
  static LaunchSelection fromEnvironment();
  /// The same variables for a child's environment ("NAME=value").
  std::vector<std::string> environment() const;
};

class LaunchSelector {
 public:
  /// Throws std::invalid_argument naming a bad regular expression.
  explicit LaunchSelector(LaunchSelection s);
  /// Whether to record this launch. `names` are tried in turn against the
  /// regex (the mangled symbol and the demangled name); `key` is its
  /// specialisation and shapes, for the default one-per-key selection.
  bool select(const std::string& name, const std::string& otherName, const std::string& key);
  const LaunchSelection& selection() const { return m_sel; }
  /// Launches that matched the regex so far.
  std::int64_t matched() const { return m_matched; }

 private:
  LaunchSelection m_sel;
  std::optional<Regex> m_re;
  std::int64_t m_matched = 0;
  std::set<std::string> m_seen;
};

}  // namespace tilescope
