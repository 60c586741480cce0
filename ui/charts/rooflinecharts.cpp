#include "charts/rooflinecharts.h"

#include <cmath>

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

int plotRoofline(QCustomPlot* plot, const Point& p, const RooflinePeaks& peaks) {
  const ChartColors col = chartColors(plot->palette());
  plot->xAxis->setLabel(QStringLiteral("arithmetic intensity (FLOP per DRAM byte)"));
  plot->yAxis->setLabel(QStringLiteral("achieved FLOP/s"));
  if (!p.counters.collected || !peaks.valid()) {
    plot->xAxis->setLabel(
        !p.counters.collected
            ? QStringLiteral("no hardware counters for this point")
            : QStringLiteral("no peak figures for %1 in the device database").arg(peaks.device));
    return 0;
  }
  auto logTicker = QSharedPointer<QCPAxisTickerLog>::create();
  plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
  plot->xAxis->setTicker(logTicker);
  plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
  plot->yAxis->setTicker(flopsTicker());
  const double xMin = 1.0 / 64, xMax = 4096;
  const double peak = std::max(peaks.fp32FlopsPerSecond, peaks.tensorFlopsPerSecond);
  // Each roof: min(bandwidth x intensity, peak) over the whole x range.
  auto roof = [&](double flops, const QString& name, const QColor& color, Qt::PenStyle style) {
    if (flops <= 0) return;
    auto* g = plot->addGraph();
    g->setName(name);
    g->setPen(QPen(color, 2, style));
    const double ridge = flops / peaks.dramBytesPerSecond;
    g->addData(xMin, peaks.dramBytesPerSecond * xMin);
    if (ridge > xMin && ridge < xMax) g->addData(ridge, flops);
    g->addData(xMax, std::min(flops, peaks.dramBytesPerSecond * xMax));
  };
  roof(peaks.tensorFlopsPerSecond, QStringLiteral("Tensor peak (f16)"), col.foreground, Qt::SolidLine);
  roof(peaks.fp32FlopsPerSecond, QStringLiteral("FP32 peak"), col.foreground, Qt::DashLine);

  double yMin = peak;
  int drawn = 0;
  auto point = [&](const RooflinePoint& rp, QCPScatterStyle::ScatterShape shape, const QColor& color) {
    if (!rp.valid()) return;
    auto* g = plot->addGraph();
    g->setName(rp.name);
    g->setLineStyle(QCPGraph::lsNone);
    g->setScatterStyle(QCPScatterStyle(shape, color, fillOf(color, 200), 11));
    g->addData(rp.intensity, rp.flopsPerSecond);
    auto* text = new QCPItemText(plot);
    text->position->setCoords(rp.intensity * 1.3, rp.flopsPerSecond);
    text->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    text->setColor(color);
    text->setText(QStringLiteral("%1 (%2)").arg(rp.name, formatFlops(rp.flopsPerSecond)));
    yMin = std::min(yMin, rp.flopsPerSecond);
    ++drawn;
  };
  point(rooflinePointOf(p.counters.kernel, QStringLiteral("kernel")), QCPScatterStyle::ssDisc, col.kernel);
  if (p.counters.baseline)
    point(rooflinePointOf(*p.counters.baseline, QString::fromStdString(p.baseline.name)),
          QCPScatterStyle::ssDiamond, col.baseline);
  plot->xAxis->setRange(xMin, xMax);
  plot->yAxis->setRange(std::max(yMin / 10, peak * 1e-5), peak * 3);
  plot->legend->setVisible(true);
  plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
  return drawn;
}

QString formatMetric(const std::string& name, double value) {
  return QString::fromStdString(tilescope::formatMetric(name, value));
}

}  // namespace tilescope::ui
