// The result matrix of a sweep: one row per sweep point, one column per trial,
// each cell the verdict of that point × trial (coloured), fed from a report or
// point by point while a sweep streams in. Rows are named by the swept values only
// (PointLabels: "64, 32"), the full defines in the row's tooltip, so the cells keep
// the width at the Run dock's default size.
#pragma once

#include <QAbstractTableModel>
#include <QStringList>
#include <vector>

#include "models/pointlabels.h"
#include "tilescope/model/report.h"

namespace tilescope::ui {

class ResultMatrixModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  /// Index into Report::points of the cell (-1 while the cell has no result yet).
  enum Role { PointIndexRole = Qt::UserRole + 1, VerdictRole };

  using QAbstractTableModel::QAbstractTableModel;

  void setReport(const Report& report);
  /// Prepares an empty matrix for a run of `points` sweep points × `trials` trials.
  void reset(int points, int trials);
  /// Adds (or replaces) the cell of p (p.index, p.trial); `reportIndex` is its position in Report::points.
  void setPoint(const Point& p, int reportIndex);
  void clear() { reset(0, 0); }

  /// The swept keys the row labels list the values of ("BLOCK_M, BLOCK_N"; "" when none).
  QString rowKeysText() const { return m_names.keysText(); }

  /// The cell holding Report::points[reportIndex], or an invalid index.
  QModelIndex indexForPoint(int reportIndex) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  struct Cell {
    int reportIndex = -1;
    Verdict verdict = Verdict::ok;
    int findings = 0;
    double medianNs = 0;
  };
  void relabel();

  std::vector<std::vector<Cell>> m_cells;  ///< [row][trial]
  std::vector<Point> m_rows;               ///< what names each row (label, experiment, defines, params only)
  PointLabels m_names;
};

}  // namespace tilescope::ui
