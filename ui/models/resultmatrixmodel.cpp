#include "models/resultmatrixmodel.h"

#include <algorithm>

#include "models/qtconv.h"
#include "style/colors.h"

namespace tilescope::ui {

namespace {
/// What names a row: the point without its measurements (the model must not hold coverage maps).
Point nameOf(const Point& p) {
  Point n;
  n.index = p.index;
  n.label = p.label;
  n.defines = p.defines;
  n.params = p.params;
  n.experiment = p.experiment;
  return n;
}
}  // namespace

void ResultMatrixModel::setReport(const Report& report) {
  // A diagnose report holds one capture per experiment, all of sweep point 0: one
  // row per experiment, named after it, so no capture hides another.
  const bool experiments = std::any_of(report.points.begin(), report.points.end(),
                                       [](const Point& p) { return !p.experiment.empty(); });
  if (experiments) {
    reset(static_cast<int>(report.points.size()), 1);
    for (size_t i = 0; i < report.points.size(); ++i) {
      Point row = nameOf(report.points[i]);
      row.index = static_cast<int>(i);
      row.trial = 0;
      row.verdict = report.points[i].verdict;
      row.findings = report.points[i].findings;
      row.timing = report.points[i].timing;
      setPoint(row, static_cast<int>(i));
    }
    return;
  }
  int rows = 0, trials = 0;
  for (const Point& p : report.points) {
    rows = std::max(rows, p.index + 1);
    trials = std::max(trials, p.trial + 1);
  }
  reset(rows, trials);
  for (size_t i = 0; i < report.points.size(); ++i) setPoint(report.points[i], static_cast<int>(i));
}

void ResultMatrixModel::reset(int points, int trials) {
  beginResetModel();
  m_cells.assign(static_cast<size_t>(std::max(points, 0)),
                 std::vector<Cell>(static_cast<size_t>(std::max(trials, 0))));
  m_rows.assign(m_cells.size(), Point{});
  for (size_t r = 0; r < m_rows.size(); ++r) m_rows[r].index = static_cast<int>(r);
  m_names.clear();
  endResetModel();
}

void ResultMatrixModel::setPoint(const Point& p, int reportIndex) {
  if (p.index < 0 || p.trial < 0) return;
  // A streamed point may lie outside the announced size: grow the matrix.
  if (p.index >= rowCount()) {
    beginInsertRows({}, rowCount(), p.index);
    const size_t cols = m_cells.empty() ? 1 : m_cells.front().size();
    while (static_cast<int>(m_cells.size()) <= p.index) {
      m_rows.emplace_back().index = static_cast<int>(m_cells.size());
      m_cells.emplace_back(cols);
    }
    endInsertRows();
  }
  if (p.trial >= columnCount()) {
    beginInsertColumns({}, columnCount(), p.trial);
    for (auto& row : m_cells) row.resize(static_cast<size_t>(p.trial + 1));
    endInsertColumns();
  }
  Cell& c = m_cells[static_cast<size_t>(p.index)][static_cast<size_t>(p.trial)];
  c.reportIndex = reportIndex;
  c.verdict = p.verdict;
  c.findings = static_cast<int>(p.findings.size());
  c.medianNs = p.timing.measured ? p.timing.kernelNs.median : 0;
  const QModelIndex idx = index(p.index, p.trial);
  emit dataChanged(idx, idx);
  if (p.trial == 0 || m_rows[static_cast<size_t>(p.index)].label.empty())
    m_rows[static_cast<size_t>(p.index)] = nameOf(p);
  // A key that starts to vary renames every row; otherwise only this one changed.
  if (m_names.add(p))
    relabel();
  else
    emit headerDataChanged(Qt::Vertical, p.index, p.index);
}

void ResultMatrixModel::relabel() {
  if (!m_cells.empty()) emit headerDataChanged(Qt::Vertical, 0, rowCount() - 1);
}

QModelIndex ResultMatrixModel::indexForPoint(int reportIndex) const {
  for (size_t r = 0; r < m_cells.size(); ++r)
    for (size_t t = 0; t < m_cells[r].size(); ++t)
      if (m_cells[r][t].reportIndex == reportIndex) return index(static_cast<int>(r), static_cast<int>(t));
  return {};
}

int ResultMatrixModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_cells.size());
}

int ResultMatrixModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() || m_cells.empty() ? 0 : static_cast<int>(m_cells.front().size());
}

QVariant ResultMatrixModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
  const Cell& c = m_cells[static_cast<size_t>(index.row())][static_cast<size_t>(index.column())];
  const bool done = c.reportIndex >= 0;
  switch (role) {
    case PointIndexRole:
      return c.reportIndex;
    case VerdictRole:
      return done ? QVariant(static_cast<int>(c.verdict)) : QVariant();
    case Qt::DisplayRole:
      if (!done) return QStringLiteral("\u2026");
      return c.medianNs > 0 ? QStringLiteral("%1\n%2").arg(QString::fromLatin1(verdictName(c.verdict)),
                                                           formatNs(c.medianNs))
                            : QString::fromLatin1(verdictName(c.verdict));
    case Qt::BackgroundRole:
      return done ? QVariant(verdictColor(c.verdict)) : QVariant();
    case Qt::ForegroundRole:
      return done ? QVariant(textColorOn(verdictColor(c.verdict))) : QVariant();
    case Qt::TextAlignmentRole:
      return static_cast<int>(Qt::AlignCenter);
    case Qt::ToolTipRole: {
      const QString name = PointLabels::fullLabel(m_rows[static_cast<size_t>(index.row())]);
      if (!done) return tr("%1, trial %2: pending").arg(name).arg(index.column());
      return tr("%1, trial %2: %3, %4 finding(s)")
          .arg(name)
          .arg(index.column())
          .arg(QString::fromLatin1(verdictName(c.verdict)))
          .arg(c.findings);
    }
    default:
      return {};
  }
}

QVariant ResultMatrixModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation == Qt::Horizontal) {
    if (role == Qt::DisplayRole) return tr("trial %1").arg(section);
    if (role == Qt::ToolTipRole && !m_names.keys().isEmpty()) return tr("Rows: %1").arg(m_names.keysText());
    return {};
  }
  if (section < 0 || section >= rowCount()) return {};
  const Point& row = m_rows[static_cast<size_t>(section)];
  if (role == Qt::DisplayRole) return m_names.shortLabel(row);
  if (role == Qt::ToolTipRole) return PointLabels::fullLabel(row);
  return {};
}

}  // namespace tilescope::ui
