// Hardware-counter charts of one point, drawn into any QCustomPlot (the speed-
// of-light panel and the exporter share them): speed-of-light bars of the
// kernel and its baseline side by side, and the roofline with the device's
// peaks from the device database.
#pragma once

#include <QString>
#include <QVector>

#include "tilescope/counters/counters.h"
#include "tilescope/model/device_info.h"
#include "tilescope/model/devices.h"
#include "tilescope/model/point.h"

class QCustomPlot;

namespace tilescope::ui {

/// One speed-of-light bar pair: % of peak for the kernel and the baseline
/// (NaN when the metric was not collected for it).
struct SolBar {
  QString label;  ///< "Compute (SM)", "Memory", "DRAM", "L2", "L1/shared", "Tensor pipe"
  double kernel = NAN, baseline = NAN;
};
QVector<SolBar> speedOfLightBars(const CountersInfo& c);

/// Horizontal grouped bars in percent of peak: the kernel solid, the baseline
/// hatched (colour is never the only cue). Returns the number of bar pairs.
int plotSpeedOfLight(QCustomPlot* plot, const CountersInfo& c, const QString& baselineName);

/// The roofs: peak DRAM bandwidth and peak arithmetic rates, from the database
/// entry of the report's device (or the report's own device block).
struct RooflinePeaks {
  double dramBytesPerSecond = 0;
  double fp32FlopsPerSecond = 0;
  double tensorFlopsPerSecond = 0;  ///< dense f16 tensor-core peak
  QString device;
  bool valid() const {
    return dramBytesPerSecond > 0 && (fp32FlopsPerSecond > 0 || tensorFlopsPerSecond > 0);
  }
};
RooflinePeaks rooflinePeaks(const DeviceInfo& device, const DeviceSpec* spec);

/// A roofline point: arithmetic intensity (FLOP per DRAM byte) and FLOP/s.
struct RooflinePoint {
  QString name;
  double intensity = 0, flopsPerSecond = 0;
  bool valid() const { return intensity > 0 && flopsPerSecond > 0; }
};
RooflinePoint rooflinePointOf(const KernelCounters& k, const QString& name);

/// Log-log roofline: memory slope and flat compute roofs (graphs "DRAM",
/// "FP32 peak", "Tensor peak"), the kernel (disc) and baseline (diamond) as
/// labelled points, the legend in a row under the axes (clear of every point
/// and label). Returns the number of points drawn (0: nothing to show; a note in
/// the middle of the plot then says why).
int plotRoofline(QCustomPlot* plot, const Point& p, const RooflinePeaks& peaks);

/// A centred note on an empty chart (an item named "plotNote"): why nothing is drawn.
/// `blank`: the axes lose their numbers (nothing was plotted against them).
void addPlotNote(QCustomPlot* plot, const QString& text, bool blank = true);

/// A metric's value in its unit for tables: "12.3 µs", "1.05 GiB", "87.2 %", "1 234 567".
QString formatMetric(const std::string& name, double value);

}  // namespace tilescope::ui
