// `tilescope-run check` in the GUI, without a GPU and without a process: the
// core's static analysis of a config's sweep points for a device of the database
// (declared tiles and masks, shared-memory budget, launch limits, theoretical
// occupancy), as a report the views show like any other. The kernel is not
// compiled here (registers and static shared memory read as unknown).
#pragma once

#include <QString>
#include <QStringList>

#include "reportview.h"
#include "tilescope/config/config.h"

namespace tilescope::ui {

struct ConfigCheck {
  ReportPtr report;   ///< verb "check", one point per sweep point (at most kMaxCheckedPoints)
  QString error;      ///< the first error of the launch limits, as "PATH: problem" ("" when none)
  QString errorPath;  ///< its config key ("launch.block")
};

/// Sweep points analysed per check: enough to see the variation, bounded so typing stays fluid.
inline constexpr int kMaxCheckedPoints = 64;

/// The device database's keys ("h100", ...), in file order; empty when it does not load.
QStringList checkDeviceKeys();
/// Checks `cfg` on `deviceKey`. Throws ConfigError when an expression does not evaluate,
/// std::runtime_error for an unknown device.
ConfigCheck checkConfig(const Config& cfg, const QString& deviceKey);

}  // namespace tilescope::ui
