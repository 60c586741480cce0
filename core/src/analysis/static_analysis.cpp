#include "tilescope/analysis/static_analysis.h"

#include "tilescope/analysis/occupancy.h"
#include "tilescope/analysis/tiles.h"
#include "tilescope/base/expr.h"
#include "tilescope/base/format.h"

namespace tilescope {
namespace {

using nlohmann::json;

Location launchLocation(const LaunchInfo& l) {
  Location loc;
  loc.launch = launchGeometry(l);
  return loc;
}

Finding finding(const char* category, Severity sev, std::string message, const char* node, json evidence,
                Location location = {}) {
  Finding f;
  f.category = category;
  f.severity = sev;
  f.message = std::move(message);
  f.treeNode = node;
  f.evidence = std::move(evidence);
  f.location = std::move(location);
  return f;
}

LaunchInfo evalLaunch(const Config& c, const SymbolTable& s) {
  LaunchInfo l;
  auto ev = [&](const std::vector<std::string>& e, int i, const std::string& path) -> std::int64_t {
    if (i >= int(e.size())) return 1;
    try {
      return evalInt(e[i], s);
    } catch (const std::exception& ex) {
      throw ConfigError(path + "[" + std::to_string(i) + "]", ex.what());
    }
  };
  for (int i = 0; i < 3; ++i) {
    l.grid[i] = ev(c.launch.grid, i, "launch.grid");
    l.block[i] = ev(c.launch.block, i, "launch.block");
  }
  l.sharedBytes = ev({c.launch.sharedBytes}, 0, "launch.shared_bytes");
  return l;
}

// invalid_launch: the limits cudaLaunchKernel checks (cudaErrorInvalidConfiguration).
bool checkLaunch(const LaunchInfo& l, const DeviceSpec& dev, std::vector<Finding>& out) {
  std::vector<std::string> why;
  const char* axis[3] = {"x", "y", "z"};
  // Saturating: each dimension may be up to 2^53, their product would overflow.
  const std::int64_t threads = mulSaturating(mulSaturating(l.block[0], l.block[1]), l.block[2]);
  for (int i = 0; i < 3; ++i) {
    if (l.grid[i] < 1) why.push_back(std::string("grid.") + axis[i] + " is " + std::to_string(l.grid[i]));
    if (l.block[i] < 1) why.push_back(std::string("block.") + axis[i] + " is " + std::to_string(l.block[i]));
    if (l.grid[i] > dev.maxGridDim[i])
      why.push_back(std::string("grid.") + axis[i] + " = " + std::to_string(l.grid[i]) + " exceeds " +
                    std::to_string(dev.maxGridDim[i]));
    if (l.block[i] > dev.maxBlockDim[i])
      why.push_back(std::string("block.") + axis[i] + " = " + std::to_string(l.block[i]) + " exceeds " +
                    std::to_string(dev.maxBlockDim[i]));
  }
  if (threads > dev.maxThreadsPerBlock)
    why.push_back(std::to_string(threads) + " threads per block exceed " +
                  std::to_string(dev.maxThreadsPerBlock));
  if (l.sharedBytes < 0) why.push_back("shared_bytes is negative");
  if (why.empty()) return true;
  std::string msg = "launch configuration invalid on " + dev.name + ": ";
  for (std::size_t i = 0; i < why.size(); ++i) msg += (i ? "; " : "") + why[i];
  out.push_back(finding("invalid_launch", Severity::error, msg, "launch.invalid_config",
                        {{"grid", l.grid},
                         {"block", l.block},
                         {"threads_per_block", threads},
                         {"max_threads_per_block", dev.maxThreadsPerBlock},
                         {"max_block_dim", dev.maxBlockDim},
                         {"max_grid_dim", dev.maxGridDim},
                         {"problems", why}},
                        launchLocation(l)));
  return false;
}

/// `launcherOptsIn`: Triton's and TileLang's launchers raise the limit
/// themselves, and so did a captured program's (`launch.shared_opt_in`);
/// other CUDA C++ host code must call cudaFuncSetAttribute.
void checkSmem(std::int64_t smemStatic, std::int64_t dynamic, const DeviceSpec& dev, bool launcherOptsIn,
               std::vector<Finding>& out) {
  // Both are below 2^53 (expressions and compiler output), so the sum cannot overflow.
  const std::int64_t total = smemStatic + dynamic;
  const json ev{{"smem_static", smemStatic},
                {"smem_dynamic", dynamic},
                {"smem_total", total},
                {"smem_per_block", dev.smemPerBlock},
                {"smem_per_block_optin", dev.smemPerBlockOptin},
                {"device", dev.key}};
  if (total > dev.smemPerBlockOptin) {
    out.push_back(finding("smem_exceeded", Severity::error,
                          "shared memory per block " + std::to_string(total) + " B (static " +
                              std::to_string(smemStatic) + " + dynamic " + std::to_string(dynamic) +
                              ") exceeds " + dev.name + "'s limit of " +
                              std::to_string(dev.smemPerBlockOptin) + " B even with opt-in",
                          "launch.smem_exceeded", ev));
  } else if (total > dev.smemPerBlock && launcherOptsIn) {
    out.push_back(finding("smem_opt_in", Severity::info,
                          "shared memory per block " + std::to_string(total) +
                              " B is above the default 48 KiB; the kernel's launcher raises the limit (" +
                              dev.name + " allows up to " + std::to_string(dev.smemPerBlockOptin) + " B)",
                          "launch.smem_exceeded", ev));
  } else if (total > dev.smemPerBlock) {
    out.push_back(finding("smem_exceeded", Severity::warning,
                          "shared memory per block " + std::to_string(total) +
                              " B is above the default 48 KiB: the launch "
                              "fails unless the kernel opts in with cudaFuncSetAttribute(kernel, "
                              "cudaFuncAttributeMaxDynamicSharedMemorySize, " +
                              std::to_string(dynamic) + ") (" + dev.name + " allows up to " +
                              std::to_string(dev.smemPerBlockOptin) + " B)",
                          "launch.smem_exceeded", ev));
  }
}

void addCoverage(const TileCoverage& tc, Point& p) {
  CoverageInfo c;
  c.tensor = tc.tensor();
  c.shape = tc.shape();
  c.elements = tc.elements();
  c.declaredCovered = tc.covered();
  c.declaredUncovered = tc.uncovered();
  c.declaredOverlapped = tc.overlapped();
  c.tile = tc.tileExtent();
  c.tilesTotal = tc.tilesTotal();
  c.tilesCrossing = tc.tilesCrossing();
  auto regionsJson = [](const std::vector<Region>& rs) {
    json a = json::array();
    for (const Region& r : rs) a.push_back({{"begin", r.begin}, {"extent", r.extent}});
    return a;
  };
  auto regionsAt = [](std::vector<Region> rs) {
    Location l;
    l.regions = std::move(rs);
    return l;
  };
  c.crossingTiles.emplace();
  for (const TileInfo& t : tc.crossingTiles(kListedTiles))
    c.crossingTiles->push_back({t.cta, t.origin, t.extent, t.inBoundsBegin, t.inBoundsExtent});
  const std::vector<Region> gaps = tc.gapRegions(kListedTiles);
  const std::vector<Region> overlaps = tc.overlapRegions(kListedTiles);
  c.extra = {{"method", tc.method()},
             {"affine", tc.affine()},
             {"grid", tc.grid()},
             {"gap_regions", regionsJson(gaps)},
             {"overlap_regions", regionsJson(overlaps)}};
  const json ev{{"elements", c.elements},
                {"uncovered", c.declaredUncovered},
                {"overlapped", c.declaredOverlapped},
                {"tile", c.tile},
                {"grid", tc.grid()},
                {"shape", c.shape}};
  if (c.declaredUncovered > 0) {
    Finding f =
        finding("coverage_gap", Severity::error,
                std::to_string(c.declaredUncovered) + " of " + std::to_string(c.elements) + " elements of " +
                    c.tensor + " are in no declared tile: the grid does not cover the tensor",
                "wrong.coverage_gap", ev, regionsAt(gaps));
    f.tensor = c.tensor;
    p.findings.push_back(f);
  }
  if (c.declaredOverlapped > 0) {
    Finding f = finding("coverage_overlap", Severity::error,
                        std::to_string(c.declaredOverlapped) + " elements of " + c.tensor +
                            " are in more than one declared tile (CTAs write them twice)",
                        "wrong.coverage_overlap", ev, regionsAt(overlaps));
    if (!overlaps.empty()) {
      for (const CtaIndex& cta : tc.ownersOf(overlaps.front().begin, 4))
        f.location.ctas.push_back({cta.begin(), cta.end()});
      if (!f.location.ctas.empty()) f.location.cta = f.location.ctas.front();
    }
    f.tensor = c.tensor;
    p.findings.push_back(f);
  }
  p.coverage.push_back(std::move(c));
}

}  // namespace

/// The tensors of a point against the device's memory (docs/security.md, "Denial of service": four 1 TiB
/// tensors were `ok` on an 80 GB device). Guard zones and the reference's own
/// buffers come on top, so only what cannot fit at all is an error.
void checkMemory(const Config& config, const DeviceSpec& dev, std::vector<Finding>& out) {
  if (dev.memoryBytes <= 0 || config.tensors.empty()) return;
  long double total = 0;
  json sizes = json::object();
  for (const ResolvedTensor& t : resolvePoint(config).tensors) {
    total += static_cast<long double>(t.bytes());
    sizes[t.spec->name] = t.bytes();
  }
  if (total <= static_cast<long double>(dev.memoryBytes)) return;
  out.push_back(
      finding("invalid_launch", Severity::error,
              "the tensors need " + formatBytes(double(total)) + ", more than the " +
                  formatBytes(double(dev.memoryBytes)) + " of device memory of " + dev.name +
                  " (the allocation would fail: cudaErrorMemoryAllocation)",
              "launch.out_of_memory",
              {{"tensor_bytes", double(total)}, {"memory_bytes", dev.memoryBytes}, {"tensors", sizes}}));
  out.back().detail = "out_of_memory";
}

Point analyzeStatic(const Config& config, const DeviceSpec& dev, const CompileInfo& compile) {
  Point p;
  p.label = config.name;
  p.defines = pointDefines(config);
  for (const auto& [name, v] : config.params) p.params[name] = v;
  p.compile = compile;
  const SymbolTable symbols = pointSymbols(config);
  p.launch = evalLaunch(config, symbols);
  const bool launchOk = checkLaunch(p.launch, dev, p.findings);
  checkMemory(config, dev, p.findings);

  const bool regsKnown = compile.attempted && compile.ok && compile.regs > 0;
  const std::int64_t smemStatic = compile.attempted && compile.smemStatic > 0 ? compile.smemStatic : 0;
  checkSmem(smemStatic, p.launch.sharedBytes, dev, config.kernel.isPython() || config.launch.sharedOptIn,
            p.findings);

  KernelResources k;
  k.threadsPerBlock = int(std::min<std::int64_t>(
      mulSaturating(mulSaturating(p.launch.block[0], p.launch.block[1]), p.launch.block[2]), 1 << 30));
  k.regsPerThread = regsKnown ? compile.regs : -1;
  k.smemStatic = smemStatic;
  k.smemDynamic = p.launch.sharedBytes;
  if (launchOk) {
    const OccupancyResult occ = computeOccupancy(dev, k);
    if (regsKnown && occ.limitRegs == 0) {
      p.findings.push_back(
          finding("too_many_resources", Severity::error,
                  std::to_string(compile.regs) + " registers x " + std::to_string(k.threadsPerBlock) +
                      " threads need " + std::to_string(occ.regsPerBlockAllocated) +
                      " registers per block, more than the " + std::to_string(dev.regsPerBlock) + " of " +
                      dev.name + " (cudaErrorLaunchOutOfResources)",
                  "launch.too_many_resources",
                  {{"regs_per_thread", compile.regs},
                   {"threads_per_block", k.threadsPerBlock},
                   {"regs_per_block_allocated", occ.regsPerBlockAllocated},
                   {"regs_per_block", dev.regsPerBlock},
                   {"regs_per_sm", dev.regsPerSm}}));
    }
    p.occupancy = toOccupancyInfo(dev, k);
    if (occ.blocksPerSm > 0 && occ.occupancy < kLowOccupancyThreshold) {
      p.findings.push_back(finding("low_occupancy", Severity::warning,
                                   "theoretical occupancy " + std::to_string(int(occ.occupancy * 100 + 0.5)) +
                                       "% (" + std::to_string(occ.warpsPerSm) + " of " +
                                       std::to_string(occ.maxWarpsPerSm) + " warps per SM), limited by " +
                                       occ.limiter,
                                   "perf.low_occupancy",
                                   {{"theoretical", occ.occupancy},
                                    {"limiter", occ.limiter},
                                    {"blocks_per_sm", occ.blocksPerSm},
                                    {"threshold", kLowOccupancyThreshold},
                                    {"limits",
                                     {{"warps", occ.limitWarps},
                                      {"registers", p.occupancy.blocksLimitRegs},
                                      {"shared_memory", p.occupancy.blocksLimitSmem},
                                      {"blocks", occ.limitSlots}}}}));
    }
  }
  if (compile.spillStores > 0 || compile.spillLoads > 0) {
    p.findings.push_back(
        finding("register_spill", Severity::warning,
                "the compiler spilled registers to local memory (" +
                    std::to_string(std::max<std::int64_t>(compile.spillStores, 0)) + " B stores, " +
                    std::to_string(std::max<std::int64_t>(compile.spillLoads, 0)) + " B loads)",
                "perf.register_spill",
                {{"spill_stores", compile.spillStores},
                 {"spill_loads", compile.spillLoads},
                 {"local_bytes", compile.localBytes},
                 {"regs", compile.regs}}));
  }
  if (launchOk && !config.tiles.empty()) {
    const ResolvedPoint resolved = resolvePoint(config);
    for (const TileCoverage& tc : analyzeTiles(config, resolved)) addCoverage(tc, p);
  }
  p.verdict = verdictForFindings(p.findings);
  return p;
}

}  // namespace tilescope
