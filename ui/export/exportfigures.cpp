#include "export/exportfigures.h"

#include <QApplication>
#include <QPainter>

#include "charts/chartplot.h"
#include "charts/devicecomparison.h"
#include "charts/rooflinecharts.h"
#include "charts/timingcharts.h"
#include "export/coverageimage.h"

namespace tilescope::ui {

namespace {

constexpr int kWidth = 900, kHeight = 420;

/// Exports are read on white paper whatever the desktop theme is.
QPalette paperPalette() {
  QPalette pal;
  pal.setColor(QPalette::Base, Qt::white);
  pal.setColor(QPalette::Window, Qt::white);
  pal.setColor(QPalette::Text, Qt::black);
  pal.setColor(QPalette::WindowText, Qt::black);
  return pal;
}

template <class Build>
QImage renderChart(const QString& title, int w, int h, Build build) {
  ChartPlot plot;
  plot.setPalette(paperPalette());
  plot.resize(w, h);
  build(&plot);
  plot.setTitle(title);
  applyChartStyle(&plot, plot.colors());
  return plot.toPixmap(w, h).toImage();
}

QImage sideBySide(const QVector<QImage>& images) {
  int w = 0, h = 0;
  for (const QImage& im : images) {
    w += im.width();
    h = qMax(h, im.height());
  }
  QImage out(w, h, QImage::Format_ARGB32_Premultiplied);
  out.fill(Qt::white);
  QPainter p(&out);
  int x = 0;
  for (const QImage& im : images) {
    p.drawImage(x, 0, im);
    x += im.width();
  }
  return out;
}

}  // namespace

int focusPoint(const Report& r) {
  for (size_t i = 0; i < r.points.size(); ++i)
    if (r.points[i].verdict == r.verdict) return int(i);
  return r.points.empty() ? -1 : 0;
}

QVector<Figure> renderFigures(const Report& r, QString* note) {
  QVector<Figure> figures;
  const int focus = focusPoint(r);
  const bool widgets = qobject_cast<QApplication*>(QCoreApplication::instance()) != nullptr;
  if (!widgets && note)
    *note = QStringLiteral("charts omitted: the exporter ran without a QApplication (QCustomPlot needs one)");
  if (widgets && focus >= 0) {
    const Point& p = r.points[size_t(focus)];
    const QString at = QStringLiteral(" (point %1)").arg(pointLabel(p));
    if (r.points.size() > 1)
      figures.append({QStringLiteral("timing_sweep"), QStringLiteral("Median kernel time per point"),
                      renderChart(QStringLiteral("Time per point vs baseline"), kWidth, kHeight,
                                  [&](ChartPlot* c) { plotSweepTimes(c, r, focus); })});
    if (p.timing.measured)
      figures.append({QStringLiteral("timing_distribution"), QStringLiteral("Duration distribution") + at,
                      renderChart(QStringLiteral("Kernel vs baseline"), 600, kHeight,
                                  [&](ChartPlot* c) { plotDurationBoxes(c, p); })});
    if (p.occupancy.computed) {
      const DeviceDb* db = defaultDeviceDb();
      const DeviceSpec* spec = db ? findDevice(*db, r.device) : nullptr;
      const SmLimits limits = spec ? smLimitsOf(*spec) : smLimitsFromReport(r.device, p.occupancy);
      figures.append({QStringLiteral("occupancy_resources"), QStringLiteral("Per-SM resources") + at,
                      renderChart(QStringLiteral("Per-SM resources"), kWidth, 300,
                                  [&](ChartPlot* c) { plotResourceBars(c, p.occupancy, limits); })});
      QVector<QImage> curves;
      static const char* const titles[] = {"vs block size", "vs registers", "vs shared memory"};
      for (int i = 0; i < 3; ++i)
        curves.append(renderChart(QString::fromLatin1(titles[i]), 400, 320, [&](ChartPlot* c) {
          plotOccupancyCurve(c, p.occupancy, OccupancyCurve(i));
        }));
      figures.append({QStringLiteral("occupancy_curves"), QStringLiteral("Occupancy calculator") + at,
                      sideBySide(curves)});
      if (db) {
        const auto rows = compareDevices(*db, r, p);
        if (!rows.isEmpty())
          figures.append({QStringLiteral("occupancy_devices"), QStringLiteral("Same configuration on other devices"),
                          renderChart(QStringLiteral("Theoretical occupancy per device"), kWidth, 360,
                                      [&](ChartPlot* c) { plotDeviceComparison(c, rows); })});
      }
    }
  }
  if (widgets && focus >= 0 && r.points[size_t(focus)].counters.collected) {
    const Point& p = r.points[size_t(focus)];
    const QString at = QStringLiteral(" (point %1)").arg(pointLabel(p));
    figures.append({QStringLiteral("counters_speed_of_light"), QStringLiteral("Speed of light, kernel vs baseline") + at,
                    renderChart(QStringLiteral("Speed of light"), kWidth, 360,
                                [&](ChartPlot* c) { plotSpeedOfLight(c, p.counters, QString::fromStdString(p.baseline.name)); })});
    const DeviceDb* db = defaultDeviceDb();
    const RooflinePeaks peaks = rooflinePeaks(r.device, db ? findDevice(*db, r.device) : nullptr);
    figures.append({QStringLiteral("counters_roofline"), QStringLiteral("Roofline") + at,
                    renderChart(QStringLiteral("Roofline on %1").arg(QString::fromStdString(r.device.name)), kWidth, kHeight,
                                [&](ChartPlot* c) { plotRoofline(c, p, peaks); })});
  }
  if (focus >= 0)
    for (const CoverageInfo& c : r.points[size_t(focus)].coverage) {
      QImage im = coverageImage(c);
      if (im.isNull()) continue;
      QString id = QString::fromStdString(c.tensor);
      for (QChar& ch : id)
        if (!ch.isLetterOrNumber()) ch = QLatin1Char('_');
      figures.append({QStringLiteral("coverage_") + id,
                      QStringLiteral("Measured coverage of %1").arg(QString::fromStdString(c.tensor)), im});
    }
  return figures;
}

}  // namespace tilescope::ui
