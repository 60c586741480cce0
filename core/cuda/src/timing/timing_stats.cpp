// Summary statistics of timing samples (pure arithmetic; tested without a GPU).
#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>

#include "tilescope/cuda/timing.h"

namespace tilescope::cuda {
namespace {

double quantile(const std::vector<double>& sorted, double q) {
  double pos = q * static_cast<double>(sorted.size() - 1);
  auto lo = static_cast<std::size_t>(std::floor(pos));
  std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

}  // namespace

Stats summarize(std::vector<double> samples) {
  Stats s;
  s.n = static_cast<int>(samples.size());
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.median = quantile(samples, 0.5);
  s.p10 = quantile(samples, 0.1);
  s.p90 = quantile(samples, 0.9);
  s.min = samples.front();
  s.max = samples.back();
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
  return s;
}

double coefficientOfVariation(const std::vector<double>& samples) {
  if (samples.size() < 2) return 0;
  double mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
  if (mean <= 0) return 0;
  double ss = 0;
  for (double x : samples) ss += (x - mean) * (x - mean);
  return std::sqrt(ss / static_cast<double>(samples.size() - 1)) / mean;
}

double medianRelNoise(const std::vector<double>& samples) {
  if (samples.size() < 2) return INFINITY;
  return std::sqrt(std::numbers::pi / 2) * coefficientOfVariation(samples) /
         std::sqrt(static_cast<double>(samples.size()));
}

}  // namespace tilescope::cuda
