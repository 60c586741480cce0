// Helpers shared by the text and XML sanitizer parsers (not part of the public API).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "tilescope/logs/sanitizer.h"

namespace tilescope::detail {

using Pending = SanitizerFinding;

/// "15,393" → 15393; the digits at the start of `s` (commas skipped); 0 when none.
long long parseCount(std::string_view s);
/// "0x7f28308107f8" → value; nullopt when `s` is not hex.
std::optional<std::uint64_t> parseHex(std::string_view s);
/// A code location as the sanitizers print it: "kernel(int *)+0x8b0 in file.cu:12",
/// "kernel+0x750", "0x3b0 in kernel(...)", legacy "0x578 in /path/f.cu:120:Kernel(...)",
/// "func in file.h:236".
void parseLocation(std::string_view loc, std::string* kernel, std::optional<std::uint64_t>* pc,
                   std::string* file, int* line);
/// Demangles, settles the tool of a finding from its kind.
SanitizerFinding finish(Pending p);
/// Appends `f`, or counts it into an earlier finding of the same kind, access, kernel and PC.
void addFolded(SanitizerReport* r, SanitizerFinding f, std::map<std::string, std::size_t>* index);
/// The report's tool from its findings when no banner said.
void settleTool(SanitizerReport* r);

}  // namespace tilescope::detail
