// The Points table: one row per report point (PointsModel), sortable by any column
// through a proxy, the label column sized to the swept values. Selecting a row
// selects that point everywhere; the shared selection selects the row back.
#pragma once

#include <QTableView>

#include "reportview.h"

class QSortFilterProxyModel;

namespace tilescope::ui {

class PointsModel;

class PointsTable : public QTableView, public ReportView {
  Q_OBJECT
 public:
  explicit PointsTable(Selection* selection, QWidget* parent = nullptr);

  PointsModel* pointsModel() const { return m_model; }
  QSortFilterProxyModel* proxyModel() const { return m_proxy; }
  /// The report point shown in view row `row` (after sorting), or -1.
  int pointAtRow(int row) const;

  void onReportLoaded(const ReportPtr& report) override;
  void onReportClosed() override;
  void onSelectionChanged(const SelectionState& state) override;

 private:
  Selection* m_selection;
  PointsModel* m_model;
  QSortFilterProxyModel* m_proxy;
};

}  // namespace tilescope::ui
