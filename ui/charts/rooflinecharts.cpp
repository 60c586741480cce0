#include "charts/rooflinecharts.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "charts/chartstyle.h"
#include "charts/qcp.h"
#include "charts/unitticker.h"

namespace tilescope::ui {

namespace {

double pick(double a, double b) { return known(a) ? a : b; }

}  // namespace

QVector<SolBar> speedOfLightBars(const CountersInfo& c) {
  const CounterFigures k = counterFigures(c.kernel);
  const CounterFigures b = c.baseline ? counterFigures(*c.baseline) : CounterFigures{};
  return {{QStringLiteral("Compute (SM)"), k.smPct, b.smPct},
          {QStringLiteral("Memory"), k.memPct, b.memPct},
          {QStringLiteral("DRAM"), k.dramPct, b.dramPct},
          {QStringLiteral("L2"), k.l2Pct, b.l2Pct},
          {QStringLiteral("L1/shared"), k.l1Pct, b.l1Pct},
          {QStringLiteral("Tensor pipe"), k.tensorPct, b.tensorPct}};
}

int plotSpeedOfLight(QCustomPlot* plot, const CountersInfo& c, const QString& baselineName) {
  const ChartColors col = chartColors(plot->palette());
  const QVector<SolBar> bars = speedOfLightBars(c);
  auto labels = QSharedPointer<QCPAxisTickerText>::create();
  auto* kernel = new QCPBars(plot->yAxis, plot->xAxis);
  kernel->setName(QStringLiteral("kernel"));
  kernel->setPen(QPen(col.kernel));
  kernel->setBrush(fillOf(col.kernel, 200));
  kernel->setWidth(0.36);
  auto* base = new QCPBars(plot->yAxis, plot->xAxis);
  base->setName(baselineName.isEmpty() ? QStringLiteral("baseline") : baselineName);
  base->setPen(QPen(col.baseline));
  base->setBrush(QBrush(col.baseline, Qt::BDiagPattern));  // hatched: not colour alone
  base->setWidth(0.36);
  int drawn = 0;
  for (int i = 0; i < bars.size(); ++i) {
    const SolBar& s = bars[i];
    const double key = bars.size() - i;
    labels->addTick(key, s.label);
    if (known(s.kernel)) kernel->addData(key + 0.19, s.kernel);
    if (known(s.baseline)) base->addData(key - 0.19, s.baseline);
    for (auto [v, y, color] :
         {std::tuple{s.kernel, key + 0.19, col.kernel}, std::tuple{s.baseline, key - 0.19, col.baseline}}) {
      if (!known(v)) continue;
      auto* text = new QCPItemText(plot);
      text->position->setCoords(v + 1.5, y);
      text->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
      text->setColor(col.foreground);
      text->setText(QStringLiteral("%1 %").arg(QString::number(v, 'f', v < 10 ? 1 : 0)));
    }
    if (known(s.kernel) || known(s.baseline)) ++drawn;
  }
  plot->yAxis->setTicker(labels);
  plot->yAxis->setRange(0.4, bars.size() + 0.6);
  plot->xAxis->setRange(0, 112);  // room for the value labels
  plot->xAxis->setLabel(QStringLiteral("% of peak (ncu's speed of light)"));
  plot->legend->setVisible(c.baseline.has_value());
  plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
  return drawn;
}

RooflinePeaks rooflinePeaks(const DeviceInfo& device, const DeviceSpec* spec) {
  RooflinePeaks p;
  p.device = QString::fromStdString(device.name);
  const double gbs = spec ? spec->dramGBs : device.dramGBs.value_or(0);
  const double f32 = spec ? spec->f32Tflops : device.f32Tflops.value_or(0);
  const double tensor = spec ? spec->f16TensorTflops : device.f16TensorTflops.value_or(0);
  p.dramBytesPerSecond = gbs * 1e9;
  p.fp32FlopsPerSecond = f32 * 1e12;
  p.tensorFlopsPerSecond = tensor * 1e12;
  return p;
}

RooflinePoint rooflinePointOf(const KernelCounters& k, const QString& name) {
  const CounterFigures f = counterFigures(k);
  RooflinePoint r;
  r.name = name;
  r.intensity = pick(f.arithmeticIntensity, 0);
  r.flopsPerSecond = pick(f.flopsPerSecond, 0);
  return r;
}

void addPlotNote(QCustomPlot* plot, const QString& text, bool blank) {
  // An empty chart keeps no numbers of the last one: blank axes under the note.
  if (blank)
    for (QCPAxis* axis : {plot->xAxis, plot->yAxis}) {
      axis->setTickLabels(false);
      axis->setRange(0, 1);
    }
  auto* note = new QCPItemText(plot);
  note->setObjectName(QStringLiteral("plotNote"));
  note->position->setType(QCPItemPosition::ptAxisRectRatio);
  note->position->setCoords(0.5, 0.5);
  note->setPositionAlignment(Qt::AlignCenter);
  note->setTextAlignment(Qt::AlignCenter);
  note->setColor(chartColors(plot->palette()).foreground);
  note->setText(text);
}

namespace {

/// A roofline point as a labelled marker; the label on the side with room (right of
/// the point in the left half of the log x range, left of it in the right half).
void addRooflinePoint(QCustomPlot* plot, const RooflinePoint& rp, QCPScatterStyle::ScatterShape shape,
                      const QColor& color, double xMin, double xMax) {
  auto* g = plot->addGraph();
  g->setName(rp.name);
  g->setLineStyle(QCPGraph::lsNone);
  g->setScatterStyle(QCPScatterStyle(shape, color, fillOf(color, 200), 11));
  g->addData(rp.intensity, rp.flopsPerSecond);
  auto* text = new QCPItemText(plot);
  const bool right = std::log(rp.intensity / xMin) < 0.55 * std::log(xMax / xMin);
  text->position->setCoords(right ? rp.intensity * 1.4 : rp.intensity / 1.4, rp.flopsPerSecond);
  text->setPositionAlignment((right ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter);
  text->setColor(color);
  text->setBrush(fillOf(chartColors(plot->palette()).background, 220));  // legible over a roof line
  text->setPadding(QMargins(2, 0, 2, 0));
  text->setText(QStringLiteral("%1 (%2)").arg(rp.name, formatFlops(rp.flopsPerSecond)));
}

/// The legend in a row of its own under the axes: inside them it covered a point
/// or a label wherever it went.
void legendInside(QCustomPlot* plot) {
  // An empty legend in the layout would cap the column's width (its maximum size is its items').
  QCPLegend* legend = plot->legend;
  if (legend->layout() != plot->plotLayout()) return;
  plot->plotLayout()->take(legend);
  plot->plotLayout()->simplify();
  plot->axisRect()->insetLayout()->addElement(legend, Qt::AlignTop | Qt::AlignRight);
}

void legendBelow(QCustomPlot* plot) {
  QCPLegend* legend = plot->legend;
  if (legend->layout() != plot->plotLayout()) {
    plot->axisRect()->insetLayout()->take(legend);
    QCPLayoutGrid* grid = plot->plotLayout();
    grid->addElement(grid->rowCount(), 0, legend);
    grid->setRowStretchFactor(grid->rowCount() - 1, 0.001);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    legend->setWrap(4);
    legend->setMargins(QMargins(4, 2, 4, 2));
  }
  legend->setVisible(true);
}

}  // namespace

int plotRoofline(QCustomPlot* plot, const Point& p, const RooflinePeaks& peaks) {
  const ChartColors col = chartColors(plot->palette());
  plot->xAxis->setLabel(QStringLiteral("arithmetic intensity (FLOP per DRAM byte)"));
  plot->yAxis->setLabel(QStringLiteral("achieved FLOP/s"));
  legendInside(plot);
  if (!p.counters.collected || !peaks.valid()) {
    addPlotNote(plot, !p.counters.collected
                          ? QStringLiteral("No roofline: no hardware counters for this point")
                          : QStringLiteral("No roofline: no peak figures for %1\nin the device database")
                                .arg(peaks.device));
    return 0;
  }
  const RooflinePoint kernel = rooflinePointOf(p.counters.kernel, QStringLiteral("kernel"));
  const RooflinePoint base =
      p.counters.baseline ? rooflinePointOf(*p.counters.baseline, QString::fromStdString(p.baseline.name))
                          : RooflinePoint{};
  plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
  plot->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
  plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
  plot->yAxis->setTicker(logFlopsTicker());
  // The x range holds both points with room for their labels.
  double xMin = 1.0 / 64, xMax = 4096;
  for (const RooflinePoint& rp : {kernel, base})
    if (rp.valid()) {
      xMin = std::min(xMin, rp.intensity / 16);
      xMax = std::max(xMax, rp.intensity * 16);
    }
  const double peak = std::max(peaks.fp32FlopsPerSecond, peaks.tensorFlopsPerSecond);
  // Each roof: min(bandwidth x intensity, peak) over the whole x range.
  auto roof = [&](double flops, const QString& name, const QColor& color, Qt::PenStyle style) {
    if (flops <= 0) return;
    auto* g = plot->addGraph();
    g->setName(name);
    g->setPen(QPen(color, 2, style));
    const double ridge = flops / peaks.dramBytesPerSecond;
    g->addData(xMin, std::min(flops, peaks.dramBytesPerSecond * xMin));
    if (ridge > xMin && ridge < xMax) g->addData(ridge, flops);
    g->addData(xMax, std::min(flops, peaks.dramBytesPerSecond * xMax));
  };
  roof(peaks.tensorFlopsPerSecond, QStringLiteral("Tensor peak (f16)"), col.foreground, Qt::SolidLine);
  roof(peaks.fp32FlopsPerSecond, QStringLiteral("FP32 peak"), col.foreground, Qt::DashLine);
  double yMin = peak;
  int drawn = 0;
  for (const auto& [rp, shape, color] : {std::tuple{kernel, QCPScatterStyle::ssDisc, col.kernel},
                                         std::tuple{base, QCPScatterStyle::ssDiamond, col.baseline}}) {
    if (!rp.valid()) continue;
    addRooflinePoint(plot, rp, shape, color, xMin, xMax);
    yMin = std::min(yMin, rp.flopsPerSecond);
    ++drawn;
  }
  plot->xAxis->setRange(xMin, xMax);
  plot->yAxis->setRange(std::max(yMin / 10, peak * 1e-5), peak * 3);
  legendBelow(plot);
  if (drawn == 0)
    addPlotNote(
        plot,
        QStringLiteral("No point to place: the counters hold no FLOP count\nor no DRAM bytes for the kernel"),
        false);
  return drawn;
}

QString formatMetric(const std::string& name, double value) {
  return QString::fromStdString(tilescope::formatMetric(name, value));
}

}  // namespace tilescope::ui
