#include "panels/triagepanel.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <algorithm>

#include "charts/chartplot.h"
#include "charts/triagecharts.h"
#include "models/qtconv.h"
#include "models/triagefilter.h"
#include "tilescope/base/format.h"

namespace tilescope::ui {

TriagePanel::TriagePanel(QWidget* parent)
    : QWidget(parent), m_model(new TriageModel(this)), m_filter(new TriageFilter(this)) {
  m_filter->setSourceModel(m_model);
  setupWidgets();
  setupConnections();
}

void TriagePanel::setupWidgets() {
  m_stack = new QStackedWidget(this);
  m_placeholder = new QLabel(tr("No triage open. Open a triage file (tilescope-run triage INPUT... -o "
                                "triage.json) with File ▸ Open; each row then opens its entry's report."),
                             this);
  m_placeholder->setWordWrap(true);
  m_placeholder->setAlignment(Qt::AlignCenter);
  auto* content = new QWidget(this);
  m_summary = new QLabel(content);
  m_summary->setWordWrap(true);
  m_filterEdit = new QLineEdit(content);
  m_filterEdit->setPlaceholderText(tr("Filter entries (name, category, line, fix…)"));
  m_filterEdit->setClearButtonEnabled(true);
  m_category = new QComboBox(content);
  m_category->setObjectName(QStringLiteral("triageCategory"));
  m_table = new QTableView(content);
  m_table->setModel(m_filter);
  m_table->setSortingEnabled(true);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_table->verticalHeader()->hide();
  // Rows a line and a margin tall (ncu-ui's summary), not the style's 30 px: more entries a screen.
  m_table->verticalHeader()->setMinimumSectionSize(m_table->fontMetrics().height() + 4);
  m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 8);
  m_taxonomy = new ChartPlot(content);
  m_taxonomy->setObjectName(QStringLiteral("triageTaxonomy"));
  m_taxonomy->setMinimumSize(340, 80);  // low: the bottom dock area takes the largest minimum of its tabs
  m_speedups = new ChartPlot(content);
  m_speedups->setObjectName(QStringLiteral("triageSpeedups"));
  m_speedups->setMinimumSize(340, 80);
  m_taxonomy->setToolTip(tr("Click a bar to show only that category's entries"));
  m_details = new QTextBrowser(content);
  m_details->setObjectName(QStringLiteral("triageDetails"));
  m_details->setPlaceholderText(tr("Click an entry to see it whole; double-click to open its report."));
  m_details->setMinimumSize(200, 60);
  auto* bar = new QHBoxLayout;
  bar->addWidget(m_filterEdit, 1);
  bar->addWidget(m_category);
  // The table the whole width (its Time and Fix columns on screen), the selected
  // entry's details and the two charts side by side under it.
  auto* below = new QSplitter(Qt::Horizontal, content);
  below->addWidget(m_details);
  below->addWidget(m_taxonomy);
  below->addWidget(m_speedups);
  below->setSizes({400, 440, 440});
  m_split = new QSplitter(Qt::Vertical, content);
  m_split->setObjectName(QStringLiteral("triageSplit"));
  m_split->addWidget(m_table);
  m_split->addWidget(below);
  m_split->installEventFilter(this);  // the entries first, the charts a band (shareHeight)
  auto* layout = new QVBoxLayout(content);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(m_summary);
  layout->addLayout(bar);
  layout->addWidget(m_split, 1);
  m_stack->addWidget(m_placeholder);
  m_stack->addWidget(content);
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  outer->addWidget(m_stack);
}

void TriagePanel::setupConnections() {
  connect(m_filterEdit, &QLineEdit::textChanged, m_filter, &TriageFilter::setText);
  connect(m_category, &QComboBox::currentIndexChanged, this,
          [this](int i) { m_filter->setCategory(m_category->itemData(i).toString()); });
  connect(m_table, &QTableView::activated, this, [this](const QModelIndex& i) { openRow(i.row()); });
  connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this] { showDetails(); });
  connect(m_filter, &QAbstractItemModel::modelReset, this, [this] { showDetails(); });
  connect(m_filter, &QAbstractItemModel::layoutChanged, this, [this] { showDetails(); });
  connect(m_taxonomy, &QCustomPlot::plottableClick, this,
          [this](QCPAbstractPlottable* p, int, QMouseEvent*) { setCategory(p->name()); });
  connect(m_split, &QSplitter::splitterMoved, this, [this] { m_splitMoved = true; });
  connect(m_taxonomy, &ChartPlot::paletteChanged, this, [this] { replot(); });
  connect(m_speedups, &ChartPlot::paletteChanged, this, [this] { replot(); });
}

void TriagePanel::setTriage(TriagePtr triage, const QString& path) {
  m_path = path;
  m_model->setTriage(triage, path);
  const QSignalBlocker block(m_category);
  m_category->clear();
  m_category->addItem(tr("All categories"), QString());
  if (triage)
    for (const TaxonomyBar& b : taxonomyBars(*triage))
      m_category->addItem(QStringLiteral("%1 (%2)").arg(taxonomyLabel(b.category)).arg(b.count), b.category);
  m_filter->setCategory({});
  m_filterEdit->clear();
  m_summary->setText(summaryText());
  m_stack->setCurrentIndex(triage ? 1 : 0);
  m_table->sortByColumn(-1, Qt::AscendingOrder);  // plan order until a header is clicked
  fitColumns();
  showDetails();
  replot();
}

bool TriagePanel::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_split && event->type() == QEvent::Resize) shareHeight();
  return QWidget::eventFilter(watched, event);
}

void TriagePanel::shareHeight() {
  // The charts a fixed band (their labels a line apart at 160 px; more says no more),
  // the table the rest: a main view's room is a screenful of entries.
  if (m_splitMoved) return;
  const int h = m_split->height() - m_split->handleWidth();
  const int below = std::clamp(h * 2 / 5, std::min(160, h / 2), 300);
  m_split->setSizes({h - below, below});
}

void TriagePanel::fitColumns() {
  // Every column its contents, the long ones (entry, detail) capped so that Time and
  // Fix stay on screen; a click shows an entry whole under the table.
  m_table->resizeColumnsToContents();
  const int cap = std::max(120, m_table->fontMetrics().horizontalAdvance(QLatin1Char('x')) * 28);
  for (int c = 0; c + 1 < m_filter->columnCount(); ++c)
    if (m_table->columnWidth(c) > cap) m_table->setColumnWidth(c, cap);
}

QString TriagePanel::detailsText() const {
  const QModelIndex cur =
      m_table->selectionModel() ? m_table->selectionModel()->currentIndex() : QModelIndex();
  if (!cur.isValid()) return {};
  QStringList lines;
  for (int c = 0; c < m_filter->columnCount(); ++c) {
    const QString v = m_filter->index(cur.row(), c).data().toString();
    if (!v.isEmpty())
      lines << QStringLiteral("<b>%1</b>: %2")
                   .arg(m_filter->headerData(c, Qt::Horizontal).toString().toHtmlEscaped(),
                        v.toHtmlEscaped());
  }
  const QString report = m_filter->index(cur.row(), 0).data(TriageModel::ReportPathRole).toString();
  lines << (report.isEmpty()
                ? tr("<i>No report: nothing to open</i>")
                : tr("<b>Report</b>: %1 (double-click or Enter opens it)").arg(report.toHtmlEscaped()));
  return lines.join(QStringLiteral("<br>"));
}

void TriagePanel::showDetails() { m_details->setHtml(detailsText()); }

void TriagePanel::clear() { setTriage(nullptr, {}); }

QVector<TaxonomyBar> TriagePanel::bars() const {
  return triage() ? taxonomyBars(*triage()) : QVector<TaxonomyBar>{};
}

QString TriagePanel::summaryText() const {
  const TriagePtr t = triage();
  if (!t) return {};
  const auto counts = triageCounts(t->entries);
  const auto n = [&](const char* k) { return counts.count(k) ? counts.at(k) : 0; };
  const SpeedupSummary s = speedupSummary(t->entries);
  QString text = tr("%1 entries: %2 judged, %3 correct, %4 not run")
                     .arg(t->entries.size())
                     .arg(n("done"))
                     .arg(n("ok"))
                     .arg(n("not_run"));
  if (n("checked") > 0) text += tr(", %1 checked, not run").arg(n("checked"));
  if (n("pending") > 0) text += tr(", %1 pending").arg(n("pending"));
  if (s.n > 0)
    text += tr("; speedup of the correct: geomean %1, median %2")
                .arg(qs(formatRatio(s.geomean)), qs(formatRatio(s.median)));
  return text;
}

void TriagePanel::setCategory(const QString& categoryKey) {
  const int i = m_category->findData(categoryKey);
  m_category->setCurrentIndex(i >= 0 ? i : 0);
}

void TriagePanel::openRow(int row) {
  const QString path = m_filter->index(row, 0).data(TriageModel::ReportPathRole).toString();
  if (!path.isEmpty()) emit reportRequested(path);
}

void TriagePanel::replot() {
  for (ChartPlot* p : {m_taxonomy, m_speedups}) p->clearChart();
  if (const TriagePtr t = triage()) {
    plotTaxonomy(m_taxonomy, *t);
    plotSpeedups(m_speedups, *t);
  }
  m_taxonomy->setTitle(tr("Entries per category"));
  m_speedups->setTitle(tr("Speedup of the correct entries"));
  for (ChartPlot* p : {m_taxonomy, m_speedups}) {
    applyChartStyle(p, p->colors());
    p->replot(QCustomPlot::rpQueuedRefresh);
  }
}

}  // namespace tilescope::ui
