// Private to the triage layer: the names the pairing rule reads (docs/triage.md,
// "Inputs"), shared by the folder search (triage_inputs.cpp), the rule itself
// (triage_pairing.cpp) and the --pairs manifest (triage_manifest.cpp).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tilescope/triage/triage_inputs.h"

namespace tilescope {

/// Larger Python files are not problems (KernelBench's are a few KiB); a config
/// or a manifest is read whole only up to this size.
inline constexpr std::uintmax_t kMaxTriageSourceBytes = 4u << 20;

/// The file's text, or "" when it cannot be read or is over kMaxTriageSourceBytes.
std::string readSmallTriageFile(const std::filesystem::path& p);

/// An entry's id and input spelling: the path, lexically normal, with '/'.
std::string triageKey(const std::filesystem::path& p);

/// "17_relu" for 17_relu.py, 17_relu_new.py, 17_relu_ref.py and candidate/17_relu.py.
std::string problemStem(const std::filesystem::path& p);

/// KernelBench's generated kernel: `level_L_problem_P_sample_S_kernel.py` (the
/// `_kernel` may be left out), anywhere. Numbers of at most 6 digits.
struct KernelBenchSample {
  int level = 0, problem = 0, sample = 0;
};
std::optional<KernelBenchSample> kernelBenchSample(const std::filesystem::path& p);

/// KernelBench's problem: `levelL/P_Name.py` (also `level_L/`): the level from
/// the folder, the problem number from the file name's leading digits.
struct KernelBenchProblem {
  int level = 0, problem = 0;
  auto operator<=>(const KernelBenchProblem&) const = default;
};
std::optional<KernelBenchProblem> kernelBenchProblem(const std::filesystem::path& p);

/// The planned problem of a reference and its candidate: id the candidate's
/// path, name the reference's stem (for a KernelBench sample
/// `level1/19_ReLU/sample_0`).
TriageInput problemPair(const std::filesystem::path& ref, const std::filesystem::path& cand);

/// Where the rule looks for the partners of a Python file named alone on the
/// command line, each with the folder the partner must lie in (links resolved):
/// beside it (NAME.py, NAME_new.py, NAME_ref.py: within the file's folder's
/// parent) and the mirror under the nearest reference[s]/ or candidate[s]/
/// above it (within that folder's parent); docs/triage.md, "Inputs", rules 2-4.
std::vector<std::pair<std::filesystem::path, std::filesystem::path>> partnerPaths(
    const std::filesystem::path& p);

}  // namespace tilescope
