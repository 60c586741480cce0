#include "panels/timingpanel.h"

#include <QEvent>
#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>

#include "charts/chartplot.h"
#include "charts/timingcharts.h"
#include "charts/unitticker.h"

namespace tilescope::ui {

TimingPanel::TimingPanel(Selection* selection, QWidget* parent) : PointPanel(selection, parent) {
  auto* layout = new QVBoxLayout(this);
  m_summary = new QLabel(this);
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_summary);
  auto* split = new QSplitter(Qt::Horizontal, this);
  m_distribution = new ChartPlot(split);
  m_distribution->setObjectName(QStringLiteral("timingDistribution"));
  m_sweep = new ChartPlot(split);
  m_sweep->setObjectName(QStringLiteral("timingSweep"));
  split->addWidget(m_distribution);
  split->addWidget(m_sweep);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 2);
  layout->addWidget(split, 1);
  for (ChartPlot* plot : {m_distribution, m_sweep})
    connect(plot, &ChartPlot::paletteChanged, this, &TimingPanel::rebuild);
  m_sweep->installEventFilter(this);  // the x labels are laid out for the chart's width
  // Clicking a point in the sweep chart selects it for every panel.
  connect(m_sweep, &QCustomPlot::plottableClick, this,
          [this](QCPAbstractPlottable*, int dataIndex, QMouseEvent*) {
            if (!m_selection || !m_report) return;
            if (auto* g = m_sweep->graph(0); g && dataIndex >= 0 && dataIndex < g->dataCount())
              m_selection->setPoint(int(g->data()->at(dataIndex)->key));
          });
  rebuild();
}

bool TimingPanel::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_sweep && event->type() == QEvent::Resize) {
    fitSweepTickLabels(m_sweep);
    m_sweep->replot(QCustomPlot::rpQueuedReplot);
  }
  return QWidget::eventFilter(watched, event);
}

QString TimingPanel::summaryText() const { return m_summary->text(); }

void TimingPanel::rebuild() {
  m_distribution->clearChart();
  m_sweep->clearChart();
  const bool valid = m_report && m_point >= 0 && m_point < int(m_report->points.size());
  if (!valid) {
    m_summary->setText(m_report ? tr("No point selected.") : tr("No report loaded."));
  } else {
    const Point& p = m_report->points[size_t(m_point)];
    QStringList parts;
    parts << tr("Point %1").arg(QString::fromStdString(pointLabel(p)));
    if (p.timing.measured) {
      parts << tr("kernel median %1 (p10 %2, p90 %3, n=%4, CV %5)")
                   .arg(formatDuration(p.timing.kernelNs.median), formatDuration(p.timing.kernelNs.p10),
                        formatDuration(p.timing.kernelNs.p90))
                   .arg(p.timing.kernelNs.n)
                   .arg(formatPercent(p.timing.cv));
      if (p.timing.throttled)
        parts << tr("SM clock fell from %1 to %2 MHz during timing: the numbers are throttled")
                     .arg(p.timing.smClockBeforeMHz)
                     .arg(p.timing.smClockAfterMHz);
    } else {
      parts << tr("not timed%1")
                   .arg(p.timing.note.empty() ? QString()
                                              : QStringLiteral(": ") + QString::fromStdString(p.timing.note));
    }
    if (p.baseline.measured)
      parts << tr("%1 median %2")
                   .arg(QString::fromStdString(p.baseline.name), formatDuration(p.baseline.kernelNs.median));
    else if (!p.baseline.error.empty())
      parts << tr("baseline failed: %1").arg(QString::fromStdString(p.baseline.error));
    if (const QString s = speedupText(p); !s.isEmpty()) parts << s;
    m_summary->setText(parts.join(QStringLiteral("; ")));
    plotDurationBoxes(m_distribution, p);
    m_distribution->setTitle(tr("Duration distribution"));
    m_sweep->setVisible(m_report->points.size() > 1);
    if (m_report->points.size() > 1) {
      plotSweepTimes(m_sweep, *m_report, m_point);
      m_sweep->setTitle(tr("Time per point"));
    }
  }
  for (ChartPlot* plot : {m_distribution, m_sweep}) {
    applyChartStyle(plot, plot->colors());
    plot->replot(QCustomPlot::rpQueuedRefresh);
  }
}

}  // namespace tilescope::ui
