// Table model over the findings a person reads for one point: the report-level
// findings first (diagnose's conclusions, which belong to no single point), then
// the point's own.
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "tilescope/model/report.h"

namespace tilescope::ui {

class FindingsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    ScopeColumn,
    SeverityColumn,
    CategoryColumn,
    MessageColumn,
    LocationColumn,
    EvidenceColumn,
    ColumnCount
  };
  enum Role { FindingIndexRole = Qt::UserRole + 1, SeverityRankRole, ReportLevelRole };

  using QAbstractTableModel::QAbstractTableModel;

  void setFindings(std::vector<Finding> findings) { setFindings({}, std::move(findings)); }
  /// Report-level rows first, then the point's.
  void setFindings(std::vector<Finding> reportLevel, std::vector<Finding> point);
  void clear() { setFindings({}, {}); }
  const Finding* finding(int row) const;
  int reportLevelCount() const { return m_reportLevel; }
  bool isReportLevel(int row) const { return row >= 0 && row < m_reportLevel; }
  /// The report's findings that no point carries (a run's merged point findings are not repeated).
  static std::vector<Finding> reportLevelFindings(const Report& r);
  /// The open report's folder: a location's file is shown relative to it (shownPath).
  void setReportDir(const QString& dir);
  QString reportDir() const { return m_reportDir; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  std::vector<Finding> m_findings;
  int m_reportLevel = 0;
  QString m_reportDir;
};

}  // namespace tilescope::ui
