// What the `diagnose` verb did beside its points (docs/diagnose.md): the
// experiments it ran or skipped and what they settled. JSON: extra.diagnose.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tilescope/model/vocabulary.h"

namespace tilescope {

/// One capture diagnose made (docs/diagnose.md). JSON: extra.diagnose.experiments[].
struct DiagnoseExperiment {
  std::string group;              ///< the experiment kind: baseline, trials, align_shift, ...
  std::string experiment;         ///< its name, as the point's `experiment`
  std::string why;                ///< what the tree or the evidence asked
  std::vector<std::string> args;  ///< what the worker was passed beyond the config
  Verdict verdict = Verdict::ok;
  double wallSeconds = 0;
  /// How the kernel was built for it: "" (the baseline's build), or a rebuild
  /// for what the experiment changes ("recompiled from k.py as Triton's JIT ...").
  std::string compiled;
  bool operator==(const DiagnoseExperiment&) const = default;
};

/// An experiment the evidence called for that diagnose did not run, and why
/// (a binary it cannot rebuild for shifted pointers, other shapes or warps).
/// JSON: extra.diagnose.skipped[].
struct DiagnoseSkipped {
  std::string group;   ///< the experiment kind: align_shift, small_shapes, warps
  std::string why;     ///< what the experiment would have asked
  std::string reason;  ///< why it cannot run, and what would let it
  bool operator==(const DiagnoseSkipped&) const = default;
};

/// What one group of experiments settled. JSON: extra.diagnose.conclusions[].
struct DiagnoseConclusion {
  std::string group;
  int runs = 0;
  bool settled = false;
  std::string summary;
  std::vector<std::string> findings;  ///< the categories it concluded
  bool operator==(const DiagnoseConclusion&) const = default;
};

/// What `diagnose` did beside its points. JSON: extra.diagnose.
struct DiagnoseInfo {
  std::vector<DiagnoseExperiment> experiments;
  std::vector<DiagnoseConclusion> conclusions;
  std::optional<int> captures;  ///< absent when no GPU was found for the baseline
  int maxCaptures = 0;
  std::string stopped;    ///< why the experiments ended ("conclusive: race", "capture limit (8) reached")
  std::string treeError;  ///< the troubleshooting tree could not load or walk
  std::vector<DiagnoseSkipped> skipped;  ///< called-for experiments that could not run
  double budgetS = 0;                    ///< the time budget in force (0: none)
  std::vector<std::string> notRun;       ///< planned experiments the budget cut
  bool operator==(const DiagnoseInfo&) const = default;
};

}  // namespace tilescope
