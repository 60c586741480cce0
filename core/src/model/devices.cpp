#include "tilescope/model/devices.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <stdexcept>

#include "tilescope/base/resources.h"

namespace tilescope {
namespace {

using nlohmann::json;

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

[[noreturn]] void fail(const std::string& origin, const std::string& where, const std::string& what) {
  throw std::runtime_error(origin + ": " + where + ": " + what);
}

// Reads the per-SM fields present in `j` into `d` (architecture defaults, then device overrides).
void readLimits(const json& j, DeviceSpec& d) {
  auto i64 = [&](const char* k, std::int64_t& v) {
    if (j.contains(k)) v = j.at(k).get<std::int64_t>();
  };
  auto i32 = [&](const char* k, int& v) {
    if (j.contains(k)) v = j.at(k).get<int>();
  };
  auto f64 = [&](const char* k, double& v) {
    if (j.contains(k)) v = j.at(k).get<double>();
  };
  if (j.contains("cc")) d.cc = j.at("cc").get<std::string>();
  i32("warp_size", d.warpSize);
  i32("max_threads_per_block", d.maxThreadsPerBlock);
  i32("max_threads_per_sm", d.maxThreadsPerSm);
  i32("max_warps_per_sm", d.maxWarpsPerSm);
  i32("max_blocks_per_sm", d.maxBlocksPerSm);
  if (j.contains("max_block_dim")) d.maxBlockDim = j.at("max_block_dim").get<std::array<std::int64_t, 3>>();
  if (j.contains("max_grid_dim")) d.maxGridDim = j.at("max_grid_dim").get<std::array<std::int64_t, 3>>();
  i32("regs_per_sm", d.regsPerSm);
  i32("regs_per_block", d.regsPerBlock);
  i32("regs_per_thread", d.regsPerThread);
  i32("register_alloc_unit", d.registerAllocUnit);
  if (j.contains("register_alloc_granularity"))
    d.registerAllocGranularity = j.at("register_alloc_granularity");
  i32("warp_alloc_granularity", d.warpAllocGranularity);
  i64("smem_per_sm", d.smemPerSm);
  i64("smem_per_block", d.smemPerBlock);
  i64("smem_per_block_optin", d.smemPerBlockOptin);
  i64("smem_reserved_per_block", d.smemReservedPerBlock);
  i64("smem_alloc_unit", d.smemAllocUnit);
  if (j.contains("smem_carveouts_kib")) {
    d.smemCarveouts.clear();
    for (auto kib : j.at("smem_carveouts_kib")) d.smemCarveouts.push_back(kib.get<std::int64_t>() * 1024);
    std::sort(d.smemCarveouts.begin(), d.smemCarveouts.end());
  }
  i32("sm_count", d.smCount);
  i64("l2_bytes", d.l2Bytes);
  f64("dram_gbs", d.dramGBs);
  f64("f16_tensor_tflops", d.f16TensorTflops);
  f64("bf16_tensor_tflops", d.bf16TensorTflops);
  f64("f32_tflops", d.f32Tflops);
}

void parseCc(DeviceSpec& d, const std::string& origin) {
  auto dot = d.cc.find('.');
  if (dot == std::string::npos) fail(origin, d.key, "cc '" + d.cc + "' is not MAJOR.MINOR");
  d.ccMajor = std::stoi(d.cc.substr(0, dot));
  d.ccMinor = std::stoi(d.cc.substr(dot + 1));
}

void validate(const DeviceSpec& d, const std::string& origin) {
  const std::string where = "devices." + d.key;
  if (d.name.empty()) fail(origin, where, "missing 'name'");
  if (d.smCount <= 0) fail(origin, where, "missing or non-positive 'sm_count'");
  if (d.smemPerSm <= 0 || d.smemPerBlockOptin <= 0) fail(origin, where, "missing shared-memory limits");
  if (d.regsPerSm <= 0 || d.registerAllocUnit <= 0 || d.warpAllocGranularity <= 0)
    fail(origin, where, "missing register limits");
  if (d.maxWarpsPerSm * d.warpSize != d.maxThreadsPerSm)
    fail(origin, where, "max_warps_per_sm x warp size != max_threads_per_sm");
  if (d.smemCarveouts.empty()) fail(origin, where, "missing 'smem_carveouts_kib'");
}

}  // namespace

DeviceDb DeviceDb::fromJson(const json& doc, const std::string& origin) {
  if (doc.value("schema", "") != kDevicesSchema)
    fail(origin, "schema", "expected \"" + std::string(kDevicesSchema) + "\"");
  const json& archs = doc.at("architectures");
  DeviceDb db;
  try {
    for (const auto& jd : doc.at("devices")) {
      DeviceSpec d;
      d.key = jd.at("key").get<std::string>();
      d.arch = jd.at("arch").get<std::string>();
      if (!archs.contains(d.arch)) fail(origin, "devices." + d.key, "unknown arch '" + d.arch + "'");
      readLimits(archs.at(d.arch), d);
      readLimits(jd, d);  // a device overrides its architecture
      d.name = jd.value("name", "");
      d.aliases = jd.value("aliases", std::vector<std::string>{});
      d.source = archs.at(d.arch).value("source", "") + "; " + jd.value("source", "");
      parseCc(d, origin);
      validate(d, origin);
      db.m_devices.push_back(std::move(d));
    }
  } catch (const json::exception& e) {
    fail(origin, "devices", e.what());
  }
  return db;
}

DeviceDb DeviceDb::load(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path.string() + ": cannot open the device database");
  json doc;
  try {
    in >> doc;
  } catch (const json::exception& e) {
    throw std::runtime_error(path.string() + ": " + e.what());
  }
  return fromJson(doc, path.string());
}

DeviceDb DeviceDb::loadDefault() { return load(resourceDir() / "devices.json"); }

const DeviceSpec* DeviceDb::find(const std::string& name) const {
  const std::string n = lower(name);
  for (const auto& d : m_devices)
    if (lower(d.key) == n || lower(d.name) == n) return &d;
  for (const auto& d : m_devices)
    for (const auto& a : d.aliases)
      if (lower(a) == n) return &d;
  for (const auto& d : m_devices)
    if (lower(d.arch) == n || lower(d.cc) == n) return &d;
  return nullptr;
}

std::string DeviceDb::keys() const {
  std::string out;
  for (const auto& d : m_devices) out += (out.empty() ? "" : ", ") + d.key;
  return out;
}

DeviceSpec withLive(const DeviceSpec& base, const LiveAttributes& live) {
  DeviceSpec d = base;
  auto take = [](auto& dst, auto v) {
    if (v > 0) dst = v;
  };
  if (!live.name.empty()) d.name = live.name;
  if (live.ccMajor >= 0 && live.ccMinor >= 0) {
    d.ccMajor = live.ccMajor;
    d.ccMinor = live.ccMinor;
    d.cc = std::to_string(live.ccMajor) + "." + std::to_string(live.ccMinor);
    d.arch = "sm_" + std::to_string(live.ccMajor * 10 + live.ccMinor);
  }
  take(d.smCount, live.smCount);
  take(d.warpSize, live.warpSize);
  take(d.maxThreadsPerBlock, live.maxThreadsPerBlock);
  take(d.maxThreadsPerSm, live.maxThreadsPerSm);
  d.maxWarpsPerSm = d.maxThreadsPerSm / d.warpSize;
  take(d.maxBlocksPerSm, live.maxBlocksPerSm);
  for (int i = 0; i < 3; ++i) {
    take(d.maxBlockDim[i], live.maxBlockDim[i]);
    take(d.maxGridDim[i], live.maxGridDim[i]);
  }
  take(d.regsPerSm, live.regsPerSm);
  take(d.regsPerBlock, live.regsPerBlock);
  take(d.smemPerSm, live.smemPerSm);
  take(d.smemPerBlock, live.smemPerBlock);
  take(d.smemPerBlockOptin, live.smemPerBlockOptin);
  if (live.smemReservedPerBlock >= 0) d.smemReservedPerBlock = live.smemReservedPerBlock;
  take(d.l2Bytes, live.l2Bytes);
  if (live.memoryBusWidthBits > 0 && live.memoryClockKHz > 0)  // DDR: two transfers per clock
    d.dramGBs = 2.0 * double(live.memoryClockKHz) * 1e3 * (live.memoryBusWidthBits / 8.0) / 1e9;
  d.live = true;
  d.source = "live device attributes over: " + base.source;
  return d;
}

DeviceSpec specFromLive(const DeviceDb& db, const LiveAttributes& live) {
  const DeviceSpec* best = nullptr;
  for (const auto& d : db.all()) {
    if (!live.name.empty() && lower(d.name) == lower(live.name)) return withLive(d, live);
    if (d.ccMajor == live.ccMajor && d.ccMinor <= live.ccMinor && (!best || d.ccMinor > best->ccMinor))
      best = &d;
  }
  if (!best) best = db.find("sm_90");
  if (!best) throw std::runtime_error("device database is empty: cannot describe the live GPU " + live.name);
  DeviceSpec d = withLive(*best, live);
  d.key = live.name.empty() ? d.arch : lower(live.name);
  d.aliases.clear();
  return d;
}

json toJson(const DeviceSpec& d) {
  std::vector<std::int64_t> carveKiB;
  for (auto b : d.smemCarveouts) carveKiB.push_back(b / 1024);
  return json{{"key", d.key},
              {"name", d.name},
              {"aliases", d.aliases},
              {"arch", d.arch},
              {"cc", d.cc},
              {"sm_count", d.smCount},
              {"warp_size", d.warpSize},
              {"max_threads_per_block", d.maxThreadsPerBlock},
              {"max_threads_per_sm", d.maxThreadsPerSm},
              {"max_warps_per_sm", d.maxWarpsPerSm},
              {"max_blocks_per_sm", d.maxBlocksPerSm},
              {"max_block_dim", d.maxBlockDim},
              {"max_grid_dim", d.maxGridDim},
              {"regs_per_sm", d.regsPerSm},
              {"regs_per_block", d.regsPerBlock},
              {"regs_per_thread", d.regsPerThread},
              {"register_alloc_unit", d.registerAllocUnit},
              {"register_alloc_granularity", d.registerAllocGranularity},
              {"warp_alloc_granularity", d.warpAllocGranularity},
              {"smem_per_sm", d.smemPerSm},
              {"smem_per_block", d.smemPerBlock},
              {"smem_per_block_optin", d.smemPerBlockOptin},
              {"smem_reserved_per_block", d.smemReservedPerBlock},
              {"smem_alloc_unit", d.smemAllocUnit},
              {"smem_carveouts_kib", carveKiB},
              {"l2_bytes", d.l2Bytes},
              {"dram_gbs", d.dramGBs},
              {"f16_tensor_tflops", d.f16TensorTflops},
              {"bf16_tensor_tflops", d.bf16TensorTflops},
              {"f32_tflops", d.f32Tflops},
              {"source", d.source},
              {"live", d.live}};
}

DeviceInfo toDeviceInfo(const DeviceSpec& d) {
  DeviceInfo info;
  info.name = d.name;
  info.key = d.key;
  info.cc = d.cc;
  info.smCount = d.smCount;
  info.smemPerBlock = d.smemPerBlock;
  info.smemPerBlockOptin = d.smemPerBlockOptin;
  info.smemPerSm = d.smemPerSm;
  info.regsPerSm = d.regsPerSm;
  info.maxWarpsPerSm = d.maxWarpsPerSm;
  info.maxBlocksPerSm = d.maxBlocksPerSm;
  info.live = d.live;
  info.dramGBs = d.dramGBs;
  info.f32Tflops = d.f32Tflops;
  info.f16TensorTflops = d.f16TensorTflops;
  info.bf16TensorTflops = d.bf16TensorTflops;
  info.extra = toJson(d);
  for (const char* k : {"key", "name", "cc", "sm_count", "smem_per_block", "smem_per_block_optin",
                        "smem_per_sm", "regs_per_sm", "max_warps_per_sm", "max_blocks_per_sm", "live",
                        "dram_gbs", "f32_tflops", "f16_tensor_tflops", "bf16_tensor_tflops"})
    info.extra.erase(k);
  return info;
}

}  // namespace tilescope
