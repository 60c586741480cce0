// The workbench's side of core's point names (tilescope/model/point_labels.h):
// the same rules, in Qt's strings, so the matrix, the Points table and the
// charts name a point as the exports and the CLI do.
#pragma once

#include <QString>
#include <QStringList>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilescope/model/point_labels.h"

namespace tilescope::ui {

class PointLabels {
 public:
  PointLabels() = default;
  explicit PointLabels(const std::vector<Point>& points) : m_labels(points) {}

  /// Takes one more point into account (a sweep streaming in). Returns true when
  /// the set of swept keys changed: every short label must then be read again.
  bool add(const Point& p) { return m_labels.add(p); }
  void clear() { m_labels = tilescope::PointLabels(); }

  /// The keys whose values differ between the points, in the order the labels name them.
  QStringList keys() const;
  /// "BLOCK_M, BLOCK_N" ("" when nothing is swept).
  QString keysText() const { return QString::fromStdString(m_labels.keysText()); }
  /// tilescope::PointLabels::shortLabel: "64, 32", "trace", "#3".
  QString shortLabel(const Point& p) const { return QString::fromStdString(m_labels.shortLabel(p)); }
  /// tilescope::PointLabels::fullLabel: "BLOCK_M=64 BLOCK_N=32".
  static QString fullLabel(const Point& p) {
    return QString::fromStdString(tilescope::PointLabels::fullLabel(p));
  }
  /// The swept values of p, for sorting (JSON compares numbers as numbers).
  std::vector<nlohmann::json> sortKey(const Point& p) const { return m_labels.sortKey(p); }

 private:
  tilescope::PointLabels m_labels;
};

}  // namespace tilescope::ui
