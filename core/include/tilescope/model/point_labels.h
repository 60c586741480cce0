// Short names for a report's points. A sweep's points differ only in the defines
// (and shape params) it sweeps, so a point reads as those values ("64, 32") under a
// header naming the keys, with the full assignment beside it; a diagnose capture
// reads as its experiment. One rule for the workbench (matrix, Points table,
// charts), the exports and the CLI.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilescope/model/point.h"

namespace tilescope {

class PointLabels {
 public:
  PointLabels() = default;
  explicit PointLabels(const std::vector<Point>& points);

  /// Takes one more point into account (a sweep streaming in). Returns true when
  /// the set of swept keys changed: every short label must then be read again.
  bool add(const Point& p);

  /// The keys whose values differ between the points, in the order the labels name them.
  const std::vector<std::string>& keys() const { return m_keys; }
  /// "BLOCK_M, BLOCK_N" ("" when nothing is swept).
  std::string keysText() const;
  /// The swept values of p ("64, 32"); a diagnose capture's experiment ("trace",
  /// "shape M=65 N=65 K=33"); without swept keys the point's own label when it is
  /// short, else "#index".
  std::string shortLabel(const Point& p) const;
  /// Everything that names p: its label, else its defines and params ("BLOCK_M=64 BLOCK_N=32").
  static std::string fullLabel(const Point& p);
  /// The swept values of p, for sorting (JSON compares numbers as numbers).
  std::vector<nlohmann::json> sortKey(const Point& p) const;

 private:
  static nlohmann::json valuesOf(const Point& p);  ///< defines and params in one object
  static std::vector<std::string> labelOrder(const Point& p);
  bool swept(const std::string& key) const;

  bool m_any = false;
  nlohmann::json m_first;            ///< values of the first point seen
  std::vector<std::string> m_order;  ///< key order of the first label, then the rest
  std::vector<std::string> m_keys;   ///< swept keys, in m_order's order
};

}  // namespace tilescope
