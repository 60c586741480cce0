// Occupancy charts, drawn into any QCustomPlot (the panel's widgets and the
// exporter's offscreen plots share them, so the report and the GUI match).
#pragma once

#include <QString>
#include <QVector>

#include "tilescope/model/device_info.h"
#include "tilescope/model/measurements.h"

class QCustomPlot;

namespace tilescope::ui {

/// Per-SM resource limits the bars are measured against.
struct SmLimits {
  double registers = 65536;  ///< 32-bit registers per SM (64 Ki on every CC >= 5.0)
  double sharedMemory = 0;   ///< bytes usable by blocks per SM (0: unknown)
  double warps = 0;          ///< max resident warps per SM
  double blocks = 0;         ///< max resident blocks per SM
};

/// One resource bar: what the resident blocks use of what one SM has.
struct ResourceUse {
  QString key;   ///< the limiter vocabulary: registers | shared_memory | warps | blocks
  QString name;  ///< "Registers"
  double used = 0, limit = 0;
  QString usedText, limitText;
  int blocksAllowed = 0;  ///< resident blocks this resource alone allows
};

/// Limits taken from the report: the device entry (smem_per_sm, regs_per_sm,
/// max_blocks_per_sm when present) and what the occupancy result implies.
SmLimits smLimitsFromReport(const DeviceInfo& device, const OccupancyInfo& occ);
QVector<ResourceUse> resourceUse(const OccupancyInfo& occ, const SmLimits& limits);
/// "shared memory", "registers", ... for a limiter key.
QString limiterName(const std::string& limiter);

/// Horizontal bars, one per resource, as a fraction of the SM's limit; the
/// limiter is drawn in the warning colour and labelled. Returns the label text.
QString plotResourceBars(QCustomPlot* plot, const OccupancyInfo& occ, const SmLimits& limits);

enum class OccupancyCurve { BlockSize, Registers, SharedMemory };
const char* curveKey(OccupancyCurve c);  ///< "block_size", "registers", "shared_memory"
/// The current configuration's x on that curve (threads, registers or bytes).
double currentX(const OccupancyInfo& occ, OccupancyCurve c);
/// graph(0): the curve from occ.curves; graph(1): the current configuration.
/// Returns false when the report holds no such curve (the plot shows a note).
bool plotOccupancyCurve(QCustomPlot* plot, const OccupancyInfo& occ, OccupancyCurve c);

/// Occupancy of the same kernel on other devices.
struct DeviceOccupancy {
  QString device;        ///< display name
  QString key;           ///< database key
  double occupancy = 0;  ///< 0..1
  QString limiter;
  int blocksPerSm = 0;
  QString smemFit;       ///< "fits", "needs opt-in", "exceeds"
  bool current = false;  ///< the report's device
};
/// Grouped bars of occupancy per device, the report's device highlighted.
void plotDeviceComparison(QCustomPlot* plot, const QVector<DeviceOccupancy>& rows);

}  // namespace tilescope::ui
