// The one thing a report says first (docs/report.md, "Findings"): the cause before its
// symptoms, and the troubleshooting walk's fix in the kernel's own language. The
// workbench's verdict banner, the exports' banner and the point the workbench
// opens on all come from here, so they cannot disagree.
#pragma once

#include <string>
#include <vector>

#include "tilescope/diagnose/tree.h"
#include "tilescope/model/report.h"

namespace tilescope {

struct Headline {
  Verdict verdict = Verdict::ok;
  /// The finding to lead with (into Report::findings), or nullptr: the one the
  /// walk's fix answers, else the root cause by the vocabulary's rank (an
  /// out-of-bounds write before the NaN it leaves behind); a report that is not ok
  /// without an error finding (slow) leads with the performance finding of the
  /// largest estimated gain.
  const Finding* cause = nullptr;
  /// The cause's estimated gain (counters.h estimatedGain: recorded, or estimated from
  /// its evidence for an older report), a factor > 1; 0 when it has none.
  double gain = 0;
  /// The point the walk ran over (headlinePoint), or -1 when the report's own
  /// recorded path (diagnose) was taken.
  int point = -1;
  std::vector<std::string> path;         ///< node ids, start first
  const TreeNode* leaf = nullptr;        ///< the fix's node; nullptr when the walk stopped before one
  std::string fix;                       ///< "Title: the fix", or "" (renderTreeText: the report's device)
  std::string fixText;                   ///< the fix alone, rendered
  const TreeExample* example = nullptr;  ///< the fix in the kernel's language (and the output's rank)
  std::string exampleAfter;              ///< example->after, rendered for the report
  std::string language;                  ///< cuda | triton | tilelang: the kernel's
};

/// The point a person looks at first: the one that shows the cause (a diagnose
/// conclusion's experiment where that experiment failed, else the first point
/// with an error finding of the cause's category), else the first that is not ok;
/// 0 for an all-ok report, -1 for one without points.
int headlinePoint(const Report& r);

/// The headline of `r`. `tree` may be null (no walk, no fix). The result points
/// into `r` and `tree`: it lives as long as they do.
Headline reportHeadline(const Report& r, const Tree* tree);

/// The kernel's language as the config names it: "triton", "tilelang", else "cuda".
std::string kernelLanguage(const Report& r);

/// Point `point` of `r` (an index into r.points) as the tree walks it: its findings
/// with their estimated gains (an older report has none recorded), so nodes ranked by
/// estimated_gain rank them as a new capture's would.
nlohmann::json walkSubject(const Report& r, int point);

/// "up to ~14.8× faster" for a gain of 14.8 (one decimal below 10, none above); "" for 0.
std::string gainText(double gain);

/// The headline's first line: the cause's message, led for a performance cause by its
/// category and gain ("no_tensor_cores: up to ~14.8× faster: the kernel leaves …");
/// "" without a cause.
std::string headlineText(const Headline& h);

}  // namespace tilescope
