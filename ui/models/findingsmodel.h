// Table model over one point's findings (or the report's merged findings).
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "tilescope/report.h"

namespace tilescope::ui {

class FindingsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { SeverityColumn, CategoryColumn, MessageColumn, LocationColumn, EvidenceColumn, ColumnCount };
  enum Role { FindingIndexRole = Qt::UserRole + 1, SeverityRankRole };

  using QAbstractTableModel::QAbstractTableModel;

  void setFindings(std::vector<Finding> findings);
  void clear() { setFindings({}); }
  const Finding* finding(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  std::vector<Finding> m_findings;
};

}  // namespace tilescope::ui
