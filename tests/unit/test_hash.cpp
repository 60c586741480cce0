// tilescope/base/hash.h: FNV-1a 64 against the published test vectors, and the
// word-wise digest against a fold written out here.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tilescope/base/hash.h"

namespace tilescope {
namespace {

TEST(Hash, Fnv1aGivesThePublishedValues) {
  // Landon Curt Noll's FNV test vectors (FNV-1a, 64-bit).
  EXPECT_EQ(fnv1a(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(fnv1a("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(fnv1a("foobar"), 0x85944171f73967e8ull);
}

TEST(Hash, Fnv1aContinuesFromAnEarlierValue) {
  EXPECT_EQ(fnv1a("bar", fnv1a("foo")), fnv1a("foobar"));
  const std::string text = "foobar";
  EXPECT_EQ(fnv1aBytes(text.data(), text.size()), fnv1a(text));
  EXPECT_EQ(fnv1aBytes(text.data() + 3, 3, fnv1aBytes(text.data(), 3)), fnv1a(text));
}

TEST(Hash, WordsFoldEightBytesAtATimeThenTheTail) {
  std::vector<unsigned char> bytes(8 * 3 + 5);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(i * 37 + 11);
  std::uint64_t h = kFnv1aOffset;
  for (std::size_t w = 0; w < 3; ++w) {
    std::uint64_t word = 0;
    for (int b = 7; b >= 0; --b) word = (word << 8) | bytes[8 * w + std::size_t(b)];  // little-endian host
    h = (h ^ word) * kFnv1aPrime;
  }
  for (std::size_t i = 24; i < bytes.size(); ++i) h = (h ^ bytes[i]) * kFnv1aPrime;
  EXPECT_EQ(fnv1aWords(bytes.data(), bytes.size()), h);
  // Whole words only, and a tail only.
  EXPECT_EQ(fnv1aWords(bytes.data(), 3), fnv1aBytes(bytes.data(), 3));
  EXPECT_NE(fnv1aWords(bytes.data(), 16), fnv1aBytes(bytes.data(), 16));
  // One bit anywhere changes it.
  std::vector<unsigned char> flipped = bytes;
  flipped[13] ^= 0x10;
  EXPECT_NE(fnv1aWords(flipped.data(), flipped.size()), fnv1aWords(bytes.data(), bytes.size()));
}

}  // namespace
}  // namespace tilescope
