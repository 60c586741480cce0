#include "export/exportfigures.h"

#include <QApplication>
#include <QPainter>

#include "charts/chartplot.h"
#include "charts/devicecomparison.h"
#include "charts/rooflinecharts.h"
#include "charts/timingcharts.h"
#include "export/coverageimage.h"
#include "tilescope/export/document.h"

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

namespace {

/// The picture of one of core's figure references (documentFigures), or a null image.
QImage drawFigure(const Report& r, const Point& p, const std::string& id, int focus) {
  if (id == "timing_sweep")
    return renderChart(QStringLiteral("Time per point vs baseline"), kWidth, kHeight,
                       [&](ChartPlot* c) { plotSweepTimes(c, r, focus); });
  if (id == "timing_distribution")
    return renderChart(QStringLiteral("Kernel vs baseline"), 600, kHeight,
                       [&](ChartPlot* c) { plotDurationBoxes(c, p); });
  const DeviceDb* db = defaultDeviceDb();
  if (id == "occupancy_resources") {
    const DeviceSpec* spec = db ? findDevice(*db, r.device) : nullptr;
    const SmLimits limits = spec ? smLimitsOf(*spec) : smLimitsFromReport(r.device, p.occupancy);
    return renderChart(QStringLiteral("Per-SM resources"), kWidth, 300,
                       [&](ChartPlot* c) { plotResourceBars(c, p.occupancy, limits); });
  }
  if (id == "occupancy_curves") {
    QVector<QImage> curves;
    static const char* const titles[] = {"vs block size", "vs registers", "vs shared memory"};
    for (int i = 0; i < 3; ++i)
      curves.append(renderChart(QString::fromLatin1(titles[i]), 400, 320, [&](ChartPlot* c) {
        plotOccupancyCurve(c, p.occupancy, OccupancyCurve(i));
      }));
    return sideBySide(curves);
  }
  if (id == "occupancy_devices") {
    const auto rows = db ? compareDevices(*db, r, p) : QVector<DeviceOccupancy>();
    if (rows.isEmpty()) return {};
    return renderChart(QStringLiteral("Theoretical occupancy per device"), kWidth, 360,
                       [&](ChartPlot* c) { plotDeviceComparison(c, rows); });
  }
  if (id == "counters_speed_of_light")
    return renderChart(QStringLiteral("Speed of light"), kWidth, 360, [&](ChartPlot* c) {
      plotSpeedOfLight(c, p.counters, QString::fromStdString(p.baseline.name));
    });
  if (id == "counters_roofline") {
    const RooflinePeaks peaks = rooflinePeaks(r.device, db ? findDevice(*db, r.device) : nullptr);
    return renderChart(QStringLiteral("Roofline on %1").arg(QString::fromStdString(r.device.name)), kWidth,
                       kHeight, [&](ChartPlot* c) { plotRoofline(c, p, peaks); });
  }
  return {};
}

}  // namespace

QVector<Figure> renderFigures(const Report& r, QString* note) {
  QVector<Figure> figures;
  const int focus = focusPoint(r);
  if (focus < 0) return figures;
  const Point& p = r.points[size_t(focus)];
  const bool widgets = qobject_cast<QApplication*>(QCoreApplication::instance()) != nullptr;
  if (!widgets && note)
    *note = QStringLiteral("charts omitted: the exporter ran without a QApplication (QCustomPlot needs one)");
  for (const DocFigure& ref : documentFigures(r)) {
    QImage image;
    if (!ref.tensor.empty()) {
      for (const CoverageInfo& c : p.coverage)
        if (c.tensor == ref.tensor) image = coverageImage(p, c);
    } else if (widgets) {
      image = drawFigure(r, p, ref.id, focus);
    }
    if (!image.isNull())
      figures.append({QString::fromStdString(ref.id), QString::fromStdString(ref.title), image});
  }
  return figures;
}

}  // namespace tilescope::ui
