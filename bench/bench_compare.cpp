// Times scanOutput + compareOutputs on f32 outputs of 4096^2 and 16384^2 (1 GiB
// per tensor), the sizes a large GEMM produces: both must stay well under a second
// or two so that a capture's evidence does not dominate its run time.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "tilescope/analysis/compare.h"

using namespace tilescope;

namespace {

HostTensor filled(const char* name, std::int64_t n) {
  HostTensor t;
  t.name = name;
  t.dtype = DType::f32;
  t.shape = {n, n};
  t.bytes.resize(static_cast<std::size_t>(n * n) * 4);
  float* p = reinterpret_cast<float*>(t.bytes.data());
  for (std::int64_t i = 0; i < n * n; ++i) p[i] = static_cast<float>(i % 1009) * 0.01f;
  return t;
}

double seconds(std::chrono::steady_clock::time_point a) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
}

void bench(std::int64_t n) {
  const HostTensor ref = filled("ref", n);
  HostTensor out = ref;
  out.name = "C";
  float* p = reinterpret_cast<float*>(out.bytes.data());
  // A realistic failing output: the last tile row unwritten, a few wrong values.
  const auto sentinel = static_cast<std::uint32_t>(sentinelBits(DType::f32));
  for (std::int64_t i = (n - 64) * n; i < n * n; ++i) std::memcpy(&p[i], &sentinel, 4);
  for (std::int64_t i = 0; i < n * n; i += 999983) p[i] += 1.0f;

  const std::clock_t c0 = std::clock();
  auto t0 = std::chrono::steady_clock::now();
  const ScanResult scan = scanOutput(out, sentinel, {128, 128}, &ref);
  const double tScan = seconds(t0);
  auto t1 = std::chrono::steady_clock::now();
  const CompareResult cmp = compareOutputs(out, ref, 1e-3, 1e-3, {128, 128}, &scan);
  const double tCmp = seconds(t1);
  const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  std::printf(
      "%6lld^2 f32: scan %.3f s, compare %.3f s, total %.3f s wall, %.3f s CPU (%.2f GB/s of out+ref per "
      "pass, by CPU time); "
      "unwritten %lld, mismatches %lld, findings %zu+%zu\n",
      static_cast<long long>(n), tScan, tCmp, tScan + tCmp, cpu,
      2.0 * static_cast<double>(n * n) * 4 / (cpu / 2) / 1e9, static_cast<long long>(scan.coverage.unwritten),
      static_cast<long long>(cmp.info.mismatches), scan.findings.size(), cmp.findings.size());
}

}  // namespace

int main() {
  bench(4096);
  bench(16384);
  return 0;
}
