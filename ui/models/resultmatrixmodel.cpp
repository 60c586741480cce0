#include "models/resultmatrixmodel.h"

#include <QFont>
#include <QPainter>
#include <QPixmap>
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
/// The best point's mark in its row header: a star, drawn once.
QPixmap starIcon() {
  static const QPixmap star = [] {
    QPixmap pm(14, 14);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    QFont f;
    f.setPixelSize(13);
    p.setFont(f);
    p.setPen(QColor(0xe6, 0x9f, 0x00));  // Okabe-Ito orange
    p.drawText(pm.rect(), Qt::AlignCenter, QStringLiteral("\u2605"));
    return pm;
  }();
  return star;
}

}  // namespace

void ResultMatrixModel::setReport(const Report& report) {
  // One reset for the whole report: per-point signals made every header re-measure
  // every row, quadratic in the points.
  beginResetModel();
  m_rowKeys.clear();
  m_colKeys.clear();
  m_cells.clear();
  m_rows.clear();
  m_where.assign(report.points.size(), {-1, -1});
  m_names.clear();
  m_best = {};
  m_checked = report.verb == "check";
  // A diagnose report holds one capture per experiment, all of sweep point 0: one
  // row per experiment, named after it, so no capture hides another.
  const bool experiments = std::any_of(report.points.begin(), report.points.end(),
                                       [](const Point& p) { return !p.experiment.empty(); });
  for (size_t i = 0; i < report.points.size(); ++i) {
    const Point& p = report.points[i];
    if (experiments) {
      Point row = nameOf(p);
      row.index = static_cast<int>(i);
      row.verdict = p.verdict;
      row.timing = p.timing;
      row.findings = p.findings;
      store(row, static_cast<int>(i));
      m_rowKeys.push_back(row.index);
    } else if (p.index >= 0 && p.trial >= 0) {
      store(p, static_cast<int>(i));
      m_rowKeys.push_back(p.index);
      m_colKeys.push_back(p.trial);
    }
  }
  if (experiments || (m_colKeys.empty() && !m_rowKeys.empty())) m_colKeys = {0};
  for (auto* keys : {&m_rowKeys, &m_colKeys}) {
    std::sort(keys->begin(), keys->end());
    keys->erase(std::unique(keys->begin(), keys->end()), keys->end());
  }
  endResetModel();
}

void ResultMatrixModel::reset(int points, int trials) {
  beginResetModel();
  m_rowKeys.clear();
  m_colKeys.clear();
  m_cells.clear();
  m_rows.clear();
  m_where.clear();
  m_checked = false;
  m_names.clear();
  m_best = {};
  // An announced size is a run's own count; bounded all the same.
  for (int r = 0; r < std::clamp(points, 0, 1 << 20); ++r) m_rowKeys.push_back(r);
  for (int t = 0; t < std::clamp(trials, 0, kDenseSlack); ++t) m_colKeys.push_back(t);
  endResetModel();
}

bool ResultMatrixModel::store(const Point& p, int reportIndex) {
  Cell& c = m_cells[key(p.index, p.trial)];
  c.reportIndex = reportIndex;
  c.verdict = p.verdict;
  c.findings = static_cast<int>(p.findings.size());
  c.medianNs = p.timing.measured ? p.timing.kernelNs.median : 0;
  if (reportIndex >= 0) {
    if (static_cast<size_t>(reportIndex) >= m_where.size())
      m_where.resize(static_cast<size_t>(reportIndex) + 1, {-1, -1});
    m_where[static_cast<size_t>(reportIndex)] = {p.index, p.trial};
  }
  auto named = m_rows.find(p.index);
  if (named == m_rows.end() || p.trial == 0 || named->second.label.empty()) m_rows[p.index] = nameOf(p);
  updateBest(p, c.medianNs);
  return m_names.add(p);
}

bool ResultMatrixModel::updateBest(const Point& p, double medianNs) {
  const auto correct = [](Verdict v) { return v == Verdict::ok || v == Verdict::slow; };
  const Best before = m_best;
  if (correct(p.verdict) && medianNs > 0 && (m_best.pointIndex < 0 || medianNs < m_best.medianNs)) {
    m_best = {p.index, p.trial, medianNs};
  } else if (p.index == m_best.pointIndex && p.trial == m_best.trial) {
    // The best cell was replaced by a slower or wrong result: look again (rare).
    m_best = {};
    for (const auto& [k, cell] : m_cells)
      if (correct(cell.verdict) && cell.medianNs > 0 &&
          (m_best.pointIndex < 0 || cell.medianNs < m_best.medianNs))
        m_best = {static_cast<int>(k >> 32), static_cast<int>(k & 0xffffffffu), cell.medianNs};
  }
  return before.pointIndex != m_best.pointIndex;
}

void ResultMatrixModel::ensureRow(int pointIndex) {
  const auto at = std::lower_bound(m_rowKeys.begin(), m_rowKeys.end(), pointIndex);
  if (at != m_rowKeys.end() && *at == pointIndex) return;
  const int next = m_rowKeys.empty() ? 0 : m_rowKeys.back() + 1;
  if (at == m_rowKeys.end() && pointIndex >= next && pointIndex - next < kDenseSlack) {
    // The usual case: the next points of a sweep (a few may overtake others).
    beginInsertRows({}, rowCount(), rowCount() + (pointIndex - next));
    for (int k = next; k <= pointIndex; ++k) m_rowKeys.push_back(k);
    endInsertRows();
    return;
  }
  const int row = static_cast<int>(at - m_rowKeys.begin());
  beginInsertRows({}, row, row);
  m_rowKeys.insert(at, pointIndex);
  endInsertRows();
}

void ResultMatrixModel::ensureColumn(int trial) {
  const auto at = std::lower_bound(m_colKeys.begin(), m_colKeys.end(), trial);
  if (at != m_colKeys.end() && *at == trial) return;
  const int next = m_colKeys.empty() ? 0 : m_colKeys.back() + 1;
  if (at == m_colKeys.end() && trial >= next && trial - next < kDenseSlack) {
    beginInsertColumns({}, columnCount(), columnCount() + (trial - next));
    for (int k = next; k <= trial; ++k) m_colKeys.push_back(k);
    endInsertColumns();
    return;
  }
  const int col = static_cast<int>(at - m_colKeys.begin());
  beginInsertColumns({}, col, col);
  m_colKeys.insert(at, trial);
  endInsertColumns();
}

void ResultMatrixModel::setPoint(const Point& p, int reportIndex) {
  if (p.index < 0 || p.trial < 0) return;
  // A streamed point may lie outside the announced size: grow the matrix.
  ensureRow(p.index);
  ensureColumn(p.trial);
  const int bestBefore = m_best.pointIndex;
  const bool keysChanged = store(p, reportIndex);
  const QModelIndex idx = index(rowOf(p.index), columnOf(p.trial));
  emit dataChanged(idx, idx);
  // A key that starts to vary renames every row; otherwise only this one changed
  // (and the rows that lost or gained the best point's star).
  if (keysChanged && rowCount() > 0) {
    emit headerDataChanged(Qt::Vertical, 0, rowCount() - 1);
    return;
  }
  emit headerDataChanged(Qt::Vertical, idx.row(), idx.row());
  if (bestBefore != m_best.pointIndex)
    for (int changed : {bestBefore, m_best.pointIndex})
      if (const int row = changed >= 0 && changed != p.index ? rowOf(changed) : -1; row >= 0)
        emit headerDataChanged(Qt::Vertical, row, row);
}

const Point& ResultMatrixModel::rowName(int row) const {
  const int pointIndex = m_rowKeys[static_cast<size_t>(row)];
  auto it = m_rows.find(pointIndex);
  if (it == m_rows.end()) {
    it = m_rows.emplace(pointIndex, Point{}).first;
    it->second.index = pointIndex;
  }
  return it->second;
}

int ResultMatrixModel::rowOf(int pointIndex) const {
  const auto at = std::lower_bound(m_rowKeys.begin(), m_rowKeys.end(), pointIndex);
  return at != m_rowKeys.end() && *at == pointIndex ? static_cast<int>(at - m_rowKeys.begin()) : -1;
}

int ResultMatrixModel::columnOf(int trial) const {
  const auto at = std::lower_bound(m_colKeys.begin(), m_colKeys.end(), trial);
  return at != m_colKeys.end() && *at == trial ? static_cast<int>(at - m_colKeys.begin()) : -1;
}

const ResultMatrixModel::Cell* ResultMatrixModel::cellAt(int row, int column) const {
  if (row < 0 || column < 0 || row >= rowCount() || column >= columnCount()) return nullptr;
  const auto it =
      m_cells.find(key(m_rowKeys[static_cast<size_t>(row)], m_colKeys[static_cast<size_t>(column)]));
  return it == m_cells.end() ? nullptr : &it->second;
}

QModelIndex ResultMatrixModel::indexForPoint(int reportIndex) const {
  if (reportIndex < 0 || static_cast<size_t>(reportIndex) >= m_where.size()) return {};
  const auto [pointIndex, trial] = m_where[static_cast<size_t>(reportIndex)];
  const int row = rowOf(pointIndex), col = columnOf(trial);
  const Cell* c = cellAt(row, col);
  return c && c->reportIndex == reportIndex ? index(row, col) : QModelIndex();
}

int ResultMatrixModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rowKeys.size());
}

int ResultMatrixModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() || m_rowKeys.empty() ? 0 : static_cast<int>(m_colKeys.size());
}

QString ResultMatrixModel::cellVerdict(const Cell& c) const {
  // A check's point ran nothing: its "ok" is the declaration's, not a measurement's.
  return m_checked && c.verdict == Verdict::ok ? QStringLiteral("checked, not run")
                                               : QString::fromLatin1(verdictName(c.verdict));
}

QColor ResultMatrixModel::cellColor(const Cell& c) const {
  return m_checked && c.verdict == Verdict::ok ? checkedColor() : verdictColor(c.verdict);
}

QVariant ResultMatrixModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
  static const Cell kPending;
  const Cell* found = cellAt(index.row(), index.column());
  const Cell& c = found ? *found : kPending;
  const bool done = c.reportIndex >= 0;
  switch (role) {
    case PointIndexRole:
      return c.reportIndex;
    case VerdictRole:
      return done ? QVariant(static_cast<int>(c.verdict)) : QVariant();
    case Qt::DisplayRole:
      if (!done) return QStringLiteral("\u2026");
      return c.medianNs > 0 ? QStringLiteral("%1\n%2").arg(cellVerdict(c), formatNs(c.medianNs))
                            : cellVerdict(c);
    case Qt::BackgroundRole:
      return done ? QVariant(cellColor(c)) : QVariant();
    case Qt::ForegroundRole:
      return done ? QVariant(textColorOn(cellColor(c))) : QVariant();
    case Qt::TextAlignmentRole:
      return static_cast<int>(Qt::AlignCenter);
    case Qt::ToolTipRole: {
      const QString name = PointLabels::fullLabel(rowName(index.row()));
      const int trial = m_colKeys[static_cast<size_t>(index.column())];
      if (!done) return tr("%1, trial %2: pending").arg(name).arg(trial);
      return tr("%1, trial %2: %3, %4 finding(s)").arg(name).arg(trial).arg(cellVerdict(c)).arg(c.findings);
    }
    default:
      return {};
  }
}

QVariant ResultMatrixModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation == Qt::Horizontal) {
    if (section < 0 || section >= columnCount()) return {};
    if (role == Qt::DisplayRole) return tr("trial %1").arg(m_colKeys[static_cast<size_t>(section)]);
    if (role == Qt::ToolTipRole && !m_names.keys().isEmpty()) return tr("Rows: %1").arg(m_names.keysText());
    return {};
  }
  if (section < 0 || section >= rowCount()) return {};
  const Point& row = rowName(section);
  // The star needs something to be better than: two rows at least.
  const bool best = rowCount() > 1 && m_rowKeys[static_cast<size_t>(section)] == m_best.pointIndex;
  if (role == Qt::DisplayRole) return m_names.shortLabel(row);
  if (role == Qt::DecorationRole && best) return starIcon();
  if (role == Qt::FontRole && best) {
    QFont bold;
    bold.setBold(true);
    return bold;
  }
  if (role == Qt::ToolTipRole)
    return PointLabels::fullLabel(row) +
           (best ? tr("\n\u2605 the fastest correct point: median %1").arg(formatNs(m_best.medianNs))
                 : QString());
  return {};
}

}  // namespace tilescope::ui
