// A source line followed through the compiler stages (docs/report.md, "Compiler
// stages"): which lines of a stage's text came from a source line, which source
// line a stage's line came from, which SASS line an instruction offset is (a
// traced fault's `gemm_tiled+0x1dd0`), the SASS lines a point's findings and
// trace name, and the per-line summary as one sentence. The Source view's IR
// panes and the exports read these; pure functions over the report's `stages`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tilescope/model/stages_info.h"

namespace tilescope {

struct Point;

/// Whether two recorded paths name one source file: the same file name. The
/// stages, the trace and the findings record the compiling machine's paths
/// ("/src/gemm_tiled.cu" is "gemm_tiled.cu"); an empty name matches nothing.
bool sameSourceFile(std::string_view a, std::string_view b);

/// The 1-based lines of `stage`'s text that came from `file`:`line`, ascending
/// (every line of each span: a label between two instructions of the line too).
std::vector<int> stageLinesOf(const CompilerStage& stage, std::string_view file, int line);

/// The span that holds text line `textLine` of `stage`, or null: a directive, a
/// comment, a line the compiler gave no source line.
const StageSpan* stageSpanAt(const CompilerStage& stage, int textLine);

/// The text line (1-based) of the SASS stage's instruction at `offset` bytes into
/// `function`; 0 when its kept text has none (clipped, another function). A
/// demangled name ("void gemm<64>(float*)") finds its mangled symbol, and a
/// listing of one function takes any name.
int sassLineOf(const CompilerStage& sass, std::string_view function, std::uint64_t offset);

/// A SASS line that a finding, the trace or PC sampling names by its instruction.
struct StageMark {
  int textLine = 0;      ///< 1-based line of the SASS stage's text
  int severity = 0;      ///< 0 info, 1 warning, 2 error (the finding's; a traced fault or hazard: 2)
  std::string note;      ///< "oob_write at gemm_tiled+0x1dd0: C: 2-byte write ...", "trace: oob_write at ..."
  std::string label;     ///< short: a finding's category, a traced fault's kind, "RAW hazard"
  bool trace = false;    ///< the trace's (a bad access, a hazard), not a finding's
  bool sampled = false;  ///< PC sampling's (a hot instruction), not a finding's
  bool operator==(const StageMark&) const = default;
};

/// The SASS lines of point `p` named by an instruction offset: its findings'
/// locations (function + sass_offset), the trace's bad accesses and both sides of
/// its hazards, PC sampling's hottest instructions (label "hot 12.3 % long_scoreboard");
/// in text order, one mark per (line, note). Empty without a SASS stage.
std::vector<StageMark> sassMarks(const Point& p);

/// Per marked line, its marks in a few words, what the SASS pane writes after the
/// instruction and the exports after "<-": "oob_write (finding, trace)",
/// "RAW hazard (trace)".
std::map<int, std::string> stageMarkTags(const std::vector<StageMark>& marks);

/// `function+0x1dd0`, as the trace and the verdict banner write an instruction.
std::string sassAddress(std::string_view function, std::uint64_t offset);

/// One text line of a stage, as an excerpt quotes it.
struct StageExcerptLine {
  int textLine = 0;
  std::string text;  ///< trimmed of its indentation
};

/// The lines of `stage`'s text that came from `file`:`line`, in text order: at
/// most `max` (*more: how many were left out).
std::vector<StageExcerptLine> stageExcerpt(const CompilerStage& stage, std::string_view file, int line,
                                           std::size_t max, std::size_t* more = nullptr);

/// A line of nvdisasm's listing as a pane or an excerpt shows it: the column
/// padding gone ("/*1dd0*/ @!P0 STG.E.U16 [R2.64], R5 ;"), a `//## File` comment's
/// paths cut to their file names; any other line trimmed. One line in, one out.
std::string compactSassLine(std::string_view line);

/// How many of `widths`' instructions move 8 bytes or more per thread (LDG.E.64,
/// LDG.E.128, LDS.128, LDSM.x4): vectorised accesses.
int vectorisedCount(const std::vector<WidthCount>& widths);

/// The per-line summary as a person reads it first, what the Source view and the
/// exports both print: "12 SASS instructions (20 PTX); global loads 2×16 B, 1×4 B
/// (2 of 3 vectorised); 2 tensor-core (HMMA.16816.F32); spills: 1 STL, 1 LDL".
std::string stageLineSummaryText(const StageLineSummary& l);

}  // namespace tilescope
