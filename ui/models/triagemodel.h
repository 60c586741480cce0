// Table model over a triage (tilescope.triage/1): one row per entry, the columns
// of the taxonomy table; sort keys and the entry's report path as roles. Owns its
// immutable snapshot. Qt Core/Gui only.
#pragma once

#include <QAbstractTableModel>
#include <memory>

#include "tilescope/triage/triage.h"

namespace tilescope::ui {

using TriagePtr = std::shared_ptr<const TriageReport>;

class TriageModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    EntryColumn,
    KindColumn,
    VerdictColumn,
    CategoryColumn,
    DetailColumn,
    LineColumn,
    SpeedupColumn,
    LevelColumn,
    TimeColumn,
    FixColumn,
    ColumnCount
  };
  enum Role {
    SortRole = Qt::UserRole + 1,  ///< numbers for numeric columns, text otherwise
    CategoryKeyRole,              ///< taxonomyKey(): "ok", "compile_error", "not_run", ...
    ReportPathRole,               ///< the entry's report, resolved against the triage file ("" none)
    EntryIndexRole
  };

  using QAbstractTableModel::QAbstractTableModel;

  /// `path`: the triage file, against which entry reports are resolved.
  void setTriage(TriagePtr triage, const QString& path = {});
  void clear() { setTriage(nullptr); }
  TriagePtr triage() const { return m_triage; }
  const TriageEntry* entry(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  QVariant display(const TriageEntry& e, int column) const;
  QVariant sortKey(const TriageEntry& e, int column) const;

  TriagePtr m_triage;
  QString m_path;
};

}  // namespace tilescope::ui
