#include "models/pointsmodel.h"

#include <algorithm>
#include <numeric>

#include "models/qtconv.h"
#include "style/colors.h"

namespace tilescope::ui {

void PointsModel::setReport(std::shared_ptr<const Report> report) {
  beginResetModel();
  m_report = std::move(report);
  m_names = m_report ? PointLabels(m_report->points) : PointLabels();
  m_labelRank.clear();
  if (m_report) {
    // Sorting by the label sorts by the swept values as numbers (128 after 64), not as text.
    const auto& pts = m_report->points;
    std::vector<int> order(pts.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return m_names.sortKey(pts[static_cast<size_t>(a)]) < m_names.sortKey(pts[static_cast<size_t>(b)]);
    });
    m_labelRank.assign(pts.size(), 0);
    for (size_t i = 0; i < order.size(); ++i) m_labelRank[static_cast<size_t>(order[i])] = static_cast<int>(i);
  }
  endResetModel();
}

int PointsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !m_report ? 0 : static_cast<int>(m_report->points.size());
}

int PointsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant PointsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const Point& p = m_report->points[static_cast<size_t>(index.row())];
  const int col = index.column();
  if (role == PointIndexRole) return index.row();
  if (role == Qt::BackgroundRole && col == VerdictColumn) return verdictColor(p.verdict);
  if (role == Qt::ForegroundRole && col == VerdictColumn) return textColorOn(verdictColor(p.verdict));
  if (role == Qt::ToolTipRole && col == LabelColumn) return PointLabels::fullLabel(p);
  if (role == SortRole) {
    switch (col) {
      case IndexColumn: return index.row();
      case LabelColumn: return m_labelRank.at(static_cast<size_t>(index.row()));
      case VerdictColumn: return static_cast<int>(p.verdict);
      case TimeColumn: return p.timing.measured ? p.timing.kernelNs.median : 0.0;
      case SpeedupColumn: return p.speedup.value_or(0.0);
      case FindingsColumn: return static_cast<int>(p.findings.size());
      default: break;
    }
  }
  if (role != Qt::DisplayRole && role != SortRole) return {};
  switch (col) {
    // A diagnose's captures are all of sweep point 0: number them by their place in the report.
    case IndexColumn:
      if (!p.experiment.empty()) return QString::number(index.row());
      return p.trial > 0 ? QStringLiteral("%1.%2").arg(p.index).arg(p.trial) : QString::number(p.index);
    case LabelColumn: return m_names.shortLabel(p);
    case VerdictColumn: return QString::fromLatin1(verdictName(p.verdict));
    case TimeColumn: return p.timing.measured ? formatNs(p.timing.kernelNs.median) : QStringLiteral("-");
    case SpeedupColumn: return p.speedup ? QStringLiteral("%1\u00d7").arg(*p.speedup, 0, 'f', 2) : QStringLiteral("-");
    case FindingsColumn: return static_cast<int>(p.findings.size());
    default: return {};
  }
}

QVariant PointsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::ToolTipRole && section == LabelColumn)
    return m_names.keys().isEmpty() ? tr("The point (a diagnose capture: its experiment)")
                                    : tr("The swept values: %1 (the full defines in each row's tooltip)").arg(m_names.keysText());
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case IndexColumn: return tr("#");
    case LabelColumn: return m_names.keys().isEmpty() ? tr("Point") : m_names.keysText();
    case VerdictColumn: return tr("Verdict");
    case TimeColumn: return tr("Kernel (median)");
    case SpeedupColumn: return tr("Speedup");
    case FindingsColumn: return tr("Findings");
    default: return {};
  }
}

}  // namespace tilescope::ui
