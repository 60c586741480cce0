#include "models/findingsmodel.h"

#include <QFont>
#include <QStringList>
#include <iterator>

#include "models/evidencetext.h"
#include "models/qtconv.h"
#include "models/verdicttext.h"
#include "style/colors.h"

namespace tilescope::ui {

void FindingsModel::setFindings(std::vector<Finding> reportLevel, std::vector<Finding> point) {
  beginResetModel();
  m_reportLevel = static_cast<int>(reportLevel.size());
  m_findings = std::move(reportLevel);
  m_findings.insert(m_findings.end(), std::make_move_iterator(point.begin()),
                    std::make_move_iterator(point.end()));
  endResetModel();
}

std::vector<Finding> FindingsModel::reportLevelFindings(const Report& r) {
  auto same = [](const Finding& a, const Finding& b) {
    return a.category == b.category && a.severity == b.severity && a.message == b.message &&
           a.tensor == b.tensor;
  };
  std::vector<Finding> out;
  for (const Finding& f : r.findings) {
    bool onPoint = false;
    for (const Point& p : r.points)
      for (const Finding& g : p.findings) onPoint = onPoint || same(f, g);
    if (!onPoint) out.push_back(f);
  }
  return out;
}

void FindingsModel::setReportDir(const QString& dir) {
  if (dir == m_reportDir) return;
  m_reportDir = dir;
  if (!m_findings.empty()) emit dataChanged(index(0, LocationColumn), index(rowCount() - 1, LocationColumn));
}

const Finding* FindingsModel::finding(int row) const {
  if (row < 0 || row >= static_cast<int>(m_findings.size())) return nullptr;
  return &m_findings[static_cast<size_t>(row)];
}

int FindingsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_findings.size());
}

int FindingsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant FindingsModel::data(const QModelIndex& index, int role) const {
  const Finding* f = index.isValid() ? finding(index.row()) : nullptr;
  if (!f) return {};
  if (role == FindingIndexRole) return index.row();
  if (role == SeverityRankRole) return static_cast<int>(f->severity);
  if (role == ReportLevelRole) return isReportLevel(index.row());
  const int col = index.column();
  if (role == Qt::FontRole && isReportLevel(index.row())) {
    QFont bold;
    bold.setBold(true);
    return bold;
  }
  if (role == Qt::DecorationRole && col == SeverityColumn) return severityIcon(f->severity);
  if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
    switch (col) {
      case ScopeColumn:
        if (role == Qt::ToolTipRole)
          return isReportLevel(index.row())
                     ? tr("A conclusion of the whole report (diagnose), not of one point")
                     : tr("A finding of the selected point");
        return isReportLevel(index.row()) ? tr("report") : tr("point");
      case SeverityColumn:
        return QString::fromLatin1(severityName(f->severity));
      case CategoryColumn:
        return f->detail.empty() ? qs(f->category)
                                 : QStringLiteral("%1 (%2)").arg(qs(f->category), qs(f->detail));
      case MessageColumn:
        return qs(f->message);
      case LocationColumn: {
        // The file where the reader has it, not where the report was recorded (the
        // recording machine's absolute path means nothing here).
        QString loc = shownLocationText(f->location, m_reportDir);
        if (!f->tensor.empty())
          loc = loc.isEmpty() ? qs(f->tensor) : qs(f->tensor) + QStringLiteral(": ") + loc;
        if (role == Qt::ToolTipRole && !f->location.file.empty() &&
            shownPath(qs(f->location.file), m_reportDir) != qs(f->location.file))
          loc += tr("\nrecorded as %1").arg(qs(f->location.file));
        return loc;
      }
      case EvidenceColumn: {
        // Key/value rows with units and grouped digits, thresholds left out (evidencetext.h).
        QStringList facts;
        for (const auto& [k, v] : evidenceTextRows(f->evidence)) facts << QStringLiteral("%1: %2").arg(k, v);
        return facts.join(role == Qt::ToolTipRole ? QStringLiteral("\n") : QStringLiteral("; "));
      }
      default:
        return {};
    }
  }
  return {};
}

QVariant FindingsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case ScopeColumn:
      return tr("Scope");
    case SeverityColumn:
      return tr("Severity");
    case CategoryColumn:
      return tr("Category");
    case MessageColumn:
      return tr("Message");
    case LocationColumn:
      return tr("Location");
    case EvidenceColumn:
      return tr("Evidence");
    default:
      return {};
  }
}

}  // namespace tilescope::ui
