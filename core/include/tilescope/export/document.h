// The export document: what a report export shows, as plain text in sections of
// blocks (paragraphs, tables, code, figure references). One model, two renderers
// here (Markdown, HTML) used by `tilescope-run export`, and the GUI's exporter,
// which renders the same HTML into a PDF and fills the figures in. Every string
// from the report stays unescaped in the model; the renderers escape it.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilescope/model/report.h"

namespace tilescope {

struct Tree;

struct DocParagraph {
  std::string text;
  bool note = false;  ///< a remark about the document itself (a cap, a missing part)
};

struct DocSubheading {
  std::string text;
};

struct DocTable {
  std::string caption;
  std::vector<std::string> headers;
  std::vector<std::vector<std::string>> rows;
};

/// Preformatted text (the config's JSON).
struct DocCode {
  std::string language;  ///< "json", or ""
  std::string text;
};

/// A picture the renderer fills in (the GUI draws it; a renderer without it leaves it out).
struct DocFigure {
  std::string id;  ///< "timing_sweep", "coverage_C" (file-name safe)
  std::string title;
  std::string tensor = {};  ///< a coverage figure's tensor, or ""
};

using DocBlock = std::variant<DocParagraph, DocSubheading, DocTable, DocCode, DocFigure>;

struct DocSection {
  std::string id;  ///< summary | configuration | findings | troubleshooting | diagnose | trace | sass |
                   ///< points | compile | correctness | occupancy | coverage | counters
  std::string heading;
  std::vector<DocBlock> blocks;
  bool pageBreakBefore = false;  ///< paged output starts it on a new page
};

/// The verdict and the one thing to do about it, shown above everything else.
struct DocBanner {
  Verdict verdict = Verdict::ok;
  /// The verdict as printed when it is not the verdict's name: "checked, not run" for
  /// a check that found no error (it measured nothing; drawn neutral, not green). "" = the name.
  std::string label;
  std::string headline;  ///< the cause's message (headline.h: before its symptoms), or what was checked
  std::string fix;       ///< the troubleshooting walk's fix (its leaf), or ""
  std::string example;   ///< the fix as code in the kernel's language (the leaf's example), or ""
  std::string exampleLanguage;
};

/// The longest texts a document holds (buildDocument cuts longer ones, saying so):
/// a table cell, heading or caption; a paragraph or a line of code; a code block.
inline constexpr std::size_t kMaxDocCellBytes = 1024;
inline constexpr std::size_t kMaxDocLineBytes = 8192;
inline constexpr std::size_t kMaxDocCodeBytes = std::size_t{2} << 20;

struct Document {
  std::string title;
  DocBanner banner;
  std::vector<DocSection> sections;
  const DocSection* section(const std::string& id) const;
};

struct DocumentOptions {
  /// The troubleshooting tree, for the titles and fix texts of the report's path
  /// (nullptr: node ids only, and a note says so).
  const Tree* tree = nullptr;
  /// Per-point tables list at most this many points (a note says how many more):
  /// a 20,000-point sweep must still render in seconds.
  std::size_t maxPointRows = 200;
  /// Findings given in full (with their evidence tables); the rest are counted.
  std::size_t maxFindings = 40;
  /// Rows of one evidence table.
  std::size_t maxEvidenceRows = 24;
  /// A remark shown under the summary ("figures are drawn by the GUI", ...).
  std::string note;
  /// Folders searched (before the zoo's kernels/<family>/) for the kernel source the
  /// trace section quotes: the report's, the config's.
  std::vector<std::filesystem::path> sourceDirs;
};

Document buildDocument(const Report& r, const DocumentOptions& options = {});

/// How points are named everywhere: the label, else the diagnose experiment, else
/// "#index"; a trial after the first appends " t2".
std::string pointLabel(const Point& p);
/// The point the export focuses on: the first whose verdict is the report's (the
/// worst), -1 for a report without points.
int focusPoint(const Report& r);
/// The figure ids buildDocument refers to for `r` (the GUI draws exactly these).
std::vector<DocFigure> documentFigures(const Report& r);

/// Evidence (an open JSON object) as key/value rows: nested keys joined by '.',
/// arrays of numbers joined by ", ", `*_ns` values as durations and `*_bytes` as
/// bytes. At most `maxRows` rows; a last row says how many were left out.
std::vector<std::pair<std::string, std::string>> evidenceRows(const nlohmann::json& evidence,
                                                              std::size_t maxRows = 24);

/// Where a renderer finds a figure's picture: its src (a data: URI, a relative
/// file, a resource URL) and width in pixels (0: natural); nullopt leaves it out.
struct FigureImage {
  std::string src;
  int width = 0;
};
using FigureSource = std::function<std::optional<FigureImage>(const DocFigure&)>;

struct RenderOptions {
  FigureSource figures;  ///< empty: no figures
  bool paged = false;    ///< HTML for QTextDocument → PDF: page breaks, tables at full text width
};

/// GitHub-flavoured Markdown; every report string escaped (inline HTML, emphasis, tables).
std::string renderMarkdown(const Document& doc, const RenderOptions& options = {});
/// Self-contained HTML in the CSS subset QTextDocument understands; every report string escaped.
std::string renderHtml(const Document& doc, const RenderOptions& options = {});

/// HTML specials as entities; control characters (C0 but tab, newline and CR;
/// DEL; C1 U+0080..U+009F) shown as `\x1b` / `\u009b` text.
std::string htmlEscape(const std::string& s);
/// Escapes text for a Markdown paragraph or table cell: HTML specials as entities,
/// Markdown punctuation backslash-escaped, newlines as <br>, control characters
/// shown as `\x1b` / `\u009b`.
std::string markdownEscape(const std::string& s);

/// Cuts every text of `doc` at the sizes above (kMaxDocCellBytes for a cell,
/// heading or caption, kMaxDocLineBytes for a paragraph, kMaxDocCodeBytes for a
/// code block), saying how much went; buildDocument and buildTriageDocument
/// call it, so a renderer never lays out a 1 MB name.
void clipDocument(Document& doc);

}  // namespace tilescope
