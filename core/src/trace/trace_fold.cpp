// Folding the trace's aggregates: per-line counters, footprint maps, bank
// conflicts and shared-memory hazards as findings.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "trace_detail.h"

namespace tilescope {

using namespace trace_detail;

std::pair<int, int> footprintFold(std::int64_t cellRows, std::int64_t cellCols, std::size_t cells) {
  std::int64_t fh = 1, fw = 1;
  const std::int64_t limit = std::int64_t(std::max<std::size_t>(cells, 1));
  while (((cellRows + fh - 1) / fh) * ((cellCols + fw - 1) / fw) > limit) {
    if ((cellCols + fw - 1) / fw >= (cellRows + fh - 1) / fh)
      fw *= 2;
    else
      fh *= 2;
  }
  return {int(fh), int(fw)};
}

std::pair<int, int> sharedWavefronts(const std::array<std::uint32_t, 32>& offsets, std::uint32_t activeMask,
                                     std::uint32_t size) {
  // Phases of 128 bytes' worth of lanes; per phase, the bank holding the most
  // distinct words (of the access's width, 4 bytes at least) sets the wavefronts.
  const std::uint32_t unit = std::max<std::uint32_t>(size, 4);
  const std::uint32_t banks = 128 / unit;
  std::map<std::uint32_t, std::map<std::uint32_t, std::set<std::uint32_t>>>
      perPhase;  // phase -> bank -> words
  for (std::uint32_t lane = 0; lane < 32; ++lane) {
    if (!(activeMask >> lane & 1u)) continue;
    const std::uint32_t word = offsets[lane] / unit;
    perPhase[lane / banks][word % banks].insert(word);
  }
  int waves = 0;
  for (const auto& [phase, bankWords] : perPhase) {
    std::size_t worst = 0;
    for (const auto& [bank, words] : bankWords) worst = std::max(worst, words.size());
    waves += int(worst);
  }
  return {waves, int(perPhase.size())};
}

namespace trace_detail {

std::vector<TraceLine> foldLines(const TraceCapture& c, const LineTable& lines, const std::string& source) {
  std::map<std::tuple<std::string, int, std::string, std::uint64_t>, TraceLine> byLine;
  for (const TracePc& p : c.pcs) {
    const TraceSite s = siteOf(c, lines, p.pc, source);
    // Instructions without a line stay apart (keyed by their offset).
    auto key = s.line > 0 ? std::make_tuple(s.file, s.line, std::string(), std::uint64_t(0))
                          : std::make_tuple(std::string(), 0, s.function, s.sassOffset);
    TraceLine& l = byLine[key];
    l.file = s.line > 0 ? s.file : "";
    l.line = s.line;
    l.sassOffsets.push_back(s.sassOffset);
    l.executions += p.execs;
    l.accesses += p.threads;
    l.bytes += p.bytes;
    l.faults += p.faults;
    l.uninit += p.uninit;
    l.hazards += p.hazards;
    l.wavefronts += p.wavefronts;
    l.ideal += p.ideal;
    l.maxWays = std::max(l.maxWays, p.maxWays);
    l.read = l.read || (p.flags & 0x1);
    l.write = l.write || (p.flags & 0x2);
    l.atomic = l.atomic || (p.flags & 0x4);
    const std::pair<std::uint32_t, const char*> spaces[] = {
        {0x10, "global"},    {0x20, "shared"},  {0x40, "local"}, {0x80, "barrier"},
        {0x200, "cp.async"}, {0x400, "matrix"}, {0x800, "bulk"}};
    for (const auto& [bit, name] : spaces)
      if ((p.flags & bit) && std::find(l.spaces.begin(), l.spaces.end(), name) == l.spaces.end())
        l.spaces.push_back(name);
  }
  std::vector<TraceLine> out;
  for (auto& [k, l] : byLine) {
    std::sort(l.sassOffsets.begin(), l.sassOffsets.end());
    out.push_back(std::move(l));
  }
  return out;
}

namespace {

// Merges cells into blocks of fh x fw: the lowest of the minima, the highest of the maxima.
void downsample(const TraceTensor& t, int fh, int fw, TraceFootprint* fp) {
  fp->cellRows = (t.cellRows + fh - 1) / fh;
  fp->cellCols = (t.cellCols + fw - 1) / fw;
  const std::size_t n = std::size_t(fp->cellRows * fp->cellCols);
  fp->readMin.assign(n, -1), fp->readMax.assign(n, -1), fp->writeMin.assign(n, -1),
      fp->writeMax.assign(n, -1);
  auto lower = [](std::int64_t& dst, std::int64_t v) {
    if (v >= 0 && (dst < 0 || v < dst)) dst = v;
  };
  auto higher = [](std::int64_t& dst, std::int64_t v) {
    if (v >= 0 && v > dst) dst = v;
  };
  for (std::int64_t r = 0; r < t.cellRows; ++r)
    for (std::int64_t q = 0; q < t.cellCols; ++q) {
      const std::size_t src = std::size_t(r * t.cellCols + q);
      const std::size_t dst = std::size_t((r / fh) * fp->cellCols + q / fw);
      if (src >= t.readMin.size()) continue;
      lower(fp->readMin[dst], t.readMin[src]);
      higher(fp->readMax[dst], t.readMax[src]);
      lower(fp->writeMin[dst], t.writeMin[src]);
      higher(fp->writeMax[dst], t.writeMax[src]);
    }
}

std::vector<TraceCtaBox> boxes(const std::vector<TraceTensor::Box>& in, std::size_t limit,
                               std::int64_t* total) {
  std::vector<TraceCtaBox> out;
  for (std::size_t cta = 0; cta < in.size(); ++cta) {
    const auto& b = in[cta];
    if (b.count <= 0) continue;
    ++*total;
    if (out.size() < limit)
      out.push_back({std::int64_t(cta), b.rowMin, b.rowMax, b.colMin, b.colMax, b.count});
  }
  return out;
}

}  // namespace

std::vector<TraceFootprint> footprints(const TraceCapture& c, std::size_t cells, std::size_t ctas) {
  std::vector<TraceFootprint> out;
  for (const TraceTensor& t : c.tensors) {
    if (t.readMin.empty() && t.readBoxes.empty()) continue;
    TraceFootprint fp;
    fp.tensor = t.name;
    fp.shape = t.shape;
    fp.pitch = t.pitch;
    fp.rows = t.rows;
    // Device cells measured at element level count writers exactly (the device
    // counted them itself when it folded the map before the copy back); the
    // report keeps at most `cells` cells.
    if (t.deviceCounts) {
      fp.cellsRead = t.deviceCounts->read;
      fp.cellsWritten = t.deviceCounts->written;
      fp.cellsMultiWriter = t.deviceCounts->multiWriter;
    } else {
      for (std::size_t i = 0; i < t.writeMin.size(); ++i) {
        if (t.writeMin[i] >= 0) ++fp.cellsWritten;
        if (t.readMin[i] >= 0) ++fp.cellsRead;
        if (t.writeMin[i] >= 0 && t.writeMin[i] != t.writeMax[i]) ++fp.cellsMultiWriter;
      }
    }
    const auto [fh, fw] = footprintFold(t.cellRows, t.cellCols, cells);
    downsample(t, fh, fw, &fp);
    fp.cellH = t.cellH * fh;
    fp.cellW = t.cellW * fw;
    fp.exact = fp.cellH == 1 && fp.cellW == 1;
    std::int64_t totalR = 0, totalW = 0;
    fp.readBoxes = boxes(t.readBoxes, ctas, &totalR);
    fp.writeBoxes = boxes(t.writeBoxes, ctas, &totalW);
    fp.ctasTotal = std::max(totalR, totalW);
    fp.ctasListed = std::int64_t(std::max(fp.readBoxes.size(), fp.writeBoxes.size()));
    out.push_back(std::move(fp));
  }
  return out;
}

std::optional<Finding> bankConflictFinding(const TraceInfo& info, double threshold) {
  const auto& n = info.counts;
  if (n.sharedIdeal == 0 || double(n.sharedWavefronts - n.sharedIdeal) < threshold * double(n.sharedIdeal))
    return std::nullopt;
  std::vector<const TraceLine*> worst;
  for (const TraceLine& l : info.lines)
    if (l.wavefronts > l.ideal) worst.push_back(&l);
  std::sort(worst.begin(), worst.end(), [](const TraceLine* a, const TraceLine* b) {
    return a->wavefronts - a->ideal > b->wavefronts - b->ideal;
  });
  if (worst.size() > 5) worst.resize(5);
  Finding f;
  f.category = "bank_conflicts";
  f.severity = Severity::warning;
  f.treeNode = "perf.bank_conflicts";
  char avg[32];
  std::snprintf(avg, sizeof avg, "%.2f", double(n.sharedWavefronts) / double(n.sharedIdeal));
  f.message = "shared-memory bank conflicts: the shared accesses took " + std::to_string(n.sharedWavefronts) +
              " wavefronts where " + std::to_string(n.sharedIdeal) + " would do (" + avg + " on average)";
  nlohmann::json lines = nlohmann::json::array();
  for (const TraceLine* l : worst) {
    char ways[32];
    std::snprintf(ways, sizeof ways, "%.1f",
                  double(l->wavefronts) / double(std::max<std::uint64_t>(l->ideal, 1)));
    lines.push_back({{"file", l->file},
                     {"line", l->line},
                     {"max_ways", l->maxWays},
                     {"average_ways", ways},
                     {"extra_wavefronts", l->wavefronts - l->ideal}});
  }
  if (!worst.empty()) {
    const TraceLine& w = *worst.front();
    f.message +=
        "; worst: " + (w.line > 0 ? w.file + ":" + std::to_string(w.line) : std::string("an instruction")) +
        ", " + std::to_string(w.maxWays) + "-way";
    f.location.file = w.file;
    f.location.line = w.line;
  }
  f.evidence = {{"source", "trace"},
                {"wavefronts", n.sharedWavefronts},
                {"ideal", n.sharedIdeal},
                {"worst_lines", lines}};
  return f;
}

std::optional<Finding> raceFinding(const TraceInfo& info) {
  if (info.hazards.empty()) return std::nullopt;
  const TraceHazardInfo& h = info.hazards.front();
  std::uint64_t total = 0;
  nlohmann::json pairs = nlohmann::json::array();
  for (const TraceHazardInfo& x : info.hazards) {
    total += x.count;
    if (pairs.size() < 8)
      pairs.push_back({{"kind", x.kind},
                       {"first", toJson(siteLocation(x.first))},
                       {"second", toJson(siteLocation(x.second))},
                       {"count", x.count}});
  }
  const char* firstWhat = h.kind == "WAR" ? "read" : "write";
  const char* secondWhat = h.kind == "RAW" ? "read" : "write";
  Finding f;
  f.category = "race";
  f.detail = "shared_hazard";
  f.severity = Severity::error;
  f.treeNode = "fault.race.missing_barrier";
  f.message = "shared-memory hazard (" + h.kind + "): a " + firstWhat + " at " + siteText(h.first) +
              " by thread " + dim3Text(h.firstThread) + " and a " + secondWhat + " of the same address at " +
              siteText(h.second) + " by thread " + dim3Text(h.secondThread) + " of block " +
              dim3Text(h.block) + " with no barrier between them (" + std::to_string(total) + " hazards, " +
              std::to_string(info.hazards.size()) + " instruction pair" +
              (info.hazards.size() == 1 ? "" : "s") + ")";
  // Where the second access collided with the first; both sites with their threads.
  Location first = siteLocation(h.first), second = siteLocation(h.second);
  first.thread = {h.firstThread[0], h.firstThread[1], h.firstThread[2]};
  second.thread = {h.secondThread[0], h.secondThread[1], h.secondThread[2]};
  f.location = second;
  f.location.block = {h.block[0], h.block[1], h.block[2]};
  f.location.extra["first"] = toJson(first);
  f.location.extra["second"] = toJson(second);
  f.location.extra["shared_offset"] = h.sharedOffset;
  f.evidence = {{"source", "trace"}, {"hazards", total}, {"pairs", pairs}};
  if (info.counts.mbarrierOps > 0) {
    // The kernel orders shared memory with mbarriers (cuda::barrier, TMA and
    // wgmma pipelines: cuDNN's and CUTLASS's Hopper kernels), which the
    // tracker does not follow: an unordered pair is a lead, not proof.
    f.severity = Severity::warning;
    f.detail = "shared_hazard_unproven";
    f.message = "unproven " + f.message + ": the kernel also synchronises through mbarriers (" +
                std::to_string(info.counts.mbarrierOps) +
                " warp-wide operations), which the hazard tracker does not follow; run compute-sanitizer "
                "--tool racecheck to decide";
    f.evidence["mbarrier_ops"] = info.counts.mbarrierOps;
  }
  return f;
}

}  // namespace trace_detail
}  // namespace tilescope
