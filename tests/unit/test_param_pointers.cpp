// Pointers inside by-value parameters (param_pointers.h): the relocation
// search over hand-built parameter bytes and allocation tables.
#include <gtest/gtest.h>

#include <cstring>

#include "tilescope/capture/param_pointers.h"

namespace {

using namespace tilescope;

/// A table of live allocations, as the driver would answer.
struct Table {
  std::vector<DeviceAllocation> live;
  mutable int lookups = 0;
  AllocationLookup lookup() const {
    return [this](std::uint64_t p) -> std::optional<DeviceAllocation> {
      ++lookups;
      for (const DeviceAllocation& a : live)
        if (a.contains(p)) return a;
      return std::nullopt;
    };
  }
};

/// Parameter bytes with 8-byte words put at byte offsets.
struct Bytes {
  std::vector<std::uint8_t> b;
  explicit Bytes(std::size_t n) : b(n, 0) {}
  Bytes& word(std::size_t off, std::uint64_t v) {
    std::memcpy(b.data() + off, &v, 8);
    return *this;
  }
  Bytes& i32(std::size_t off, std::int32_t v) {
    std::memcpy(b.data() + off, &v, 4);
    return *this;
  }
};

const PointerWord* wordAt(const PointerPlan& p, const std::string& param, std::uint32_t off) {
  for (const PointerWord& w : p.words)
    if (w.param == param && w.offset == off) return &w;
  return nullptr;
}

constexpr std::uint64_t A = 0x7f0000000000ull, B = 0x7f0000200000ull, C = 0x7f0000400000ull;

TEST(ParamPointers, TruePointersAtAllocationStarts) {
  Table t{{{A, 4096}, {B, 8192}}};
  // struct { float* x; float* y; long n; float a; float* unused (null); }
  Bytes s(40);
  s.word(0, A).word(8, B).word(16, 1000).i32(24, 0x3fc00000);
  const PointerPlan p = planParamPointers({{"p0", s.b}}, {}, t.lookup());
  ASSERT_EQ(p.words.size(), 2u);
  EXPECT_EQ(p.words[0].cls, PointerWordClass::pointer);
  EXPECT_EQ(p.words[1].cls, PointerWordClass::pointer);
  ASSERT_EQ(p.regions.size(), 2u);
  EXPECT_EQ(p.regions[0].start, A);
  EXPECT_EQ(p.regions[0].bytes(), 4096u);
  EXPECT_EQ(p.words[0].target, "m0");
  EXPECT_EQ(p.words[1].target, "m1");
  EXPECT_EQ(p.words[0].delta, 0);
  EXPECT_TRUE(p.notes.empty());
  EXPECT_FALSE(p.hasAmbiguous());
  EXPECT_EQ(t.lookups, 4);  // the null word at +32 is not looked up
}

TEST(ParamPointers, IntegersThatLookLikePointers) {
  Table t{{{A, 4096}}};
  // A 64-bit integer that is no live address, one that lands inside an
  // allocation at an aligned offset, and one at an odd offset.
  Bytes s(32);
  s.word(0, 0x123456789abcull).word(8, A + 64).word(16, A + 0x333);
  const PointerPlan p = planParamPointers({{"p0", s.b}}, {}, t.lookup());
  EXPECT_EQ(wordAt(p, "p0", 0), nullptr);
  ASSERT_NE(wordAt(p, "p0", 8), nullptr);
  ASSERT_NE(wordAt(p, "p0", 16), nullptr);
  // Two words into one allocation corroborate each other.
  EXPECT_EQ(wordAt(p, "p0", 8)->cls, PointerWordClass::pointer);
  EXPECT_EQ(wordAt(p, "p0", 16)->cls, PointerWordClass::pointer);

  // Alone, each is uncorroborated: aligned -> unreferenced, odd -> ambiguous.
  Bytes one(16);
  one.word(0, A + 64).word(8, 0x123456789abcull);
  const PointerPlan u = planParamPointers({{"p0", one.b}}, {}, t.lookup());
  ASSERT_EQ(u.words.size(), 1u);
  EXPECT_EQ(u.words[0].cls, PointerWordClass::unreferenced);
  EXPECT_EQ(u.words[0].target, "m0");
  ASSERT_EQ(u.notes.size(), 1u);
  EXPECT_NE(u.notes[0].find("+0 = 0x7f0000000040"), std::string::npos) << u.notes[0];

  Bytes odd(8);
  odd.word(0, A + 0x333);
  const PointerPlan a = planParamPointers({{"p0", odd.b}}, {}, t.lookup());
  ASSERT_EQ(a.words.size(), 1u);
  EXPECT_EQ(a.words[0].cls, PointerWordClass::ambiguous);
  EXPECT_TRUE(a.words[0].target.empty());
  EXPECT_TRUE(a.regions.empty());  // nothing relocated: nothing to capture
  EXPECT_TRUE(a.hasAmbiguous());
  ASSERT_EQ(a.notes.size(), 1u);
  EXPECT_EQ(a.notes[0].rfind("warning: p0:", 0), 0u) << a.notes[0];
  EXPECT_NE(a.notes[0].find("+0 = 0x7f0000000333"), std::string::npos) << a.notes[0];
}

TEST(ParamPointers, PointersIntoTheMiddleOfAnAllocation) {
  Table t{{{A, 4096}}};
  // A view (A + 256) in the struct and a top-level pointer at A + 1024: one
  // tensor for the allocation, from the lowest address either uses.
  Bytes s(16);
  s.word(0, A + 256).word(8, A + 2048);
  const std::vector<PointerParam> top = {{"p1", A + 1024, {A, 4096}}};
  const PointerPlan p = planParamPointers({{"p0", s.b}}, top, t.lookup());
  ASSERT_EQ(p.regions.size(), 1u);
  EXPECT_EQ(p.regions[0].start, A + 256);
  EXPECT_EQ(p.regions[0].bytes(), 4096u - 256u);
  EXPECT_EQ(wordAt(p, "p0", 0)->delta, 0);
  EXPECT_EQ(wordAt(p, "p0", 8)->delta, 2048 - 256);
  ASSERT_EQ(p.rebased.size(), 1u);
  EXPECT_EQ(p.rebased[0].param, "p1");
  EXPECT_EQ(p.rebased[0].target, "m0");
  EXPECT_EQ(p.rebased[0].delta, 1024 - 256);

  // A top-level pointer at the lowest address is the tensor itself.
  const std::vector<PointerParam> low = {{"p1", A + 128, {A, 4096}}};
  const PointerPlan q = planParamPointers({{"p0", s.b}}, low, t.lookup());
  EXPECT_TRUE(q.regions.empty());
  EXPECT_TRUE(q.rebased.empty());
  EXPECT_EQ(wordAt(q, "p0", 0)->target, "p1");
  EXPECT_EQ(wordAt(q, "p0", 0)->delta, 128);
  EXPECT_EQ(wordAt(q, "p0", 0)->cls, PointerWordClass::pointer);  // corroborated by p1
}

TEST(ParamPointers, MisalignedWordsAreNotLookedAt) {
  Table t{{{A, 4096}}};
  // struct __attribute__((packed)) { int n; float* x; }: the pointer at +4.
  Bytes s(16);
  s.i32(0, 7);
  const std::uint64_t v = A;
  std::memcpy(s.b.data() + 4, &v, 8);
  const PointerPlan p = planParamPointers({{"p0", s.b}}, {}, t.lookup());
  EXPECT_TRUE(p.words.empty());
  // A 12-byte parameter: the tail after the last whole word is not a word.
  Bytes tail(12);
  tail.word(0, 5);
  std::memcpy(tail.b.data() + 8, &v, 4);
  EXPECT_TRUE(planParamPointers({{"p0", tail.b}}, {}, t.lookup()).words.empty());
}

TEST(ParamPointers, OnePastTheEndAndFreedMemoryStayIntegers) {
  Table t{{{A, 4096}}};
  Bytes s(16);
  s.word(0, A + 4096).word(8, C);  // the end of A; C is not live
  EXPECT_TRUE(planParamPointers({{"p0", s.b}}, {}, t.lookup()).words.empty());
}

TEST(ParamPointers, SeveralParametersShareRegions) {
  Table t{{{A, 4096}, {B, 4096}}};
  Bytes s0(16), s1(16);
  s0.word(0, A).word(8, B + 512);
  s1.word(0, B + 512).word(8, A + 8);
  const PointerPlan p = planParamPointers({{"p0", s0.b}, {"p2", s1.b}}, {}, t.lookup());
  ASSERT_EQ(p.words.size(), 4u);
  for (const PointerWord& w : p.words) EXPECT_EQ(w.cls, PointerWordClass::pointer) << w.param << w.offset;
  ASSERT_EQ(p.regions.size(), 2u);
  EXPECT_EQ(wordAt(p, "p2", 0)->target, wordAt(p, "p0", 8)->target);
  EXPECT_EQ(wordAt(p, "p2", 8)->target, wordAt(p, "p0", 0)->target);
  EXPECT_EQ(wordAt(p, "p2", 8)->delta, 8);
}

// The bytes saved before a pointer start on the program's 256-byte boundary,
// so the replay keeps the pointer's address modulo 256 (docs/capture.md,
// "Where a pointer points").
TEST(ParamPointers, LeadKeepsTheAddressModulo256) {
  const std::uint64_t base = 0x7f0000000000;
  EXPECT_EQ(leadBytesFor(base, base), 0u);            // at the allocation's start: nothing before
  EXPECT_EQ(leadBytesFor(base + 4, base), 4u);        // `in + 1` of a float buffer
  EXPECT_EQ(leadBytesFor(base + 4096, base), 4096u);  // a view one row in: all of it
  // Beyond the cap: the most below it that still starts on a 256-byte boundary.
  const std::uint64_t far = base + (std::uint64_t(3) << 20) + 20;
  const std::uint64_t lead = leadBytesFor(far, base);
  EXPECT_LE(lead, kMaxLeadBytes);
  EXPECT_GT(lead, kMaxLeadBytes - 256);
  EXPECT_EQ((far - lead) % 256, 0u);
  EXPECT_EQ(leadBytesFor(base + 1000, base, 300), 232u);  // 1000 % 256 = 232, the cap 300
  // An allocation off a 256-byte boundary: whatever lies before the pointer.
  EXPECT_EQ(leadBytesFor(base + 8 + 4, base + 8), 4u);
  EXPECT_EQ(leadBytesFor(base - 4, base), 0u);  // below the allocation: nothing
}

// Two top-level pointers into one allocation and no struct (cuDNN's
// compute_dot_do_o gets `buf` and `buf + 520192`): one tensor from the lower
// one, the other re-based onto it, so writes through one reach the other.
TEST(ParamPointers, TopLevelPointersSharingAnAllocationAreOneTensor) {
  const DeviceAllocation a{0x7f0000000000, 528576}, b{0x7f0000100000, 4096};
  const std::vector<PointerParam> top = {{"p2", a.base + 520192, a}, {"p3", a.base, a}, {"p4", b.base, b}};
  const PointerPlan p = planParamPointers({}, top, [](std::uint64_t) { return std::nullopt; });
  ASSERT_EQ(p.rebased.size(), 1u);
  EXPECT_EQ(p.rebased[0].param, "p2");
  EXPECT_EQ(p.rebased[0].target, "p3");
  EXPECT_EQ(p.rebased[0].delta, 520192);
  EXPECT_TRUE(p.regions.empty());
}

}  // namespace
