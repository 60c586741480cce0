#include "panels/triagepanel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

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
  m_taxonomy = new ChartPlot(content);
  m_taxonomy->setObjectName(QStringLiteral("triageTaxonomy"));
  m_taxonomy->setMinimumSize(340, 80);  // low: the bottom dock area takes the largest minimum of its tabs
  m_speedups = new ChartPlot(content);
  m_speedups->setObjectName(QStringLiteral("triageSpeedups"));
  m_speedups->setMinimumSize(340, 80);
  m_taxonomy->setToolTip(tr("Click a bar to show only that category's entries"));
  auto* bar = new QHBoxLayout;
  bar->addWidget(m_filterEdit, 1);
  bar->addWidget(m_category);
  auto* charts = new QSplitter(Qt::Vertical, content);
  charts->addWidget(m_taxonomy);
  charts->addWidget(m_speedups);
  auto* split = new QSplitter(Qt::Horizontal, content);
  split->addWidget(m_table);
  split->addWidget(charts);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setSizes({600, 400});
  auto* layout = new QVBoxLayout(content);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(m_summary);
  layout->addLayout(bar);
  layout->addWidget(split, 1);
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
  connect(m_taxonomy, &QCustomPlot::plottableClick, this,
          [this](QCPAbstractPlottable* p, int, QMouseEvent*) { setCategory(p->name()); });
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
  m_table->resizeColumnsToContents();
  replot();
}

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
