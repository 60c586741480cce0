// The compiler stages' text, read without a GPU: which source line each line of
// PTX, SASS (nvdisasm's), TTIR/TTGIR (MLIR) and LLVM IR came from, what a SASS
// instruction moves, and the per-line summary of the report's `stages` section
// (model/stages_info.h). Pure functions over text: the tests feed them fixtures.
// Untrusted text is read line by line, with no regular expressions, in linear time.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tilescope/model/stages_info.h"

namespace tilescope {

/// A stage's text lines with their source lines: `.loc F L C` after `.file F "path"`
/// (PTX: a `.loc` holds for the lines after it; line 0 is no line). `.file`
/// directives may follow their use (nvcc writes them last). Inlined code keeps
/// the line of the inlined function (as nvdisasm -g does).
std::vector<StageSpan> ptxSpans(std::string_view ptx);

/// MLIR (Triton's TTIR, TTGIR): each op's trailing `loc(#locN)` or
/// `loc("file":line:col)`, through `#locN = loc(...)` aliases; a callsite takes
/// its callee, a name its inner location, a fused location its first.
std::vector<StageSpan> mlirSpans(std::string_view mlir);

/// LLVM IR: each instruction's `!dbg !N`, through `!N = !DILocation(line: L, scope: !S)`
/// and the scope's `file:` to its `!DIFile(filename:, directory:)`.
std::vector<StageSpan> llvmSpans(std::string_view llir);

/// One instruction of nvdisasm's listing.
struct SassInstruction {
  std::string function;      ///< the kernel (or device function) symbol
  std::uint64_t offset = 0;  ///< bytes from the function's start
  std::string file;          ///< from nvdisasm -g's `//## File "...", line N` ("" when none)
  int line = 0;
  std::string text;    ///< "LDG.E.128 R4, desc[UR4][R2.64] ;" (with its predicate)
  std::string opcode;  ///< "LDG.E.128"
  int textLine = 0;    ///< 1-based line of the listing
};

/// nvdisasm's listing (`nvdisasm -g -c`, or `-gi`: an "inlined at" keeps the
/// inlined line): every instruction, with its function, offset and line.
std::vector<SassInstruction> parseNvdisasm(std::string_view listing);

/// The spans of the listing's lines (from the parsed instructions).
std::vector<StageSpan> sassSpans(const std::vector<SassInstruction>& instructions);

/// What a SASS opcode does to memory.
enum class SassMemory { none, globalLoad, globalStore, sharedLoad, sharedStore, localLoad, localStore };
struct SassClass {
  SassMemory memory = SassMemory::none;
  int bytes = 0;        ///< per thread (LDG.E.128: 16; LDG.E: 4; LDSM.16.M88.4: 16); 0: a block (TMA)
  bool tensor = false;  ///< a tensor-core instruction (HMMA, IMMA, DMMA, HGMMA, ...)
  /// LDGSTS (cp.async) is a global load and a shared store at once.
  bool alsoSharedStore = false;
};
SassClass classifySass(std::string_view opcode);

/// Per source line: SASS instructions and their classes, PTX instructions
/// (from the PTX stage's spans: lines that are not directives, labels or
/// comments), by file then line, at most kMaxStageLines (the busiest kept).
std::vector<StageLineSummary> summarizeLines(const std::vector<SassInstruction>& sass, std::string_view ptx,
                                             const std::vector<StageSpan>& ptxSpans);

/// A stage from its whole text: size, line count, spans, and the text cut to
/// its first `maxBytes` at a line end (clipped, spans past the cut dropped).
CompilerStage makeStage(std::string name, std::string text, std::vector<StageSpan> spans,
                        std::int64_t maxBytes = kMaxStageBytes);
/// A stage the compiler did not make, and why.
CompilerStage absentStage(std::string name, std::string why);

}  // namespace tilescope
