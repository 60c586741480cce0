// The registry of finding categories and the other words every part shares.
#include "tilescope/model/vocabulary.h"

#include <stdexcept>

namespace tilescope {

namespace {

constexpr const char* kSeverityNames[] = {"info", "warning", "error"};
constexpr const char* kVerdictNames[] = {"ok",    "slow",         "incorrect",    "hang",
                                         "fault", "launch_error", "compile_error"};

// In rank order: root causes first. A configuration the device refuses comes
// before anything the kernel did; a cause (misalignment, an overflowing index,
// memory never initialised, a race) before the symptoms it produces (a fault, a
// gap, NaN, wrong values); performance last.
constexpr CategoryInfo kCategories[] = {
    {"compile_error", Verdict::compile_error, 0, "compile",
     "the source did not compile; `detail` classifies the log"},
    {"smem_exceeded", Verdict::launch_error, 1, "launch.smem_exceeded",
     "shared memory per block above the device limit, or above 48 KiB without the opt-in attribute"},
    {"too_many_resources", Verdict::launch_error, 2, "launch.too_many_resources",
     "registers × threads (or another per-block resource) exceed one SM"},
    {"invalid_launch", Verdict::launch_error, 3, "launch.invalid_config",
     "grid or block dimensions outside the device limits"},
    {"misaligned_access", Verdict::fault, 4, "fault.misaligned_access",
     "a wide access at an address not aligned to its size"},
    {"int_overflow", Verdict::incorrect, 5, "wrong.int_overflow",
     "32-bit index arithmetic overflows at large sizes"},
    {"accumulator_overflow", Verdict::incorrect, 6, "wrong.accumulator_overflow",
     "low-precision accumulation overflows at large reduction sizes"},
    // A candidate that fools the evaluator (docs/triage.md, "Integrity"): `detail`
    // names the pattern. It explains the symptoms it produces (memory never
    // written, a wrong shape, ...), so it ranks before them.
    {"integrity", Verdict::incorrect, 7, "wrong.integrity",
     "the candidate games the evaluation: its inputs, outputs, streams, threads, timers or the harness "
     "are not what a correct kernel leaves"},
    {"uninitialized_read", Verdict::incorrect, 8, "wrong.uninitialized_read",
     "the output depends on memory the kernel never initialised"},
    {"race", Verdict::incorrect, 9, "fault.race",
     "identical trials give different results, or a shared-memory hazard was seen"},
    {"oob_write", Verdict::fault, 10, "fault.oob_write", "a write outside a tensor's bounds"},
    {"oob_read", Verdict::fault, 11, "fault.oob_read", "a read outside a tensor's bounds"},
    {"device_assert", Verdict::fault, 12, "fault.device_assert",
     "the kernel stopped on a device-side assert or __trap()"},
    {"illegal_address", Verdict::fault, 13, "fault.illegal_address",
     "the kernel faulted on an address not attributed further"},
    {"crash", Verdict::fault, 14, "fault.crash",
     "the process running the kernel died on a signal without a CUDA error"},
    {"hang", Verdict::hang, 15, "fault.hang", "the kernel did not finish within the watchdog limit"},
    {"coverage_gap", Verdict::incorrect, 16, "wrong.coverage_gap", "output elements that no CTA wrote"},
    {"coverage_overlap", Verdict::incorrect, 17, "wrong.coverage_overlap",
     "output elements written by more than one CTA"},
    // The triage traps (docs/triage.md): results that pass a loose comparison
    // without doing the work. They explain the symptoms after them.
    {"no_kernel", Verdict::incorrect, 18, "wrong.no_kernel",
     "the candidate launched no kernel of its own: the framework computed the result"},
    {"output_is_input", Verdict::incorrect, 19, "wrong.output_is_input",
     "the output equals one of the inputs"},
    {"input_invariant", Verdict::incorrect, 20, "wrong.input_invariant",
     "the output does not change when the inputs do"},
    {"nan_inf", Verdict::incorrect, 21, "wrong.nan_inf",
     "NaN or Inf in the output where the reference is finite"},
    {"all_zero", Verdict::incorrect, 22, "wrong.all_zero",
     "the output is all zero while the reference is not"},
    {"constant_output", Verdict::incorrect, 23, "wrong.constant_output",
     "every output element has the same value while the reference's differ"},
    {"mismatch", Verdict::incorrect, 24, "wrong.mismatch",
     "values differ from the reference beyond tolerance"},
    {"register_spill", Verdict::ok, 25, "perf.register_spill", "local memory used by register spills"},
    {"bank_conflicts", Verdict::ok, 26, "perf.bank_conflicts",
     "shared-memory bank conflicts measured by the profiler"},
    {"uncoalesced_access", Verdict::ok, 27, "perf",
     "global loads or stores touch more sectors per request than the access width needs"},
    {"no_tensor_cores", Verdict::ok, 28, "perf",
     "a matrix product that the tensor cores could run runs on the FMA units"},
    {"memory_bound", Verdict::ok, 29, "perf", "DRAM throughput near its peak limits the kernel"},
    {"compute_bound", Verdict::ok, 30, "perf", "an arithmetic pipe near its peak limits the kernel"},
    {"latency_bound", Verdict::ok, 31, "perf",
     "neither memory nor compute is near its peak: stalls (latency) limit the kernel"},
    {"low_occupancy", Verdict::ok, 32, "perf.low_occupancy", "occupancy limited by a named resource"},
    {"slow_vs_baseline", Verdict::slow, 33, "perf.slow",
     "slower than the baseline beyond the configured factor"},
    {"timing_not_scaling", Verdict::incorrect, 34, "perf.timing_not_scaling",
     "the kernel's time does not grow with the work while the reference's does"},
    {"gpu_variance", Verdict::ok, 35, "perf",
     "the same point's kernel time differs between the GPUs its trials ran on"},
    {"smem_opt_in", Verdict::ok, 36, "launch.smem_exceeded",
     "more than 48 KiB of shared memory per block, which the launch opts in to (the limit was raised)"},
    // The worker ended without a result TileScope could read: no capture was
    // made, so nothing is known about the kernel (not a fault of it).
    {"worker_error", Verdict::launch_error, 37, "start",
     "the worker ended without a readable result (a broken stream, a failure of the tool): nothing is known "
     "about the kernel"},
};

// The rank is the row's position: checked here so that a row inserted in the
// middle cannot leave two categories with one rank.
constexpr bool ranksAreRowOrder() {
  for (std::size_t i = 0; i < std::size(kCategories); ++i)
    if (kCategories[i].rank != static_cast<int>(i)) return false;
  return true;
}
static_assert(ranksAreRowOrder(), "kCategories: rank must equal the row's position");

std::string knownNames() {
  std::string s;
  for (const auto& c : kCategories) s += (s.empty() ? "" : ", ") + std::string(c.name);
  return s;
}

}  // namespace

const char* severityName(Severity s) {
  const int i = static_cast<int>(s);
  return i >= 0 && i < 3 ? kSeverityNames[i] : "error";
}

Severity parseSeverity(const std::string& s) {
  for (int i = 0; i < 3; ++i)
    if (s == kSeverityNames[i]) return static_cast<Severity>(i);
  throw std::invalid_argument("unknown severity '" + s + "' (expected info, warning or error)");
}

const char* verdictName(Verdict v) {
  const int i = static_cast<int>(v);
  return i >= 0 && i < 7 ? kVerdictNames[i] : "compile_error";
}

Verdict parseVerdict(const std::string& s) {
  for (int i = 0; i < 7; ++i)
    if (s == kVerdictNames[i]) return static_cast<Verdict>(i);
  throw std::invalid_argument("unknown verdict '" + s +
                              "' (expected ok, slow, incorrect, hang, fault, launch_error or compile_error)");
}

Verdict worse(Verdict a, Verdict b) { return static_cast<int>(a) >= static_cast<int>(b) ? a : b; }

std::span<const CategoryInfo> findingCategories() { return kCategories; }

const CategoryInfo* findCategory(std::string_view name) {
  for (const auto& c : kCategories)
    if (c.name == name) return &c;
  return nullptr;
}

bool isKnownCategory(std::string_view name) { return findCategory(name) != nullptr; }

const CategoryInfo& categoryInfo(std::string_view name) {
  if (const CategoryInfo* c = findCategory(name)) return *c;
  throw std::invalid_argument("unknown finding category '" + std::string(name) + "' (known: " + knownNames() +
                              ")");
}

std::string exitStatusText(int status) {
  switch (status) {
    case kExitOk:
      return "ok";
    case kExitFindings:
      return "completed with findings";
    case kExitUsage:
      return "usage or configuration error";
    case kExitNoGpu:
      return "no GPU or CUDA";
  }
  return "exit status " + std::to_string(status);
}

}  // namespace tilescope
