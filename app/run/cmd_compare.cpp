// `compare A.json B.json`: one point of report A beside one point of report B
// (core's diffReports, export/report_diff.h), or two points of one sweep
// (`compare S.json --point-a 0 --point-b 3`); printed as a side-by-side table,
// or as tilescope.compare/1 JSON, Markdown or HTML (docs/compare.md).
//
// The verb has modes: comparing reports is the one here. The first file picks
// the mode (modeOf): a config asks for another mode (one config built by two
// toolchains, `--toolchain`), which this build does not have and says so.
#include <filesystem>
#include <iostream>

#include "commands.h"
#include "options.h"
#include "tilescope/export/open_document.h"
#include "tilescope/export/report_diff.h"

namespace tilescope::cli {

namespace {

namespace fs = std::filesystem;

struct CompareArgs {
  std::vector<std::string> files;  ///< one report (two of its points) or two
  std::string output;              ///< -o: the comparison in the format its extension names
  std::string format = "text";     ///< stdout: text | json | md | html
  int pointA = -1, pointB = -1;    ///< -1: the report's default point (defaultComparePoint)
};

enum class CompareMode { reports, toolchains };

/// A report of `file`, or the usage error's message.
std::optional<std::string> readReport(const std::string& file, std::shared_ptr<const Report>* out) {
  std::error_code ec;
  if (!fs::exists(file, ec)) return file + ": no such file";
  if (fs::is_directory(file, ec)) return file + ": a directory, not a report";
  OpenedDocument doc;
  try {
    doc = openDocument(file);
  } catch (const std::exception& e) {
    return std::string(e.what()) + " (compare reads tilescope.report/1 files)";
  }
  if (doc.kind == DocumentKind::config) return file + ": a config, not a report";
  if (doc.kind == DocumentKind::triage)
    return file + ": a triage (tilescope.triage/1), not a report: compare two of its entries' reports";
  *out = doc.report;
  return std::nullopt;
}

std::string rendered(const ReportDiff& d, const std::string& format) {
  if (format == "json") return dumpJson(toJson(d), 1) + "\n";
  const Document doc = buildCompareDocument(d);
  if (format == "md") return renderMarkdown(doc);
  if (format == "html") return renderHtml(doc);
  return renderPlainText(doc);
}

/// -o's format from its extension, or "" when it names none this verb writes.
std::string formatOfPath(const std::string& path) {
  const std::string ext = fs::path(path).extension().string();
  if (ext == ".json") return "json";
  if (ext == ".md" || ext == ".markdown") return "md";
  if (ext == ".html" || ext == ".htm") return "html";
  if (ext == ".txt") return "text";
  return "";
}

int compareReports(const CompareArgs& a) {
  if (a.files.size() == 1 && (a.pointA < 0 || a.pointB < 0))
    return usageError(
        "one report: give --point-a I and --point-b J to compare two of its points, or name a "
        "second report (compare A.json B.json)");
  const std::string fileA = a.files[0], fileB = a.files.size() > 1 ? a.files[1] : a.files[0];
  std::shared_ptr<const Report> ra, rb;
  if (auto e = readReport(fileA, &ra)) return usageError(*e);
  if (fileB == fileA)
    rb = ra;
  else if (auto e = readReport(fileB, &rb))
    return usageError(*e);
  const std::string outFormat = a.output.empty() ? "" : formatOfPath(a.output);
  if (!a.output.empty() && outFormat.empty())
    return usageError(a.output + ": -o writes .json, .md, .html or .txt (the extension names the format)");
  ReportDiff d;
  try {
    d = diffReports(*ra, fileA, a.pointA < 0 ? defaultComparePoint(*ra) : a.pointA, *rb, fileB,
                    a.pointB < 0 ? defaultComparePoint(*rb) : a.pointB);
  } catch (const CompareError& e) {
    return usageError(e.what());
  }
  for (const std::string& w : d.warnings) std::cerr << "warning: " << w << '\n';
  if (!a.output.empty()) {
    try {
      writeFileAtomically(a.output, rendered(d, outFormat));
    } catch (const std::exception& e) {
      return usageError(a.output + ": cannot write: " + e.what());
    }
    std::cerr << "comparison written to " << a.output << '\n';
  }
  std::cout << rendered(d, a.format);
  return kExitOk;
}

/// The mode the first file asks for: a config is compared across toolchains.
CompareMode modeOf(const CompareArgs& a) {
  std::error_code ec;
  if (!fs::is_regular_file(a.files[0], ec)) return CompareMode::reports;
  try {
    if (openDocument(a.files[0]).kind == DocumentKind::config) return CompareMode::toolchains;
  } catch (const std::exception&) {
  }
  return CompareMode::reports;
}

}  // namespace

Verb addCompareCommand(CLI::App& app) {
  auto a = std::make_shared<CompareArgs>();
  auto* c = app.add_subcommand("compare", "compare two results: two reports, or two points of one sweep");
  c->add_option("FILES", a->files, "A.json B.json, or one sweep report with --point-a and --point-b")
      ->required()
      ->expected(1, 2);
  c->add_option("-o,--output", a->output,
                "also write the comparison here (.json: tilescope.compare/1, .md, .html)");
  c->add_option("--format", a->format, "stdout: text (default: a side-by-side table) | json | md | html")
      ->check(CLI::IsMember({"text", "json", "md", "html"}));
  c->add_option("--point-a", a->pointA, "A's point: its position in A's points (default: the worst)")
      ->check(CLI::NonNegativeNumber);
  c->add_option("--point-b", a->pointB, "B's point (default: the worst)")->check(CLI::NonNegativeNumber);
  auto tc = std::make_shared<ToolchainCompareArgs>();
  addToolchainCompareOptions(c, *tc);
  return {
      c, [a, tc] {
        const bool toolchains = !tc->toolchains.empty() || !tc->bisect.empty();
        switch (modeOf(*a)) {
          case CompareMode::toolchains:
            if (!toolchains)
              return usageError(a->files[0] +
                                ": a config, not a report: compare reads two reports (tilescope.report/1), "
                                "or one config with --toolchain X --toolchain Y (docs/toolchains.md)");
            if (a->files.size() != 1) return usageError("compare CONFIG --toolchain ...: one config");
            tc->config = a->files[0];
            tc->output = a->output;
            tc->format = a->format;
            return compareToolchains(*tc);
          case CompareMode::reports:
            if (toolchains) {
              // A file that is no report and no config (missing, a folder, bad JSON):
              // the toolchain comparison's config check names what is wrong with it.
              std::shared_ptr<const Report> report;
              if (a->files.size() == 1 && readReport(a->files[0], &report)) {
                tc->config = a->files[0];
                return compareToolchains(*tc);
              }
              return usageError("--toolchain and --bisect compare one config (.tscfg.json), not reports");
            }
            break;
        }
        return compareReports(*a);
      }};
}

}  // namespace tilescope::cli
