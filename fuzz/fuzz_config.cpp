// Fuzzes the config loader and what `check` does with a config that loads:
// sweep expansion, point resolution, the static analysis (launch limits,
// occupancy, declared tile coverage) and the resolved document. Kernel sources
// and .npy files the zoo names are copied into a scratch folder once, so that
// mutants get past the file checks.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "fuzz_common.h"
#include "tilescope/analysis/locations.h"
#include "tilescope/analysis/static_analysis.h"
#include "tilescope/config/config.h"
#include "tilescope/model/devices.h"

using namespace tilescope;
namespace fs = std::filesystem;

namespace {

fs::path g_dir;
const DeviceSpec* g_device = nullptr;

/// The repository (the zoo's sources, tests/data): where the harness was built,
/// or TILESCOPE_SOURCE_DIR when it runs elsewhere (scripts/fuzz.sh sets it).
fs::path sourceDir() {
  const char* env = std::getenv("TILESCOPE_SOURCE_DIR");
  return env && *env ? fs::path(env) : fs::path(TILESCOPE_SOURCE_DIR);
}

/// scratch/zoo holds every kernel source and .npy file flat; scratch/<group>
/// the same, so that "../gemm/gemm_tiled.cu" resolves too.
void makeScratch() {
  char pattern[] = "/tmp/tilescope-fuzz-XXXXXX";
  const char* made = mkdtemp(pattern);
  if (!made) std::abort();
  const fs::path root(made);
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(sourceDir() / "kernels"))
    if (e.is_regular_file() && e.path().extension() == ".cu") files.push_back(e.path());
  for (const auto& e : fs::directory_iterator(sourceDir() / "tests" / "data" / "npy"))
    if (e.is_regular_file() && e.path().extension() == ".npy") files.push_back(e.path());
  for (const char* group : {"zoo", "gemm", "gate", "softmax", "attention", "static"}) {
    fs::create_directories(root / group);
    for (const auto& f : files)
      fs::copy_file(f, root / group / f.filename(), fs::copy_options::skip_existing);
  }
  g_dir = root / "zoo";
}

void checkPoint(const SweepPoint& sp) {
  (void)resolvePoint(sp.config);
  Point p = analyzeStatic(sp.config, *g_device, CompileInfo{});
  fillDefaultLocations(p, sp.config);
  (void)configToJson(sp.config).dump();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  makeScratch();
  static const DeviceDb db = DeviceDb::loadDefault();
  g_device = db.find("h100");
  if (!g_device) std::abort();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const Config c = parseConfigText(fuzz::text(data, size), g_dir, "fuzz.tscfg.json");
    const std::vector<SweepPoint> points = expandSweep(c);
    if (points.empty() || points.size() > ConfigLimits::kMaxSweepPoints) fuzz::violated("sweep size");
    // The first and the last point: the rest differ only in the values swept.
    checkPoint(points.front());
    if (points.size() > 1) checkPoint(points.back());
  } catch (const ConfigError& e) {
    if (e.problem.empty()) fuzz::violated("ConfigError without a problem");
    // Every error names where: a JSON path, line:col, or the top level when
    // the document itself is not an object.
    if (e.path.empty() && e.problem.rfind("expected an object", 0) != 0)
      fuzz::violated("ConfigError without a location: " + e.problem);
  }
  return 0;
}
