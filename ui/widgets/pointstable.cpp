#include "widgets/pointstable.h"

#include <QHeaderView>
#include <QSortFilterProxyModel>

#include "models/pointsmodel.h"

namespace tilescope::ui {

PointsTable::PointsTable(Selection* selection, QWidget* parent)
    : QTableView(parent),
      m_selection(selection),
      m_model(new PointsModel(this)),
      m_proxy(new QSortFilterProxyModel(this)) {
  m_proxy->setSourceModel(m_model);
  m_proxy->setSortRole(PointsModel::SortRole);
  setModel(m_proxy);
  setSortingEnabled(true);
  sortByColumn(PointsModel::IndexColumn, Qt::AscendingOrder);
  setSelectionBehavior(QAbstractItemView::SelectRows);
  setSelectionMode(QAbstractItemView::SingleSelection);
  setWordWrap(false);
  verticalHeader()->hide();
  horizontalHeader()->setStretchLastSection(true);
  connect(selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& cur) {
    const int point = pointAtRow(cur.row());
    if (cur.isValid() && point >= 0 && m_selection) m_selection->setPoint(point);
  });
}

int PointsTable::pointAtRow(int row) const {
  const QModelIndex src = m_proxy->mapToSource(m_proxy->index(row, 0));
  return src.isValid() ? src.row() : -1;
}

void PointsTable::onReportLoaded(const ReportPtr& report) {
  m_model->setReport(report);
  // The label column shows the swept values whole; the rest share what is left.
  resizeColumnsToContents();
}

void PointsTable::onReportClosed() { m_model->clear(); }

void PointsTable::onSelectionChanged(const SelectionState& state) {
  const QModelIndex row = m_proxy->mapFromSource(m_model->index(state.point, 0));
  if (!row.isValid() || currentIndex().row() == row.row()) return;
  const QSignalBlocker block(selectionModel());
  selectRow(row.row());
}

}  // namespace tilescope::ui
