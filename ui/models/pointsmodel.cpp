#include "models/pointsmodel.h"

#include "models/qtconv.h"
#include "style/colors.h"

namespace tilescope::ui {

void PointsModel::setReport(std::shared_ptr<const Report> report) {
  beginResetModel();
  m_report = std::move(report);
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
  if (role == SortRole) {
    switch (col) {
      case VerdictColumn: return static_cast<int>(p.verdict);
      case TimeColumn: return p.timing.measured ? p.timing.kernelNs.median : 0.0;
      case SpeedupColumn: return p.speedup.value_or(0.0);
      case FindingsColumn: return static_cast<int>(p.findings.size());
      default: break;
    }
  }
  if (role != Qt::DisplayRole && role != SortRole) return {};
  switch (col) {
    case IndexColumn: return p.trial > 0 ? QStringLiteral("%1.%2").arg(p.index).arg(p.trial) : QString::number(p.index);
    case LabelColumn: return qs(p.label);
    case VerdictColumn: return QString::fromLatin1(verdictName(p.verdict));
    case TimeColumn: return p.timing.measured ? formatNs(p.timing.kernelNs.median) : QStringLiteral("-");
    case SpeedupColumn: return p.speedup ? QStringLiteral("%1\u00d7").arg(*p.speedup, 0, 'f', 2) : QStringLiteral("-");
    case FindingsColumn: return static_cast<int>(p.findings.size());
    default: return {};
  }
}

QVariant PointsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case IndexColumn: return tr("#");
    case LabelColumn: return tr("Point");
    case VerdictColumn: return tr("Verdict");
    case TimeColumn: return tr("Kernel (median)");
    case SpeedupColumn: return tr("Speedup");
    case FindingsColumn: return tr("Findings");
    default: return {};
  }
}

}  // namespace tilescope::ui
