// Coverage maps of TileCoverage: the separable (per-dimension interval) path, the dense
// path, and the queries both answer (owners, per-element counts, gap/overlap boxes).
#include <algorithm>
#include <functional>
#include <stdexcept>

#include "tiles_detail.h"

namespace tilescope {
namespace {

std::int64_t floorDiv(std::int64_t a, std::int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}
std::int64_t ceilDiv(std::int64_t a, std::int64_t b) { return -floorDiv(-a, b); }

std::int64_t saturatingMul(std::int64_t a, std::int64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > INT64_MAX / b ? INT64_MAX : a * b;
}

// The count of the segment containing index i.
std::int64_t countAt(const std::vector<Segment>& segs, std::int64_t i) {
  auto it = std::upper_bound(segs.begin(), segs.end(), i,
                             [](std::int64_t v, const Segment& s) { return v < s.end; });
  return it == segs.end() ? 0 : it->count;
}

// Calls f(index vector) for each element of the cartesian product of per-dimension choices,
// in row-major order, until f returns false.
template <class T>
void product(const std::vector<std::vector<T>>& choices,
             const std::function<bool(const std::vector<T>&)>& f) {
  for (const auto& c : choices)
    if (c.empty()) return;
  std::vector<std::size_t> idx(choices.size(), 0);
  std::vector<T> cur(choices.size());
  while (true) {
    for (std::size_t d = 0; d < choices.size(); ++d) cur[d] = choices[d][idx[d]];
    if (!f(cur)) return;
    std::size_t d = choices.size();
    while (d > 0) {
      --d;
      if (++idx[d] < choices[d].size()) break;
      idx[d] = 0;
      if (d == 0) return;
    }
  }
}

}  // namespace

// Owner counts along one dimension: tile k covers [c0 + coef*k, + tile) for k in [0, n).
// Starts and ends are both monotonic in k, so one merge pass yields the runs (no sort).
// The pass visits positions, not tiles: the tiles clipped away and the runs of tiles
// clamped to the same start or end are skipped by division, so it costs
// O(min(n, size / |coef|)) whatever the grid (a 2^26-CTA axis over a 1024-element
// dimension took 17 s under the sanitizers when it walked every tile; docs/measurements.md, "Static
// analysis").
std::vector<Segment> buildSegments(std::int64_t c0, std::int64_t coef, std::int64_t n, std::int64_t tile,
                                   std::int64_t size) {
  std::vector<Segment> out;
  auto emit = [&](std::int64_t b, std::int64_t e, std::int64_t c) {
    if (e <= b) return;
    if (!out.empty() && out.back().count == c && out.back().end == b)
      out.back().end = e;
    else
      out.push_back({b, e, c});
  };
  // In ascending order of start the j-th tile begins at base + step * j (step >= 0);
  // checkOriginRange keeps every origin below 2^60, so none of this overflows.
  const std::int64_t step = coef >= 0 ? coef : -coef;
  const std::int64_t base = coef >= 0 ? c0 : c0 + coef * (n - 1);
  auto clampIndex = [](std::int64_t j, std::int64_t lo, std::int64_t hi) { return std::clamp(j, lo, hi); };
  // The first j whose `base + step * j + shift` is above p (n when none is).
  auto firstAbove = [&](std::int64_t p, std::int64_t shift) {
    if (step == 0) return base + shift > p ? std::int64_t(0) : n;
    return clampIndex(floorDiv(p - base - shift, step) + 1, 0, n);
  };
  // Tiles [jlo, jhi) keep at least one element after clipping to [0, size).
  const std::int64_t jlo = firstAbove(0, tile);
  const std::int64_t jhi = clampIndex(step == 0 ? (base < size ? n : 0) : ceilDiv(size - base, step), jlo, n);
  auto startOf = [&](std::int64_t j) { return std::clamp<std::int64_t>(base + step * j, 0, size); };
  auto endOf = [&](std::int64_t j) { return std::clamp<std::int64_t>(base + step * j + tile, 0, size); };
  std::int64_t si = jlo, ei = jlo, pos = 0, count = 0;
  while (ei < jhi) {
    const std::int64_t e = endOf(ei);
    if (si < jhi && startOf(si) <= e) {  // every tile starting here, at once
      const std::int64_t p = startOf(si);
      const std::int64_t next = p >= size ? jhi : clampIndex(firstAbove(p, 0), si + 1, jhi);
      emit(pos, p, count);
      pos = p;
      count += next - si;
      si = next;
    } else {  // every tile ending here
      const std::int64_t next = e >= size ? jhi : clampIndex(firstAbove(e, tile), ei + 1, jhi);
      emit(pos, e, count);
      pos = e;
      count -= next - ei;
      ei = next;
    }
  }
  emit(pos, size, 0);
  return out;
}

void buildSeparable(TileCoverage::Impl& m) {
  const std::size_t rank = m.shape.size();
  std::int64_t covered = 1, once = 1, nonCrossing = m.multiplicity;
  m.segments.resize(rank);
  for (int a = 0; a < 3; ++a) m.axisInside[a] = {0, m.grid[a]};
  for (std::size_t d = 0; d < rank; ++d) {
    const int a = m.axisOfDim[d];
    const std::int64_t coef = a >= 0 ? m.origins.coef[d][a] : 0;
    const std::int64_t n = a >= 0 ? m.grid[a] : 1;
    const std::int64_t c0 = m.origins.c0[d], t = m.tile[d], size = m.shape[d];
    m.segments[d] = buildSegments(c0, coef, n, t, size);
    std::int64_t cov = 0, one = 0;
    for (const Segment& s : m.segments[d]) {
      cov += s.count > 0 ? s.end - s.begin : 0;
      one += s.count == 1 ? s.end - s.begin : 0;
    }
    covered = saturatingMul(covered, cov);
    once = saturatingMul(once, one);
    if (a < 0) {
      m.fixedCross = m.fixedCross || c0 < 0 || c0 + t > size;
      continue;
    }
    // Inside: 0 <= c0 + coef*k and c0 + coef*k + t <= size (coef != 0: assignAxes).
    std::int64_t lo = 0, hi = 0;
    if (coef > 0) {
      lo = ceilDiv(-c0, coef);
      hi = floorDiv(size - t - c0, coef) + 1;
    } else {
      lo = ceilDiv(c0 + t - size, -coef);
      hi = floorDiv(c0, -coef) + 1;
    }
    lo = std::clamp<std::int64_t>(lo, 0, n);
    hi = std::clamp<std::int64_t>(hi, lo, n);
    m.axisInside[a] = {lo, hi};
    nonCrossing = saturatingMul(nonCrossing, hi - lo);
  }
  m.covered = covered;
  m.overlapped = m.multiplicity > 1 ? covered : covered - once;
  m.crossing = m.fixedCross ? m.ctaCount() : m.ctaCount() - nonCrossing;
}

void buildDense(TileCoverage::Impl& m) {
  if (m.elements > TileCoverage::kMaxDenseElements)
    throw ConfigError("tiles." + m.tensor, "this tiling is not separable per dimension, and its " +
                                               std::to_string(m.elements) +
                                               " elements exceed the dense map's limit of " +
                                               std::to_string(TileCoverage::kMaxDenseElements));
  const std::size_t rank = m.shape.size();
  m.dense.assign(std::size_t(m.elements), 0);
  std::vector<std::int64_t> stride(rank, 1);
  for (std::size_t d = rank - 1; d > 0; --d) stride[d - 1] = stride[d] * m.shape[d];
  const std::int64_t n = m.ctaCount();
  if (n > TileCoverage::kMaxEvaluatedCtas)
    throw ConfigError("tiles." + m.tensor, "this tiling is not separable per dimension, and its " +
                                               std::to_string(n) + " tiles exceed the dense map's limit of " +
                                               std::to_string(TileCoverage::kMaxEvaluatedCtas));
  std::int64_t painted = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const TileInfo t = m.tileOf(m.ctaOf(i));
    m.crossing += t.crossing;
    if (t.outside()) continue;
    std::int64_t inBounds = 1;
    for (auto e : t.inBoundsExtent) inBounds *= e;  // each <= shape: the product is <= elements
    painted += inBounds;
    if (painted > TileCoverage::kMaxDensePaint)
      throw ConfigError("tiles." + m.tensor,
                        "this tiling is not separable per dimension, and painting its "
                        "tiles visits more than " +
                            std::to_string(TileCoverage::kMaxDensePaint) +
                            " elements (tiles overlap that much)");
    std::vector<std::vector<std::int64_t>> rows(rank - 1);
    for (std::size_t d = 0; d + 1 < rank; ++d)
      for (std::int64_t k = 0; k < t.inBoundsExtent[d]; ++k) rows[d].push_back(t.inBoundsBegin[d] + k);
    auto paint = [&](const std::vector<std::int64_t>& idx) {
      std::int64_t off = t.inBoundsBegin[rank - 1];
      for (std::size_t d = 0; d + 1 < rank; ++d) off += idx[d] * stride[d];
      std::uint8_t* p = m.dense.data() + off;
      for (std::int64_t k = 0; k < t.inBoundsExtent[rank - 1]; ++k) p[k] += p[k] < 255;
      return true;
    };
    if (rank == 1)
      paint({});
    else
      product<std::int64_t>(rows, paint);
  }
  for (auto c : m.dense) {
    m.covered += c > 0;
    m.overlapped += c > 1;
  }
}

std::vector<CtaIndex> TileCoverage::ownersOf(const std::vector<std::int64_t>& element,
                                             std::size_t limit) const {
  const Impl& m = *m_impl;
  if (element.size() != m.shape.size())
    throw std::invalid_argument("tiles." + m.tensor + ": element rank mismatch");
  std::vector<CtaIndex> out;
  if (!m.separable) {  // scan the CTAs
    for (std::int64_t i = 0; i < m.ctaCount() && out.size() < limit; ++i) {
      const TileInfo t = m.tileOf(m.ctaOf(i));
      bool in = true;
      for (std::size_t d = 0; d < element.size() && in; ++d)
        in = element[d] >= t.origin[d] && element[d] < t.origin[d] + t.extent[d];
      if (in) out.push_back(t.cta);
    }
    return out;
  }
  // Per axis, the CTA indices whose tile contains the element's index along its dimension.
  std::array<std::pair<std::int64_t, std::int64_t>, 3> range{};  // [lo, hi] inclusive
  for (int a = 0; a < 3; ++a) range[a] = {0, m.grid[a] - 1};
  for (std::size_t d = 0; d < element.size(); ++d) {
    const std::int64_t i = element[d], c0 = m.origins.c0[d], t = m.tile[d];
    const int a = m.axisOfDim[d];
    if (a < 0) {
      if (i < c0 || i >= c0 + t) return out;
      continue;
    }
    const std::int64_t c = m.origins.coef[d][a];
    // c0 + c*k <= i < c0 + c*k + t
    std::int64_t lo, hi;
    if (c > 0) {
      lo = ceilDiv(i - t + 1 - c0, c);
      hi = floorDiv(i - c0, c);
    } else {
      lo = ceilDiv(c0 - i, -c);
      hi = floorDiv(c0 - i + t - 1, -c);
    }
    range[a] = {std::max(range[a].first, lo), std::min(range[a].second, hi)};
  }
  for (std::int64_t z = range[2].first; z <= range[2].second; ++z)
    for (std::int64_t y = range[1].first; y <= range[1].second; ++y)
      for (std::int64_t x = range[0].first; x <= range[0].second; ++x) {
        if (out.size() >= limit) return out;
        out.push_back({x, y, z});
      }
  return out;
}

std::vector<std::uint8_t> TileCoverage::coverageCounts(const Region& r) const {
  const Impl& m = *m_impl;
  const std::size_t rank = m.shape.size();
  if (r.begin.size() != rank || r.extent.size() != rank)
    throw std::invalid_argument("tiles." + m.tensor + ": region rank mismatch");
  for (std::size_t d = 0; d < rank; ++d)
    if (r.begin[d] < 0 || r.extent[d] < 0 || r.begin[d] + r.extent[d] > m.shape[d])
      throw std::out_of_range("tiles." + m.tensor + ": region outside the tensor in dimension " +
                              std::to_string(d));
  std::vector<std::uint8_t> out;
  out.reserve(std::size_t(r.elements()));
  std::vector<std::vector<std::int64_t>> perDim(rank);  // separable: counts; dense: offsets
  std::vector<std::int64_t> stride(rank, 1);
  for (std::size_t d = rank - 1; d > 0; --d) stride[d - 1] = stride[d] * m.shape[d];
  for (std::size_t d = 0; d < rank; ++d)
    for (std::int64_t k = 0; k < r.extent[d]; ++k)
      perDim[d].push_back(m.separable ? countAt(m.segments[d], r.begin[d] + k)
                                      : (r.begin[d] + k) * stride[d]);
  product<std::int64_t>(perDim, [&](const std::vector<std::int64_t>& v) {
    if (!m.separable) {
      std::int64_t off = 0;
      for (auto o : v) off += o;
      out.push_back(m.dense[std::size_t(off)]);
      return true;
    }
    std::int64_t c = m.multiplicity;
    for (auto x : v) c = saturatingMul(c, x);
    out.push_back(std::uint8_t(std::min<std::int64_t>(c, 255)));
    return true;
  });
  return out;
}

namespace {

// Dense path: runs along the last dimension whose counts satisfy `pick`.
std::vector<Region> denseRuns(const TileCoverage::Impl& m, std::size_t limit, bool (*pick)(std::uint8_t)) {
  std::vector<Region> out;
  const std::size_t rank = m.shape.size();
  const std::int64_t row = m.shape[rank - 1];
  for (std::int64_t base = 0; base < m.elements && out.size() < limit; base += row) {
    for (std::int64_t k = 0; k < row && out.size() < limit;) {
      if (!pick(m.dense[std::size_t(base + k)])) {
        ++k;
        continue;
      }
      std::int64_t e = k;
      while (e < row && pick(m.dense[std::size_t(base + e)])) ++e;
      Region r;
      std::int64_t rem = base / row;
      r.begin.assign(rank, 0);
      r.extent.assign(rank, 1);
      for (std::size_t d = rank - 1; d > 0; --d) {
        r.begin[d - 1] = rem % m.shape[d - 1];
        rem /= m.shape[d - 1];
      }
      r.begin[rank - 1] = k;
      r.extent[rank - 1] = e - k;
      out.push_back(r);
      k = e;
    }
  }
  return out;
}

// Separable path: for each dimension d and each run of d with `pick`, the box of that run
// times the runs of the other dimensions accepted by `others` (nullptr: their whole extent).
std::vector<Region> separableBoxes(const TileCoverage::Impl& m, std::size_t limit, bool (*pick)(std::int64_t),
                                   bool (*others)(std::int64_t)) {
  std::vector<Region> out;
  const std::size_t rank = m.shape.size();
  for (std::size_t d = 0; d < rank && out.size() < limit; ++d) {
    std::vector<std::vector<Segment>> choices(rank);
    for (std::size_t e = 0; e < rank; ++e) {
      if (e != d && !others) {  // the whole extent of the other dimensions
        choices[e].push_back({0, m.shape[e], 1});
        continue;
      }
      for (const Segment& s : m.segments[e])
        if (e == d ? pick(s.count) : others(s.count)) choices[e].push_back(s);
    }
    product<Segment>(choices, [&](const std::vector<Segment>& box) {
      Region r;
      for (const Segment& s : box) {
        r.begin.push_back(s.begin);
        r.extent.push_back(s.end - s.begin);
      }
      out.push_back(r);
      return out.size() < limit;
    });
  }
  return out;
}

}  // namespace

std::vector<Region> TileCoverage::gapRegions(std::size_t limit) const {
  const Impl& m = *m_impl;
  if (m.covered == m.elements) return {};
  if (!m.separable) return denseRuns(m, limit, [](std::uint8_t c) { return c == 0; });
  return separableBoxes(
      m, limit, [](std::int64_t c) { return c == 0; }, nullptr);
}

std::vector<Region> TileCoverage::overlapRegions(std::size_t limit) const {
  const Impl& m = *m_impl;
  if (m.overlapped == 0) return {};
  if (!m.separable) return denseRuns(m, limit, [](std::uint8_t c) { return c > 1; });
  if (m.multiplicity > 1) {  // every covered element is owned multiplicity times
    std::vector<Region> all = separableBoxes(
        m, limit, [](std::int64_t c) { return c > 0; }, [](std::int64_t c) { return c > 0; });
    // each box appears once per dimension; keep the first rank-th share (dimension 0's)
    std::vector<Region> out;
    for (auto& r : all)
      if (std::find_if(out.begin(), out.end(), [&](const Region& o) {
            return o.begin == r.begin && o.extent == r.extent;
          }) == out.end())
        out.push_back(r);
    return out;
  }
  return separableBoxes(
      m, limit, [](std::int64_t c) { return c > 1; }, [](std::int64_t c) { return c > 0; });
}

}  // namespace tilescope
