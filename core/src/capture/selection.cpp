// Launch selection, as ncu's --kernel-name / --launch-skip / --launch-count.
#include "tilescope/capture/selection.h"

#include <cstdlib>
#include <stdexcept>

namespace tilescope {

namespace {

std::optional<std::int64_t> envInteger(const char* name, std::int64_t min) {
  const char* v = std::getenv(name);
  if (!v || !*v) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long long x = std::strtoll(v, &end, 10);
  if (errno != 0 || *end != '\0' || x < min)
    throw std::invalid_argument(std::string(name) + "='" + v +
                                "': expected an integer >= " + std::to_string(min));
  return x;
}

}  // namespace

LaunchSelection LaunchSelection::fromEnvironment() {
  LaunchSelection s;
  if (const char* k = std::getenv("TILESCOPE_CAPTURE_KERNEL")) s.kernelRegex = k;
  if (auto v = envInteger("TILESCOPE_CAPTURE_LAUNCH_SKIP", 0)) s.skip = *v;
  s.count = envInteger("TILESCOPE_CAPTURE_LAUNCH_COUNT", 1);
  if (auto v = envInteger("TILESCOPE_CAPTURE_MAX_BYTES", 0)) s.maxBytes = std::uint64_t(*v);
  return s;
}

std::vector<std::string> LaunchSelection::environment() const {
  std::vector<std::string> env;
  if (!kernelRegex.empty()) env.push_back("TILESCOPE_CAPTURE_KERNEL=" + kernelRegex);
  if (skip > 0) env.push_back("TILESCOPE_CAPTURE_LAUNCH_SKIP=" + std::to_string(skip));
  if (count) env.push_back("TILESCOPE_CAPTURE_LAUNCH_COUNT=" + std::to_string(*count));
  env.push_back("TILESCOPE_CAPTURE_MAX_BYTES=" + std::to_string(maxBytes));
  return env;
}

LaunchSelector::LaunchSelector(LaunchSelection s) : m_sel(std::move(s)) {
  if (!m_sel.kernelRegex.empty()) {
    try {
      m_re.emplace(m_sel.kernelRegex);
    } catch (const RegexError& e) {
      // A user's pattern: RE2 refuses what it cannot match in linear time (backreferences,
      // lookaround), and says so.
      throw std::invalid_argument("--kernel '" + m_sel.kernelRegex + "': not a regular expression (" +
                                  e.reason() + ")");
    }
  }
}

bool LaunchSelector::select(const std::string& name, const std::string& otherName, const std::string& key) {
  if (m_re && !m_re->search(name) && (otherName.empty() || !m_re->search(otherName))) return false;
  const std::int64_t n = m_matched++;
  if (m_sel.skip > 0 || m_sel.count) {
    if (n < m_sel.skip) return false;
    return !m_sel.count || n - m_sel.skip < *m_sel.count;
  }
  // The default: the first launch of each distinct specialisation and shape.
  return m_seen.insert(name + '\n' + key).second;
}

}  // namespace tilescope
