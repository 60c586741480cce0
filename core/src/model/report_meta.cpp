// Report metadata: creation time, host, tool version.
#include <unistd.h>

#include <chrono>
#include <ctime>

#include "tilescope/model/report.h"

namespace tilescope {

std::string nowIso8601() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string hostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

std::string toolVersion() { return TILESCOPE_VERSION; }

}  // namespace tilescope
