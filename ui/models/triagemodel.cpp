#include "models/triagemodel.h"

#include <QFileInfo>

#include "models/qtconv.h"
#include "style/colors.h"
#include "tilescope/base/format.h"
#include "tilescope/triage/triage_document.h"

namespace tilescope::ui {

void TriageModel::setTriage(TriagePtr triage, const QString& path) {
  beginResetModel();
  m_triage = std::move(triage);
  m_path = path;
  endResetModel();
}

const TriageEntry* TriageModel::entry(int row) const {
  if (!m_triage || row < 0 || row >= static_cast<int>(m_triage->entries.size())) return nullptr;
  return &m_triage->entries[static_cast<std::size_t>(row)];
}

int TriageModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !m_triage ? 0 : static_cast<int>(m_triage->entries.size());
}

int TriageModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant TriageModel::display(const TriageEntry& e, int column) const {
  switch (column) {
    case EntryColumn:
      return qs(e.name);
    case KindColumn:
      return QString::fromLatin1(entryKindName(e.kind));
    case VerdictColumn:
      return qs(entryVerdictLabel(e));
    case CategoryColumn: {
      const std::string key = taxonomyKey(e);
      return key == "checked" ? QStringLiteral("checked, not run") : qs(key);
    }
    case DetailColumn:
      return qs(e.detail);
    case LineColumn:
      return qs(entryLineLabel(e));
    case SpeedupColumn:
      return e.speed.speedup ? qs(formatRatio(*e.speed.speedup)) : QString();
    case LevelColumn:
      return qs(e.level);
    case TimeColumn:
      return formatNs(e.seconds * 1e9);
    case FixColumn:
      return qs(e.fix.empty() ? e.note : e.fix);
  }
  return {};
}

QVariant TriageModel::sortKey(const TriageEntry& e, int column) const {
  switch (column) {
    case VerdictColumn:
      return e.status == EntryStatus::done ? static_cast<int>(e.verdict) : -1;
    case SpeedupColumn:
      return e.speed.speedup ? *e.speed.speedup : -1.0;
    case TimeColumn:
      return e.seconds;
    case LineColumn:
      return e.line ? *e.line : -1;
  }
  return display(e, column).toString().toLower();
}

QVariant TriageModel::data(const QModelIndex& index, int role) const {
  const TriageEntry* e = index.isValid() ? entry(index.row()) : nullptr;
  if (!e) return {};
  switch (role) {
    case Qt::DisplayRole:
      return display(*e, index.column());
    case SortRole:
      return sortKey(*e, index.column());
    case CategoryKeyRole:
      return qs(taxonomyKey(*e));
    case EntryIndexRole:
      return index.row();
    case ReportPathRole:
      return m_path.isEmpty() || e->report.empty()
                 ? QString()
                 : qs(entryReportPath(*e, m_path.toStdString()).lexically_normal().string());
    case Qt::ToolTipRole: {
      QString tip = qs(e->message.empty() ? e->note : e->message);
      if (!e->sourceLine.empty()) tip += QStringLiteral("\n") + qs(e->sourceLine);
      if (!e->fix.empty()) tip += QStringLiteral("\nFix: ") + qs(e->fix);
      return tip;
    }
    case Qt::DecorationRole:
      // Checked without running proves nothing: no "good" mark (warning), as the taxonomy's neutral bar.
      if (index.column() == VerdictColumn && e->status == EntryStatus::done)
        return severityIcon(e->verdict != Verdict::ok      ? Severity::error
                            : taxonomyKey(*e) == "checked" ? Severity::warning
                                                           : Severity::info);
      return {};
    case Qt::TextAlignmentRole:
      if (index.column() == SpeedupColumn || index.column() == TimeColumn)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
      return {};
  }
  return {};
}

QVariant TriageModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"Entry", "Kind",    "Verdict",   "Category", "Sub-category",
                                "Line",  "Speedup", "Judged by", "Time",     "Fix"};
  return section >= 0 && section < ColumnCount ? QString::fromLatin1(names[section]) : QVariant();
}

}  // namespace tilescope::ui
