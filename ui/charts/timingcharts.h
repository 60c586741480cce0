// Timing charts: one point's kernel vs baseline duration distribution, and a
// sweep's time per point against the baseline. Shared by TimingPanel and exports.
#pragma once

#include <QString>

#include "charts/qcp.h"

#include "tilescope/export/document.h"  // pointLabel: how points are named everywhere
#include "tilescope/model/report.h"

namespace tilescope::ui {

/// Text ticks of which only every stride-th key is drawn, so labels never overlap
/// however many points a sweep has (fitSweepTickLabels picks the stride).
class StrideTextTicker : public QCPAxisTickerText {
 public:
  void setStride(int stride) { m_stride = stride < 1 ? 1 : stride; }
  int stride() const { return m_stride; }

 protected:
  QVector<double> createTickVector(double tickStep, const QCPRange& range) override;

 private:
  int m_stride = 1;
};

/// "1.84× faster than cublas" / "0.5× (2.0× slower) than cublas" / "" when unknown.
QString speedupText(const Point& p);

/// Box plots (whiskers min..max, box p10..p90, median line) at key 1 (kernel)
/// and key 2 (baseline, when measured). Returns the number of boxes drawn.
int plotDurationBoxes(QCustomPlot* plot, const Point& p);

/// Median time per point (graph 0: kernel, graph 1: baseline) with p10/p90 error
/// bars, x = position in r.points; CV on the right axis (graph 2, percent).
/// `selected` (index into r.points, -1: none) is marked. Points are named by their
/// swept values (PointLabels); the legend sits in its own row under the axes, where
/// it cannot cover a point. Returns points drawn.
int plotSweepTimes(QCustomPlot* plot, const Report& r, int selected);

/// The dynamic property holding a plotSweepTimes chart's x-axis title (the swept keys).
inline constexpr const char* kSweepKeysProperty = "tilescopeSweepKeys";

/// Lays out a plotSweepTimes chart for its current size: x labels level when they
/// fit the width, else at 45° with every n-th label so that neighbours keep a
/// line's height apart; below 300 px of height no legend row or x-axis title, and
/// as many duration ticks as fit. Call again after a resize (TimingPanel does),
/// then replot.
void fitSweepTickLabels(QCustomPlot* plot);

}  // namespace tilescope::ui
