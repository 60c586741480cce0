// scanOutput: measured coverage (sentinel left behind), NaN/Inf and all-zero
// evidence of one output, in one row-by-row pass over the host copy (in chunks
// of rows over threads, merged in chunk order).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <tuple>

#include "row_chunks.h"
#include "tilescope/analysis/compare.h"

namespace tilescope {
namespace {

// Where the elements of one kind of anomaly lie: count, first and last position
// (row-major order), the inclusive box per dimension and a few sample positions.
struct AnomalyBox {
  std::int64_t count = 0;
  std::int64_t firstRow = -1, firstCol = -1, lastRow = -1, lastCol = -1;
  std::vector<std::int64_t> lo, hi;
  std::vector<std::pair<std::int64_t, std::int64_t>> samples;  // first kSamples positions
  bool rowHit = false;
  std::int64_t rowColMin = 0, rowColMax = 0;
  static constexpr std::size_t kSamples = 8;

  explicit AnomalyBox(std::size_t rank) : lo(rank, std::numeric_limits<std::int64_t>::max()), hi(rank, -1) {}
  void beginRow() { rowHit = false; }
  void hit(std::int64_t r, std::int64_t c) {
    if (count == 0) firstRow = r, firstCol = c;
    lastRow = r, lastCol = c;
    ++count;
    if (!rowHit) rowHit = true, rowColMin = c;
    rowColMax = c;  // columns arrive in increasing order within a row
    if (samples.size() < kSamples) samples.emplace_back(r, c);
  }
  // Leading dimensions are folded into the box once per row, not per element.
  void endRow(const OutputGeometry& g, std::int64_t r) {
    if (!rowHit || lo.empty()) return;
    const auto idx = g.index(r, 0);
    for (std::size_t d = 0; d + 1 < idx.size(); ++d)
      lo[d] = std::min(lo[d], idx[d]), hi[d] = std::max(hi[d], idx[d]);
    lo.back() = std::min(lo.back(), rowColMin);
    hi.back() = std::max(hi.back(), rowColMax);
  }
  // Merges the box of the rows after this one's (the next chunk's).
  void append(const AnomalyBox& later) {
    if (later.count == 0) return;
    if (count == 0) firstRow = later.firstRow, firstCol = later.firstCol;
    lastRow = later.lastRow, lastCol = later.lastCol;
    count += later.count;
    for (std::size_t d = 0; d < lo.size(); ++d)
      lo[d] = std::min(lo[d], later.lo[d]), hi[d] = std::max(hi[d], later.hi[d]);
    for (const auto& p : later.samples)
      if (samples.size() < kSamples) samples.push_back(p);
  }
  ElementRange elements(const OutputGeometry& g) const {
    return {g.index(firstRow, firstCol), g.index(lastRow, lastCol), lo, hi, {}};
  }
};

struct NanCounts {
  std::int64_t nan = 0, inf = 0, inCrossingTiles = 0, guardPayload = 0;
};

std::string hexBits(std::uint64_t bits, DType dtype) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%0*llX", static_cast<int>(2 * dtypeSize(dtype)),
                static_cast<unsigned long long>(bits));
  return buf;
}

// The tiles (capped) and their CTAs, and the elements, of a finding's location.
Location tilesLocation(const OutputGeometry& g, const std::vector<TileCount>& tiles, const AnomalyBox& box) {
  Location loc;
  for (std::size_t i = 0; i < tiles.size() && i < kMaxLocationTiles; ++i) {
    loc.tiles.push_back(tiles[i].tile);
    const auto cta = g.ctaOf(tiles[i].tile);
    if (!cta.empty()) loc.ctas.push_back(cta);
  }
  if (!loc.ctas.empty()) loc.cta = loc.ctas.front();  // assumes origin = pid * tile (compare.h)
  loc.elements = box.elements(g);
  return loc;
}

std::string plural(std::int64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

Finding coverageGapFinding(const HostTensor& out, const OutputGeometry& g, const AnomalyBox& box,
                           const std::vector<TileCount>& tiles, std::size_t tileCount,
                           std::uint64_t sentinel) {
  Finding f;
  f.category = "coverage_gap";
  f.severity = Severity::error;
  f.tensor = out.name;
  f.treeNode = "wrong.coverage_gap";
  f.message = out.name + ": " + plural(box.count, "element", "elements") + " in " +
              plural(static_cast<std::int64_t>(tileCount), "tile", "tiles") + " never written (" +
              describeElementBox(box.lo, box.hi) + ")";
  f.location = tilesLocation(g, tiles, box);
  f.evidence = {{"unwritten", box.count},
                {"elements", g.elements()},
                {"gap_tiles", tileCount},
                {"tiles_total", g.tilesTotal()},
                {"tile", g.tile},
                {"tile_counts", nlohmann::json::array()},
                {"sentinel", hexBits(sentinel, out.dtype)}};
  for (std::size_t i = 0; i < tiles.size() && i < kMaxLocationTiles; ++i)
    f.evidence["tile_counts"].push_back(tiles[i].count);
  return f;
}

Finding nanInfFinding(const HostTensor& out, const OutputGeometry& g, const AnomalyBox& box,
                      const std::vector<TileCount>& tiles, std::size_t tileCount, const NanCounts& n,
                      bool haveReference) {
  Finding f;
  f.category = "nan_inf";
  f.severity = Severity::error;
  f.tensor = out.name;
  f.treeNode = "wrong.nan_inf";
  f.message = out.name + ": " + std::to_string(n.nan) + " NaN and " + std::to_string(n.inf) + " Inf " +
              (haveReference ? "where the reference is finite" : "(no reference)") + ", in " +
              plural(static_cast<std::int64_t>(tileCount), "tile", "tiles") + " (" +
              describeElementBox(box.lo, box.hi) + ")";
  f.location = tilesLocation(g, tiles, box);
  nlohmann::json samples = nlohmann::json::array();
  for (const auto& [r, c] : box.samples) samples.push_back(g.index(r, c));
  f.evidence = {{"nan", n.nan},
                {"inf", n.inf},
                {"first_positions", samples},
                {"tiles", tileCount},
                {"in_crossing_tiles", n.inCrossingTiles},
                {"guard_payload_nans", n.guardPayload},
                {"reference", haveReference}};
  return f;
}

Finding allZeroFinding(const HostTensor& out, std::int64_t written, std::int64_t refNonZero,
                       double refMaxAbs) {
  Finding f;
  f.category = "all_zero";
  f.severity = Severity::error;
  f.tensor = out.name;
  f.treeNode = "wrong.all_zero";
  f.message = out.name + ": all " + std::to_string(written) +
              " written elements are 0 while the reference has " + std::to_string(refNonZero) +
              " non-zero (max |ref| " + std::to_string(refMaxAbs) + ")";
  f.evidence = {{"written", written}, {"reference_nonzero", refNonZero}, {"reference_max_abs", refMaxAbs}};
  return f;
}

// The raw bits of the guard pattern for a floating dtype (0 for integers, whose
// 0xA5 guard is not a NaN and so cannot be told apart from a computed value).
std::uint64_t guardNanBits(DType dtype) {
  if (!isFloating(dtype)) return 0;
  std::uint64_t bits = 0;
  for (std::size_t i = 0; i < dtypeSize(dtype); ++i)
    bits |= static_cast<std::uint64_t>(guardByte(dtype, i)) << (8 * i);
  return bits;
}

// Masks that classify raw bits without decoding: magnitude (non-zero test),
// exponent (all ones = Inf/NaN) and mantissa (non-zero with the exponent = NaN).
struct BitClass {
  std::uint64_t mag = 0, exp = 0, mant = 0;
  bool floating = false;
};

BitClass bitClass(DType dtype) {
  switch (dtype) {
    case DType::f32:
      return {0x7FFFFFFFull, 0x7F800000ull, 0x007FFFFFull, true};
    case DType::f64:
      return {0x7FFFFFFFFFFFFFFFull, 0x7FF0000000000000ull, 0x000FFFFFFFFFFFFFull, true};
    case DType::f16:
      return {0x7FFFull, 0x7C00ull, 0x03FFull, true};
    case DType::bf16:
      return {0x7FFFull, 0x7F80ull, 0x007Full, true};
    default:
      break;
  }
  const std::size_t bytes = dtypeSize(dtype);
  return {bytes >= 8 ? ~0ull : (1ull << (8 * bytes)) - 1, 0, 0, false};
}

// What the rows of one chunk hold; the chunks' parts are merged in chunk order.
struct ScanPart {
  AnomalyBox gaps, nans;
  std::int64_t nanCount = 0, infCount = 0, guardPayload = 0;
  std::int64_t writtenNonZero = 0, written = 0;

  explicit ScanPart(std::size_t rank) : gaps(rank), nans(rank) {}
  void append(const ScanPart& later) {
    gaps.append(later.gaps);
    nans.append(later.nans);
    nanCount += later.nanCount, infCount += later.infCount, guardPayload += later.guardPayload;
    writtenNonZero += later.writtenNonZero, written += later.written;
  }
};

// One pass over the output's raw bits; the reference is decoded only for rows
// where the output holds a NaN/Inf, and for the all-zero check at the end. The
// rows go in fixed chunks (row_chunks.h) over threads: a chunk fills its own
// ScanPart, adds to the shared tallies under a lock and owns its map cells.
struct Scanner {
  const HostTensor& out;
  const HostTensor* ref;
  const OutputGeometry& g;
  bool hasSentinel;
  std::uint64_t sentinel;
  std::uint64_t guardBits;
  BitClass cls;
  RowChunks chunks;

  std::vector<std::uint8_t> cells;  // mapRows x mapCols CellState
  TileTally gapTally, nanTally;
  std::mutex tallyMutex;
  ScanPart total;  // all chunks, merged

  Scanner(const HostTensor& o, const HostTensor* r, const OutputGeometry& geo, bool hs, std::uint64_t s,
          int threads)
      : out(o),
        ref(r),
        g(geo),
        hasSentinel(hs),
        sentinel(s),
        guardBits(guardNanBits(o.dtype)),
        cls(bitClass(o.dtype)),
        chunks(rowChunks(geo, threads)),
        cells(static_cast<std::size_t>(geo.mapRows * geo.mapCols), 0),
        gapTally(geo.tilesTotal()),
        nanTally(geo.tilesTotal()),
        total(geo.shape.size()) {}

  // The chunk's rows own the cell (whole map-cell rows per chunk).
  void raise(std::int64_t row, std::int64_t col, CellState s) {
    auto& c = cells[static_cast<std::size_t>(row / g.cellH * g.mapCols + col / g.cellW)];
    c = std::max(c, static_cast<std::uint8_t>(s));
  }

  // Per chunk: its part, its tally additions and its row buffers.
  struct ChunkState {
    ScanPart& part;
    TallyBuffer gapAdds, nanAdds;
    std::vector<std::uint64_t> bits;
    std::vector<double> rvals;
  };

  void run() {
    std::vector<ScanPart> parts(static_cast<std::size_t>(chunks.count), ScanPart(g.shape.size()));
    parallelChunks(chunks.count, chunks.threads, [&](std::int64_t c) {
      ChunkState cs{parts[static_cast<std::size_t>(c)],
                    {},
                    {},
                    std::vector<std::uint64_t>(static_cast<std::size_t>(g.cols)),
                    std::vector<double>(ref ? static_cast<std::size_t>(g.cols) : 0)};
      for (std::int64_t r = chunks.begin(c); r < chunks.end(c); ++r) {
        decodeRange(out, r * g.cols, g.cols, nullptr, cs.bits.data());
        scanRow(cs, r);
      }
      const std::lock_guard<std::mutex> lock(tallyMutex);
      cs.gapAdds.flushInto(gapTally);
      cs.nanAdds.flushInto(nanTally);
    });
    for (const auto& p : parts) total.append(p);
  }

  void scanRow(ChunkState& cs, std::int64_t r) {
    ScanPart& p = cs.part;
    const std::int64_t tileRow = g.tileRowOf(r);
    const std::int64_t tileW = g.tile.empty() ? 1 : g.tile.back();
    const std::uint64_t* b = cs.bits.data();
    bool refDecoded = false;
    p.gaps.beginRow();
    p.nans.beginRow();
    for (std::int64_t tc = 0; tc < g.tileCols; ++tc) {
      const std::int64_t c0 = tc * tileW, c1 = std::min(g.cols, c0 + tileW);
      std::int64_t segGaps = 0, segNans = 0;
      for (std::int64_t c = c0; c < c1; ++c) {
        if (hasSentinel && b[c] == sentinel) {
          ++segGaps;
          p.gaps.hit(r, c);
          raise(r, c, CellState::unwritten);
          continue;
        }
        ++p.written;
        if (b[c] & cls.mag) ++p.writtenNonZero;
        if (!cls.floating || (b[c] & cls.exp) != cls.exp) continue;  // finite
        if (ref) {
          if (!refDecoded) decodeRange(*ref, r * g.cols, g.cols, cs.rvals.data(), nullptr), refDecoded = true;
          if (!std::isfinite(cs.rvals[static_cast<std::size_t>(c)]))
            continue;  // the reference is not finite either
        }
        ++segNans;
        (b[c] & cls.mant) ? ++p.nanCount : ++p.infCount;
        if (guardBits && b[c] == guardBits) ++p.guardPayload;
        p.nans.hit(r, c);
        raise(r, c, CellState::nan_inf);
      }
      const std::int64_t tile = tileRow * g.tileCols + tc;
      if (segGaps) cs.gapAdds.add(tile, segGaps);
      if (segNans) cs.nanAdds.add(tile, segNans);
    }
    p.gaps.endRow(g, r);
    p.nans.endRow(g, r);
  }

  // For all_zero: non-zero reference elements at written positions (a second pass,
  // run only when every written element is zero), in the same chunks.
  std::pair<std::int64_t, double> referenceNonZeroAtWritten() {
    std::vector<std::pair<std::int64_t, double>> parts(static_cast<std::size_t>(chunks.count), {0, 0.0});
    parallelChunks(chunks.count, chunks.threads, [&](std::int64_t ch) {
      auto& [n, maxAbs] = parts[static_cast<std::size_t>(ch)];
      std::vector<std::uint64_t> bits(static_cast<std::size_t>(g.cols));
      std::vector<double> rvals(bits.size());
      for (std::int64_t r = chunks.begin(ch); r < chunks.end(ch); ++r) {
        decodeRange(out, r * g.cols, g.cols, nullptr, bits.data());
        decodeRange(*ref, r * g.cols, g.cols, rvals.data(), nullptr);
        for (std::int64_t c = 0; c < g.cols; ++c) {
          const auto i = static_cast<std::size_t>(c);
          if ((hasSentinel && bits[i] == sentinel) || rvals[i] == 0) continue;
          ++n;
          maxAbs = std::max(maxAbs, std::fabs(rvals[i]));
        }
      }
    });
    std::pair<std::int64_t, double> sum{0, 0.0};
    for (const auto& [n, maxAbs] : parts) sum.first += n, sum.second = std::max(sum.second, maxAbs);
    return sum;
  }
};

std::vector<TileCount> tileCounts(const OutputGeometry& g, const std::vector<TileTally::Entry>& entries) {
  std::vector<TileCount> out;
  for (const auto& e : entries) {
    if (out.size() >= kMaxTileList) break;
    out.push_back({g.tileIndexOfGrid(e.tile / g.tileCols, e.tile % g.tileCols), e.count});
  }
  return out;
}

ScanResult scanImpl(const HostTensor& out, bool hasSentinel, std::uint64_t sentinel,
                    const std::vector<std::int64_t>& tileExtent, const HostTensor* reference, int threads) {
  if (reference && reference->shape != out.shape)
    throw std::invalid_argument("scanOutput: output " + out.name + " and its reference " + reference->name +
                                " have different shapes");
  ScanResult res;
  res.geometry = OutputGeometry::make(out.shape, tileExtent);
  const OutputGeometry& g = res.geometry;
  res.hasSentinel = hasSentinel;
  res.sentinel = sentinel;

  Scanner s(out, reference, g, hasSentinel, sentinel, threads);
  const ScanPart& t = s.total;
  if (g.elements() > 0) s.run();

  const auto gapEntries = s.gapTally.entries();
  const auto nanEntries = s.nanTally.entries();
  res.gapTiles = tileCounts(g, gapEntries);
  res.nanInfTiles = tileCounts(g, nanEntries);
  res.nanInf = t.nanCount + t.infCount;
  for (const auto& e : nanEntries)
    if (g.tileCrossesBounds(g.tileIndexOfGrid(e.tile / g.tileCols, e.tile % g.tileCols)))
      res.nanInfInCrossingTiles += e.count;
  res.guardPayloadNans = t.guardPayload;
  std::int64_t refNonZero = 0;
  double refMaxAbs = 0;
  if (reference && t.written > 0 && t.writtenNonZero == 0)
    std::tie(refNonZero, refMaxAbs) = s.referenceNonZeroAtWritten();
  res.allZero = refNonZero > 0;

  CoverageInfo& cov = res.coverage;
  cov.tensor = out.name;
  cov.shape = out.shape;
  cov.elements = g.elements();
  cov.tile = g.tile;
  cov.tilesTotal = g.tilesTotal();
  cov.tilesCrossing = g.tilesCrossing();
  cov.measured = hasSentinel;
  cov.unwritten = t.gaps.count;
  cov.written = g.elements() - t.gaps.count;
  cov.map = CellMap{g.mapRows,
                    g.mapCols,
                    {g.cellH, g.cellW},
                    {"ok", "mismatch", "unwritten", "nan_inf", "overlapped", "oob"},
                    std::move(s.cells)};
  cov.extra = {{"gap_tiles", gapEntries.size()}, {"nan_inf_tiles", nanEntries.size()}};

  if (t.gaps.count > 0)
    res.findings.push_back(coverageGapFinding(out, g, t.gaps, res.gapTiles, gapEntries.size(), sentinel));
  if (res.nanInf > 0)
    res.findings.push_back(nanInfFinding(out, g, t.nans, res.nanInfTiles, nanEntries.size(),
                                         {t.nanCount, t.infCount, res.nanInfInCrossingTiles, t.guardPayload},
                                         reference != nullptr));
  if (res.allZero) res.findings.push_back(allZeroFinding(out, t.written, refNonZero, refMaxAbs));
  return res;
}

}  // namespace

ScanResult scanOutput(const HostTensor& out, std::uint64_t sentinelBits,
                      const std::vector<std::int64_t>& tileExtent, const HostTensor* reference, int threads) {
  return scanImpl(out, true, sentinelBits, tileExtent, reference, threads);
}

ScanResult scanOutputNoSentinel(const HostTensor& out, const std::vector<std::int64_t>& tileExtent,
                                const HostTensor* reference, int threads) {
  return scanImpl(out, false, 0, tileExtent, reference, threads);
}

}  // namespace tilescope
