// Splitting a sweep's points into contiguous shards (shard.h).
#include "tilescope/run/shard.h"

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace tilescope {

namespace {

constexpr int kMaxShards = 100000;  // beyond any sweep: ConfigLimits caps points at 10000

int parsePart(const std::string& text, const std::string& part, const std::string& what) {
  int v = 0;
  auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
  if (part.empty() || ec != std::errc() || end != part.data() + part.size())
    throw std::invalid_argument("--shard '" + text + "': " + what +
                                " is not a whole number (expected K/N, e.g. 0/4)");
  return v;
}

}  // namespace

Shard parseShard(const std::string& text) {
  const auto slash = text.find('/');
  if (slash == std::string::npos)
    throw std::invalid_argument("--shard '" + text + "': expected K/N (shard K of N, 0-based), e.g. 0/4");
  Shard s;
  s.index = parsePart(text, text.substr(0, slash), "K");
  s.count = parsePart(text, text.substr(slash + 1), "N");
  if (s.count < 1 || s.count > kMaxShards)
    throw std::invalid_argument("--shard '" + text + "': N must be between 1 and " +
                                std::to_string(kMaxShards));
  if (s.index < 0 || s.index >= s.count)
    throw std::invalid_argument("--shard '" + text + "': K must be between 0 and N-1 (shards are 0-based)");
  return s;
}

std::pair<std::size_t, std::size_t> shardBounds(std::size_t points, Shard s) {
  if (s.count < 1 || s.index < 0 || s.index >= s.count) return {0, 0};
  const auto n = static_cast<std::size_t>(s.count), k = static_cast<std::size_t>(s.index);
  // The first `points % n` shards hold one point more.
  const std::size_t base = points / n, extra = points % n;
  const std::size_t begin = k * base + std::min(k, extra);
  return {begin, begin + base + (k < extra ? 1 : 0)};
}

ShardInfo shardInfo(Shard s, const std::vector<int>& pointIndices) {
  return {s.index, s.count, pointIndices};
}

}  // namespace tilescope
