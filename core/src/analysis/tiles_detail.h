// Internals of TileCoverage (tiles.cpp, tiles_maps.cpp).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "tilescope/analysis/tiles.h"

namespace tilescope {

/// Tile origins per CTA: affine (c0 + coef . pid per dimension) or a table evaluated per CTA.
struct OriginModel {
  int rank = 0;
  bool affine = true;
  std::vector<std::int64_t> c0;
  std::vector<CtaIndex> coef;       ///< per dimension: coefficient of pid_x, pid_y, pid_z
  std::vector<std::int64_t> table;  ///< non-affine: rank origins per CTA, in linear order
  void origin(const CtaIndex& cta, std::int64_t linear, std::int64_t* out) const;
};

/// A run of one dimension's indices with the same number of owning tiles along it.
struct Segment {
  std::int64_t begin = 0, end = 0, count = 0;
};

struct TileCoverage::Impl {
  std::string tensor;
  std::vector<std::int64_t> shape, tile;
  CtaIndex grid{1, 1, 1};
  OriginModel origins;
  std::int64_t elements = 0, covered = 0, overlapped = 0, crossing = 0;

  // separable: dimension d follows grid axis axisOfDim[d] (-1: none); axes that drive no
  // dimension repeat every tile `multiplicity` times.
  bool separable = false;
  std::vector<int> axisOfDim;
  std::int64_t multiplicity = 1;
  std::vector<std::vector<Segment>> segments;  ///< per dimension, covering [0, shape)
  /// Per axis, the CTA indices [first, second) whose tiles stay inside along the dimension
  /// the axis drives (origins are monotonic in the index, so the rest cross): a range, not
  /// a flag per index, so that a 2^26-CTA axis costs nothing (docs/measurements.md, "Static analysis").
  std::array<std::pair<std::int64_t, std::int64_t>, 3> axisInside{};
  bool fixedCross = false;  ///< a dimension with no axis crosses

  bool axisCrosses(int axis, std::int64_t k) const {
    return k < axisInside[axis].first || k >= axisInside[axis].second;
  }
  bool axisHasCrossing(int axis) const {
    return axisInside[axis].first > 0 || axisInside[axis].second < grid[axis];
  }

  std::vector<std::uint8_t> dense;  ///< dense: owner count per element, saturating

  std::int64_t ctaCount() const { return grid[0] * grid[1] * grid[2]; }
  CtaIndex ctaOf(std::int64_t linear) const;
  bool ctaCrosses(const CtaIndex& cta, std::int64_t linear) const;
  TileInfo tileOf(const CtaIndex& cta) const;
};

// tiles_maps.cpp
std::vector<Segment> buildSegments(std::int64_t c0, std::int64_t coef, std::int64_t n, std::int64_t tile,
                                   std::int64_t size);
void buildSeparable(TileCoverage::Impl& impl);
void buildDense(TileCoverage::Impl& impl);

}  // namespace tilescope
