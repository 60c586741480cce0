// Structs passed by value replay bit-exactly (docs/capture.md, "Structs
// passed by value"): bench/capture/params_struct.cu, built with nvcc, is captured
// by `tilescope-run capture`; each of its three launches (a struct of
// pointers at allocation starts, one with a pointer into the middle of an
// allocation that a top-level pointer also reaches, a 1 KiB struct with a
// pointer table) must become a config whose struct argument is relocated
// bytes, and `tilescope-run run` of it must end `ok` with 0 mismatches.
// Skips without a GPU; fails when nvcc cannot build the program.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gpu_util.h"

namespace tilescope {
namespace {

namespace fs = std::filesystem;
using gputest::gpuPresent;
using gputest::readFile;
using gputest::shellQuote;
using nlohmann::json;

int exitOf(const std::string& cmd) {
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/// nvcc from CUDACXX, PATH or the toolkit's default place; "" when none.
std::string nvcc() {
  if (const char* c = std::getenv("CUDACXX"); c && *c && fs::exists(c)) return c;
  if (exitOf("command -v nvcc >/dev/null 2>&1") == 0) return "nvcc";
  return fs::exists("/usr/local/cuda/bin/nvcc") ? "/usr/local/cuda/bin/nvcc" : "";
}

std::string errorFindings(const json& point) {
  std::string s;
  for (const auto& f : point.value("findings", json::array()))
    if (f.value("severity", "error") == "error")
      s += "  " + f.value("category", "?") + ": " + f.value("message", "") + "\n";
  return s;
}

TEST(CaptureStructs, ParamsStructLaunchesReplayBitExact) {
  if (!gpuPresent()) GTEST_SKIP() << "no CUDA GPU";
  const std::string compiler = nvcc();
  ASSERT_FALSE(compiler.empty()) << "no nvcc (set CUDACXX): the program cannot be built";
  const fs::path work = fs::temp_directory_path() / ("tilescope_structs_" + std::to_string(::getpid()));
  fs::remove_all(work);
  fs::create_directories(work);
  const fs::path exe = work / "params_struct", dir = work / "capture";
  const fs::path src = fs::path(TILESCOPE_SOURCE_DIR) / "bench" / "capture" / "params_struct.cu";
  const std::string build = shellQuote(compiler) + " -O2 -lineinfo -o " + shellQuote(exe.string()) + " " +
                            shellQuote(src.string()) + " > " + shellQuote((work / "nvcc.log").string()) +
                            " 2>&1";
  ASSERT_EQ(exitOf(build), 0) << build << "\n" << readFile(work / "nvcc.log");

  const std::string run = shellQuote(TILESCOPE_RUN_EXE);
  const std::string capture = run + " capture -o " + shellQuote(dir.string()) + " -- " +
                              shellQuote(exe.string()) + " 65536 > " +
                              shellQuote((work / "capture.log").string()) + " 2>&1";
  ASSERT_EQ(exitOf(capture), 0) << capture << "\n" << readFile(work / "capture.log");
  const json info = json::parse(readFile(dir / "capture.json"), nullptr, false);
  ASSERT_TRUE(info.is_object()) << readFile(work / "capture.log");

  std::map<std::string, std::string> configOf;  // kernel -> config file
  for (const auto& l : info["launches"]) {
    const std::string kernel = l.value("kernel", "");
    EXPECT_TRUE(l.contains("config")) << kernel << ": " << l.value("reason", "no reason") << "\n"
                                      << l.dump(1);
    if (l.contains("config")) configOf[kernel] = l["config"].get<std::string>();
  }
  ASSERT_EQ(configOf.size(), 3u) << info["launches"].dump(1);

  std::map<std::string, std::size_t> relocations;  // kernel -> relocations of its struct
  for (const auto& [kernel, file] : configOf) {
    const fs::path cfgPath = dir / file;
    const json cfg = json::parse(readFile(cfgPath));
    const json& arg = cfg["args"][0];
    ASSERT_TRUE(arg.is_object()) << kernel << ": the struct is not a bytes argument: " << cfg["args"].dump();
    EXPECT_EQ(arg["kind"], "bytes") << kernel;
    EXPECT_FALSE(arg.contains("ambiguous")) << kernel << ": " << arg.dump();
    relocations[kernel] = arg.value("relocations", json::array()).size();

    const fs::path rep = work / (file + ".run.json");
    const std::string cmd = run + " run " + shellQuote(cfgPath.string()) + " -o " + shellQuote(rep.string()) +
                            " > " + shellQuote(rep.string() + ".log") + " 2>&1";
    EXPECT_EQ(exitOf(cmd), 0) << cmd << "\n" << readFile(rep.string() + ".log");
    const json report = json::parse(readFile(rep), nullptr, false);
    ASSERT_TRUE(report.is_object()) << kernel << ": no report\n" << readFile(rep.string() + ".log");
    EXPECT_EQ(report["verdict"], "ok") << kernel;
    const json& point = report["points"][0];
    EXPECT_EQ(errorFindings(point), "") << kernel;
    const json all = point.contains("correctness_all")
                         ? point["correctness_all"]
                         : json::array({point.value("correctness", json::object())});
    ASSERT_FALSE(all.empty()) << kernel;
    for (const auto& c : all) {
      EXPECT_EQ(c.value("checked", false), true) << kernel << ": " << c.dump();
      EXPECT_EQ(c.value("mismatches", -1), 0) << kernel << ": " << c.dump();
    }
  }
  EXPECT_EQ(relocations["axpby"], 3u);      // x, y, out
  EXPECT_EQ(relocations["row_scale"], 2u);  // m + cols, sums
  EXPECT_EQ(relocations["gather"], 5u);     // src[0..3], dst
  if (!::testing::Test::HasFailure()) fs::remove_all(work);
}

/// The 1-based line of `src` that holds `marker` (0 when none).
int lineOf(const fs::path& src, const std::string& marker) {
  const std::string text = readFile(src);
  const auto at = text.find(marker);
  return at == std::string::npos ? 0 : 1 + int(std::count(text.begin(), text.begin() + long(at), '\n'));
}

/// A pointer keeps where it lay in its allocation (docs/capture.md, "Where a
/// pointer points"): bench/capture/misaligned_vec4.cu launches a float4 copy
/// on `src + 1`, which faults in the program; `run` of its config must fault
/// the same way, and `run --trace` must name the load's line in the .cu file
/// (built with -lineinfo). Its stencil on `buf + 64` reads x[-1], legal in the
/// program: the replay must be bit-exact.
TEST(CapturePlacement, MisalignedPointerFaultsAtItsLineAndLeadReadsReplay) {
  if (!gpuPresent()) GTEST_SKIP() << "no CUDA GPU";
  const std::string compiler = nvcc();
  ASSERT_FALSE(compiler.empty()) << "no nvcc (set CUDACXX): the program cannot be built";
  const fs::path work = fs::temp_directory_path() / ("tilescope_placement_" + std::to_string(::getpid()));
  fs::remove_all(work);
  fs::create_directories(work);
  const fs::path exe = work / "misaligned_vec4", dir = work / "capture";
  const fs::path src = fs::path(TILESCOPE_SOURCE_DIR) / "bench" / "capture" / "misaligned_vec4.cu";
  const std::string build = shellQuote(compiler) + " -O2 -lineinfo -o " + shellQuote(exe.string()) + " " +
                            shellQuote(src.string()) + " > " + shellQuote((work / "nvcc.log").string()) +
                            " 2>&1";
  ASSERT_EQ(exitOf(build), 0) << build << "\n" << readFile(work / "nvcc.log");
  const std::string run = shellQuote(TILESCOPE_RUN_EXE);
  const std::string capture = run + " capture -o " + shellQuote(dir.string()) + " -- " +
                              shellQuote(exe.string()) + " 4096 > " +
                              shellQuote((work / "capture.log").string()) + " 2>&1";
  EXPECT_EQ(exitOf(capture), 1) << "the program faults: " << capture << "\n"
                                << readFile(work / "capture.log");
  const json info = json::parse(readFile(dir / "capture.json"), nullptr, false);
  ASSERT_TRUE(info.is_object()) << readFile(work / "capture.log");
  std::map<std::string, json> launchOf;
  for (const auto& l : info["launches"]) launchOf[l.value("kernel", "")] = l;
  ASSERT_TRUE(launchOf.count("stencil") && launchOf.count("copy4")) << info["launches"].dump(1);
  EXPECT_EQ(launchOf["copy4"].value("fault", ""), "CUDA_ERROR_MISALIGNED_ADDRESS")
      << launchOf["copy4"].dump();
  ASSERT_TRUE(launchOf["stencil"].contains("config")) << launchOf["stencil"].dump();
  ASSERT_TRUE(launchOf["copy4"].contains("config")) << launchOf["copy4"].dump();

  auto replay = [&](const std::string& kernel, const std::string& extra) {
    const fs::path cfg = dir / launchOf[kernel]["config"].get<std::string>();
    const fs::path rep = work / (kernel + ".run.json");
    const std::string cmd = run + " run " + shellQuote(cfg.string()) + extra + " -o " +
                            shellQuote(rep.string()) + " > " + shellQuote(rep.string() + ".log") + " 2>&1";
    (void)exitOf(cmd);
    const json report = json::parse(readFile(rep), nullptr, false);
    EXPECT_TRUE(report.is_object()) << cmd << "\n" << readFile(rep.string() + ".log");
    return std::make_pair(json::parse(readFile(cfg)), report);
  };
  // The stencil's pointer is 256 bytes into its allocation: a lead of 256, x[-1] inside it.
  const auto [stencilCfg, stencil] = replay("stencil", "");
  EXPECT_EQ(stencilCfg["args"][0].value("relocations", json::array()),
            json::parse(R"([{"offset": 0, "tensor": "p0", "delta": 256}])"))
      << stencilCfg["args"].dump();
  ASSERT_TRUE(stencil.is_object());
  EXPECT_EQ(stencil["verdict"], "ok") << stencil["points"][0].value("findings", json::array()).dump(1);
  EXPECT_EQ(errorFindings(stencil["points"][0]), "");
  // copy4's pointer is src + 1: a lead of 4, the address 4 past a 16-byte boundary.
  const auto [copyCfg, copy] = replay("copy4", " --trace");
  EXPECT_EQ(copyCfg["args"][0].value("relocations", json::array()),
            json::parse(R"([{"offset": 0, "tensor": "p0", "delta": 4}])"))
      << copyCfg["args"].dump();
  ASSERT_TRUE(copy.is_object());
  EXPECT_EQ(copy["verdict"], "fault");
  const int loadLine = lineOf(src, "misaligned when");
  ASSERT_GT(loadLine, 0);
  bool misaligned = false, atLine = false;
  std::string seen;
  for (const auto& f : copy["points"][0].value("findings", json::array())) {
    if (f.value("category", "") != "misaligned_access") continue;
    misaligned = true;
    const json loc = f.value("location", json::object());
    seen += loc.value("file", "?") + ":" + std::to_string(loc.value("line", 0)) + " ";
    atLine |= loc.value("file", "").ends_with("misaligned_vec4.cu") && loc.value("line", 0) == loadLine;
  }
  EXPECT_TRUE(misaligned) << copy["points"][0].value("findings", json::array()).dump(1);
  EXPECT_TRUE(atLine) << "expected misaligned_vec4.cu:" << loadLine << ", saw " << seen;
  if (!::testing::Test::HasFailure()) fs::remove_all(work);
}

}  // namespace
}  // namespace tilescope
