// The same kernel's compiler stages under two toolchains (docs/toolchains.md):
// each stage's operations counted by name, and the first stage of
// the pipeline (ttir, ttgir, llir, ptx, sass) whose counts differ. Counting ops
// rather than diffing text keeps value names, register numbers and addresses,
// which change with any edit, out of the answer. And why a side did not
// compile, as the comparison shows it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tilescope/model/stages_info.h"

namespace tilescope {

struct Point;

struct OpCount {
  std::string op;  ///< tt.load, ttg.convert_layout, load, ld.global.v4.f32, LDG.E.128, ...
  int count = 0;
  bool operator==(const OpCount&) const = default;
};

/// The operations of one stage's text, most frequent first (ties by name):
/// MLIR (ttir, ttgir) by op name, LLVM IR by instruction (calls by callee), PTX
/// and SASS by opcode with its modifiers, predicates dropped.
std::vector<OpCount> stageOps(std::string_view stage, std::string_view text);

/// One op whose count changed from side a to side b.
struct OpDelta {
  std::string op;
  int a = 0;
  int b = 0;
};

struct StageDelta {
  std::string stage;
  bool presentA = false, presentB = false;
  std::string absentA, absentB;  ///< why a side has no such stage
  int opsA = 0, opsB = 0;        ///< operations in all
  int linesA = 0, linesB = 0;
  bool clipped = false;          ///< a side's text was cut (its counts cover the first part)
  bool differs = false;          ///< presence or any op count differs
  std::vector<OpDelta> changed;  ///< largest change first
};

struct StagesDiff {
  std::string firstDiffering;  ///< "" when every stage agrees
  std::vector<StageDelta> stages;
};

/// The stages both sides name, in pipeline order; `maxOps` changed ops kept per stage.
StagesDiff diffStages(const StagesInfo& a, const StagesInfo& b, std::size_t maxOps = 12);

nlohmann::json toJson(const StagesDiff& d);

/// Why a side did not compile: the compiler's own cause (Triton's "Cannot
/// broadcast, rank mismatch: ..."), without the "file:line: " the finding's
/// message starts with (the comparison prints the location before it), where
/// (`add_bias.py:32:9`), and that line's text, trimmed.
struct CompileFailure {
  std::string message;
  std::string location;    ///< file[:line[:column]], or "" when the compiler named none
  std::string sourceLine;  ///< "" when unknown
};

/// The point's compile_error finding as a CompileFailure; without one (a CUDA
/// C++ compiler's log), the log's first line.
CompileFailure compileFailure(const Point& p);

}  // namespace tilescope
