#include "panels/findingspanel.h"

#include <QHeaderView>
#include <QPlainTextEdit>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "models/findingsmodel.h"
#include "models/qtconv.h"
#include "panels/logpanel.h"
#include "tilescope/diagnose/headline.h"

namespace tilescope::ui {

bool findingTile(const Point& p, const Finding& f, int* tileRow, int* tileCol) {
  const Location& loc = f.location;
  const Index& tile = !loc.tile.empty() ? loc.tile : !loc.tiles.empty() ? loc.tiles.front() : loc.tile;
  if (tile.size() >= 2) {
    *tileRow = static_cast<int>(tile[tile.size() - 2]);
    *tileCol = static_cast<int>(tile[tile.size() - 1]);
    return true;
  }
  if (!loc.elements || loc.elements->first.size() < 2) return false;
  const Index& first = loc.elements->first;
  for (const auto& c : p.coverage) {
    if ((!f.tensor.empty() && c.tensor != f.tensor) || c.tile.size() < 2) continue;
    const size_t n = c.tile.size();
    // The first element's tile, last two dimensions.
    *tileRow = static_cast<int>(first[first.size() - 2] / std::max<std::int64_t>(1, c.tile[n - 2]));
    *tileCol = static_cast<int>(first[first.size() - 1] / std::max<std::int64_t>(1, c.tile[n - 1]));
    return true;
  }
  return false;
}

int pointOfFinding(const Report& r, const Finding& f) {
  // The experiment that proved it (where it failed: a passing shape is the contrast,
  // not the bug), else the first point with an error finding of its category.
  if (!f.experiment.empty())
    for (size_t i = 0; i < r.points.size(); ++i)
      if (r.points[i].experiment == f.experiment && r.points[i].verdict != Verdict::ok)
        return static_cast<int>(i);
  for (size_t i = 0; i < r.points.size(); ++i)
    for (const Finding& g : r.points[i].findings)
      if (g.category == f.category && g.severity == f.severity) return static_cast<int>(i);
  return -1;
}

int firstErrorPoint(const Report& r) { return std::max(0, headlinePoint(r)); }

FindingsPanel::FindingsPanel(Selection* selection, QWidget* parent)
    : QWidget(parent), m_selection(selection), m_model(new FindingsModel(this)) {
  m_tabs = new QTabWidget(this);
  m_view = new QTableView(m_tabs);
  m_view->setModel(m_model);
  m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_view->setSelectionMode(QAbstractItemView::SingleSelection);
  m_view->setWordWrap(false);
  m_view->verticalHeader()->hide();
  m_view->horizontalHeader()->setStretchLastSection(true);
  m_view->horizontalHeader()->setSectionResizeMode(FindingsModel::MessageColumn, QHeaderView::Interactive);
  m_view->setColumnWidth(FindingsModel::MessageColumn, 380);
  m_logPanel = new LogPanel(selection, m_tabs);
  m_stderr = new QPlainTextEdit(m_tabs);
  m_stderr->setReadOnly(true);
  m_stderr->setPlaceholderText(tr("The worker wrote nothing on stderr."));
  m_deviceOutput = new QPlainTextEdit(m_tabs);
  m_deviceOutput->setReadOnly(true);
  m_deviceOutput->setPlaceholderText(tr("The kernel printed nothing (device printf, failed asserts)."));
  m_tabs->addTab(m_view, tr("Findings"));
  m_tabs->addTab(m_logPanel, tr("Compile log"));
  m_tabs->addTab(m_stderr, tr("Worker stderr"));
  m_tabs->addTab(m_deviceOutput, tr("Device output"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_tabs);
  connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            if (current.isValid()) selectFinding(current.row());
          });
}

QString FindingsPanel::workerStderr() const { return m_stderr->toPlainText(); }
QString FindingsPanel::deviceOutput() const { return m_deviceOutput->toPlainText(); }

void FindingsPanel::selectFinding(int row) {
  const Finding* f = m_model->finding(row);
  if (!f || !m_report || !m_selection) return;
  SelectionState s = m_selection->state();
  s.finding = row;
  // A report-level conclusion names the experiment that proved it: show that point.
  if (m_model->isReportLevel(row)) {
    const int p = pointOfFinding(*m_report, *f);
    if (p >= 0) s.point = p;
  }
  if (!f->tensor.empty()) s.tensor = qs(f->tensor);
  int tr = -1, tc = -1;
  if (s.point >= 0 && s.point < static_cast<int>(m_report->points.size()) &&
      findingTile(m_report->points[static_cast<size_t>(s.point)], *f, &tr, &tc)) {
    s.tileRow = tr;
    s.tileCol = tc;
  }
  // A compile error names a source line: show it.
  if (f->location.line && !f->location.file.empty()) {
    m_logPanel->showSourceLine(qs(f->location.file), *f->location.line);
    emit sourceLineRequested(qs(f->location.file), *f->location.line);
  }
  m_selection->setState(s);
}

void FindingsPanel::showPoint(int point) {
  m_point = point;
  if (!m_report || point < 0 || point >= static_cast<int>(m_report->points.size())) {
    m_model->clear();
    m_stderr->clear();
    m_deviceOutput->clear();
    m_tabs->setTabText(0, tr("Findings"));
    return;
  }
  const Point& p = m_report->points[static_cast<size_t>(point)];
  m_model->setFindings(FindingsModel::reportLevelFindings(*m_report), p.findings);
  m_stderr->setPlainText(qs(p.workerStderr));
  m_deviceOutput->setPlainText(qs(p.deviceOutput));
  m_view->resizeColumnToContents(FindingsModel::ScopeColumn);
  m_view->resizeColumnToContents(FindingsModel::SeverityColumn);
  m_view->resizeColumnToContents(FindingsModel::CategoryColumn);
  const int reportLevel = m_model->reportLevelCount();
  m_tabs->setTabText(0, reportLevel > 0
                            ? tr("Findings (%1 report + %2 point)").arg(reportLevel).arg(p.findings.size())
                            : tr("Findings (%1)").arg(p.findings.size()));
}

void FindingsPanel::onReportLoaded(const ReportPtr& report) {
  m_report = report;
  m_point = -1;
  showPoint(m_selection ? m_selection->state().point : 0);
  m_logPanel->onReportLoaded(report);
}

void FindingsPanel::onReportClosed() {
  m_report.reset();
  showPoint(-1);
  m_logPanel->onReportClosed();
}

void FindingsPanel::onSelectionChanged(const SelectionState& state) {
  if (state.point != m_point) showPoint(state.point);
  m_logPanel->onSelectionChanged(state);
  // Mirror a finding selected elsewhere (e.g. a test or the mask view) without re-emitting.
  if (state.finding >= 0 && state.finding < m_model->rowCount() &&
      m_view->currentIndex().row() != state.finding) {
    const QSignalBlocker block(m_view->selectionModel());
    m_view->selectRow(state.finding);
  }
}

}  // namespace tilescope::ui
