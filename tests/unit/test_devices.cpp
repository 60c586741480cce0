#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "tilescope/base/resources.h"
#include "tilescope/model/devices.h"

using namespace tilescope;

namespace {
DeviceDb db() {
  return DeviceDb::load(std::filesystem::path(TILESCOPE_SOURCE_DIR) / "resources" / "devices.json");
}
}  // namespace

TEST(Devices, LoadsEveryRequiredDevice) {
  const DeviceDb d = db();
  for (const char* key : {"a100", "rtx3090", "a10", "l4", "rtx4090", "h100", "h200", "b200", "rtx5090"}) {
    const DeviceSpec* s = d.find(key);
    ASSERT_NE(s, nullptr) << key;
    EXPECT_EQ(s->key, key);
    EXPECT_GT(s->smCount, 0) << key;
    EXPECT_GT(s->l2Bytes, 0) << key;
    EXPECT_GT(s->dramGBs, 0) << key;
    EXPECT_GT(s->f16TensorTflops, s->f32Tflops) << key;
    EXPECT_FALSE(s->source.empty()) << key;
    EXPECT_EQ(s->regsPerThread, 255) << key;
    EXPECT_EQ(s->registerAllocUnit, 256) << key;
    EXPECT_EQ(s->smemPerBlock, 48 * 1024) << key;
    EXPECT_EQ(s->smemReservedPerBlock, 1024) << key;  // sm_80 and newer
    EXPECT_EQ(s->smemAllocUnit, 128) << key;
    EXPECT_EQ(s->smemCarveouts.back(), s->smemPerSm) << key;
    // The opt-in maximum is the SM's shared memory less the per-block reserve.
    EXPECT_EQ(s->smemPerBlockOptin, s->smemPerSm - s->smemReservedPerBlock) << key;
  }
}

TEST(Devices, ArchitecturesAndComputeCapabilities) {
  const DeviceDb d = db();
  EXPECT_EQ(d.find("a100")->arch, "sm_80");
  EXPECT_EQ(d.find("a10")->cc, "8.6");
  EXPECT_EQ(d.find("rtx4090")->ccMinor, 9);
  EXPECT_EQ(d.find("h100")->ccMajor, 9);
  EXPECT_EQ(d.find("b200")->arch, "sm_100");
  EXPECT_EQ(d.find("rtx5090")->arch, "sm_120");
  EXPECT_EQ(d.find("rtx3090")->maxWarpsPerSm, 48);
  EXPECT_EQ(d.find("l4")->maxBlocksPerSm, 24);
  EXPECT_EQ(d.find("h100")->smemPerBlockOptin, 227 * 1024);
  EXPECT_EQ(d.find("a100")->smemPerBlockOptin, 163 * 1024);
}

TEST(Devices, FindIsCaseInsensitiveOverKeyNameAliasAndArch) {
  const DeviceDb d = db();
  EXPECT_EQ(d.find("H100")->key, "h100");
  EXPECT_EQ(d.find("nvidia h100 80gb hbm3")->key, "h100");
  EXPECT_EQ(d.find("h100 sxm")->key, "h100");
  EXPECT_EQ(d.find("SM_90")->key, "h100");  // first sm_90 device in file order
  EXPECT_EQ(d.find("sm_86")->arch, "sm_86");
  EXPECT_EQ(d.find("rtx 4090")->key, "rtx4090");
  EXPECT_EQ(d.find("v100"), nullptr);
  EXPECT_NE(d.keys().find("rtx5090"), std::string::npos);
}

TEST(Devices, LiveAttributesTakePrecedence) {
  const DeviceDb d = db();
  LiveAttributes live;
  live.name = "NVIDIA H100 PCIe";
  live.ccMajor = 9;
  live.ccMinor = 0;
  live.smCount = 114;
  live.l2Bytes = 50 * 1024 * 1024;
  live.memoryBusWidthBits = 5120;
  live.memoryClockKHz = 1593000;
  const DeviceSpec s = withLive(*d.find("h100"), live);
  EXPECT_TRUE(s.live);
  EXPECT_EQ(s.name, "NVIDIA H100 PCIe");
  EXPECT_EQ(s.smCount, 114);
  EXPECT_EQ(s.smemPerBlockOptin, d.find("h100")->smemPerBlockOptin);  // not read: database value stays
  EXPECT_NEAR(s.dramGBs, 2.0 * 1593000e3 * 640 / 1e9, 1e-6);

  const DeviceSpec unknown = specFromLive(d, live);  // name not in the database: closest sm_9x
  EXPECT_EQ(unknown.arch, "sm_90");
  EXPECT_EQ(unknown.smCount, 114);
  EXPECT_EQ(unknown.maxWarpsPerSm, 64);
}

TEST(Devices, DeviceInfoCarriesTheReportFields) {
  const DeviceInfo info = toDeviceInfo(*db().find("h100"));
  EXPECT_EQ(info.key, "h100");
  EXPECT_EQ(info.cc, "9.0");
  EXPECT_EQ(info.smCount, 132);
  EXPECT_EQ(info.smemPerBlockOptin, 232448);
  EXPECT_EQ(info.regsPerSm, 65536);
  EXPECT_FALSE(info.extra.contains("regs_per_sm"));
  EXPECT_TRUE(info.extra.contains("l2_bytes"));
  EXPECT_FALSE(info.extra.contains("sm_count"));
}

TEST(Devices, BadDatabaseNamesTheProblem) {
  nlohmann::json doc = nlohmann::json::parse(R"({"schema":"tilescope.devices/1","architectures":{},
    "devices":[{"key":"x","name":"X","arch":"sm_99"}]})");
  try {
    DeviceDb::fromJson(doc, "test.json");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("sm_99"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("test.json"), std::string::npos) << e.what();
  }
  EXPECT_THROW(DeviceDb::fromJson(nlohmann::json{{"schema", "other"}}), std::runtime_error);
}

TEST(Resources, EnvironmentOverridesAndDefaultDatabaseLoads) {
  ::setenv("TILESCOPE_RESOURCE_DIR", "/nonexistent/tilescope", 1);
  EXPECT_EQ(resourceDir(), std::filesystem::path("/nonexistent/tilescope"));
  ::unsetenv("TILESCOPE_RESOURCE_DIR");
  EXPECT_TRUE(std::filesystem::exists(resourceDir() / "devices.json")) << resourceDir();
  EXPECT_EQ(DeviceDb::loadDefault().all().size(), db().all().size());
}
