// The same kernel configuration evaluated on every device of the database, through
// core's occupancy model (so the GUI, the exports and `tilescope-run check` agree).
#pragma once

#include <QString>
#include <QVector>

#include "charts/occupancycharts.h"
#include "tilescope/analysis/occupancy.h"
#include "tilescope/model/devices.h"
#include "tilescope/model/report.h"

namespace tilescope::ui {

/// The database shipped in resources/ (loaded once); nullptr when it cannot be read,
/// with the reason in *error.
const DeviceDb* defaultDeviceDb(QString* error = nullptr);

/// What one block of the point's kernel asks of an SM: threads from the launch,
/// registers as launched (CUPTI) else as compiled else as the report's occupancy says,
/// static shared memory as compiled, dynamic from the launch.
KernelResources kernelResourcesOf(const Point& p);

/// Per-SM limits of a database device.
SmLimits smLimitsOf(const DeviceSpec& spec);
/// The report's device in the database (by key, then name), or nullptr.
const DeviceSpec* findDevice(const DeviceDb& db, const DeviceInfo& device);

/// "fits" (<= 48 KiB default limit), "needs opt-in" (<= opt-in limit), "exceeds".
QString smemFit(const DeviceSpec& spec, std::int64_t smemBytes);
QVector<DeviceOccupancy> compareDevices(const DeviceDb& db, const Report& r, const Point& p);

}  // namespace tilescope::ui
