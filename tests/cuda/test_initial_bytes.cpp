// A tensor's initial bytes (tensors.h initialBytes): generated once per process
// and kept for later captures (a warm worker's sweep points share their inputs),
// keyed by everything that decides the bytes. No GPU needed.
#include <gtest/gtest.h>

#include "tilescope/config/config.h"
#include "tilescope/cuda/tensors.h"

using namespace tilescope;
using namespace tilescope::cuda;

namespace {

Config gemm(int seedA, int n) {
  nlohmann::json doc = {
      {"schema", "tilescope.config/1"},
      {"name", "t"},
      {"kernel", {{"source", "gemm_tiled.cu"}, {"entry", "gemm_tiled"}}},
      {"params", {{"N", n}}},
      {"tensors",
       {{"A", {{"dtype", "f16"}, {"shape", {"N", "N"}}, {"init", "randn"}, {"seed", seedA}}},
        {"B", {{"dtype", "f32"}, {"shape", {"N", "N"}}, {"init", "randn"}, {"seed", 7}}},
        {"C", {{"dtype", "f32"}, {"shape", {"N", "N"}}, {"output", true}}}}},
      {"args", {"A", "B", "C"}},
      {"launch", {{"grid", {1, 1, 1}}, {"block", {32, 1, 1}}}}};
  return parseConfig(doc, std::string(TILESCOPE_SOURCE_DIR) + "/kernels/gemm");
}

std::vector<std::uint8_t> bytesOf(const Config& cfg, const std::string& name, int variant = 0,
                                  bool* sentinel = nullptr) {
  const ResolvedPoint rp = resolvePoint(cfg);
  bool used = false;
  std::uint64_t value = 0;
  auto b = initialBytes(cfg, *rp.tensor(name), variant, &used, &value);
  if (sentinel) *sentinel = used;
  return *b;
}

TEST(InitialBytes, AKeptTensorIsTheSameBytesAsAFreshOne) {
  const Config cfg = gemm(1, 64);
  const auto first = bytesOf(cfg, "A");
  const auto again = bytesOf(gemm(1, 64), "A");  // another config object, the same tensor: from the cache
  ASSERT_EQ(first.size(), 64u * 64u * 2u);
  EXPECT_EQ(first, again);
}

TEST(InitialBytes, AKeptTensorIsSharedNotCopied) {
  const Config cfg = gemm(3, 64);
  const ResolvedPoint rp = resolvePoint(cfg);
  bool used = false;
  std::uint64_t value = 0;
  const auto first = initialBytes(cfg, *rp.tensor("B"), 0, &used, &value);
  const auto again = initialBytes(cfg, *rp.tensor("B"), 0, &used, &value);
  ASSERT_TRUE(first && again);
  EXPECT_EQ(first.get(), again.get());  // one buffer: a point costs no copy of its inputs
  EXPECT_NE(first.get(), initialBytes(cfg, *rp.tensor("A"), 0, &used, &value).get());
}

TEST(InitialBytes, EveryPartOfTheKeyChangesTheBytes) {
  const auto a1 = bytesOf(gemm(1, 64), "A");
  EXPECT_NE(a1, bytesOf(gemm(2, 64), "A")) << "another seed";
  EXPECT_NE(a1.size(), bytesOf(gemm(1, 32), "A").size()) << "another shape";
  EXPECT_NE(bytesOf(gemm(7, 64), "A").size(), bytesOf(gemm(7, 64), "B").size()) << "another dtype";
  bool s0 = false, s1 = false;
  const auto c0 = bytesOf(gemm(1, 64), "C", 0, &s0);
  const auto c1 = bytesOf(gemm(1, 64), "C", 1, &s1);
  EXPECT_TRUE(s0 && s1) << "an output without init starts as the sentinel";
  EXPECT_NE(c0, c1) << "the sentinel variant is part of the key";
  EXPECT_EQ(c1, bytesOf(gemm(1, 64), "C", 1)) << "and a kept sentinel comes back with it";
}

}  // namespace
