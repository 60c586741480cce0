// One row per report point (sweep point × trial): label, verdict, time, speedup,
// findings, and the GPU it ran on (tinted per GPU when a sweep used several).
// The label is the swept values (PointLabels), the column header names the keys; every
// column sorts through SortRole (a QSortFilterProxyModel with sortRole = SortRole).
#pragma once

#include <QAbstractTableModel>
#include <memory>
#include <vector>

#include "models/pointlabels.h"

#include "tilescope/model/report.h"

namespace tilescope::ui {

class PointsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    IndexColumn,
    LabelColumn,
    VerdictColumn,
    TimeColumn,
    SpeedupColumn,
    FindingsColumn,
    GpuColumn,
    ColumnCount
  };
  enum Role { PointIndexRole = Qt::UserRole + 1, SortRole };

  using QAbstractTableModel::QAbstractTableModel;

  /// The model keeps the immutable snapshot alive; it never reads live state.
  void setReport(std::shared_ptr<const Report> report);
  void clear() { setReport(nullptr); }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  std::shared_ptr<const Report> m_report;
  PointLabels m_names;
  std::vector<int> m_labelRank;  ///< per point: its place when ordered by the swept values
  std::vector<int> m_gpu;        ///< per point: its GPU's number (ordered by host, ordinal, uuid), -1 none
  int m_gpuCount = 0;
  bool m_severalHosts = false;
};

}  // namespace tilescope::ui
