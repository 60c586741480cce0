// `export`: renders a saved report as HTML, Markdown or (normalised) JSON.
#include <fstream>
#include <iostream>

#include "commands.h"
#include "tilescope/summary.h"

namespace tilescope::cli {

int cmdExport(const ExportArgs& a) {
  Report r;
  try {
    r = loadReport(a.report);
  } catch (const std::exception& e) {
    return usageError(e.what());
  }
  std::string text = a.format == "html" ? renderHtml(r) : a.format == "md" ? renderMarkdown(r) : toJson(r).dump(1) + "\n";
  if (a.output.empty()) {
    std::cout << text;
    return kExitOk;
  }
  std::ofstream out(a.output);
  if (!(out << text)) return usageError(a.output + ": cannot write");
  std::cerr << a.format << " written to " << a.output << '\n';
  return kExitOk;
}

}  // namespace tilescope::cli
