// Times the declared-coverage analysis (tiles.h) on large grids.
#include <chrono>
#include <cstdio>

#include "tilescope/analysis/tiles.h"

using namespace tilescope;

namespace {

void bench(const char* label, const std::vector<std::int64_t>& shape, std::vector<std::string> tile,
           std::vector<std::string> origin, const CtaIndex& grid) {
  TileSpec s;
  s.tensor = "C";
  s.tile = std::move(tile);
  s.origin = std::move(origin);
  const auto t0 = std::chrono::steady_clock::now();
  const TileCoverage tc = TileCoverage::analyze(s, shape, grid, {});
  const auto crossing = tc.crossingTiles(32);
  const auto t1 = std::chrono::steady_clock::now();
  std::printf("%-44s %12lld CTAs  %-9s uncovered %lld overlapped %lld crossing %lld  %9.3f ms\n", label,
              (long long)tc.tilesTotal(), tc.method().c_str(), (long long)tc.uncovered(),
              (long long)tc.overlapped(), (long long)tc.tilesCrossing(),
              std::chrono::duration<double, std::milli>(t1 - t0).count());
  (void)crossing;
}

}  // namespace

int main() {
  bench("65536x65536, 16x16 tiles", {65536, 65536}, {"16", "16"}, {"pid_y * 16", "pid_x * 16"},
        {4096, 4096, 1});
  bench("65535x65535, 16x16 tiles (ceil grid)", {65535, 65535}, {"16", "16"}, {"pid_y * 16", "pid_x * 16"},
        {4096, 4096, 1});
  bench("1-D 2^31 elements, 256 per CTA", {std::int64_t(1) << 31}, {"256"}, {"pid_x * 256"},
        {(std::int64_t(1) << 31) / 256, 1, 1});
  bench("batch 64 x 4096x4096, 128x128 (pid_z batch)", {64, 4096, 4096}, {"1", "128", "128"},
        {"pid_z", "pid_y * 128", "pid_x * 128"}, {32, 32, 64});
  bench("4096x4096 swizzled (non-affine), 64x64", {4096, 4096}, {"64", "64"},
        {"(pid_x % 64) * 64", "(pid_x / 64) * 64"}, {4096, 1, 1});
  return 0;
}
