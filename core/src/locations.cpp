#include "tilescope/locations.h"

namespace tilescope {

using nlohmann::json;

namespace {

json launchJson(const Point& p) {
  const LaunchInfo& l = p.launch;
  return {{"grid", {l.grid[0], l.grid[1], l.grid[2]}},
          {"block", {l.block[0], l.block[1], l.block[2]}},
          {"shared_bytes", l.sharedBytes}};
}

}  // namespace

void fillDefaultLocations(Point& p, const Config& cfg) {
  for (Finding& f : p.findings) {
    if (!f.location.is_null() && !f.location.empty()) continue;
    const std::string& c = f.category;
    if (c == "smem_exceeded") {
      f.location = {{"config", "launch.shared_bytes"}, {"expression", cfg.launch.sharedBytes},
                    {"kernel", cfg.kernel.entry}};
    } else if (c == "invalid_launch") {
      f.location = {{"config", "launch"}, {"launch", launchJson(p)}, {"kernel", cfg.kernel.entry}};
    } else if (c == "too_many_resources") {
      f.location = {{"config", "launch.block"}, {"expression", cfg.launch.block}, {"kernel", cfg.kernel.entry}};
    } else if (c == "register_spill" || c == "low_occupancy") {
      f.location = {{"kernel", cfg.kernel.entry}, {"file", cfg.kernel.source}};
    } else if (c == "illegal_address" || c == "misaligned_access" || c == "device_assert" || c == "hang") {
      // The error code names no thread or address: the launch is as far as it reaches.
      f.location = {{"kernel", cfg.kernel.entry}, {"file", cfg.kernel.source}, {"launch", launchJson(p)}};
    } else if (c == "slow_vs_baseline") {
      f.location = {{"kernel", cfg.kernel.entry}};
    }
  }
}

}  // namespace tilescope
