// Declared tile geometry (docs/config.md `tiles`): which output elements the CTAs of a launch
// are meant to own, where tiles cross the tensor's bounds (the masks a correct kernel
// must apply), gaps and overlaps, and the inverse map element -> owning CTA.
//
// Computed per tile, not per element: origins that are affine in pid_x/pid_y/pid_z (checked
// by evaluating the expressions at sample CTAs) are evaluated arithmetically, and when each
// tensor dimension follows at most one grid axis the coverage is a product of 1-D interval
// counts, so a 65536 x 65536 output with 16 x 16 tiles (16.7M CTAs) takes milliseconds.
// Other tilings (non-affine origins, a dimension driven by two axes) are painted on a dense
// per-element count map, which is limited in size (kMaxDenseElements).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tilescope/base/expr.h"
#include "tilescope/config/config.h"
#include "tilescope/model/location.h"  // Region

namespace tilescope {

using CtaIndex = std::array<std::int64_t, 3>;  ///< (x, y, z) as blockIdx

/// One CTA's declared tile.
struct TileInfo {
  CtaIndex cta{};
  std::int64_t ctaLinear = 0;                ///< x + nx * (y + ny * z)
  std::vector<std::int64_t> origin, extent;  ///< as declared
  std::vector<std::int64_t> inBoundsBegin;   ///< max(origin, 0)
  std::vector<std::int64_t> inBoundsExtent;  ///< the mask: elements per dimension inside the tensor
  bool crossing = false;                     ///< part of the tile lies outside the tensor
  bool outside() const;                      ///< no element of the tile lies inside
};

class TileCoverage {
 public:
  /// Dense maps above this many elements are refused (1 byte each).
  static constexpr std::int64_t kMaxDenseElements = std::int64_t(1) << 28;
  /// Non-affine origins are evaluated per CTA through muParser up to this many CTAs;
  /// the dense path paints at most this many tiles too.
  static constexpr std::int64_t kMaxEvaluatedCtas = std::int64_t(1) << 21;
  /// The dense path stops after this many element visits (tiles x their in-bounds elements).
  static constexpr std::int64_t kMaxDensePaint = std::int64_t(1) << 30;
  /// The separable path keeps up to two runs of owner counts per CTA index along an axis.
  static constexpr std::int64_t kMaxAxisCtas = std::int64_t(1) << 26;
  /// Grids of more CTAs than this (the product of the three axes) are refused.
  static constexpr std::int64_t kMaxCtas = std::int64_t(1) << 48;

  /// `symbols`: the point's symbols (defines, params); pid_* and nctas_* are added.
  /// Throws std::runtime_error naming the tensor and the expression when the tiling
  /// cannot be evaluated (rank mismatch, bad expression, too large for the dense path).
  static TileCoverage analyze(const TileSpec& spec, const std::vector<std::int64_t>& shape,
                              const CtaIndex& grid, const SymbolTable& symbols);

  const std::string& tensor() const;
  const std::vector<std::int64_t>& shape() const;
  const std::vector<std::int64_t>& tileExtent() const;
  const CtaIndex& grid() const;
  bool affine() const;         ///< origins are affine in the CTA index
  std::string method() const;  ///< "separable" (per-dimension intervals) or "dense"

  std::int64_t elements() const;
  std::int64_t covered() const;  ///< elements owned by at least one CTA
  std::int64_t uncovered() const;
  std::int64_t overlapped() const;  ///< elements owned by more than one CTA
  std::int64_t tilesTotal() const;  ///< CTAs of the grid
  std::int64_t tilesCrossing() const;

  /// The tile of one CTA (the GUI's per-tile map).
  TileInfo tile(const CtaIndex& cta) const;
  TileInfo tile(std::int64_t ctaLinear) const;
  /// Tiles that cross the bounds, in CTA order, at most `limit`.
  std::vector<TileInfo> crossingTiles(std::size_t limit) const;
  /// The CTAs whose tile contains `element` (one index per dimension), at most `limit`.
  std::vector<CtaIndex> ownersOf(const std::vector<std::int64_t>& element, std::size_t limit = 8) const;
  /// Per-element owner counts of a region (row-major, saturating at 255).
  std::vector<std::uint8_t> coverageCounts(const Region& region) const;
  /// Boxes that together contain exactly the uncovered elements (they may overlap), at most `limit`.
  std::vector<Region> gapRegions(std::size_t limit) const;
  /// Boxes that together contain exactly the overlapped elements, at most `limit`.
  std::vector<Region> overlapRegions(std::size_t limit) const;

  struct Impl;
  TileCoverage(std::shared_ptr<const Impl> impl);

 private:
  std::shared_ptr<const Impl> m_impl;
};

/// Every `tiles` entry of a resolved config point, in config order.
std::vector<TileCoverage> analyzeTiles(const Config& pointConfig, const ResolvedPoint& resolved);

}  // namespace tilescope
