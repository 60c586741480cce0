// The report's `stages` section of a point (docs/report.md, "Compiler stages"):
// the kernel as the compiler saw it. Each stage (PTX, SASS, Triton's TTIR, TTGIR
// and LLIR) is its text, clipped, with the source line of each of its lines;
// per source line, what a kernel developer reads first in the SASS: how many
// instructions, the widths of its global and shared loads and stores, tensor-core
// instructions and spills. Filled by collectStages (core/cuda, compile.h) from
// the parsers of analysis/compiler_stages.h; `check --stages`, `run --stages`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tilescope {

/// The most text of one stage a report keeps: its first 64 KiB (whole lines).
inline constexpr std::int64_t kMaxStageBytes = 64 * 1024;
/// The most SASS instructions kept per source line (its first ones, in address order).
inline constexpr int kMaxLineInstructions = 12;
/// The most source lines summarised per point (the lines with the most SASS first).
inline constexpr int kMaxStageLines = 400;

/// Lines `first`..`last` (1-based, inclusive) of a stage's text came from `file`:`line`.
/// JSON: [first, last, file, line].
struct StageSpan {
  int first = 0, last = 0;
  std::string file;
  int line = 0;
  bool operator==(const StageSpan&) const = default;
};

/// One compiler stage.
struct CompilerStage {
  std::string name;      ///< ptx, sass, ttir, ttgir, llir
  bool present = false;  ///< false: the compiler made no such stage; `absent` says why
  std::string absent;
  std::string text;              ///< the stage (its first kMaxStageBytes when clipped)
  std::int64_t bytes = 0;        ///< the whole stage's size
  int lines = 0;                 ///< the whole stage's line count
  bool clipped = false;          ///< text holds only the first kMaxStageBytes
  std::vector<StageSpan> spans;  ///< text lines -> source lines (lines without a source line: none)
  bool operator==(const CompilerStage&) const = default;
};

/// How many memory instructions of one access width. JSON: [bytes, count];
/// bytes is per thread (LDG.E.128: 16), 0 where the instruction moves a block
/// (TMA: UTMALDG, UBLKCP) or its width is not in its name.
struct WidthCount {
  int bytes = 0;
  int count = 0;
  bool operator==(const WidthCount&) const = default;
};

/// What the SASS of one source line does.
struct StageLineSummary {
  std::string file;
  int line = 0;
  int sass = 0;                           ///< SASS instructions
  int ptx = 0;                            ///< PTX instructions (0 when no PTX stage)
  std::vector<WidthCount> globalLoads;    ///< LDG, LDGSTS (cp.async), UTMALDG; by width
  std::vector<WidthCount> globalStores;   ///< STG, UTMASTG
  std::vector<WidthCount> sharedLoads;    ///< LDS, LDSM (ldmatrix)
  std::vector<WidthCount> sharedStores;   ///< STS, STSM
  int localLoads = 0, localStores = 0;    ///< LDL, STL: spills (or local arrays)
  int tensor = 0;                         ///< HMMA, IMMA, DMMA, HGMMA, QGMMA, ... instructions
  std::vector<std::string> tensorOps;     ///< their distinct opcodes ("HGMMA.64x128x16.F32")
  std::vector<std::string> instructions;  ///< the first kMaxLineInstructions, "/*0040*/ LDG.E.128 R4, ..."
  bool operator==(const StageLineSummary&) const = default;
};

struct StagesInfo {
  bool collected = false;  ///< stages were asked for (false: the section is absent)
  std::string note;        ///< why some or all are missing, or what was cut
  std::string compiler;    ///< nvrtc, nvcc, ptxas, prebuilt, triton 3.6.0, ...
  std::string arch;
  std::string disassembler;  ///< the nvdisasm that made the SASS stage
  std::int64_t maxStageBytes = kMaxStageBytes;
  std::vector<CompilerStage> stages;
  std::vector<StageLineSummary> lines;  ///< by file, then line
  /// The summary of `line` in a file whose name ends with `file`'s name, or null.
  const StageLineSummary* find(const std::string& file, int line) const;
  const CompilerStage* stage(const std::string& name) const;
  bool operator==(const StagesInfo&) const = default;
};

/// The section's JSON (docs/report.md); the reader throws ReportError naming the path.
nlohmann::json toJson(const StagesInfo& s);
StagesInfo stagesInfoFromJson(const nlohmann::json& j, const std::string& path = "stages");

}  // namespace tilescope
