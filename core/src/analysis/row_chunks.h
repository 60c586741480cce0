// Private to scan.cpp and compare.cpp: an output's rows split into fixed chunks
// for parallelChunks (base/parallel.h), and the per-chunk buffer of TileTally
// additions. Chunk boundaries depend on the geometry only, never on the number of
// threads; each chunk is a run of whole map-cell rows, so the map cells a chunk
// writes belong to it alone.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "tilescope/analysis/compare.h"
#include "tilescope/base/parallel.h"

namespace tilescope {

/// About this many elements per chunk (1 MiB of f32 per tensor).
inline constexpr std::int64_t kRowChunkElements = std::int64_t{1} << 18;
/// Outputs of fewer elements stay on the calling thread unless a thread count is
/// forced: starting threads would cost more than it saves.
inline constexpr std::int64_t kParallelMinElements = std::int64_t{1} << 20;

struct RowChunks {
  std::int64_t rows = 0, rowsPerChunk = 1, count = 0;
  int threads = 1;
  std::int64_t begin(std::int64_t c) const { return c * rowsPerChunk; }
  std::int64_t end(std::int64_t c) const { return std::min(rows, (c + 1) * rowsPerChunk); }
};

/// `requestedThreads`: 0 for the default (the calling thread alone below
/// kParallelMinElements, else parallelThreads), n > 0 to force n.
inline RowChunks rowChunks(const OutputGeometry& g, int requestedThreads) {
  RowChunks rc;
  rc.rows = g.elements() > 0 ? g.rows : 0;
  const std::int64_t target =
      std::max<std::int64_t>(1, kRowChunkElements / std::max<std::int64_t>(1, g.cols));
  rc.rowsPerChunk = std::max<std::int64_t>(1, target / g.cellH) * g.cellH;
  rc.count = (rc.rows + rc.rowsPerChunk - 1) / rc.rowsPerChunk;
  const bool small = requestedThreads <= 0 && g.elements() < kParallelMinElements;
  rc.threads = small ? 1 : parallelThreads(rc.count, requestedThreads);
  return rc;
}

/// The TileTally additions of one chunk, consecutive ones to the same tile folded
/// together, added to the shared tally when the chunk ends (under the caller's
/// lock). Counts add and the largest error wins, so the order in which chunks
/// flush does not change the tally.
class TallyBuffer {
 public:
  void add(std::int64_t tile, std::int64_t count, double err = 0) {
    if (!m_adds.empty() && m_adds.back().tile == tile) {
      m_adds.back().count += count;
      m_adds.back().maxErr = std::max(m_adds.back().maxErr, err);
      return;
    }
    m_adds.push_back({tile, count, err});
  }
  void flushInto(TileTally& tally) {
    for (const auto& e : m_adds) tally.add(e.tile, e.count, e.maxErr);
    m_adds.clear();
    m_adds.shrink_to_fit();
  }

 private:
  std::vector<TileTally::Entry> m_adds;
};

}  // namespace tilescope
