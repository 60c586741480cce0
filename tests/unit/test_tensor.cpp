// Half/bf16 conversions, element coding, sentinel and guard patterns (tensor.h).
#include <cmath>
#include <cstring>
#include <limits>

#include <gtest/gtest.h>

#include "tilescope/config/tensor.h"

using namespace tilescope;

namespace {
float fromBits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
std::uint32_t toBits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
}  // namespace

TEST(Half, EveryFiniteHalfRoundTripsExactly) {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const auto hh = static_cast<std::uint16_t>(h);
    if ((hh & 0x7C00) == 0x7C00 && (hh & 0x3FF)) continue;  // NaNs checked separately
    ASSERT_EQ(floatToHalf(halfToFloat(hh)), hh) << std::hex << h;
  }
}

TEST(Half, KnownValues) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xC000);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7BFF);
  EXPECT_FLOAT_EQ(halfToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24));     // smallest subnormal
  EXPECT_EQ(halfToFloat(0x03FF), std::ldexp(1023.0f, -24));  // largest subnormal
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -14)), 0x0400);     // smallest normal
}

TEST(Half, InfinityAndOverflow) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(floatToHalf(inf), 0x7C00);
  EXPECT_EQ(floatToHalf(-inf), 0xFC00);
  EXPECT_TRUE(std::isinf(halfToFloat(0x7C00)));
  EXPECT_EQ(floatToHalf(65519.0f), 0x7BFF);  // below the halfway point to 65536
  EXPECT_EQ(floatToHalf(65520.0f), 0x7C00);  // the tie rounds to even: inf
  EXPECT_EQ(floatToHalf(1e30f), 0x7C00);
}

TEST(Half, NaNStaysNaNAndKeepsPayload) {
  EXPECT_TRUE(std::isnan(halfToFloat(0x7E00)));
  EXPECT_TRUE(std::isnan(halfToFloat(0x7DBA)));
  EXPECT_EQ(floatToHalf(halfToFloat(0x7DBA)), 0x7DBA);  // a signalling payload survives
  // A float NaN whose payload lies only in the low 13 bits must not become inf.
  const std::uint16_t h = floatToHalf(fromBits(0x7F800001u));
  EXPECT_EQ(h & 0x7C00, 0x7C00);
  EXPECT_NE(h & 0x3FF, 0);
}

TEST(Half, RoundingTiesGoToEven) {
  // 1 + 2^-11 lies halfway between 1 (even mantissa) and 1 + 2^-10: rounds down.
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  // 1 + 3*2^-11 lies halfway between 1+2^-10 (odd) and 1+2^-9 (even): rounds up.
  EXPECT_EQ(floatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
  // Just above the tie rounds up.
  EXPECT_EQ(floatToHalf(fromBits(toBits(1.0f + std::ldexp(1.0f, -11)) + 1)), 0x3C01);
  // Subnormal ties: 0.5 * 2^-24 ties to 0, 1.5 * 2^-24 ties to 2 * 2^-24, 2.5 -> 2.
  EXPECT_EQ(floatToHalf(std::ldexp(0.5f, -24)), 0x0000);
  EXPECT_EQ(floatToHalf(std::ldexp(1.5f, -24)), 0x0002);
  EXPECT_EQ(floatToHalf(std::ldexp(2.5f, -24)), 0x0002);
  EXPECT_EQ(floatToHalf(std::ldexp(0.75f, -24)), 0x0001);
  EXPECT_EQ(floatToHalf(-std::ldexp(0.25f, -24)), 0x8000);  // keeps the sign of zero
  // The largest subnormal plus half a step rounds up into the smallest normal.
  EXPECT_EQ(floatToHalf(std::ldexp(1023.5f, -24)), 0x0400);
}

TEST(Half, MatchesDoubleRoundingReferenceOnSweep) {
  // Every float in a dense sweep must convert to the nearest half (ties even),
  // checked against a brute-force search over neighbouring halves.
  for (float f = -70000.0f; f < 70000.0f; f += 0.37f) {
    const std::uint16_t h = floatToHalf(f);
    const double err = std::fabs(static_cast<double>(halfToFloat(h)) - f);
    if (std::isinf(halfToFloat(h))) continue;
    for (int d : {-1, 1}) {
      const auto nb = static_cast<std::uint16_t>(h + d);
      const float nv = halfToFloat(nb);
      if (std::isnan(nv) || std::isinf(nv) || (nb & 0x7FFF) == 0x7FFF) continue;
      if ((nb ^ h) & 0x8000) continue;
      ASSERT_LE(err, std::fabs(static_cast<double>(nv) - f)) << f;
    }
  }
}

TEST(Bf16, RoundTripAndRounding) {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const auto hh = static_cast<std::uint16_t>(h);
    if ((hh & 0x7F80) == 0x7F80 && (hh & 0x7F)) continue;
    ASSERT_EQ(floatToBf16(bf16ToFloat(hh)), hh) << std::hex << h;
  }
  EXPECT_EQ(floatToBf16(1.0f), 0x3F80);
  // ties: 1 + 2^-8 is halfway between 1 (even) and 1 + 2^-7 -> 1
  EXPECT_EQ(floatToBf16(1.0f + std::ldexp(1.0f, -8)), 0x3F80);
  EXPECT_EQ(floatToBf16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3F82);
  EXPECT_EQ(floatToBf16(fromBits(0x7F7FFFFFu)), 0x7F80);  // FLT_MAX rounds to inf
  EXPECT_EQ(floatToBf16(fromBits(0x00010000u)), 0x0001);  // a float subnormal
  const std::uint16_t n = floatToBf16(fromBits(0x7F800001u));
  EXPECT_TRUE(std::isnan(bf16ToFloat(n)));
}

TEST(Element, EncodeDecodeEveryDtype) {
  std::uint8_t buf[8];
  for (DType t : {DType::f32, DType::f16, DType::bf16, DType::f64, DType::i32, DType::i64, DType::i8}) {
    encodeElement(t, -3.0, buf);
    EXPECT_EQ(decodeElement(t, buf), -3.0) << dtypeName(t);
  }
  encodeElement(DType::u8, 300.0, buf);  // saturates
  EXPECT_EQ(decodeElement(DType::u8, buf), 255.0);
  encodeElement(DType::i32, 2.5, buf);  // half-even
  EXPECT_EQ(decodeElement(DType::i32, buf), 2.0);
  encodeElement(DType::f16, 0.1, buf);
  EXPECT_NEAR(decodeElement(DType::f16, buf), 0.1, 1e-4);
}

TEST(HostTensor, StridedAccessAndBits) {
  HostTensor t;
  t.name = "T";
  t.dtype = DType::f32;
  t.shape = {2, 3};
  t.strides = {1, 2};  // column-major
  t.bytes.resize(6 * 4);
  for (int i = 0; i < 6; ++i) encodeElement(DType::f32, i, t.bytes.data() + 4 * i);
  EXPECT_EQ(t.elements(), 6);
  EXPECT_EQ(t.offsetOf(1), 2);  // (0,1) -> 0*1 + 1*2
  EXPECT_EQ(t.at(3), 1.0);      // (1,0) -> offset 1
  EXPECT_EQ(t.bitsAt(0), 0u);
  EXPECT_EQ(t.bitsAt(1), 0x40000000u);  // 2.0f
  EXPECT_THROW(HostTensor({"X", DType::f32, {4}, {}, std::vector<std::uint8_t>(8)}).at(3), std::out_of_range);
}

TEST(Patterns, SentinelIsANaNArithmeticCannotProduceAndThePoisonIsFinite) {
  for (DType t : {DType::f32, DType::f16, DType::bf16, DType::f64}) {
    std::uint8_t buf[8] = {};
    const std::uint64_t s0 = sentinelBits(t, 0), s1 = sentinelBits(t, 1);
    std::memcpy(buf, &s0, 8);
    EXPECT_TRUE(std::isnan(decodeElement(t, buf))) << dtypeName(t);
    // The second poison must be finite: NaN inputs all become one canonical NaN,
    // which would hide a dependence on the poison.
    std::memcpy(buf, &s1, 8);
    EXPECT_TRUE(std::isfinite(decodeElement(t, buf))) << dtypeName(t);
    EXPECT_NE(s0, s1);
  }
  // Signalling: quiet bit clear.
  EXPECT_EQ(sentinelBits(DType::f32, 0) & 0x00400000u, 0u);
  EXPECT_EQ(sentinelBits(DType::f16, 0) & 0x200u, 0u);
  EXPECT_EQ(sentinelBits(DType::bf16, 0) & 0x40u, 0u);
  EXPECT_EQ(sentinelBits(DType::i32, 0), 0xBABABABAu);
  EXPECT_NE(sentinelBits(DType::i32, 1), sentinelBits(DType::i32, 0));
}

TEST(Patterns, GuardBytesFormQuietNaNs) {
  for (DType t : {DType::f32, DType::f16, DType::bf16, DType::f64}) {
    std::uint8_t buf[8];
    const std::size_t sz = t == DType::f64 ? 8 : (t == DType::f32 ? 4 : 2);
    for (std::size_t i = 0; i < sz; ++i) buf[i] = guardByte(t, i);
    EXPECT_TRUE(std::isnan(decodeElement(t, buf))) << dtypeName(t);
    EXPECT_EQ(guardByte(t, 0), guardByte(t, sz));  // repeats per element
  }
  EXPECT_EQ(guardByte(DType::f32, 3), 0x7F);
  EXPECT_EQ(guardByte(DType::f32, 0), 0xAD);
  EXPECT_EQ(guardByte(DType::i32, 2), 0xA5);
}
