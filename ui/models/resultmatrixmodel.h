// The result matrix of a sweep: one row per sweep point, one column per trial,
// each cell the verdict of that point × trial (coloured), fed from a report or
// point by point while a sweep streams in. Rows are named by the swept values only
// (PointLabels: "64, 32"), the full defines in the row's tooltip, so the cells keep
// the width at the Run dock's default size.
//
// Size: rows are the point indices the report holds and columns its trials, not
// 0..max(index): a report that claims point 5,000,000 has one row for it.
// Cells are kept sparse, keyed by (point index, trial), and a report is taken in
// one model reset, so opening 20,000 points is linear
// (bench/gui/bench_open_sweep).
#pragma once

#include <QAbstractTableModel>
#include <QStringList>
#include <cstdint>
#include <unordered_map>
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

  /// The sweep point with the shortest median among the correct ones (ok or slow),
  /// marked with a star in its row header; -1 when none is timed.
  int bestPointIndex() const { return m_best.pointIndex; }

  /// The cell holding Report::points[reportIndex], or an invalid index.
  QModelIndex indexForPoint(int reportIndex) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  /// A streamed point this far past the last row (or trial) grows the matrix densely
  /// (the pending rows in between show "…"); farther, it gets a row of its own.
  static constexpr int kDenseSlack = 1024;

 private:
  struct Cell {
    int reportIndex = -1;
    Verdict verdict = Verdict::ok;
    int findings = 0;
    double medianNs = 0;
  };
  static std::uint64_t key(int pointIndex, int trial) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(pointIndex)) << 32) |
           static_cast<std::uint32_t>(trial);
  }
  const Cell* cellAt(int row, int column) const;
  QString cellVerdict(const Cell& c) const;  ///< "checked, not run" for a check's ok
  QColor cellColor(const Cell& c) const;     ///< neutral grey for a check's ok, never the green of a run
  /// Row (column) of a point index (trial), or -1.
  int rowOf(int pointIndex) const;
  int columnOf(int trial) const;
  void ensureRow(int pointIndex);
  void ensureColumn(int trial);
  /// Records p's cell and row name; true when the swept keys changed (every row renamed).
  bool store(const Point& p, int reportIndex);
  /// Updates m_best for a stored cell; true when the best point changed.
  bool updateBest(const Point& p, double medianNs);
  /// What names a row (its point's label, defines, params).
  const Point& rowName(int row) const;

  std::vector<int> m_rowKeys;  ///< point index of each row, ascending
  std::vector<int> m_colKeys;  ///< trial of each column, ascending
  std::unordered_map<std::uint64_t, Cell> m_cells;
  /// What names each row, by point index (no measurements); a pending row's is made on demand.
  mutable std::unordered_map<int, Point> m_rows;
  std::vector<std::pair<int, int>> m_where;  ///< report index → (point index, trial)
  PointLabels m_names;
  bool m_checked = false;  ///< the report is a check (verb "check"): nothing ran
  struct Best {
    int pointIndex = -1, trial = -1;
    double medianNs = 0;
  } m_best;
};

}  // namespace tilescope::ui
