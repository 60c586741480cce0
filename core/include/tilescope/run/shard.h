// A shard of a sweep: `sweep CONFIG --shard K/N` runs only the K-th of N contiguous
// blocks of the sweep's points (every trial of a point in the same block), so that
// N processes on N machines (a Slurm job array, slurm.h) split one sweep and their
// reports merge back into the whole.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "tilescope/model/run_info.h"

namespace tilescope {

struct Shard {
  int index = 0;  ///< 0-based
  int count = 1;
  bool operator==(const Shard&) const = default;
};

/// Reads "K/N" (0 <= K < N, 1 <= N <= 100000). Throws std::invalid_argument
/// naming what is wrong ("--shard '3/2': K must be below N").
Shard parseShard(const std::string& text);

/// The half-open range [begin, end) of point indices (positions in expandSweep's
/// order) that shard `s` of `points` holds: contiguous blocks whose sizes differ
/// by at most one, the larger first. Shards beyond the point count are empty.
std::pair<std::size_t, std::size_t> shardBounds(std::size_t points, Shard s);

/// `extra.shard` of a shard's report: {"index": K, "count": N, "points": [indices]}.
ShardInfo shardInfo(Shard s, const std::vector<int>& pointIndices);

}  // namespace tilescope
