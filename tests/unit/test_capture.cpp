// The capture's pure half (docs/capture.md): launch records -> configs and
// capture.json, the launch selection, and kernel signatures from demangled
// names. Records are built as the recorders write them (the fixtures in
// tests/data/capture were recorded on a GPU).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "tilescope/base/npy.h"
#include "tilescope/capture/capture.h"
#include "tilescope/capture/kernel_signature.h"
#include "tilescope/capture/selection.h"
#include "tilescope/config/config.h"

namespace {

using namespace tilescope;
namespace fs = std::filesystem;
using nlohmann::json;

struct TempDir {
  fs::path path;
  TempDir() {
    char t[] = "/tmp/tilescope-capture-XXXXXX";
    path = mkdtemp(t);
  }
  ~TempDir() { fs::remove_all(path); }
};

void writeText(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

void writeF32(const fs::path& p, const std::vector<float>& v) {
  fs::create_directories(p.parent_path());
  writeNpy(p, DType::f32, {std::int64_t(v.size())}, v.data(), v.size() * sizeof(float));
}

/// A Triton launch as resources/python/tilescope/capture writes it: add_kernel(x, y, out, n, BLOCK).
json tritonRecord(const std::string& id) {
  return json::parse(R"({
    "schema": "tilescope.launch/1", "recorder": "triton", "language": "triton", "id": ")" +
                     id + R"(",
    "pid": 4242, "seq": 0, "index": 3, "kernel": "add_kernel", "symbol": "add_kernel",
    "source": {"file": "/home/u/prog/add.py", "function": "add_kernel", "def_line": 7, "copy": "sources/add.py"},
    "grid": [4, 1, 1], "block": [128, 1, 1], "cluster": [1, 1, 1], "shared_bytes": 0,
    "triton": {"version": "3.6.0", "num_warps": 4, "num_stages": 3, "num_ctas": 1,
               "constexprs": {"BLOCK": 256, "DTYPE": "fp16"},
               "signature": {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "alpha": "fp32",
                             "BLOCK": "constexpr", "DTYPE": "constexpr"}},
    "args": [
      {"name": "x_ptr", "kind": "tensor", "dtype": "f32", "shape": [1000], "strides": [1], "data_ptr": 4096,
       "before": "x_ptr.before.npy"},
      {"name": "y_ptr", "kind": "tensor", "dtype": "f32", "shape": [1000], "strides": [1], "data_ptr": 8192,
       "before": "y_ptr.before.npy"},
      {"name": "out_ptr", "kind": "tensor", "dtype": "f32", "shape": [1000], "strides": [1], "data_ptr": 16384,
       "before": "out_ptr.before.npy", "after": "out_ptr.after.npy", "changed": true},
      {"name": "n", "kind": "scalar", "type": "i32", "value": 1000},
      {"name": "alpha", "kind": "scalar", "type": "fp32", "value": 0.5},
      {"name": "BLOCK", "kind": "constexpr", "value": 256},
      {"name": "DTYPE", "kind": "constexpr", "value": "fp16"}],
    "kernel_ns": 5120.0})");
}

/// A CUDA launch as libtilescope_inject.so writes it: scale(float const*, float*, float, int, Params).
json cudaRecord(const std::string& id) {
  return json::parse(R"({
    "schema": "tilescope.launch/1", "recorder": "cuda", "language": "cuda", "id": ")" +
                     id + R"(",
    "pid": 4242, "seq": 0, "index": 5, "kernel": "scale", "symbol": "_Z5scalePKfPffi",
    "image": "modules/00aa.cubin", "grid": [8, 1, 1], "block": [256, 1, 1], "cluster": [1, 1, 1],
    "shared_bytes": 128,
    "args": [
      {"name": "p0", "kind": "pointer", "dtype": "f32", "shape": [2048], "data_ptr": 4096, "allocation_base": 4096,
       "allocation_size": 8192, "const": true, "before": "p0.before.npy", "index": 0, "offset": 0, "size": 8,
       "type": "float*"},
      {"name": "p1", "kind": "pointer", "dtype": "f32", "shape": [2048], "data_ptr": 65536,
       "allocation_base": 65536, "allocation_size": 8192, "before": "p1.before.npy", "after": "p1.after.npy",
       "changed": true, "index": 1, "offset": 8, "size": 8, "type": "float*"},
      {"name": "p2", "kind": "scalar", "type": "float", "value": 1069547520, "index": 2, "offset": 16, "size": 4},
      {"name": "p3", "kind": "scalar", "type": "int", "value": 4294967295, "index": 3, "offset": 20, "size": 4}]})");
}

TEST(Capture, LaunchRecordRoundTrip) {
  for (const json& j : {tritonRecord("t1-0000"), cudaRecord("c1-0000")}) {
    const LaunchRecord r = launchRecordFromJson(j);
    const json back = toJson(r);
    EXPECT_EQ(back, j) << back.dump(1);
  }
}

TEST(Capture, LaunchRecordErrorsNameThePath) {
  json j = tritonRecord("t1-0000");
  j["args"][3]["value"] = json::array();
  j["grid"] = json::array({1, 2});
  try {
    (void)launchRecordFromJson(j);
    FAIL() << "a two-element grid was accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("grid"), std::string::npos) << e.what();
  }
}

TEST(Capture, TritonConfig) {
  CaptureInfo info;
  info.command = {"python3", "prog.py"};
  std::string why;
  const auto cfg = configFromLaunch(launchRecordFromJson(tritonRecord("t1-0000")), info, &why);
  ASSERT_TRUE(why.empty()) << why;
  EXPECT_EQ(cfg["kernel"]["language"], "triton");
  EXPECT_EQ(cfg["kernel"]["source"], "sources/add.py");
  EXPECT_EQ(cfg["kernel"]["entry"], "add_kernel");
  EXPECT_EQ(cfg["kernel"]["constexprs"]["BLOCK"], 256);
  EXPECT_EQ(cfg["kernel"]["constexprs"]["DTYPE"], "tl.float16");
  EXPECT_EQ(cfg["kernel"]["num_warps"], 4);
  EXPECT_EQ(cfg["params"]["n"], 1000);
  EXPECT_EQ(cfg["args"], json::parse(R"(["x_ptr", "y_ptr", "out_ptr", "n", "0.5:f32"])"));
  EXPECT_EQ(cfg["tensors"]["x_ptr"]["init"], "npy:launches/t1-0000/x_ptr.before.npy");
  EXPECT_FALSE(cfg["tensors"]["x_ptr"].contains("output"));
  EXPECT_EQ(cfg["tensors"]["out_ptr"]["output"], true);
  EXPECT_EQ(cfg["tensors"]["out_ptr"]["expected"], "npy:launches/t1-0000/out_ptr.after.npy");
  EXPECT_EQ(cfg["reference"]["op"], "npy");
  EXPECT_EQ(cfg["tolerance"]["rtol"], 0);
  EXPECT_EQ(cfg["launch"]["grid"], json::parse("[4, 1, 1]"));
  EXPECT_NE(cfg["description"].get<std::string>().find("python3 prog.py"), std::string::npos);
}

TEST(Capture, InPlaceArgumentIsOneTensor) {
  json j = tritonRecord("t1-0000");
  j["args"][1]["data_ptr"] = 16384;  // y and out: the same tensor
  j["args"][1]["after"] = "y_ptr.after.npy";
  std::string why;
  const auto cfg = configFromLaunch(launchRecordFromJson(j), CaptureInfo{}, &why);
  ASSERT_TRUE(why.empty()) << why;
  EXPECT_EQ(cfg["args"][1], "y_ptr");
  EXPECT_EQ(cfg["args"][2], "y_ptr");
  EXPECT_FALSE(cfg["tensors"].contains("out_ptr"));
}

TEST(Capture, StoredButUnchangedIsAnOutput) {
  json j = tritonRecord("t1-0000");
  j["args"][2]["changed"] = false;  // rewritten with the bytes it held
  j["args"][2]["stored"] = true;
  j["args"][1].erase("after");
  std::string why;
  const auto cfg = configFromLaunch(launchRecordFromJson(j), CaptureInfo{}, &why);
  ASSERT_TRUE(why.empty()) << why;
  EXPECT_EQ(cfg["tensors"]["out_ptr"]["output"], true);
  EXPECT_EQ(cfg["tensors"]["out_ptr"]["expected"], "npy:launches/t1-0000/out_ptr.after.npy");
  EXPECT_EQ(cfg["reference"]["op"], "npy");
  j["args"][2]["changed"] = false;
  j["args"][2]["stored"] = false;
  EXPECT_EQ(configFromLaunch(launchRecordFromJson(j), CaptureInfo{}, &why)["reference"]["op"], "none");
}

TEST(Capture, CudaConfigScalarsByType) {
  std::string why;
  const auto cfg = configFromLaunch(launchRecordFromJson(cudaRecord("c1-0000")), CaptureInfo{}, &why);
  ASSERT_TRUE(why.empty()) << why;
  EXPECT_EQ(cfg["kernel"]["source"], "modules/00aa.cubin");
  EXPECT_EQ(cfg["kernel"]["entry"], "_Z5scalePKfPffi");
  EXPECT_FALSE(cfg["kernel"].contains("language"));
  EXPECT_EQ(cfg["args"][2], "1.5:f32");  // 0x3fc00000
  EXPECT_EQ(cfg["args"][3], "-1");       // int -1 from its bits
  EXPECT_EQ(cfg["launch"]["block"], json::parse("[256, 1, 1]"));
  EXPECT_EQ(cfg["launch"]["shared_bytes"], 128);
  EXPECT_EQ(cfg["launch"]["shared_opt_in"], true);  // the launch ran in the program
  EXPECT_EQ(cfg["tensors"]["p1"]["output"], true);
}

TEST(Capture, WhyNotAConfig) {
  json j = cudaRecord("c1-0000");
  j["args"].push_back(
      json::parse(R"({"name": "p4", "kind": "unresolved", "index": 4, "offset": 24, "size": 96,
                                      "reason": "a 96-byte parameter (a struct passed by value) cannot be replayed yet"})"));
  std::string why;
  EXPECT_TRUE(configFromLaunch(launchRecordFromJson(j), CaptureInfo{}, &why).is_null());
  EXPECT_NE(why.find("p4"), std::string::npos) << why;
  EXPECT_NE(why.find("struct"), std::string::npos) << why;

  json big = tritonRecord("t1-0000");
  big["args"][0].erase("before");
  big["skipped"] = json::parse(R"([{"arg": "x_ptr", "reason": "5.0 GiB above --max-bytes"}])");
  EXPECT_TRUE(configFromLaunch(launchRecordFromJson(big), CaptureInfo{}, &why).is_null());
  EXPECT_NE(why.find("--max-bytes"), std::string::npos) << why;
}

TEST(Capture, FolderBecomesConfigsAndCaptureJson) {
  TempDir t;
  const fs::path L = t.path / "launches";
  writeText(t.path / "sources" / "add.py",
            "import triton\nimport triton.language as tl\n\n\n\n\n@triton.jit\n"
            "def add_kernel(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr, DTYPE: tl.constexpr):\n"
            "    pass\n");
  writeText(L / "t1-0000" / "launch.json", tritonRecord("t1-0000").dump());
  std::vector<float> v(1000, 1.0f);
  for (const char* n : {"x_ptr", "y_ptr", "out_ptr"})
    writeF32(L / "t1-0000" / (std::string(n) + ".before.npy"), v);
  writeF32(L / "t1-0000" / "out_ptr.after.npy", v);
  json cuda = cudaRecord("c1-0001");
  cuda["args"][2] = json::parse(R"({"name": "p2", "kind": "unresolved", "reason": "a struct", "size": 40})");
  writeText(L / "c1-0001" / "launch.json", cuda.dump());
  writeText(L / "c1-0002" / "launch.json", "{\"schema\": \"tilescope.launch/1\", \"grid\": 3}");
  writeText(L / ".tmp-c1-0003" / "launch.json", cudaRecord("c1-0003").dump());  // still being written
  writeText(t.path / "env-4242.json", R"({"torch": "2.11.0", "gpu": "NVIDIA H100"})");

  CaptureInfo info;
  info.command = {"python3", "prog.py"};
  info.exit.status = "exited";
  const int written = writeCaptureFolder(t.path, info);
  EXPECT_EQ(written, 1);
  ASSERT_EQ(info.launches.size(), 2u);
  EXPECT_EQ(info.launches[0].index, 3);  // by launch index
  EXPECT_EQ(info.launches[0].config, "add_kernel-t1-0000.tscfg.json");
  EXPECT_TRUE(info.launches[1].config.empty());
  EXPECT_NE(info.launches[1].reason.find("a struct"), std::string::npos) << info.launches[1].reason;
  ASSERT_EQ(info.notes.size(), 1u);
  EXPECT_NE(info.notes[0].find("c1-0002"), std::string::npos) << info.notes[0];
  EXPECT_EQ(info.environment["torch"], "2.11.0");

  const Config cfg = loadConfig(t.path / "add_kernel-t1-0000.tscfg.json");
  EXPECT_EQ(cfg.kernel.entry, "add_kernel");
  const CaptureInfo back = loadCaptureInfo(t.path);
  EXPECT_EQ(back.launches.size(), 2u);
  EXPECT_EQ(back.exit.status, "exited");
  EXPECT_EQ(back.command, info.command);
}

TEST(Capture, Selection) {
  LaunchSelection s;
  s.kernelRegex = "gemm|add";
  s.skip = 1;
  s.count = 2;
  LaunchSelector sel(s);
  EXPECT_FALSE(sel.select("softmax", "", "k"));
  EXPECT_FALSE(sel.select("add", "", "k"));  // skipped
  EXPECT_TRUE(sel.select("_Z4gemmv", "gemm()", "k"));
  EXPECT_TRUE(sel.select("add", "", "k"));
  EXPECT_FALSE(sel.select("add", "", "k"));  // count reached
  EXPECT_EQ(sel.matched(), 4);

  LaunchSelector first{LaunchSelection{}};  // default: the first of each key
  EXPECT_TRUE(first.select("add", "", "1000"));
  EXPECT_FALSE(first.select("add", "", "1000"));
  EXPECT_TRUE(first.select("add", "", "2000"));
  EXPECT_TRUE(first.select("mul", "", "1000"));

  LaunchSelection bad;
  bad.kernelRegex = "(";
  EXPECT_THROW(LaunchSelector{bad}, std::invalid_argument);
}

TEST(Capture, KernelSignatures) {
  const std::string d = demangleSymbol("_Z5scalePKfPffi");
  EXPECT_EQ(d, "scale(float const*, float*, float, int)");
  const auto p = kernelParamTypes(d);
  ASSERT_TRUE(p);
  ASSERT_EQ(p->size(), 4u);
  EXPECT_TRUE((*p)[0].pointer);
  EXPECT_TRUE((*p)[0].isConst);
  EXPECT_EQ((*p)[0].dtype, "f32");
  EXPECT_FALSE((*p)[1].isConst);
  EXPECT_FALSE((*p)[2].pointer);
  EXPECT_EQ((*p)[3].type, "int");
  EXPECT_EQ(kernelBaseName(d), "scale");

  const auto t =
      kernelParamTypes("void ns::gemm<128, 64>(__half const*, __nv_bfloat16*, Params<4, float>, long)");
  ASSERT_TRUE(t);
  ASSERT_EQ(t->size(), 4u);
  EXPECT_EQ((*t)[0].dtype, "f16");
  EXPECT_EQ((*t)[1].dtype, "bf16");
  EXPECT_EQ((*t)[2].type, "Params<4, float>");
  EXPECT_EQ((*t)[2].dtype, "");
  EXPECT_EQ((*t)[3].dtype, "i64");
  EXPECT_EQ(kernelBaseName("void ns::gemm<128, 64>(__half const*, int)"), "ns::gemm<128, 64>");
  EXPECT_EQ(
      kernelShortName("void at::native::reduce_kernel<512, 1, at::Op<float, (anonymous namespace)::F<2>>>("
                      "at::Op<float, (anonymous namespace)::F<2>>)"),
      "at::native::reduce_kernel");
  EXPECT_FALSE(kernelParamTypes("add_kernel"));  // extern "C": no signature
  EXPECT_EQ(demangleSymbol("add_kernel"), "");
  const auto anon = kernelParamTypes("(anonymous namespace)::k(float**, double)");
  ASSERT_TRUE(anon);
  EXPECT_EQ((*anon)[0].dtype, "");  // a pointer to pointers is untyped
  EXPECT_EQ((*anon)[1].dtype, "f64");
}

}  // namespace

namespace {

LaunchRecord recorded(const std::string& name) {
  return loadLaunchRecord(fs::path(TILESCOPE_TEST_DATA) / "capture" / (name + ".launch.json"));
}

// Records made by `capture` on an H200 (bench/gpu_capture_programs.sh): the
// Triton recorder on the zoo's buggy add, the CUDA recorder on an nvcc
// program, a CuPy RawKernel and one of PyTorch's own kernels.
TEST(CaptureRecorded, TritonAddBecomesTheZoosConfig) {
  std::string why;
  const auto cfg = configFromLaunch(recorded("triton_add_bug"), CaptureInfo{}, &why);
  ASSERT_TRUE(why.empty()) << why;
  EXPECT_EQ(cfg["kernel"]["source"], "sources/add.py");
  EXPECT_EQ(cfg["kernel"]["constexprs"]["BUG_NO_STORE_MASK"], true);
  EXPECT_EQ(cfg["kernel"]["constexprs"]["BLOCK"], 1024);
  EXPECT_EQ(cfg["args"], json::parse(R"(["x_ptr", "y_ptr", "out_ptr", "n"])"));
  EXPECT_EQ(cfg["params"]["n"], 1000);
  EXPECT_EQ(cfg["tensors"]["out_ptr"]["output"], true);
  EXPECT_EQ(cfg["tensors"]["x_ptr"]["shape"], json::parse("[1000]"));
}

TEST(CaptureRecorded, CudaKernelsTypedFromTheirNames) {
  std::string why;
  const auto saxpy = configFromLaunch(recorded("cuda_saxpy"), CaptureInfo{}, &why);
  ASSERT_TRUE(why.empty()) << why;
  EXPECT_EQ(saxpy["args"], json::parse(R"(["p0", "p1", "2.5:f32", "1048576"])"));
  EXPECT_EQ(saxpy["tensors"]["p0"]["dtype"], "f32");
  EXPECT_FALSE(saxpy["tensors"]["p0"].contains("output"));
  EXPECT_EQ(saxpy["tensors"]["p1"]["output"], true);
  const auto rows = configFromLaunch(recorded("cuda_row_sums"), CaptureInfo{}, &why);
  ASSERT_TRUE(why.empty()) << why;
  EXPECT_EQ(rows["launch"]["shared_bytes"], 512);
  EXPECT_EQ(rows["args"][2], "1000");
  // extern "C": no types in the name, raw bits of the right width.
  const auto soft = configFromLaunch(recorded("cupy_softsign"), CaptureInfo{}, &why);
  ASSERT_TRUE(why.empty()) << why;
  EXPECT_EQ(soft["args"], json::parse(R"(["p0", "p1", "1073741824:u32", "100000:u32"])"));
  EXPECT_EQ(soft["tensors"]["p0"]["dtype"], "u8");
}

TEST(CaptureRecorded, PyTorchStructParametersSayWhy) {
  std::string why;
  EXPECT_TRUE(configFromLaunch(recorded("torch_add_struct"), CaptureInfo{}, &why).is_null());
  EXPECT_NE(why.find("struct passed by value"), std::string::npos) << why;
}

}  // namespace
