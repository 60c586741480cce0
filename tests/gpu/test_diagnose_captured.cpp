// `diagnose` of healthy kernels captured from real programs finds nothing
// wrong (docs/capture.md): a captured Triton launch is recompiled for shifted pointers
// as Triton's JIT would (not shifted under the program's cubin, which the JIT
// specialised on 16-byte aligned pointers), and a captured cubin without source
// is not shifted at all (extra.diagnose.skipped says why). Needs a GPU and
// python3 with torch and triton; skips otherwise.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
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
using nlohmann::json;

int exitOf(const std::string& cmd) {
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

struct Diagnosed {
  std::string config;  ///< file name
  json report;
  int exit = -1;
};

/// Captures the launches of `program` (a path under bench/capture, with its
/// arguments) whose kernel matches `kernels` (not PyTorch's own: its random
/// number and reference kernels) into a fresh folder and diagnoses every config.
std::vector<Diagnosed> captureAndDiagnose(const std::string& name, const std::string& kernels,
                                          const std::string& program, fs::path* dir) {
  *dir = fs::temp_directory_path() / ("tilescope_captured_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(*dir);
  const std::string run = shellQuote(TILESCOPE_RUN_EXE);
  const fs::path bench = fs::path(TILESCOPE_SOURCE_DIR) / "bench" / "capture";
  // "script.py ARGS": the script's path quoted, its arguments apart.
  const auto space = program.find(' ');
  const std::string script = program.substr(0, space);
  const std::string args = space == std::string::npos ? "" : program.substr(space);
  const std::string capture = run + " capture -o " + shellQuote(dir->string()) + " --kernel " +
                              shellQuote(kernels) + " -- python3 " + shellQuote((bench / script).string()) +
                              args + " > " + shellQuote(dir->string() + ".capture.log") + " 2>&1";
  const int rc = exitOf(capture);
  EXPECT_EQ(rc, 0) << capture << "\n" << readFile(dir->string() + ".capture.log");
  std::vector<Diagnosed> out;
  if (!fs::is_directory(*dir)) return out;
  std::vector<fs::path> configs;
  for (const auto& e : fs::directory_iterator(*dir)) {
    const std::string f = e.path().filename().string();
    if (f.size() > 12 && f.ends_with(".tscfg.json") && !f.ends_with(".invalid.json"))
      configs.push_back(e.path());
  }
  std::sort(configs.begin(), configs.end());
  for (const auto& cfg : configs) {
    Diagnosed d;
    d.config = cfg.filename().string();
    const fs::path rep = dir->string() + "/" + d.config + ".diagnose.json";
    // The program's own kernel files (sources/): consent, so that a GPU host
    // without bubblewrap compiles them (docs/security.md).
    const std::string cmd = run + " diagnose " + shellQuote(cfg.string()) + " --allow-commands -o " +
                            shellQuote(rep.string()) + " > " + shellQuote(rep.string() + ".log") + " 2>&1";
    d.exit = exitOf(cmd);
    if (fs::exists(rep)) d.report = json::parse(readFile(rep), nullptr, false);
    std::cerr << d.config << ": exit " << d.exit << ", verdict "
              << (d.report.is_object() ? d.report.value("verdict", "?") : "no report") << "\n";
    out.push_back(std::move(d));
  }
  return out;
}

std::string errorFindings(const json& report) {
  std::string s;
  for (const auto& f : report.value("findings", json::array()))
    if (f.value("severity", "error") == "error")
      s += "  " + f.value("category", "?") + " (" + f.value("experiment", "baseline") +
           "): " + f.value("message", "") + "\n";
  return s;
}

const json& diagnoseExtra(const json& report) {
  static const json empty = json::object();
  const json& extra = report.contains("extra") ? report["extra"] : empty;
  return extra.contains("diagnose") ? extra["diagnose"] : empty;
}

bool hasSkipped(const json& report, const std::string& group) {
  for (const auto& s : diagnoseExtra(report).value("skipped", json::array()))
    if (s.value("group", "") == group) return true;
  return false;
}

/// The align_shift runs that recompiled the kernel without tt.divisibility=16.
std::vector<json> recompiledShifts(const json& report) {
  std::vector<json> out;
  for (const auto& e : diagnoseExtra(report).value("experiments", json::array()))
    if (e.value("group", "") == "align_shift" &&
        e.value("compiled", "").find("no tt.divisibility=16") != std::string::npos)
      out.push_back(e);
  return out;
}

bool pythonHasTorchAndTriton() {
  return std::system("python3 -c 'import torch, triton; assert torch.cuda.is_available()' >/dev/null 2>&1") ==
         0;
}

TEST(DiagnoseCaptured, HealthyTritonKernelsHaveNoErrorFindings) {
  if (!gpuPresent()) GTEST_SKIP() << "no CUDA GPU";
  if (!pythonHasTorchAndTriton()) GTEST_SKIP() << "python3 has no torch with CUDA and triton";
  fs::path dir;
  const auto runs = captureAndDiagnose("triton_healthy", "^(scale_add|geglu_tanh|cross_entropy)_kernel$",
                                       "triton_healthy.py 256", &dir);
  // scale_add, geglu_tanh, cross_entropy: one config each.
  ASSERT_EQ(runs.size(), 3u) << "configs in " << dir;
  // The program's binaries were specialised on 16-byte aligned pointers: the
  // condition under which shifting them used to fault.
  bool specialised = false;
  for (const auto& e : fs::recursive_directory_iterator(dir / "launches"))
    if (e.path().filename() == "launch.json")
      specialised = specialised || readFile(e.path()).find("tt.divisibility") != std::string::npos;
  EXPECT_TRUE(specialised) << "no recorded launch has tt.divisibility attributes";
  for (const auto& d : runs) {
    ASSERT_TRUE(d.report.is_object()) << d.config << ": no report (exit " << d.exit << ")";
    const std::string errors = errorFindings(d.report);
    EXPECT_EQ(errors, "") << d.config << " has error findings:\n" << errors;
    EXPECT_EQ(d.exit, 0) << d.config;
    EXPECT_TRUE(d.report["verdict"] == "ok" || d.report["verdict"] == "slow") << d.config;
    // The shift experiment ran, recompiled as the JIT would, and passed.
    const auto shifts = recompiledShifts(d.report);
    EXPECT_FALSE(shifts.empty()) << d.config << ": no recompiled align_shift run\n"
                                 << diagnoseExtra(d.report).dump(1);
    for (const auto& s : shifts)
      EXPECT_TRUE(s["verdict"] == "ok" || s["verdict"] == "slow") << d.config << ": " << s.dump();
    EXPECT_FALSE(hasSkipped(d.report, "align_shift")) << d.config;
  }
  if (!::testing::Test::HasFailure()) {  // kept to look at otherwise
    fs::remove_all(dir);
    fs::remove(dir.string() + ".capture.log");
  }
}

TEST(DiagnoseCaptured, HealthyInductorKernelsHaveNoErrorFindings) {
  // torch.compile's kernels reach the recorders through Triton's launcher (a
  // Triton config) or Inductor's static launcher (the CUDA recorder: the
  // program's cubin, never shifted).
  if (!gpuPresent()) GTEST_SKIP() << "no CUDA GPU";
  if (!pythonHasTorchAndTriton()) GTEST_SKIP() << "python3 has no torch with CUDA and triton";
  fs::path dir;
  const auto runs = captureAndDiagnose("inductor", "^triton_", "compiled_fn.py 512", &dir);
  ASSERT_FALSE(runs.empty()) << "no configs in " << dir;
  for (const auto& d : runs) {
    ASSERT_TRUE(d.report.is_object()) << d.config << ": no report (exit " << d.exit << ")";
    const std::string errors = errorFindings(d.report);
    EXPECT_EQ(errors, "") << d.config << " has error findings:\n" << errors;
    EXPECT_EQ(d.exit, 0) << d.config;
    const bool triton = d.report["config"]["kernel"].value("language", "cuda") == "triton";
    if (triton)
      EXPECT_FALSE(recompiledShifts(d.report).empty()) << d.config << ": " << diagnoseExtra(d.report).dump(1);
    else
      EXPECT_TRUE(hasSkipped(d.report, "align_shift")) << d.config << ": " << diagnoseExtra(d.report).dump(1);
  }
  if (!::testing::Test::HasFailure()) {
    fs::remove_all(dir);
    fs::remove(dir.string() + ".capture.log");
  }
}

}  // namespace
}  // namespace tilescope
