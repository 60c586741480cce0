// The human-readable summary every verb prints on stderr, and the text
// renderings of a report (Markdown, a minimal HTML) for `tilescope-run export`.
#pragma once

#include <ostream>
#include <string>

#include "tilescope/report.h"

namespace tilescope {

void printSummary(const Report& report, std::ostream& out);

/// Markdown: config, device, verdict, findings, a table of points (no pictures;
/// the GUI's exporter adds those).
std::string renderMarkdown(const Report& report);
/// Self-contained HTML of the same content; every string from the report is escaped.
std::string renderHtml(const Report& report);
std::string htmlEscape(const std::string& s);

/// "1.23 ms", "850 ns", "12.0 µs".
std::string formatNs(double ns);
/// "48.0 KiB"
std::string formatBytes(double bytes);

}  // namespace tilescope
