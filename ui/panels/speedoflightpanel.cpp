#include "panels/speedoflightpanel.h"

#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include "charts/chartplot.h"
#include "charts/devicecomparison.h"
#include "charts/rooflinecharts.h"
#include "charts/unitticker.h"

namespace tilescope::ui {

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

QTableWidget* makeTable(const QStringList& headers, const QString& name, QWidget* parent) {
  auto* t = new QTableWidget(0, int(headers.size()), parent);
  t->setObjectName(name);
  t->setHorizontalHeaderLabels(headers);
  t->verticalHeader()->setVisible(false);
  t->setEditTriggers(QAbstractItemView::NoEditTriggers);
  t->setSelectionBehavior(QAbstractItemView::SelectRows);
  t->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  t->horizontalHeader()->setStretchLastSection(true);
  return t;
}

void setRow(QTableWidget* t, int row, const QStringList& cells, const QString& tooltip = {}) {
  for (int col = 0; col < cells.size(); ++col) {
    auto* item = new QTableWidgetItem(cells[col]);
    if (col > 0) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    if (!tooltip.isEmpty()) item->setToolTip(tooltip);
    t->setItem(row, col, item);
  }
}

/// The speed-of-light finding's message, or "".
QString boundText(const Point& p) {
  for (const Finding& f : p.findings)
    if (f.category == "memory_bound" || f.category == "compute_bound" || f.category == "latency_bound")
      return q(f.message);
  return {};
}

}  // namespace

SpeedOfLightPanel::SpeedOfLightPanel(Selection* selection, QWidget* parent) : PointPanel(selection, parent) {
  setObjectName(QStringLiteral("speedOfLightPanel"));
  setupLayout();
  rebuild();
}

void SpeedOfLightPanel::setupLayout() {
  auto* content = new QWidget;
  auto* layout = new QVBoxLayout(content);
  m_summary = new QLabel(content);
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_summary);
  auto* charts = new QHBoxLayout;
  m_sol = new ChartPlot(content);
  m_sol->setObjectName(QStringLiteral("speedOfLight"));
  m_roofline = new ChartPlot(content);
  m_roofline->setObjectName(QStringLiteral("roofline"));
  charts->addWidget(m_sol, 1);
  charts->addWidget(m_roofline, 1);
  layout->addLayout(charts, 1);
  auto* tables = new QHBoxLayout;
  m_metrics = makeTable({tr("Metric"), tr("Kernel"), tr("Baseline"), tr("Kernel / baseline")},
                        QStringLiteral("countersTable"), content);
  m_lines = makeTable({tr("Line"), tr("Samples"), tr("Share"), tr("Main stalls")},
                      QStringLiteral("hotLinesTable"), content);
  tables->addWidget(m_metrics, 3);
  tables->addWidget(m_lines, 2);
  layout->addLayout(tables, 1);

  auto* scroll = new QScrollArea(this);
  scroll->setWidgetResizable(true);
  scroll->setWidget(content);
  content->setMinimumHeight(720);
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  outer->addWidget(scroll);
  for (ChartPlot* plot : {m_sol, m_roofline})
    connect(plot, &ChartPlot::paletteChanged, this, &SpeedOfLightPanel::rebuild);
  // ncu's Source-page habit: a hot line opens where it is, with every line's samples in the margin.
  connect(m_lines, &QTableWidget::cellClicked, this, [this](int row, int) {
    if (const QTableWidgetItem* item = m_lines->item(row, 0))
      emit sourceLineRequested(item->data(Qt::UserRole).toString(), item->data(Qt::UserRole + 1).toInt());
  });
}

QString SpeedOfLightPanel::sourceName(const std::string& recorded) {
  const QString path = q(recorded);
  return QDir::isRelativePath(path) ? QDir::cleanPath(path) : QFileInfo(path).fileName();
}

QString SpeedOfLightPanel::durationText(const Point& p) {
  const CountersInfo& c = p.counters;
  const double profiled = c.kernel.get("gpu__time_duration.sum", NAN);
  if (!known(profiled)) return {};
  QString text = tr("Duration %1: the one profiled launch (ncu's gpu__time_duration in a kernel replay, "
                    "caches not flushed); the percentages here are of it.")
                     .arg(formatDuration(profiled));
  const Stats& t = p.timing.kernelNs;
  if (p.timing.measured && t.n > 0)
    text += tr(" Timing's %1 is the median of %2 timed launches (%3 the profiled one): compare points "
               "by Timing's.")
                .arg(formatDuration(t.median))
                .arg(t.n)
                .arg(formatRatio(t.median / profiled));
  const double base = c.baseline ? c.baseline->get("gpu__time_duration.sum", NAN) : NAN;
  if (known(base) || p.baseline.measured) {
    const QString name = p.baseline.name.empty() ? tr("baseline") : q(p.baseline.name);
    text += tr(" Baseline %1: %2 profiled, %3 timed.")
                .arg(name, known(base) ? formatDuration(base) : QStringLiteral("–"),
                     p.baseline.measured ? formatDuration(p.baseline.kernelNs.median) : QStringLiteral("–"));
  }
  return text;
}

QString SpeedOfLightPanel::summaryText() const { return m_summary->text(); }

void SpeedOfLightPanel::rebuild() {
  for (ChartPlot* plot : {m_sol, m_roofline}) plot->clearChart();
  m_metrics->setRowCount(0);
  m_lines->setRowCount(0);
  const bool valid = m_report && m_point >= 0 && m_point < int(m_report->points.size());
  if (!valid) {
    m_summary->setText(m_report ? tr("No point selected.") : tr("No report loaded."));
    for (ChartPlot* plot : {m_sol, m_roofline}) addPlotNote(plot, m_summary->text());
  } else {
    const Point& p = m_report->points[size_t(m_point)];
    const CountersInfo& c = p.counters;
    QStringList text;
    if (!c.collected) {
      text
          << (c.note.empty()
                  ? tr("This point has no hardware counters (the run had no GPU, or `run.counters` was off).")
                  : q(c.note));
    } else {
      const QString bound = boundText(p);
      if (!bound.isEmpty()) text << bound;
      text << tr("%1 metrics on %2 in %3 replay passes; the profiling pass took %4 s.")
                  .arg(c.metrics.size())
                  .arg(q(c.chip))
                  .arg(c.passes)
                  .arg(QString::number(c.seconds, 'f', 2));
      if (!c.note.empty()) text << q(c.note);
      if (!c.baselineNote.empty()) text << q(c.baselineNote);
      if (!c.pcSampling.note.empty()) text << q(c.pcSampling.note);
      if (const QString d = durationText(p); !d.isEmpty()) text << d;
      plotSpeedOfLight(m_sol, c, q(p.baseline.name));
      m_sol->setTitle(tr("Speed of light: kernel vs %1")
                          .arg(p.baseline.name.empty() ? tr("baseline") : q(p.baseline.name)));
      fillMetrics(p);
      fillHotLines(p);
    }
    // An empty roofline says why (no counters, no peaks, nothing to place) on the plot itself.
    const DeviceDb* db = defaultDeviceDb();
    const DeviceSpec* spec = db ? findDevice(*db, m_report->device) : nullptr;
    plotRoofline(m_roofline, p, rooflinePeaks(m_report->device, spec));
    m_roofline->setTitle(tr("Roofline on %1").arg(q(m_report->device.name)));
    if (!c.collected) addPlotNote(m_sol, tr("no hardware counters for this point"));
    m_summary->setText(text.join(QLatin1Char('\n')));
  }
  for (ChartPlot* plot : {m_sol, m_roofline}) {
    applyChartStyle(plot, plot->colors());
    plot->replot(QCustomPlot::rpQueuedRefresh);
  }
}

void SpeedOfLightPanel::fillMetrics(const Point& p) {
  const CountersInfo& c = p.counters;
  int row = 0;
  for (const std::string& name : c.metrics) {
    const MetricDef d = metricDef(name);
    const double k = c.kernel.get(name, NAN);
    const double b = c.baseline ? c.baseline->get(name, NAN) : NAN;
    const QString ratio = known(k) && known(b) && b != 0
                              ? QStringLiteral("%1×").arg(QString::number(k / b, 'g', 3))
                              : QStringLiteral("–");
    m_metrics->insertRow(row);
    setRow(m_metrics, row++, {q(d.label), formatMetric(name, k), formatMetric(name, b), ratio}, q(name));
  }
}

void SpeedOfLightPanel::fillHotLines(const Point& p) {
  const PcSamplingInfo& pc = p.counters.pcSampling;
  if (!pc.collected) return;
  int row = 0;
  for (const HotLine& l : pc.lines) {
    QStringList stalls;
    for (std::size_t i = 0; i < l.stalls.size() && i < 3; ++i)
      stalls << QStringLiteral("%1\u00a0%2\u00a0%")
                    .arg(q(l.stalls[i].reason))
                    .arg(QString::number(
                        100.0 * double(l.stalls[i].samples) / double(std::max<std::int64_t>(l.samples, 1)),
                        'f', 0));
    const double share = pc.totalSamples > 0 ? 100.0 * double(l.samples) / double(pc.totalSamples) : 0;
    const QString file = sourceName(l.file);
    m_lines->insertRow(row);
    setRow(m_lines, row,
           {QStringLiteral("%1:%2").arg(file).arg(l.line), QString::number(l.samples),
            QStringLiteral("%1 %").arg(QString::number(share, 'f', 1)), stalls.join(QStringLiteral(", "))},
           tr("%1, line %2 (recorded as %3): click to open it in the Source view")
               .arg(file)
               .arg(l.line)
               .arg(q(l.file)));
    m_lines->item(row, 0)->setData(Qt::UserRole, file);
    m_lines->item(row, 0)->setData(Qt::UserRole + 1, l.line);
    ++row;
  }
}

}  // namespace tilescope::ui
