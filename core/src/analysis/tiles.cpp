#include "tilescope/analysis/tiles.h"

#include <cmath>
#include <memory>
#include <stdexcept>

#include "tiles_detail.h"

namespace tilescope {
namespace {

// A ConfigError (a runtime_error) at tiles.<tensor>: the CLI names the file and the path.
ConfigError tilesError(const std::string& tensor, const std::string& what) {
  return ConfigError("tiles." + tensor, what);
}

SymbolTable withCta(SymbolTable s, const CtaIndex& grid, const CtaIndex& cta) {
  s["pid_x"] = cta[0];
  s["pid_y"] = cta[1];
  s["pid_z"] = cta[2];
  s["nctas_x"] = grid[0];
  s["nctas_y"] = grid[1];
  s["nctas_z"] = grid[2];
  return s;
}

std::vector<std::int64_t> evalOrigin(const TileSpec& spec, const SymbolTable& base, const CtaIndex& grid,
                                     const CtaIndex& cta) {
  const SymbolTable s = withCta(base, grid, cta);
  std::vector<std::int64_t> o;
  for (std::size_t d = 0; d < spec.origin.size(); ++d) {
    try {
      o.push_back(evalInt(spec.origin[d], s));
    } catch (const std::exception& e) {
      throw tilesError(spec.tensor, "origin[" + std::to_string(d) + "] '" + spec.origin[d] + "' at CTA (" +
                                        std::to_string(cta[0]) + "," + std::to_string(cta[1]) + "," +
                                        std::to_string(cta[2]) + "): " + e.what());
    }
  }
  return o;
}

// Sample CTAs that an affine fit must reproduce: corners, middles and odd interior points,
// so that pid/4-style or pid%2-style origins are caught.
std::vector<CtaIndex> probeCtas(const CtaIndex& g) {
  std::vector<CtaIndex> out;
  auto at = [&](std::int64_t fx, std::int64_t fy, std::int64_t fz, std::int64_t den) {
    out.push_back({fx * (g[0] - 1) / den, fy * (g[1] - 1) / den, fz * (g[2] - 1) / den});
  };
  at(1, 1, 1, 1);
  at(1, 0, 0, 1);
  at(0, 1, 0, 1);
  at(0, 0, 1, 1);
  at(1, 1, 1, 2);
  at(2, 1, 1, 3);
  at(1, 2, 1, 3);
  at(5, 3, 2, 7);
  for (std::int64_t k : {2, 3, 5, 6, 7})
    out.push_back({std::min(k, g[0] - 1), std::min(k + 1, g[1] - 1) % g[1], std::min(k, g[2] - 1)});
  return out;
}

/// Affine origins are c0 + coef . pid: every value over the grid must stay far
/// from int64 overflow (tile ends add up to 2^53 more).
void checkOriginRange(const std::string& tensor, const OriginModel& m, const CtaIndex& grid) {
  if (!m.affine) return;  // table entries come from evalInt: below 2^53
  for (int d = 0; d < m.rank; ++d) {
    long double reach = std::fabs(static_cast<long double>(m.c0[d]));
    for (int a = 0; a < 3; ++a)
      reach += std::fabs(static_cast<long double>(m.coef[d][a])) * static_cast<long double>(grid[a] - 1);
    if (reach >= static_cast<long double>(std::int64_t(1) << 60))
      throw tilesError(tensor, "origin[" + std::to_string(d) + "] reaches 2^60 or more across the grid");
  }
}

/// Every CTA's origin, in linear order. Each expression is parsed once: parsing
/// per CTA took 20 s for a million CTAs (docs/security.md, "Denial of service").
void fillOriginTable(const TileSpec& spec, const SymbolTable& symbols, const CtaIndex& grid, OriginModel& m) {
  const SymbolTable base = withCta(symbols, grid, {0, 0, 0});
  std::vector<std::unique_ptr<CompiledIntExpr>> exprs;
  for (const auto& o : spec.origin) exprs.push_back(std::make_unique<CompiledIntExpr>(o, base));
  m.table.reserve(std::size_t(grid[0] * grid[1] * grid[2] * m.rank));
  for (std::int64_t z = 0; z < grid[2]; ++z)
    for (std::int64_t y = 0; y < grid[1]; ++y)
      for (std::int64_t x = 0; x < grid[0]; ++x)
        for (std::size_t d = 0; d < exprs.size(); ++d) {
          try {
            exprs[d]->set("pid_x", x);
            exprs[d]->set("pid_y", y);
            exprs[d]->set("pid_z", z);
            m.table.push_back(exprs[d]->eval());
          } catch (const std::exception&) {
            (void)evalOrigin(spec, symbols, grid, {x, y, z});  // the same error, named as everywhere else
            throw;
          }
        }
}

OriginModel buildOrigins(const TileSpec& spec, const SymbolTable& symbols, const CtaIndex& grid) {
  OriginModel m;
  m.rank = int(spec.origin.size());
  m.c0 = evalOrigin(spec, symbols, grid, {0, 0, 0});
  m.coef.assign(m.rank, CtaIndex{0, 0, 0});
  for (int a = 0; a < 3; ++a) {
    if (grid[a] < 2) continue;  // a single CTA along this axis: its coefficient never matters
    CtaIndex unit{0, 0, 0};
    unit[a] = 1;
    const auto o = evalOrigin(spec, symbols, grid, unit);
    for (int d = 0; d < m.rank; ++d) m.coef[d][a] = o[d] - m.c0[d];
  }
  checkOriginRange(spec.tensor, m, grid);  // before any origin is computed from the fit
  std::vector<std::int64_t> predicted(m.rank);
  for (const CtaIndex& cta : probeCtas(grid)) {
    m.origin(cta, 0, predicted.data());
    if (evalOrigin(spec, symbols, grid, cta) != predicted) {
      m.affine = false;
      break;
    }
  }
  if (m.affine) return m;
  const std::int64_t n = grid[0] * grid[1] * grid[2];
  if (n > TileCoverage::kMaxEvaluatedCtas)
    throw tilesError(spec.tensor, "origin is not affine in pid_x/pid_y/pid_z and the grid has " +
                                      std::to_string(n) + " CTAs, more than the " +
                                      std::to_string(TileCoverage::kMaxEvaluatedCtas) +
                                      " evaluated one by one");
  fillOriginTable(spec, symbols, grid, m);
  return m;
}

// Separable: each dimension follows at most one axis and each axis drives at most one dimension.
bool assignAxes(TileCoverage::Impl& impl) {
  const int rank = impl.origins.rank;
  impl.axisOfDim.assign(rank, -1);
  std::array<int, 3> dimOfAxis{-1, -1, -1};
  for (int d = 0; d < rank; ++d) {
    for (int a = 0; a < 3; ++a) {
      if (impl.origins.coef[d][a] == 0) continue;
      if (impl.axisOfDim[d] != -1 || dimOfAxis[a] != -1) return false;
      impl.axisOfDim[d] = a;
      dimOfAxis[a] = d;
    }
  }
  impl.multiplicity = 1;
  for (int a = 0; a < 3; ++a)
    if (dimOfAxis[a] == -1) impl.multiplicity *= impl.grid[a];
  return true;
}

}  // namespace

void OriginModel::origin(const CtaIndex& cta, std::int64_t linear, std::int64_t* out) const {
  if (!affine) {
    for (int d = 0; d < rank; ++d) out[d] = table[std::size_t(linear * rank + d)];
    return;
  }
  for (int d = 0; d < rank; ++d)
    out[d] = c0[d] + coef[d][0] * cta[0] + coef[d][1] * cta[1] + coef[d][2] * cta[2];
}

std::int64_t Region::elements() const {
  std::int64_t n = 1;
  for (auto e : extent) n *= e;
  return n;
}

bool TileInfo::outside() const {
  for (auto e : inBoundsExtent)
    if (e == 0) return true;
  return false;
}

CtaIndex TileCoverage::Impl::ctaOf(std::int64_t linear) const {
  return {linear % grid[0], (linear / grid[0]) % grid[1], linear / (grid[0] * grid[1])};
}

TileInfo TileCoverage::Impl::tileOf(const CtaIndex& cta) const {
  TileInfo t;
  t.cta = cta;
  t.ctaLinear = cta[0] + grid[0] * (cta[1] + grid[1] * cta[2]);
  t.origin.resize(shape.size());
  origins.origin(cta, t.ctaLinear, t.origin.data());
  t.extent = tile;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    const std::int64_t lo = std::clamp<std::int64_t>(t.origin[d], 0, shape[d]);
    const std::int64_t hi = std::clamp<std::int64_t>(t.origin[d] + tile[d], 0, shape[d]);
    t.inBoundsBegin.push_back(lo);
    t.inBoundsExtent.push_back(hi - lo);
    t.crossing = t.crossing || t.origin[d] < 0 || t.origin[d] + tile[d] > shape[d];
  }
  return t;
}

bool TileCoverage::Impl::ctaCrosses(const CtaIndex& cta, std::int64_t linear) const {
  if (separable)
    return fixedCross || axisCrosses(0, cta[0]) || axisCrosses(1, cta[1]) || axisCrosses(2, cta[2]);
  std::int64_t o[16];
  origins.origin(cta, linear, o);
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (o[d] < 0 || o[d] + tile[d] > shape[d]) return true;
  return false;
}

TileCoverage::TileCoverage(std::shared_ptr<const Impl> impl) : m_impl(std::move(impl)) {}

TileCoverage TileCoverage::analyze(const TileSpec& spec, const std::vector<std::int64_t>& shape,
                                   const CtaIndex& grid, const SymbolTable& symbols) {
  auto impl = std::make_shared<Impl>();
  impl->tensor = spec.tensor;
  impl->shape = shape;
  impl->grid = grid;
  const std::size_t rank = shape.size();
  if (spec.tile.size() != rank || spec.origin.size() != rank)
    throw tilesError(spec.tensor, "tile and origin must have one entry per dimension of the tensor (rank " +
                                      std::to_string(rank) + ")");
  if (rank == 0 || rank > 16) throw tilesError(spec.tensor, "unsupported rank " + std::to_string(rank));
  for (int a = 0; a < 3; ++a)
    if (grid[a] < 1)
      throw tilesError(spec.tensor, "grid dimension " + std::to_string(a) + " is " + std::to_string(grid[a]));
  const std::int64_t ctas = mulSaturating(mulSaturating(grid[0], grid[1]), grid[2]);
  if (ctas > kMaxCtas)
    throw tilesError(spec.tensor, "the grid has " + std::to_string(ctas) + " CTAs, more than the " +
                                      std::to_string(kMaxCtas) + " the tile analysis handles");
  const SymbolTable ctaSymbols = withCta(symbols, grid, {0, 0, 0});
  impl->elements = 1;
  for (std::size_t d = 0; d < rank; ++d) {
    std::int64_t t = 0;
    try {
      t = evalInt(spec.tile[d], ctaSymbols);
    } catch (const std::exception& e) {
      throw tilesError(spec.tensor, "tile[" + std::to_string(d) + "] '" + spec.tile[d] + "': " + e.what());
    }
    if (t < 1)
      throw tilesError(spec.tensor,
                       "tile[" + std::to_string(d) + "] '" + spec.tile[d] + "' is " + std::to_string(t));
    if (shape[d] < 0) throw tilesError(spec.tensor, "negative extent in dimension " + std::to_string(d));
    impl->tile.push_back(t);
    impl->elements = mulSaturating(impl->elements, shape[d]);
    if (impl->elements >= (std::int64_t(1) << 53))
      throw tilesError(spec.tensor, "the tensor has 2^53 elements or more");
  }
  impl->origins = buildOrigins(spec, symbols, grid);
  impl->separable = impl->origins.affine && assignAxes(*impl);
  if (impl->separable)
    for (int a = 0; a < 3; ++a)
      if (grid[a] > kMaxAxisCtas)
        throw tilesError(spec.tensor, "grid axis " + std::to_string(a) + " has " + std::to_string(grid[a]) +
                                          " CTAs, more than the " + std::to_string(kMaxAxisCtas) +
                                          " the tile analysis handles");
  if (impl->separable)
    buildSeparable(*impl);
  else
    buildDense(*impl);
  return TileCoverage(impl);
}

const std::string& TileCoverage::tensor() const { return m_impl->tensor; }
const std::vector<std::int64_t>& TileCoverage::shape() const { return m_impl->shape; }
const std::vector<std::int64_t>& TileCoverage::tileExtent() const { return m_impl->tile; }
const CtaIndex& TileCoverage::grid() const { return m_impl->grid; }
bool TileCoverage::affine() const { return m_impl->origins.affine; }
std::string TileCoverage::method() const { return m_impl->separable ? "separable" : "dense"; }
std::int64_t TileCoverage::elements() const { return m_impl->elements; }
std::int64_t TileCoverage::covered() const { return m_impl->covered; }
std::int64_t TileCoverage::uncovered() const { return m_impl->elements - m_impl->covered; }
std::int64_t TileCoverage::overlapped() const { return m_impl->overlapped; }
std::int64_t TileCoverage::tilesTotal() const { return m_impl->ctaCount(); }
std::int64_t TileCoverage::tilesCrossing() const { return m_impl->crossing; }

TileInfo TileCoverage::tile(const CtaIndex& cta) const {
  for (int a = 0; a < 3; ++a)
    if (cta[a] < 0 || cta[a] >= m_impl->grid[a])
      throw std::out_of_range("tiles." + m_impl->tensor + ": CTA outside the grid");
  return m_impl->tileOf(cta);
}

TileInfo TileCoverage::tile(std::int64_t linear) const {
  if (linear < 0 || linear >= m_impl->ctaCount())
    throw std::out_of_range("tiles." + m_impl->tensor + ": CTA outside the grid");
  return m_impl->tileOf(m_impl->ctaOf(linear));
}

std::vector<TileInfo> TileCoverage::crossingTiles(std::size_t limit) const {
  const Impl& m = *m_impl;
  std::vector<TileInfo> out;
  if (m.crossing == 0 || limit == 0) return out;
  if (!m.separable) {  // dense: at most kMaxEvaluatedCtas tiles
    for (std::int64_t i = 0; i < m.ctaCount() && out.size() < limit; ++i) {
      const CtaIndex cta = m.ctaOf(i);
      if (m.ctaCrosses(cta, i)) out.push_back(m.tileOf(cta));
    }
    return out;
  }
  // Separable: a CTA crosses when its index along some axis does (or a dimension no
  // axis drives does). An axis is walked whole only where that yields a crossing tile,
  // otherwise only over its crossing indices, so every step lists a tile and a 2^48-CTA
  // grid whose last row crosses costs no more than a small one.
  const bool anyX = m.axisHasCrossing(0), anyY = m.axisHasCrossing(1);
  // Calls f(k) for every index of the axis (all) or only for its crossing ones, in order.
  auto walk = [&](int a, bool all, auto&& f) {
    const auto [lo, hi] = m.axisInside[a];
    for (std::int64_t k = 0; k < m.grid[a] && out.size() < limit; ++k) {
      if (!all && k == lo) k = std::max(hi, lo);  // skip the inside run
      if (k >= m.grid[a]) break;
      f(k);
    }
  };
  walk(2, m.fixedCross || anyX || anyY, [&](std::int64_t z) {
    const bool zc = m.fixedCross || m.axisCrosses(2, z);
    walk(1, zc || anyX, [&](std::int64_t y) {
      const bool yc = zc || m.axisCrosses(1, y);
      walk(0, yc, [&](std::int64_t x) { out.push_back(m.tileOf({x, y, z})); });
    });
  });
  return out;
}

std::vector<TileCoverage> analyzeTiles(const Config& pointConfig, const ResolvedPoint& resolved) {
  std::vector<TileCoverage> out;
  const CtaIndex grid{resolved.launch.grid[0], resolved.launch.grid[1], resolved.launch.grid[2]};
  for (const TileSpec& spec : pointConfig.tiles) {
    const ResolvedTensor* t = resolved.tensor(spec.tensor);
    if (!t) throw tilesError(spec.tensor, "no tensor of that name");
    out.push_back(TileCoverage::analyze(spec, t->shape, grid, resolved.symbols));
  }
  return out;
}

}  // namespace tilescope
