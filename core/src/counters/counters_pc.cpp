// PC samples folded to source lines, and the sampling period for a kernel.
#include <algorithm>
#include <cmath>
#include <map>

#include "tilescope/counters/counters.h"

namespace tilescope {

std::string stallReasonName(const std::string& cuptiName) {
  static const std::string prefix = "smsp__pcsamp_warps_issue_stalled_";
  static const std::string notIssued = "_not_issued";
  std::string s = cuptiName.rfind(prefix, 0) == 0 ? cuptiName.substr(prefix.size()) : cuptiName;
  if (s.size() > notIssued.size() && s.compare(s.size() - notIssued.size(), notIssued.size(), notIssued) == 0)
    return "";
  return s;
}

namespace {

std::vector<StallCount> sorted(const std::map<std::string, std::int64_t>& m) {
  std::vector<StallCount> out;
  for (const auto& [reason, n] : m)
    if (n > 0) out.push_back({reason, n});
  std::stable_sort(out.begin(), out.end(),
                   [](const StallCount& a, const StallCount& b) { return a.samples > b.samples; });
  return out;
}

}  // namespace

PcSamplingInfo foldPcSamples(const std::vector<PcSample>& samples, const std::string& function,
                             const LineTable& table, int maxLines) {
  PcSamplingInfo info;
  info.collected = true;
  struct Acc {
    std::int64_t samples = 0;
    std::map<std::string, std::int64_t> stalls;
  };
  std::map<std::pair<std::string, int>, Acc> lines;
  std::map<std::uint64_t, Acc> pcs;
  std::map<std::string, std::int64_t> total;
  for (const PcSample& s : samples) {
    if (s.function != function) continue;
    std::int64_t n = 0;
    for (const StallCount& c : s.stalls) {
      if (c.reason.empty()) continue;
      n += c.samples;
      total[c.reason] += c.samples;
    }
    info.totalSamples += n;
    Acc& at = pcs[s.pcOffset];
    at.samples += n;
    for (const StallCount& c : s.stalls)
      if (!c.reason.empty()) at.stalls[c.reason] += c.samples;
    const LineRow* where = table.lookup(s.function, s.pcOffset);
    if (!where) {
      info.unmappedSamples += n;
      continue;
    }
    Acc& a = lines[{where->file, where->line}];
    a.samples += n;
    for (const StallCount& c : s.stalls)
      if (!c.reason.empty()) a.stalls[c.reason] += c.samples;
  }
  info.stalls = sorted(total);
  for (const auto& [key, a] : lines) {
    if (a.samples <= 0) continue;
    info.lines.push_back({key.first, key.second, a.samples, sorted(a.stalls)});
  }
  std::stable_sort(info.lines.begin(), info.lines.end(),
                   [](const HotLine& a, const HotLine& b) { return a.samples > b.samples; });
  if (maxLines >= 0 && info.lines.size() > std::size_t(maxLines)) info.lines.resize(std::size_t(maxLines));
  for (const auto& [offset, a] : pcs)
    if (a.samples > 0) info.pcs.push_back({function, offset, a.samples, sorted(a.stalls)});
  std::stable_sort(info.pcs.begin(), info.pcs.end(),
                   [](const HotPc& a, const HotPc& b) { return a.samples > b.samples; });
  if (info.pcs.size() > std::size_t(kMaxHotPcs)) info.pcs.resize(std::size_t(kMaxHotPcs));
  if (table.empty())
    info.note = "the kernel has no line table (compiled without -lineinfo): samples are per kernel only";
  return info;
}

int pcSamplingPeriodLog2(double kernelNs, double smClockMHz, int smCount, double targetSamples) {
  // Each SM takes one sample every 2^p of its cycles.
  const double cycles = kernelNs * 1e-9 * smClockMHz * 1e6 * std::max(smCount, 1);
  if (!(cycles > 0) || !(targetSamples > 0)) return 5;
  const int p = static_cast<int>(std::floor(std::log2(cycles / targetSamples)));
  return std::clamp(p, 5, 24);
}

}  // namespace tilescope
