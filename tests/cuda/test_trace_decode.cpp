// The trace buffer's per-PC slots keep only what departs from a full,
// conflict-free warp (trace_abi.h, TsPc); decodePc derives the totals the
// report carries. These tests encode accesses the way the patches do and
// check that the totals come back.
#include <gtest/gtest.h>

#include <array>

#include "tilescope/trace/trace.h"
#include "trace/trace_engine.h"

using tilescope::cuda::detail::decodePc;

namespace {

// What the patches add to a PC slot for one warp-wide shared access (TsSharedAccess
// and bankConflicts), with the wavefront model of the report (sharedWavefronts).
void encodeShared(TsPc* s, const std::array<std::uint32_t, 32>& offsets, std::uint32_t mask,
                  std::uint32_t size) {
  const auto [waves, ideal] = tilescope::sharedWavefronts(offsets, mask, size);
  const std::uint32_t phases = size >= 8 ? size / 4 : 1;
  s->execs += 1;
  s->missingLanes += 32 - std::uint32_t(__builtin_popcount(mask));
  s->extraWaves += std::uint64_t(waves - ideal);
  s->idealShort += phases - std::uint32_t(ideal);
  s->flags |= TS_PC_SHARED | TS_PC_READ;
  s->sizes |= size;  // a power of two: its own log2 bit
}

}  // namespace

TEST(TraceDecode, FullWarpsNeedOnlyTheExecutionCount) {
  TsPc p{};
  p.execs = 10;
  p.flags = TS_PC_GLOBAL | TS_PC_READ;
  p.sizes = 16;
  const auto d = decodePc(p);
  EXPECT_EQ(d.execs, 10u);
  EXPECT_EQ(d.threads, 320u);
  EXPECT_EQ(d.bytes, 5120u);
  EXPECT_EQ(d.wavefronts, 0u);  // not a shared access
  EXPECT_EQ(d.ideal, 0u);
}

TEST(TraceDecode, SharedTotalsMatchTheWavefrontModel) {
  TsPc p{};
  std::uint64_t waves = 0, ideal = 0, threads = 0;
  auto add = [&](const std::array<std::uint32_t, 32>& off, std::uint32_t mask, std::uint32_t size) {
    encodeShared(&p, off, mask, size);
    const auto [w, i] = tilescope::sharedWavefronts(off, mask, size);
    waves += std::uint64_t(w), ideal += std::uint64_t(i), threads += std::uint64_t(__builtin_popcount(mask));
  };
  std::array<std::uint32_t, 32> off{};
  // 16-byte accesses 32 bytes apart (2-way in every phase), a full warp then half of one.
  for (int l = 0; l < 32; ++l) off[l] = 32 * l;
  add(off, 0xffffffffu, 16);
  add(off, 0x0000ffffu, 16);
  // A conflict-free 16-byte access with one lane active: one phase of four.
  for (int l = 0; l < 32; ++l) off[l] = 16 * l;
  add(off, 0x00000001u, 16);
  add(off, 0xffffffffu, 16);
  const auto d = decodePc(p);
  EXPECT_EQ(d.execs, 4u);
  EXPECT_EQ(d.threads, threads);
  EXPECT_EQ(d.bytes, threads * 16);
  EXPECT_EQ(d.wavefronts, waves);
  EXPECT_EQ(d.ideal, ideal);
  EXPECT_GT(d.wavefronts, d.ideal);
}

TEST(TraceDecode, FourByteColumnAccessIsThirtyTwoWay) {
  TsPc p{};
  std::array<std::uint32_t, 32> off{};
  for (int l = 0; l < 32; ++l) off[l] = 4 * 32 * l;
  encodeShared(&p, off, 0xffffffffu, 4);
  encodeShared(&p, off, 0xffffffffu, 4);
  const auto d = decodePc(p);
  EXPECT_EQ(d.ideal, 2u);
  EXPECT_EQ(d.wavefronts, 64u);
}

TEST(TraceDecode, BarriersAndAsyncCopies) {
  TsPc bar{};
  bar.execs = 7;
  bar.flags = TS_PC_BARRIER;
  const auto b = decodePc(bar);
  EXPECT_EQ(b.execs, 7u);
  EXPECT_EQ(b.threads, 0u);
  EXPECT_EQ(b.bytes, 0u);

  // cp.async: a global read whose shared side has no wavefront count.
  TsPc cp{};
  cp.execs = 3;
  cp.missingLanes = 8;
  cp.flags = TS_PC_GLOBAL | TS_PC_READ | TS_PC_ASYNC;
  cp.sizes = 16;
  const auto c = decodePc(cp);
  EXPECT_EQ(c.threads, 88u);
  EXPECT_EQ(c.bytes, 88u * 16);
  EXPECT_EQ(c.wavefronts, 0u);
  EXPECT_EQ(c.ideal, 0u);
  EXPECT_EQ(c.flags & TS_PC_ASYNC, std::uint32_t(TS_PC_ASYNC));
}
