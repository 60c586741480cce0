// End-to-end tests of the kernel zoo (kernels/): each config is run through
// tilescope-run, and the report must carry the verdict and the finding that
// kernels/README.md promises for it. The table below mirrors that README.
//
// `run` and `sweep` configs need a GPU and skip cleanly without one; `check`
// configs (the static findings) need only the CUDA toolkit and always run.
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gpu_util.h"

namespace tilescope {
namespace {

namespace fs = std::filesystem;
using gputest::gpuPresent;
using gputest::readFile;
using gputest::shellQuote;
using Strings = std::vector<std::string>;

struct ZooCase {
  std::string config;   ///< relative to kernels/
  std::string verb;     ///< run | sweep | check
  Strings verdicts;     ///< accepted top-level verdicts (empty: any)
  Strings anyCategory;  ///< at least one finding of one of these (empty: no error findings)
  std::string detail;   ///< required `detail` of that finding, or ""
  int points = 0;       ///< expected number of report points (0: not checked)
  int minSm = 0;        ///< the compute capability the kernel needs (90: Hopper's bulk copies)
};

// gtest prints a parameter with this (instead of its bytes) when a case fails.
void PrintTo(const ZooCase& c, std::ostream* os) { *os << c.verb << " " << c.config; }

const Strings kPasses = {"ok", "slow"};  // a correct kernel may be slower than cuBLAS/SDPA

// clang-format off
const std::vector<ZooCase> kZoo = {
  // GEMM (kernels/gemm)
  {"gemm/gemm_tiled_f16.tscfg.json",             "run",   kPasses, {}, ""},
  {"gemm/gemm_tiled_tail.tscfg.json",            "run",   kPasses, {}, ""},
  {"gemm/gemm_tiled_f32out.tscfg.json",          "run",   kPasses, {}, ""},
  {"gemm/gemm_tiled_sweep.tscfg.json",           "sweep", kPasses, {}, "", 16},
  {"gemm/gemm_bug_no_mask.tscfg.json",           "run",   {"incorrect", "fault"}, {"oob_write", "oob_read", "illegal_address"}, ""},
  {"gemm/gemm_bug_no_mask_aligned.tscfg.json",   "run",   kPasses, {}, ""},
  {"gemm/gemm_bug_assert_whole_tiles.tscfg.json", "run",  {"fault"}, {"device_assert"}, ""},
  {"gemm/gemm_bug_misaligned.tscfg.json",        "run",   {"fault"}, {"misaligned_access"}, ""},
  {"gemm/gemm_bug_misaligned_k1024.tscfg.json",  "run",   kPasses, {}, ""},
  {"gemm/gemm_bug_no_sync.tscfg.json",           "run",   {"incorrect"}, {"race", "mismatch"}, ""},
  {"gemm/gemm_bug_no_init.tscfg.json",           "run",   {"incorrect"}, {"uninitialized_read", "nan_inf"}, ""},
  {"gemm/gemm_bug_no_init_zeroed.tscfg.json",    "run",   kPasses, {}, ""},
  {"gemm/gemm_bug_fp16_acc.tscfg.json",          "run",   {"incorrect"}, {"accumulator_overflow", "nan_inf"}, ""},
  {"gemm/gemm_bug_transposed.tscfg.json",        "run",   {"incorrect"}, {"mismatch"}, "transposed"},
  {"gemm/gemm_bug_int32_index_small.tscfg.json", "run",   kPasses, {}, ""},
  {"gemm/gemm_bug_int32_index_large.tscfg.json", "run",   {"fault", "incorrect"}, {"illegal_address", "int_overflow", "oob_read", "mismatch"}, ""},
  {"gemm/gemm_bug_smem_over.tscfg.json",         "run",   {"launch_error"}, {"smem_exceeded"}, ""},
  // Flash-attention forward (kernels/attention)
  {"attention/flash_attn_fwd_d64.tscfg.json",              "run", kPasses, {}, ""},
  {"attention/flash_attn_fwd_d128.tscfg.json",             "run", kPasses, {}, ""},
  {"attention/flash_attn_fwd_tail.tscfg.json",             "run", kPasses, {}, ""},
  {"attention/flash_attn_bug_no_max.tscfg.json",           "run", {"incorrect"}, {"nan_inf"}, ""},
  {"attention/flash_attn_bug_misaligned.tscfg.json",       "run", {"fault"}, {"misaligned_access"}, ""},
  {"attention/flash_attn_bug_misaligned_pad8.tscfg.json",  "run", kPasses, {}, ""},
  {"attention/flash_attn_bug_no_mask.tscfg.json",          "run", {"incorrect"}, {"oob_read", "nan_inf"}, ""},
  {"attention/flash_attn_bug_no_mask_aligned.tscfg.json",  "run", kPasses, {}, ""},
  // Row softmax (kernels/softmax)
  {"softmax/softmax_row_f32.tscfg.json",          "run", kPasses, {}, ""},
  {"softmax/softmax_row_f16.tscfg.json",          "run", kPasses, {}, ""},
  {"softmax/softmax_bug_no_max.tscfg.json",       "run", {"incorrect"}, {"nan_inf"}, ""},
  {"softmax/softmax_bug_no_max_small.tscfg.json", "run", kPasses, {}, ""},
  {"softmax/softmax_bug_no_sync.tscfg.json",      "run", {"incorrect"}, {"race", "mismatch"}, ""},
  // Highway gate (kernels/gate)
  {"gate/highway_gate.tscfg.json",                "run", kPasses, {}, ""},
  {"gate/highway_gate_bug_no_mask.tscfg.json",    "run", {"incorrect", "fault"}, {"oob_write"}, ""},
  {"gate/highway_gate_bug_floor_grid.tscfg.json", "run", {"incorrect"}, {"coverage_gap"}, ""},
  // Tracer kernels (kernels/trace): untraced, the bugs that only the trace sees pass
  {"trace/transpose.tscfg.json",                  "run", {"ok"}, {}, ""},
  {"trace/transpose_bug_no_pad.tscfg.json",       "run", {"ok"}, {}, ""},
  {"trace/transpose_bug_read_no_mask.tscfg.json", "run", {"ok"}, {}, ""},
  {"trace/transpose_bug_no_sync.tscfg.json",      "run", {"incorrect"}, {"mismatch", "race", "nan_inf"}, ""},
  {"trace/pack4.tscfg.json",                      "run", {"ok"}, {}, ""},
  {"trace/pack4_bug_offset.tscfg.json",           "run", {"fault"}, {"misaligned_access"}, ""},
  {"trace/rowsum.tscfg.json",                     "run", {"ok"}, {}, ""},
  {"trace/tensor_list.tscfg.json",                "run", {"ok"}, {}, ""},
  {"trace/tensor_list_grid_constant.tscfg.json",  "run", {"ok"}, {}, ""},
  {"trace/rowsum_bug_no_init.tscfg.json",         "run", {"incorrect"}, {"uninitialized_read", "nan_inf"}, ""},
  {"trace/bulk_rowsum.tscfg.json",                "run", {"ok"}, {}, "", 0, 90},
  {"trace/bulk_rowsum_bug_no_tail.tscfg.json",    "run", {"ok"}, {}, "", 0, 90},
  // Triton (kernels/triton, docs/triton.md): compiled by the Triton helper in the worker
  {"triton/matmul_f16.tscfg.json",                    "run",   kPasses, {}, ""},
  {"triton/matmul_4096.tscfg.json",                   "run",   kPasses, {}, ""},
  {"triton/matmul_tail.tscfg.json",                   "run",   kPasses, {}, ""},
  {"triton/matmul_rows_tail.tscfg.json",              "run",   kPasses, {}, ""},
  {"triton/matmul_sweep.tscfg.json",                  "sweep", kPasses, {}, "", 8},
  {"triton/matmul_spill.tscfg.json",                  "check", {}, {"register_spill"}, ""},
  {"triton/matmul_bug_dot_shape.tscfg.json",          "run",   {"compile_error"}, {"compile_error"}, "triton_dot_shape"},
  {"triton/matmul_bug_wrong_stride.tscfg.json",       "run",   {"incorrect"}, {"mismatch"}, "transposed"},
  {"triton/matmul_bug_no_k_mask.tscfg.json",          "run",   {"incorrect"}, {"nan_inf", "mismatch", "oob_read"}, ""},
  {"triton/row_sum.tscfg.json",                       "run",   kPasses, {}, ""},
  {"triton/row_sum_bug_load_no_mask.tscfg.json",      "run",   {"incorrect"}, {"mismatch", "nan_inf", "oob_read"}, ""},
  {"triton/row_sum_bug_dynamic_arange.tscfg.json",    "run",   {"compile_error"}, {"compile_error"}, "triton_arange_constexpr"},
  {"triton/softmax.tscfg.json",                       "run",   kPasses, {}, ""},
  {"triton/softmax_bug_no_max.tscfg.json",            "run",   {"incorrect"}, {"nan_inf"}, ""},
  {"triton/add.tscfg.json",                           "run",   kPasses, {}, ""},
  {"triton/add_bug_store_no_mask.tscfg.json",         "run",   {"incorrect", "fault"}, {"oob_write", "illegal_address"}, ""},
  // Triton 3.6.0 or newer: 3.5.x does not compile its store's 1-D mask (docs/toolchains.md)
  {"triton/add_bias_col_mask.tscfg.json",             "run",   {"ok"}, {}, ""},
  {"triton/count_positive.tscfg.json",                "run",   kPasses, {}, ""},
  {"triton/count_positive_bug_non_atomic.tscfg.json", "run",   {"incorrect"}, {"race", "mismatch"}, ""},
  {"triton/flash_attn_d64.tscfg.json",                "run",   kPasses, {}, ""},
  {"triton/flash_attn_d128.tscfg.json",               "run",   kPasses, {}, ""},
  {"triton/flash_attn_tail.tscfg.json",               "run",   kPasses, {}, ""},
  // TileLang's generated CUDA (kernels/tilelang), compiled with TileLang's headers
  {"tilelang/gemm_tilelang.tscfg.json",               "run",   kPasses, {}, ""},
  // Transposes (kernels/transpose): what the hardware counters prove (tests/gpu/test_counters.cpp)
  {"transpose/transpose_bank_conflicts.tscfg.json", "run", {"ok"}, {"bank_conflicts"}, "load"},
  {"transpose/transpose_padded.tscfg.json",         "run", {"ok"}, {}, ""},
  {"transpose/transpose_naive.tscfg.json",          "run", {"ok"}, {"uncoalesced_access"}, "store"},
  // Static findings (`check --device h100`, no GPU needed); each config sits
  // next to the kernel it uses (a config reads only inside its own folder).
  {"gemm/smem_exceeded.tscfg.json",        "check", {"launch_error"}, {"smem_exceeded"}, ""},
  {"gate/invalid_launch.tscfg.json",       "check", {"launch_error"}, {"invalid_launch"}, ""},
  {"static/too_many_resources.tscfg.json", "check", {"launch_error"}, {"too_many_resources"}, ""},
  {"gemm/coverage_gap.tscfg.json",         "check", {}, {"coverage_gap"}, ""},
  {"static/register_spill.tscfg.json",     "check", {}, {"register_spill"}, ""},
  {"gemm/low_occupancy.tscfg.json",        "check", {}, {"low_occupancy"}, ""},
};
// clang-format on

/// True when the CUDA driver loads and reports at least one device. Goes
/// through dlopen so that this test needs no CUDA headers and no link-time
/// driver dependency (a machine without a GPU often has no libcuda at all).
std::string caseName(const ZooCase& c) {
  std::string name = c.config.substr(0, c.config.find(".tscfg.json"));
  std::replace_if(
      name.begin(), name.end(), [](char ch) { return !std::isalnum(static_cast<unsigned char>(ch)); }, '_');
  return name;
}

/// All findings of a report: the merged top-level list and every point's.
std::vector<nlohmann::json> allFindings(const nlohmann::json& report) {
  std::vector<nlohmann::json> out;
  for (const auto& f : report.value("findings", nlohmann::json::array())) out.push_back(f);
  for (const auto& p : report.value("points", nlohmann::json::array()))
    for (const auto& f : p.value("findings", nlohmann::json::array())) out.push_back(f);
  return out;
}

std::string describe(const std::vector<nlohmann::json>& findings) {
  std::string s;
  for (const auto& f : findings)
    s += "  " + f.value("category", "?") + " (" + f.value("severity", "?") + ", detail '" +
         f.value("detail", "") + "'): " + f.value("message", "") + "\n";
  return s.empty() ? "  (none)\n" : s;
}

class ZooTest : public ::testing::TestWithParam<ZooCase> {};

TEST_P(ZooTest, ReportCarriesTheDocumentedFinding) {
  const ZooCase& c = GetParam();
  if (c.verb != "check" && !gpuPresent()) GTEST_SKIP() << "no CUDA GPU: `" << c.verb << "` needs one";
  if (c.verb != "check" && gputest::gpuComputeCapability() < c.minSm)
    GTEST_SKIP() << "needs compute capability " << c.minSm / 10 << "." << c.minSm % 10;

  const fs::path config = fs::path(TILESCOPE_SOURCE_DIR) / "kernels" / c.config;
  ASSERT_TRUE(fs::exists(config)) << config;
  // TILESCOPE_ZOO_REPORT_DIR keeps the reports (the sample session is recorded this way).
  const char* keep = std::getenv("TILESCOPE_ZOO_REPORT_DIR");
  const fs::path dir =
      keep ? fs::path(keep) : fs::temp_directory_path() / ("tilescope_zoo_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path report = dir / (caseName(c) + ".report.json");
  const fs::path log = dir / (caseName(c) + ".log");
  fs::remove(report);

  std::string cmd = shellQuote(TILESCOPE_RUN_EXE) + " " + c.verb + " " + shellQuote(config.string());
  if (c.verb == "check") cmd += " --device h100";
  // The zoo's Triton files are ours: consent, so that a GPU host without
  // bubblewrap compiles them (tests/cli/triton_sandbox.sh tests the sandbox).
  if (c.config.rfind("triton/", 0) == 0) cmd += " --allow-commands";
  cmd += " -o " + shellQuote(report.string()) + " > " + shellQuote(log.string()) + " 2>&1";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status)) << cmd;
  const int rc = WEXITSTATUS(status);
  // docs/report.md, Exit status: 2 is a usage/config error, 3 no GPU; a zoo config must be neither.
  ASSERT_TRUE(rc == 0 || rc == 1) << cmd << "\nexit " << rc << "\n" << readFile(log);
  ASSERT_TRUE(fs::exists(report)) << "no report written by: " << cmd << "\n" << readFile(log);

  nlohmann::json j;
  ASSERT_NO_THROW(j = nlohmann::json::parse(readFile(report))) << report;
  ASSERT_EQ(j.value("schema", ""), "tilescope.report/1");
  const std::string verdict = j.value("verdict", "");
  const auto findings = allFindings(j);
  const std::string context =
      "config " + c.config + ", verdict " + verdict + ", findings:\n" + describe(findings);

  if (!c.verdicts.empty()) {
    EXPECT_NE(std::find(c.verdicts.begin(), c.verdicts.end(), verdict), c.verdicts.end()) << context;
  }
  if (verdict == "ok") {
    EXPECT_EQ(rc, 0) << context;
  }
  if (c.points > 0) {
    EXPECT_EQ(j.value("points", nlohmann::json::array()).size(), static_cast<size_t>(c.points)) << context;
  }

  if (c.anyCategory.empty()) {
    // A correct kernel: nothing of severity error except being slower than the baseline.
    for (const auto& f : findings)
      if (f.value("severity", "") == "error" && f.value("category", "") != "slow_vs_baseline")
        ADD_FAILURE() << "unexpected error finding " << f.value("category", "") << "\n" << context;
    return;
  }
  const bool found = std::any_of(findings.begin(), findings.end(), [&](const nlohmann::json& f) {
    const std::string cat = f.value("category", "");
    if (std::find(c.anyCategory.begin(), c.anyCategory.end(), cat) == c.anyCategory.end()) return false;
    return c.detail.empty() || f.value("detail", "") == c.detail;
  });
  EXPECT_TRUE(found) << "expected a finding of category " << ::testing::PrintToString(c.anyCategory)
                     << (c.detail.empty() ? "" : " with detail " + c.detail) << "\n"
                     << context;
}

INSTANTIATE_TEST_SUITE_P(Kernels, ZooTest, ::testing::ValuesIn(kZoo),
                         [](const ::testing::TestParamInfo<ZooCase>& info) { return caseName(info.param); });

// A failed device assert is located from the text CUDA prints for it on the
// worker's stderr: the assert's own file and line, and a block and thread for
// which the asserted condition is false — recomputed here from the kernel's
// index arithmetic (gemm_tiled.cu).
TEST(ZooAssert, FailedAssertNamesItsLineBlockAndThread) {
  if (!gpuPresent()) GTEST_SKIP() << "no CUDA GPU";
  const fs::path src = fs::path(TILESCOPE_SOURCE_DIR) / "kernels/gemm/gemm_tiled.cu";
  int assertLine = 0, n = 0;
  std::istringstream lines(readFile(src));
  for (std::string line; std::getline(lines, line);) {
    ++n;
    if (line.find("assert(r < M && c < N)") != std::string::npos) assertLine = n;
  }
  ASSERT_GT(assertLine, 0) << "no assert in " << src;
  const fs::path dir = fs::temp_directory_path() / ("tilescope_assert_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path report = dir / "assert.json";
  const std::string cmd =
      shellQuote(TILESCOPE_RUN_EXE) + " run " +
      shellQuote(
          (fs::path(TILESCOPE_SOURCE_DIR) / "kernels/gemm/gemm_bug_assert_whole_tiles.tscfg.json").string()) +
      " -o " + shellQuote(report.string()) + " > " + shellQuote((dir / "log").string()) + " 2>&1";
  ASSERT_EQ(WEXITSTATUS(std::system(cmd.c_str())), 1) << readFile(dir / "log");
  const auto j = nlohmann::json::parse(readFile(report));
  const auto& p = j["points"][0];
  EXPECT_EQ(p.value("verdict", ""), "fault");
  const nlohmann::json* f = nullptr;
  for (const auto& x : p["findings"])
    if (x.value("category", "") == "device_assert") f = &x;
  ASSERT_TRUE(f) << describe(p["findings"].get<std::vector<nlohmann::json>>());
  const auto& l = (*f)["location"];
  EXPECT_EQ(fs::path(l.value("file", "")).filename(), "gemm_tiled.cu") << l.dump();
  EXPECT_EQ(l.value("line", 0), assertLine) << l.dump();
  EXPECT_EQ((*f)["evidence"].value("condition", ""), "r < M && c < N");
  ASSERT_TRUE(l.contains("block") && l.contains("thread")) << l.dump();
  // gemm_tiled: BLOCK_M = BLOCK_N = 64, 128 threads: TX 16, TY 8, TM 8, TN 4; M = N = 1000.
  const int bx = l["block"][0], by = l["block"][1], t = l["thread"][0];
  const int tx = t % 16, ty = t / 16;
  bool outside = false;
  for (int i = 0; i < 8; ++i)
    for (int jj = 0; jj < 4; ++jj) outside |= by * 64 + ty + i * 8 >= 1000 || bx * 64 + tx + jj * 16 >= 1000;
  EXPECT_TRUE(outside) << "block (" << bx << "," << by << ") thread " << t
                       << " stores only inside C: " << l.dump();
  fs::remove_all(dir);
}

// Device printf reaches the point's device_output, and the stream stays intact.
TEST(ZooPrintf, DevicePrintfIsKeptAsDeviceOutput) {
  if (!gpuPresent()) GTEST_SKIP() << "no CUDA GPU";
  const fs::path dir = fs::temp_directory_path() / ("tilescope_printf_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path report = dir / "printf.json";
  const std::string cmd = shellQuote(TILESCOPE_RUN_EXE) + " run " +
                          shellQuote(std::string(TILESCOPE_TEST_DATA) + "/kernels/printf_fill.tscfg.json") +
                          " -o " + shellQuote(report.string()) + " > " + shellQuote((dir / "log").string()) +
                          " 2>&1";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << readFile(dir / "log");
  const auto p = nlohmann::json::parse(readFile(report))["points"][0];
  EXPECT_EQ(p.value("verdict", ""), "ok") << p.dump(1).substr(0, 2000);
  EXPECT_NE(p.value("device_output", "").find("printf_fill: n = 4096, grid 16\n"), std::string::npos)
      << p.value("device_output", "").substr(0, 500);
  fs::remove_all(dir);
}

// Every config shipped in kernels/ has a row in the table above (and so in the README).
TEST(ZooTable, CoversEveryShippedConfig) {
  const fs::path root = fs::path(TILESCOPE_SOURCE_DIR) / "kernels";
  std::vector<std::string> missing;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    const std::string name = e.path().filename().string();
    if (!e.is_regular_file() || name.size() < 11 || name.substr(name.size() - 11) != ".tscfg.json") continue;
    const std::string rel = fs::relative(e.path(), root).generic_string();
    if (std::none_of(kZoo.begin(), kZoo.end(), [&](const ZooCase& c) { return c.config == rel; }))
      missing.push_back(rel);
  }
  EXPECT_TRUE(missing.empty()) << "configs without an expectation: " << ::testing::PrintToString(missing);
}

}  // namespace
}  // namespace tilescope
