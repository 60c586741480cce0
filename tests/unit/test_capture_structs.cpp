// Structs passed by value (docs/capture.md, "Structs passed by value"): a
// launch record with a bytes parameter, its pointer words and the memory they
// reach becomes a config whose bytes argument relocates them, and that config
// loads back with the same meaning.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "tilescope/base/npy.h"
#include "tilescope/capture/capture.h"
#include "tilescope/config/config.h"

namespace {

using namespace tilescope;
namespace fs = std::filesystem;
using nlohmann::json;

struct TempDir {
  fs::path path;
  TempDir() {
    char t[] = "/tmp/tilescope-structs-XXXXXX";
    path = mkdtemp(t);
  }
  ~TempDir() { fs::remove_all(path); }
};

/// step(Params p, float* out, float* y): Params { float* x; float* y_view; long n; long tag; long pad; }.
/// p.x is `out` (p1), p.y_view points 64 bytes into a buffer only the struct and p2 reach, and
/// p2 points 16 bytes into it: one region m0 from the buffer's start, p2 re-based onto it.
json structRecord(const std::string& id) {
  return json::parse(R"({
    "schema": "tilescope.launch/1", "recorder": "cuda", "language": "cuda", "id": ")" +
                     id + R"(",
    "pid": 7, "seq": 0, "index": 2, "kernel": "step", "symbol": "_Z4step6ParamsPfS0_",
    "image": "modules/00bb.cubin", "grid": [4, 1, 1], "block": [128, 1, 1], "cluster": [1, 1, 1],
    "shared_bytes": 0,
    "args": [
      {"name": "p0", "kind": "bytes", "index": 0, "offset": 0, "size": 40, "type": "Params", "before": "p0.bin",
       "words": [{"offset": 0, "value": 139637976727552, "class": "pointer", "target": "p1"},
                 {"offset": 8, "value": 139637978824768, "class": "unreferenced", "target": "m0", "delta": 64},
                 {"offset": 24, "value": 139637978825011, "class": "ambiguous"}]},
      {"name": "p1", "kind": "pointer", "dtype": "f32", "shape": [1024], "data_ptr": 139637976727552,
       "allocation_base": 139637976727552, "allocation_size": 4096, "before": "p1.before.npy",
       "after": "p1.after.npy", "changed": true, "index": 1, "offset": 40, "size": 8, "type": "float*"},
      {"name": "p2", "kind": "pointer", "dtype": "f32", "shape": [1008], "data_ptr": 139637978824720,
       "allocation_base": 139637978824704, "allocation_size": 4096, "index": 2, "offset": 48, "size": 8,
       "type": "float*", "rebased_onto": "m0", "rebase_delta": 16}],
    "memory": [
      {"name": "m0", "kind": "memory", "dtype": "u8", "shape": [4096], "data_ptr": 139637978824704,
       "allocation_base": 139637978824704, "allocation_size": 4096, "before": "m0.before.npy"}],
    "notes": ["p0: 1 word(s) relocated as pointers although no other argument reaches their allocations"]})");
}

void writeFiles(const fs::path& capture, const std::string& id) {
  const fs::path dir = capture / "launches" / id;
  fs::create_directories(dir);
  std::vector<std::uint8_t> p0(40, 0xab);
  std::ofstream(dir / "p0.bin", std::ios::binary).write(reinterpret_cast<const char*>(p0.data()), 40);
  std::vector<float> f(1024, 1.0f);
  writeNpy(dir / "p1.before.npy", DType::f32, {1024}, f.data(), f.size() * 4);
  writeNpy(dir / "p1.after.npy", DType::f32, {1024}, f.data(), f.size() * 4);
  std::vector<std::uint8_t> m(4096, 3);
  writeNpy(dir / "m0.before.npy", DType::u8, {4096}, m.data(), m.size());
  std::ofstream(capture / "modules" / "00bb.cubin").flush();
}

TEST(CaptureStructs, LaunchRecordRoundTrip) {
  const json j = structRecord("c7-0000");
  EXPECT_EQ(toJson(launchRecordFromJson(j)), j) << toJson(launchRecordFromJson(j)).dump(1);
}

TEST(CaptureStructs, BytesArgumentRelocatesThePointers) {
  std::string why;
  const auto cfg = configFromLaunch(launchRecordFromJson(structRecord("c7-0000")), CaptureInfo{}, &why);
  ASSERT_TRUE(why.empty()) << why;
  const json args = json::parse(cfg["args"].dump());
  ASSERT_EQ(args.size(), 3u);
  EXPECT_EQ(args[0], json::parse(R"({"kind": "bytes", "size": 40, "file": "launches/c7-0000/p0.bin",
      "relocations": [{"offset": 0, "tensor": "p1", "delta": 0}, {"offset": 8, "tensor": "m0", "delta": 64}],
      "ambiguous": [24]})"));
  EXPECT_EQ(args[1], "p1");
  // p2 points 16 bytes into m0: an 8-byte bytes argument, its own address relocated.
  EXPECT_EQ(args[2], json::parse(R"({"kind": "bytes", "size": 8, "hex": "10002000007f0000",
      "relocations": [{"offset": 0, "tensor": "m0", "delta": 16}]})"))
      << args[2].dump();
  EXPECT_FALSE(cfg["tensors"].contains("p2"));
  EXPECT_EQ(cfg["tensors"]["m0"]["dtype"], "u8");
  EXPECT_EQ(cfg["tensors"]["m0"]["init"], "npy:launches/c7-0000/m0.before.npy");
  EXPECT_EQ(cfg["tensors"]["p1"]["output"], true);
  // The ambiguous word is named in the config, never silently left.
  EXPECT_NE(cfg["description"].get<std::string>().find("p0+24"), std::string::npos) << cfg["description"];
}

TEST(CaptureStructs, ConfigLoadsBackWithTheSameMeaning) {
  TempDir d;
  fs::create_directories(d.path / "modules");
  writeFiles(d.path, "c7-0000");
  std::string why;
  const auto cfg = configFromLaunch(launchRecordFromJson(structRecord("c7-0000")), CaptureInfo{}, &why);
  ASSERT_TRUE(why.empty()) << why;
  const Config c = parseConfigText(cfg.dump(), d.path);
  ASSERT_EQ(c.args.size(), 3u);
  ASSERT_TRUE(c.args[0].isBytes);
  EXPECT_EQ(c.args[0].bytes, std::vector<std::uint8_t>(40, 0xab));
  ASSERT_EQ(c.args[0].relocations.size(), 2u);
  EXPECT_EQ(c.args[0].relocations[1].tensor, "m0");
  EXPECT_EQ(c.args[0].relocations[1].delta, 64);
  EXPECT_EQ(c.args[0].ambiguous, std::vector<std::uint32_t>{24});
  EXPECT_TRUE(c.args[1].isTensor);
  ASSERT_TRUE(c.args[2].isBytes);
  EXPECT_EQ(c.args[2].bytes.size(), 8u);
  EXPECT_NO_THROW(resolvePoint(c));
}

TEST(CaptureStructs, WhyNotAConfig) {
  std::string why;
  json j = structRecord("c7-0000");
  j["args"][0].erase("before");
  EXPECT_TRUE(configFromLaunch(launchRecordFromJson(j), CaptureInfo{}, &why).is_null());
  EXPECT_NE(why.find("p0: its bytes were not saved"), std::string::npos) << why;

  j = structRecord("c7-0000");
  j["args"][0]["words"][0]["target"] = "p9";
  EXPECT_TRUE(configFromLaunch(launchRecordFromJson(j), CaptureInfo{}, &why).is_null());
  EXPECT_NE(why.find("points into p9, which has no tensor"), std::string::npos) << why;

  j = structRecord("c7-0000");
  j["memory"][0].erase("before");
  j["skipped"] = json::parse(R"([{"arg": "m0", "reason": "5.0 GiB above --max-bytes"}])");
  EXPECT_TRUE(configFromLaunch(launchRecordFromJson(j), CaptureInfo{}, &why).is_null());
  EXPECT_NE(why.find("m0: 5.0 GiB above --max-bytes"), std::string::npos) << why;
}

// A pointer that does not start its allocation keeps the bytes before it and
// its address modulo 256: its tensor is the saved window, and the argument is
// the window's address plus the lead (docs/capture.md, "Where a pointer points").
// A CUDA kernel given one buffer twice (in place): the second pointer is
// re-based onto the first with delta 0, and the config names the tensor twice.
TEST(CaptureStructs, SameBufferTwiceIsOneTensorNamedTwice) {
  json j = structRecord("c7-0000");
  j["args"][2] = j["args"][1];
  j["args"][2]["name"] = "p2";
  j["args"][2]["index"] = 2;
  j["args"][2]["rebased_onto"] = "p1";
  j["args"][2].erase("before");
  j["args"][2].erase("after");
  std::string why;
  const auto cfg = configFromLaunch(launchRecordFromJson(j), CaptureInfo{}, &why);
  ASSERT_TRUE(why.empty()) << why;
  EXPECT_EQ(cfg["args"][1], "p1");
  EXPECT_EQ(cfg["args"][2], "p1") << cfg["args"].dump();
  EXPECT_FALSE(cfg["tensors"].contains("p2"));
}

TEST(CaptureStructs, PointerPastItsAllocationStartKeepsTheLead) {
  json j = structRecord("c7-0000");
  // p1 is `out + 1` (4 bytes into its allocation): the window holds 1025 floats.
  j["args"][1]["data_ptr"] = 139637976727556;
  j["args"][1]["lead_bytes"] = 4;
  j["args"][1]["shape"] = json::array({1024});
  // The struct's word at +0 points at p1's address: relocated past the lead too.
  j["args"][0]["words"][0]["value"] = 139637976727556;
  std::string why;
  const auto cfg = configFromLaunch(launchRecordFromJson(j), CaptureInfo{}, &why);
  ASSERT_TRUE(why.empty()) << why;
  const json args = json::parse(cfg["args"].dump());
  EXPECT_EQ(args[1], json::parse(R"({"kind": "bytes", "size": 8, "hex": "04000000007f0000",
      "relocations": [{"offset": 0, "tensor": "p1", "delta": 4}]})"))
      << args[1].dump();
  EXPECT_EQ(args[0]["relocations"][0], json::parse(R"({"offset": 0, "tensor": "p1", "delta": 4})"));
  EXPECT_EQ(cfg["tensors"]["p1"]["shape"], json::array({1024}));
  // A lead on a re-based pointer's target adds to its delta.
  j["args"][2]["rebased_onto"] = "p1";
  j["args"][2]["rebase_delta"] = 8;
  const auto again = configFromLaunch(launchRecordFromJson(j), CaptureInfo{}, &why);
  ASSERT_TRUE(why.empty()) << why;
  EXPECT_EQ(again["args"][2]["relocations"][0]["delta"], 12) << again["args"][2].dump();
  // Passed twice: one tensor, both arguments past its lead.
  j = structRecord("c7-0000");
  j["args"][1]["data_ptr"] = 139637976727556;
  j["args"][1]["lead_bytes"] = 4;
  j["args"][2] = j["args"][1];
  j["args"][2]["name"] = "p2";
  j["args"][2]["index"] = 2;
  const auto twice = configFromLaunch(launchRecordFromJson(j), CaptureInfo{}, &why);
  ASSERT_TRUE(why.empty()) << why;
  EXPECT_FALSE(twice["tensors"].contains("p2"));
  EXPECT_EQ(json::parse(twice["args"][2]["relocations"][0].dump()),
            json::parse(R"({"offset": 0, "tensor": "p1", "delta": 4})"));
}

}  // namespace
