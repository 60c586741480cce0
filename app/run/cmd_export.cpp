// `export`: renders a saved report as Markdown or HTML (core's document model,
// the same the GUI's exporter renders), as normalised JSON, or as a PDF through
// the GUI binary beside this one (PDF needs Qt; tilescope-run does not link it).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "commands.h"
#include "options.h"
#include "tilescope/base/process.h"
#include "tilescope/diagnose/tree.h"
#include "tilescope/export/document.h"
#include "tilescope/export/open_document.h"
#include "tilescope/triage/triage_document.h"

namespace tilescope::cli {

namespace {

namespace fs = std::filesystem;

/// The GUI binary installed or built beside tilescope-run, or "".
std::string guiBeside() {
  const std::string self = selfExecutable();
  if (self.empty()) return "";
  const fs::path gui = fs::path(self).parent_path() / "tilescope";
  std::error_code ec;
  return fs::is_regular_file(gui, ec) ? gui.string() : "";
}

int exportPdf(const ExportArgs& a) {
  if (a.output.empty()) return usageError("--format pdf writes a file: give it with -o OUT.pdf");
  if (fs::path(a.output).extension() != ".pdf")
    return usageError(a.output + ": a PDF's file name must end in .pdf");
  const std::string gui = guiBeside();
  if (gui.empty())
    return usageError(
        "--format pdf needs the GUI binary 'tilescope' (built with Qt 6) beside tilescope-run; this is "
        "the server build without it. Export HTML here (--format html) and print it, or run "
        "'tilescope --export " +
        a.report + " " + a.output + "' where the GUI is installed.");
  // The exporter draws its charts with widgets: offscreen when there is no display.
  std::vector<std::string> env;
  if (!std::getenv("DISPLAY") && !std::getenv("WAYLAND_DISPLAY") && !std::getenv("QT_QPA_PLATFORM"))
    env.push_back("QT_QPA_PLATFORM=offscreen");
  const ChildResult r = runChild(
      {gui, "--export", a.report, a.output}, 600, [](const std::string& line) { std::cout << line << '\n'; },
      {}, [](const std::string& line) { std::cerr << line << '\n'; }, env);
  if (!r.started) return usageError(gui + ": " + r.startError);
  if (r.exitCode != 0) return usageError("the PDF export (" + gui + " --export) failed");
  return kExitOk;
}

int writeOutput(const ExportArgs& a, const std::string& text) {
  if (a.output.empty()) {
    std::cout << text;
    return kExitOk;
  }
  try {
    writeFileAtomically(a.output, text);
  } catch (const std::exception& e) {
    return usageError(a.output + ": cannot write: " + e.what());
  }
  std::cerr << a.format << " written to " << a.output << '\n';
  return kExitOk;
}

/// A triage: the same document model (docs/triage.md, "Exports").
int exportTriage(const ExportArgs& a) {
  TriageReport t;
  try {
    t = loadTriage(a.report);
  } catch (const std::exception& e) {
    return usageError(e.what());
  }
  if (a.format == "json") return writeOutput(a, dumpJson(toJson(t), 1) + "\n");
  TriageDocumentOptions opt;
  opt.note =
      "The taxonomy and speedup charts are drawn by the GUI's exporter: tilescope --export TRIAGE OUT.html.";
  const Document doc = buildTriageDocument(t, opt);
  return writeOutput(a, a.format == "html" ? renderHtml(doc) : renderMarkdown(doc));
}

}  // namespace

int cmdExport(const ExportArgs& a) {
  if (a.format == "pdf") {
    std::error_code ec;
    if (!fs::is_regular_file(a.report, ec)) return usageError(a.report + ": no such report file");
    return exportPdf(a);
  }
  OpenedDocument doc;
  try {
    doc = openDocument(a.report);
  } catch (const std::exception& e) {
    return usageError(e.what());
  }
  if (doc.kind == DocumentKind::triage) return exportTriage(a);
  if (doc.kind == DocumentKind::config)
    return usageError(a.report +
                      ": a config, not a report: `tilescope-run check` or `run` makes a report of it");
  const Report& r = *doc.report;
  std::string text;
  if (a.format == "json") {
    text = dumpJson(toJson(r), 1) + "\n";
  } else {
    DocumentOptions opt;
    Tree tree;
    try {
      tree = loadDefaultTree();
      opt.tree = &tree;
    } catch (const std::exception& e) {
      std::cerr << "warning: " << e.what()
                << ": the export names the troubleshooting nodes without their fix\n";
    }
    opt.note =
        "Figures (coverage grid, timing and occupancy charts) are drawn by the GUI's exporter: "
        "tilescope --export REPORT OUT.html (or tilescope-run export --format pdf).";
    const Document doc = buildDocument(r, opt);
    text = a.format == "html" ? renderHtml(doc) : renderMarkdown(doc);
  }
  return writeOutput(a, text);
}

Verb addExportCommand(CLI::App& app) {
  auto a = std::make_shared<ExportArgs>();
  auto* e = app.add_subcommand("export", "render a report");
  e->add_option("REPORT", a->report, "a report, or a triage (tilescope.triage/1)")->required();
  e->add_option("--format", a->format, "html | md | json | pdf (pdf: through the GUI binary, needs -o)")
      ->required()
      ->check(CLI::IsMember({"html", "md", "json", "pdf"}));
  e->add_option("-o,--output", a->output, "output file (default: stdout)");
  return {e, [a] { return cmdExport(*a); }};
}

}  // namespace tilescope::cli
