// Line helpers of the stage parsers (compiler_stages.cpp, stage_ir.cpp,
// stage_summary.cpp); private to analysis.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tilescope/model/stages_info.h"

namespace tilescope::stage_text {

/// The text's lines without their line ends ("\n", "\r\n").
std::vector<std::string_view> splitLines(std::string_view text);
std::string_view trim(std::string_view s);
bool startsWith(std::string_view s, std::string_view p);
/// The decimal integer at the start of `s` (-1 when none); *used: its length.
long long leadingInt(std::string_view s, std::size_t* used);
/// The first "quoted" text of `s` (no escapes: paths); *end: past its closing quote.
std::string quoted(std::string_view s, std::size_t* end);

/// Spans from lines given in increasing order: a line of the same source line
/// as the previous one extends its span (across the unmapped lines between,
/// unless gap() was called: an instruction without a line breaks the run).
class SpanBuilder {
 public:
  void add(int textLine, const std::string& file, int line);
  void gap() { m_open = false; }
  std::vector<StageSpan> take() { return std::move(m_spans); }

 private:
  std::vector<StageSpan> m_spans;
  bool m_open = false;
};

}  // namespace tilescope::stage_text

namespace tilescope {
/// PTX instructions (lines ending in ';' that are not directives) in the lines of `s`.
int countPtxInstructions(const StageSpan& s, const std::vector<std::string_view>& lines);
}  // namespace tilescope
