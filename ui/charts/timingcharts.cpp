#include "charts/timingcharts.h"

#include <QFontMetrics>
#include <QtMath>

#include "charts/chartstyle.h"
#include "charts/qcp.h"
#include "charts/unitticker.h"
#include "models/pointlabels.h"
#include "tilescope/export/document.h"

namespace tilescope::ui {

QVector<double> StrideTextTicker::createTickVector(double tickStep, const QCPRange& range) {
  QVector<double> all = QCPAxisTickerText::createTickVector(tickStep, range), out;
  for (double key : std::as_const(all))
    if (qRound(key) % m_stride == 0) out << key;
  return out;
}

QString speedupText(const Point& p) {
  if (!p.speedup || *p.speedup <= 0) return {};
  const QString base =
      QString::fromStdString(p.baseline.name.empty() ? std::string("baseline") : p.baseline.name);
  const double s = *p.speedup;
  if (s >= 1.0) return QStringLiteral("%1 faster than %2").arg(formatRatio(s), base);
  return QStringLiteral("%1 slower than %2 (speedup %3)").arg(formatRatio(1.0 / s), base, formatRatio(s));
}

namespace {

void addBox(QCustomPlot* plot, double key, const Stats& s, const QColor& color, const QString& name) {
  auto* box = new QCPStatisticalBox(plot->xAxis, plot->yAxis);
  box->setName(name);
  box->setWidth(0.5);
  box->setPen(QPen(color, 1.5));
  box->setBrush(fillOf(color, 80));
  box->setMedianPen(QPen(color, 3));
  box->setWhiskerPen(QPen(color, 1.5, Qt::DashLine));
  box->setWhiskerBarPen(QPen(color, 1.5));
  // p10/p90 as the box: the spread of typical runs; min/max as whiskers.
  box->addData(key, s.min, s.p10, s.median, s.p90, s.max > 0 ? s.max : s.p90);
  auto* text = new QCPItemText(plot);
  text->position->setCoords(key + 0.3, s.median);
  text->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
  text->setColor(color);
  text->setText(formatDuration(s.median));
}

}  // namespace

int plotDurationBoxes(QCustomPlot* plot, const Point& p) {
  const ChartColors c = chartColors(plot->palette());
  auto labels = QSharedPointer<QCPAxisTickerText>::create();
  int boxes = 0;
  double top = 0;
  if (p.timing.measured) {
    addBox(plot, 1, p.timing.kernelNs, c.kernel, QStringLiteral("kernel"));
    labels->addTick(
        1, QStringLiteral("kernel\nn=%1, CV %2").arg(p.timing.kernelNs.n).arg(formatPercent(p.timing.cv)));
    top = qMax(top, qMax(p.timing.kernelNs.max, p.timing.kernelNs.p90));
    ++boxes;
  }
  if (p.baseline.measured) {
    addBox(plot, 2, p.baseline.kernelNs, c.baseline, QString::fromStdString(p.baseline.name));
    labels->addTick(
        2,
        QStringLiteral("%1\nn=%2").arg(QString::fromStdString(p.baseline.name)).arg(p.baseline.kernelNs.n));
    top = qMax(top, qMax(p.baseline.kernelNs.max, p.baseline.kernelNs.p90));
    ++boxes;
  }
  plot->xAxis->setTicker(labels);
  plot->xAxis->setRange(0.3, 2.9);
  plot->yAxis->setTicker(durationTicker());
  plot->yAxis->setLabel(QStringLiteral("kernel duration"));
  plot->yAxis->setRange(0, top > 0 ? top * 1.15 : 1000);
  const QString speedup = speedupText(p);
  auto* note = new QCPItemText(plot);
  note->position->setType(QCPItemPosition::ptAxisRectRatio);
  note->position->setCoords(0.5, 0.02);
  note->setPositionAlignment(Qt::AlignHCenter | Qt::AlignTop);
  note->setColor(p.speedup && *p.speedup < 1.0 ? c.bad : c.foreground);
  note->setText(boxes == 0 ? QStringLiteral("not timed: %1").arg(QString::fromStdString(p.timing.note))
                           : speedup);
  return boxes;
}

int plotSweepTimes(QCustomPlot* plot, const Report& r, int selected) {
  const ChartColors c = chartColors(plot->palette());
  auto labels = QSharedPointer<StrideTextTicker>::create();
  const PointLabels names(r.points);
  QVector<double> keys, kernel, kMinus, kPlus, bKeys, base, bMinus, bPlus, cv;
  double top = 0;
  for (int i = 0; i < int(r.points.size()); ++i) {
    const Point& p = r.points[size_t(i)];
    // Swept values only ("64, 32"): the full defines made 30° labels run into each other.
    labels->addTick(
        i, names.shortLabel(p) +
               (p.trial > 0 && p.experiment.empty() ? QStringLiteral(" t%1").arg(p.trial) : QString()));
    if (p.timing.measured) {
      const Stats& s = p.timing.kernelNs;
      keys << i;
      kernel << s.median;
      kMinus << qMax(0.0, s.median - s.p10);
      kPlus << qMax(0.0, s.p90 - s.median);
      cv << p.timing.cv;
      top = qMax(top, s.p90);
    }
    if (p.baseline.measured) {
      const Stats& s = p.baseline.kernelNs;
      bKeys << i;
      base << s.median;
      bMinus << qMax(0.0, s.median - s.p10);
      bPlus << qMax(0.0, s.p90 - s.median);
      top = qMax(top, s.p90);
    }
  }
  auto makeSeries = [&](const QVector<double>& k, const QVector<double>& v, const QVector<double>& minus,
                        const QVector<double>& plus, const QColor& color, const QString& name,
                        QCPScatterStyle::ScatterShape shape) {
    auto* g = plot->addGraph();
    g->setName(name);
    g->setPen(QPen(color, 1.5));
    g->setScatterStyle(QCPScatterStyle(shape, color, fillOf(color, 200), 7));
    g->setData(k, v, true);
    auto* err = new QCPErrorBars(plot->xAxis, plot->yAxis);
    err->removeFromLegend();
    err->setDataPlottable(g);
    err->setPen(QPen(color));
    err->setData(minus, plus);
    return g;
  };
  makeSeries(keys, kernel, kMinus, kPlus, c.kernel, QStringLiteral("kernel median (p10–p90)"),
             QCPScatterStyle::ssDisc);
  const QString baseName =
      r.points.empty() ? QString() : QString::fromStdString(r.points.front().baseline.name);
  makeSeries(bKeys, base, bMinus, bPlus, c.baseline, QStringLiteral("baseline %1").arg(baseName),
             QCPScatterStyle::ssSquare);
  auto* cvGraph = plot->addGraph(plot->xAxis, plot->yAxis2);
  cvGraph->setName(QStringLiteral("CV (right axis)"));
  cvGraph->setLineStyle(QCPGraph::lsNone);
  cvGraph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCross, c.warning, 7));
  cvGraph->setData(keys, cv, true);

  plot->xAxis->setTicker(labels);
  plot->xAxis->setRange(-0.6, double(r.points.size()) - 0.4);
  plot->yAxis->setTicker(durationTicker());
  plot->yAxis->setLabel(QStringLiteral("median kernel time"));
  plot->yAxis->setRange(0, top > 0 ? top * 1.15 : 1000);
  plot->yAxis2->setVisible(true);
  plot->yAxis2->setTicker(percentTicker());
  plot->yAxis2->setLabel(QStringLiteral("CV"));
  double cvTop = 0.05;
  for (double v : cv) cvTop = qMax(cvTop, v);
  plot->yAxis2->setRange(0, cvTop * 1.3);
  plot->setProperty(kSweepKeysProperty, names.keysText());
  plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  plot->legend->setWrap(0);
  fitSweepTickLabels(plot);
  if (selected >= 0 && selected < int(r.points.size())) {
    auto* line = new QCPItemStraightLine(plot);
    line->point1->setCoords(selected, 0);
    line->point2->setCoords(selected, 1);
    line->setPen(QPen(c.marker, 1, Qt::DashLine));
  }
  return int(keys.size());
}

namespace {

/// The legend in a row of its own under the axes (inside them it covered the
/// first points), or out of the layout when hidden (a hidden element still
/// takes its row).
void placeSweepLegend(QCustomPlot* plot, bool show) {
  QCPLayoutGrid* grid = plot->plotLayout();
  const bool inGrid = plot->legend->layout() == grid;
  if (show && !inGrid) {
    if (QCPLayout* other = plot->legend->layout()) other->take(plot->legend);  // the axis rect's inset
    grid->addElement(grid->rowCount(), 0, plot->legend);
    grid->setRowStretchFactor(grid->rowCount() - 1, 0.001);
  } else if (!show && inGrid) {
    grid->take(plot->legend);
    grid->simplify();
  }
  plot->legend->setVisible(show);
}

/// A short chart (the Timing dock of the default layout is about 200 px) keeps
/// an axis rect worth reading: below kRoomyHeight the legend row and the axis
/// title go (the panel's summary line names the series and the swept keys), and
/// the duration axes get as many ticks as fit without overprinting.
void fitSweepHeight(QCustomPlot* plot) {
  constexpr int kRoomyHeight = 300;
  const bool roomy = plot->height() >= kRoomyHeight;
  placeSweepLegend(plot, roomy);
  plot->xAxis->setLabel(roomy ? plot->property(kSweepKeysProperty).toString() : QString());
  const int chrome =
      plot->axisRect()->height() > 0 ? plot->viewport().height() - plot->axisRect()->height() : 140;
  const int rectHeight = plot->height() - chrome + (roomy ? 0 : 40);  // the rows given up above
  const int lineHeight = QFontMetrics(plot->yAxis->tickLabelFont()).height();
  const int ticks = qBound(2, rectHeight / (2 * lineHeight), 6);
  for (QCPAxis* axis : {plot->yAxis, plot->yAxis2}) axis->ticker()->setTickCount(ticks);
}

}  // namespace

void fitSweepTickLabels(QCustomPlot* plot) {
  fitSweepHeight(plot);
  auto ticker = plot->xAxis->ticker().dynamicCast<StrideTextTicker>();
  if (!ticker || ticker->ticks().isEmpty()) return;
  const int n = static_cast<int>(ticker->ticks().size());
  // The widget's width less the margins of the last layout (axes, labels); before the
  // first layout, a typical 160 px. Called on a resize, before the plot lays out anew.
  const int margins =
      plot->axisRect()->width() > 0 ? plot->viewport().width() - plot->axisRect()->width() : 160;
  const int width = qMax(100, plot->width() - margins);
  const double perPoint = double(width) / n;
  const QFontMetrics fm(plot->xAxis->tickLabelFont());
  int widest = 0;
  for (const QString& label : std::as_const(ticker->ticks()))
    widest = qMax(widest, fm.horizontalAdvance(label));
  if (widest + fm.averageCharWidth() * 2 <= perPoint) {
    plot->xAxis->setTickLabelRotation(0);
    ticker->setStride(1);
    return;
  }
  // Parallel labels at 45° keep perpendicular distance (keys apart)·sin 45°: at least a line and a gap.
  // Counter-clockwise: a label ends at its tick, so the last one is never cut at the right edge
  // (QCustomPlot drops a label that would cross the widget's border).
  plot->xAxis->setTickLabelRotation(-45);
  const double need = (fm.height() + 4) / qSin(qDegreesToRadians(45.0));
  ticker->setStride(qMax(1, qCeil(need / perPoint)));
}

}  // namespace tilescope::ui
