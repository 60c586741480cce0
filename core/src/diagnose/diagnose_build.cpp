// What a follow-up experiment runs: the kernel built for what the experiment
// changes, as the kernel's own launcher would build it, or nothing.
//
// A Triton launcher compiles one specialisation per call signature: its JIT
// marks each pointer whose address is a multiple of 16 and each integer
// argument divisible by 16 with tt.divisibility=16 (and turns an integer equal to
// 1 into a constant), so the cubin it runs may use 16-byte vector accesses the
// source never promised. A healthy Triton kernel whose pointers are shifted by 4
// bytes under that cubin faults; Triton itself would have compiled another
// specialisation for those pointers. So the worker recompiles a Triton config
// from its .py for every experiment (core/cuda/src/measure/measure.cpp passes
// `alignShiftBytes % 16 == 0` as the pointers' alignment, resources/python/
// tilescope/triton_helper applies the JIT's rules), and these functions say so.
// A binary without source (a captured cubin, a prebuilt PTX) cannot be rebuilt:
// the experiments that change what it may assume are skipped with the reason.
#include <algorithm>
#include <cctype>

#include "diagnose_detail.h"
#include "tilescope/diagnose/diagnose.h"

namespace tilescope {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

bool isDefine(const Config& cfg, const std::string& name) {
  return std::any_of(cfg.kernel.defines.begin(), cfg.kernel.defines.end(),
                     [&](const auto& d) { return d.first == name; });
}

std::string overridesText(const std::vector<std::pair<std::string, std::int64_t>>& ov) {
  std::string s;
  for (const auto& [k, v] : ov) s += (s.empty() ? "" : " ") + k + "=" + std::to_string(v);
  return s;
}

}  // namespace

std::string prebuiltBinaryReason(const Config& cfg) {
  if (cfg.kernel.isPython()) return "";
  const std::string ext = lower(std::filesystem::path(cfg.kernel.source).extension().string());
  if (ext != ".cubin" && ext != ".fatbin" && ext != ".ptx") return "";
  return "the kernel is a binary (" + cfg.kernel.source +
         ") with no source TileScope can recompile: its compiler may have specialised it on what the "
         "program's launch had (Triton's JIT on 16-byte aligned pointers and sizes divisible by 16, "
         "TileLang on fixed shapes and aligned buffers, any compiler on the block size), so changing that "
         "under it tests the binary's promise, not the kernel. Give the config the kernel's source (the "
         ".cu, or the Triton .py with \"language\": \"triton\") to run it";
}

std::string experimentBuild(const Config& cfg, const Experiment& e) {
  const std::string& src = cfg.kernel.source;
  if (cfg.kernel.isTriton()) {
    if (e.alignShift != 0) {
      const std::int64_t align = std::min<std::int64_t>(diagnose_detail::lowBit(e.alignShift), 256);
      return "recompiled from " + src + " for " + std::to_string(align) +
             "-byte aligned pointers, as Triton's JIT compiles them: " +
             (align >= 16 ? std::string("tt.divisibility=16 on every pointer, as in the baseline")
                          : std::string("no tt.divisibility=16 on the pointers"));
    }
    if (!e.overrides.empty())
      return "recompiled from " + src + " with " + overridesText(e.overrides) +
             ", as Triton's JIT specialises them (an integer argument 1 as a constant, multiples of 16 "
             "with tt.divisibility=16)";
    return "";
  }
  if (cfg.kernel.isPython()) {
    if (e.overrides.empty()) return "";
    return "recompiled from " + src + " with " + overridesText(e.overrides);
  }
  std::vector<std::pair<std::string, std::int64_t>> defines;
  for (const auto& ov : e.overrides)
    if (isDefine(cfg, ov.first)) defines.push_back(ov);
  if (defines.empty() || !prebuiltBinaryReason(cfg).empty()) return "";
  std::string flags;
  for (const auto& [k, v] : defines)
    flags += (flags.empty() ? "" : " ") + ("-D" + k + "=" + std::to_string(v));
  return "recompiled from " + src + " with " + flags;
}

std::optional<Tolerance> experimentTolerance(const Config& cfg, const Experiment& e) {
  if (!cfg.kernel.isTriton() || e.alignShift == 0 || diagnose_detail::lowBit(e.alignShift) >= 16)
    return std::nullopt;  // the baseline's specialisation: its bits must match
  const Tolerance defaults;
  if (cfg.tolerance.rtol >= defaults.rtol && cfg.tolerance.atol >= defaults.atol) return std::nullopt;
  return defaults;
}

}  // namespace tilescope
