#include "models/pointsmodel.h"

#include <algorithm>
#include <iterator>
#include <numeric>
#include <set>
#include <tuple>

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
    for (size_t i = 0; i < order.size(); ++i)
      m_labelRank[static_cast<size_t>(order[i])] = static_cast<int>(i);
  }
  // The GPUs, numbered in (host, ordinal, uuid) order: the GPU column sorts (groups) and tints by them.
  std::set<std::tuple<std::string, int, std::string>> gpus;
  std::set<std::string> hosts;
  if (m_report)
    for (const Point& p : m_report->points)
      if (!p.gpu.empty()) {
        gpus.insert({p.gpu.host, p.gpu.ordinal, p.gpu.uuid});
        hosts.insert(p.gpu.host);
      }
  m_gpuCount = static_cast<int>(gpus.size());
  m_severalHosts = hosts.size() > 1;
  m_gpu.clear();
  if (m_report)
    for (const Point& p : m_report->points) {
      const auto at = gpus.find({p.gpu.host, p.gpu.ordinal, p.gpu.uuid});
      m_gpu.push_back(p.gpu.empty() ? -1 : static_cast<int>(std::distance(gpus.begin(), at)));
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
  const bool checked = m_report->verb == "check" && p.verdict == Verdict::ok;
  const QColor verdict = checked ? checkedColor() : verdictColor(p.verdict);
  if (role == Qt::BackgroundRole && col == VerdictColumn) return verdict;
  if (role == Qt::ForegroundRole && col == VerdictColumn) return textColorOn(verdict);
  if (role == Qt::ToolTipRole && col == LabelColumn) return PointLabels::fullLabel(p);
  const int gpu = m_gpu.at(static_cast<size_t>(index.row()));
  if (col == GpuColumn && gpu >= 0) {
    if (role == Qt::BackgroundRole && m_gpuCount > 1) return gpuTint(gpu);
    if (role == Qt::ForegroundRole && m_gpuCount > 1) return textColorOn(gpuTint(gpu));
    if (role == Qt::ToolTipRole) {
      QString tip = tr("%1 (GPU %2 of %3)").arg(qs(p.gpu.name)).arg(p.gpu.ordinal).arg(qs(p.gpu.host));
      if (!p.gpu.uuid.empty()) tip += QStringLiteral("\n") + qs(p.gpu.uuid);
      if (!p.gpu.pciBusId.empty()) tip += tr("\nPCI %1").arg(qs(p.gpu.pciBusId));
      if (p.gpu.smClockMHz > 0)
        tip += tr("\nSM clock %1 of %2 MHz")
                   .arg(p.gpu.smClockMHz, 0, 'f', 0)
                   .arg(p.gpu.smMaxClockMHz, 0, 'f', 0);
      return tip;
    }
  }
  if (role == SortRole) {
    switch (col) {
      case IndexColumn:
        return index.row();
      case LabelColumn:
        return m_labelRank.at(static_cast<size_t>(index.row()));
      case VerdictColumn:
        return static_cast<int>(p.verdict);
      case TimeColumn:
        return p.timing.measured ? p.timing.kernelNs.median : 0.0;
      case SpeedupColumn:
        return p.speedup.value_or(0.0);
      case FindingsColumn:
        return static_cast<int>(p.findings.size());
      case GpuColumn:
        return gpu;
      default:
        break;
    }
  }
  if (role != Qt::DisplayRole && role != SortRole) return {};
  switch (col) {
    // A diagnose's captures are all of sweep point 0: number them by their place in the report.
    case IndexColumn:
      if (!p.experiment.empty()) return QString::number(index.row());
      return p.trial > 0 ? QStringLiteral("%1.%2").arg(p.index).arg(p.trial) : QString::number(p.index);
    case LabelColumn:
      return m_names.shortLabel(p);
    case VerdictColumn:  // a check's point ran nothing: its "ok" measured nothing
      return checked ? QStringLiteral("checked, not run") : QString::fromLatin1(verdictName(p.verdict));
    case TimeColumn:
      return p.timing.measured ? formatNs(p.timing.kernelNs.median) : QStringLiteral("-");
    case SpeedupColumn:
      return p.speedup ? QStringLiteral("%1\u00d7").arg(*p.speedup, 0, 'f', 2) : QStringLiteral("-");
    case FindingsColumn:
      return static_cast<int>(p.findings.size());
    case GpuColumn:
      if (gpu < 0) return QStringLiteral("-");
      return m_severalHosts ? QStringLiteral("%1:%2").arg(qs(p.gpu.host)).arg(p.gpu.ordinal)
                            : QStringLiteral("GPU %1").arg(p.gpu.ordinal);
    default:
      return {};
  }
}

QVariant PointsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::ToolTipRole && section == LabelColumn)
    return m_names.keys().isEmpty()
               ? tr("The point (a diagnose capture: its experiment)")
               : tr("The swept values: %1 (the full defines in each row's tooltip)").arg(m_names.keysText());
  if (role == Qt::ToolTipRole && section == GpuColumn)
    return tr("The GPU each capture ran on (sort to group by GPU; tinted when a sweep used several)");
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case IndexColumn:
      return tr("#");
    case LabelColumn:
      return m_names.keys().isEmpty() ? tr("Point") : m_names.keysText();
    case VerdictColumn:
      return tr("Verdict");
    case TimeColumn:
      return tr("Kernel (median)");
    case SpeedupColumn:
      return tr("Speedup");
    case FindingsColumn:
      return tr("Findings");
    case GpuColumn:
      return tr("GPU");
    default:
      return {};
  }
}

}  // namespace tilescope::ui
