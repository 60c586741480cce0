#include "charts/triagecharts.h"

#include "charts/chartstyle.h"
#include "charts/qcp.h"

namespace tilescope::ui {

namespace {

QColor barColor(const ChartColors& c, const QString& category) {
  if (category == QLatin1String("ok")) return c.good;
  // Checked without running is not a correct kernel: not drawn as one (docs/triage.md,
  // "What runs for an entry").
  if (category == QLatin1String("checked") || category == QLatin1String("not_run") ||
      category == QLatin1String("pending"))
    return c.neutral;
  return c.bad;
}

void noData(QCustomPlot* plot, const QString& text, const ChartColors& c) {
  auto* t = new QCPItemText(plot);
  t->position->setType(QCPItemPosition::ptAxisRectRatio);
  t->position->setCoords(0.5, 0.5);
  t->setText(text);
  t->setColor(c.foreground);
}

/// Entries are counted: ticks on whole numbers only (1, 2, 5, 10, ... apart).
QSharedPointer<QCPAxisTicker> countTicker() {
  auto t = QSharedPointer<QCPAxisTickerFixed>::create();
  t->setTickStep(1.0);
  t->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
  return t;
}

}  // namespace

QString taxonomyLabel(const QString& category) {
  // The key stays "checked" (filters, JSON); a person reads what it did and did not do.
  return category == QLatin1String("checked") ? QStringLiteral("checked, not run") : category;
}

QVector<TaxonomyBar> taxonomyBars(const TriageReport& r) {
  QVector<TaxonomyBar> bars;
  for (const TaxonomyRow& row : taxonomy(r.entries))
    if (row.detail.empty()) bars.push_back({QString::fromStdString(row.category), row.count, row.percent});
  return bars;
}

QVector<TaxonomyBar> plotTaxonomy(QCustomPlot* plot, const TriageReport& r) {
  const ChartColors c = chartColors(plot->palette());
  const QVector<TaxonomyBar> bars = taxonomyBars(r);
  if (bars.isEmpty()) {
    noData(plot, QStringLiteral("No finished entries yet"), c);
    return bars;
  }
  auto labels = QSharedPointer<QCPAxisTickerText>::create();
  int maxCount = 1;
  for (int i = 0; i < bars.size(); ++i) {
    const TaxonomyBar& b = bars[i];
    const double key = bars.size() - i;  // largest on top
    auto* bar = new QCPBars(plot->yAxis, plot->xAxis);
    bar->setName(b.category);
    bar->setWidth(0.66);
    const QColor col = barColor(c, b.category);
    bar->setPen(QPen(col));
    bar->setBrush(fillOf(col, 170));
    bar->addData(key, b.count);
    labels->addTick(key, taxonomyLabel(b.category));
    auto* text = new QCPItemText(plot);
    text->position->setCoords(b.count, key);
    text->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    text->setColor(c.foreground);
    text->setText(QStringLiteral("  %1 (%2 %)").arg(b.count).arg(b.percent, 0, 'f', 1));
    maxCount = std::max(maxCount, b.count);
  }
  plot->yAxis->setTicker(labels);
  plot->yAxis->setRange(0.4, bars.size() + 0.6);
  plot->xAxis->setTicker(countTicker());
  plot->xAxis->setRange(0, maxCount * 1.35 + 0.5);  // room for the labels
  plot->xAxis->setLabel(QStringLiteral("entries"));
  return bars;
}

bool plotSpeedups(QCustomPlot* plot, const TriageReport& r) {
  const ChartColors c = chartColors(plot->palette());
  const SpeedupSummary s = speedupSummary(r.entries);
  if (s.n == 0) {
    noData(plot, QStringLiteral("No correct entry has a measured speed"), c);
    return false;
  }
  auto labels = QSharedPointer<QCPAxisTickerText>::create();
  auto* slower = new QCPBars(plot->xAxis, plot->yAxis);
  auto* faster = new QCPBars(plot->xAxis, plot->yAxis);
  slower->setName(QStringLiteral("slower than the reference"));
  faster->setName(QStringLiteral("faster"));
  slower->setPen(QPen(c.warning));
  slower->setBrush(QBrush(fillOf(c.warning, 170), Qt::BDiagPattern));  // hatched: not colour alone
  faster->setPen(QPen(c.good));
  faster->setBrush(fillOf(c.good, 170));
  int maxCount = 1;
  for (int i = 0; i < static_cast<int>(s.bins.size()); ++i) {
    const SpeedupBin& b = s.bins[static_cast<std::size_t>(i)];
    (b.hi <= 1.0 ? slower : faster)->addData(i + 1, b.count);
    labels->addTick(i + 1, QString::fromStdString(b.label));
    maxCount = std::max(maxCount, b.count);
  }
  plot->xAxis->setTicker(labels);
  plot->xAxis->setTickLabelRotation(-35);  // seven ranges side by side do not fit level
  plot->xAxis->setRange(0.4, s.bins.size() + 0.6);
  plot->yAxis->setTicker(countTicker());
  // Headroom above the tallest bar for the legend (top right), which covered
  // the faster bins' bars at 1280x800.
  plot->yAxis->setRange(0, maxCount * 1.8 + 0.6);
  plot->yAxis->setLabel(QStringLiteral("correct entries"));
  plot->legend->setVisible(true);
  return true;
}

}  // namespace tilescope::ui
