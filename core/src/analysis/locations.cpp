#include "tilescope/analysis/locations.h"

namespace tilescope {

void fillDefaultLocations(Point& p, const Config& cfg) {
  for (Finding& f : p.findings) {
    if (!f.location.empty()) continue;
    const std::string& c = f.category;
    Location& l = f.location;
    if (c == "smem_exceeded") {
      l.config = "launch.shared_bytes";
      l.expression = cfg.launch.sharedBytes;
      l.kernel = cfg.kernel.entry;
    } else if (c == "invalid_launch") {
      l.config = "launch";
      l.launch = launchGeometry(p.launch);
      l.kernel = cfg.kernel.entry;
    } else if (c == "too_many_resources") {
      l.config = "launch.block";
      for (const auto& e : cfg.launch.block) l.expression += (l.expression.empty() ? "" : ", ") + e;
      l.kernel = cfg.kernel.entry;
    } else if (c == "register_spill" || c == "low_occupancy") {
      l.kernel = cfg.kernel.entry;
      l.file = cfg.kernel.source;
    } else if (c == "illegal_address" || c == "misaligned_access" || c == "device_assert" || c == "hang") {
      // The error code names no thread or address: the launch is as far as it reaches.
      l.kernel = cfg.kernel.entry;
      l.file = cfg.kernel.source;
      l.launch = launchGeometry(p.launch);
    } else if (c == "slow_vs_baseline") {
      l.kernel = cfg.kernel.entry;
    }
  }
}

}  // namespace tilescope
