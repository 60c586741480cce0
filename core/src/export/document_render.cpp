// The Markdown and HTML renderers of the export document. Report strings are
// escaped here and nowhere else (hostile names broke exports: docs/security.md, "What is not trusted").
#include <algorithm>
#include <cctype>
#include <sstream>

#include "tilescope/base/format.h"
#include "tilescope/export/document.h"

namespace tilescope {

std::string htmlEscape(const std::string& text) {
  // A terminal escape or a NUL in a name: shown as \x1b, not passed on.
  const std::string s = visibleControls(text, true);
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        o += "&amp;";
        break;
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '"':
        o += "&quot;";
        break;
      case '\'':
        o += "&#39;";
        break;
      default:
        o += c;
    }
  }
  return o;
}

std::string markdownEscape(const std::string& text) {
  const std::string s = visibleControls(text, true);  // "\x1b", its backslash escaped below
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      // Markdown renders inline HTML: entities keep a "<script>" in a name inert.
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '&':
        o += "&amp;";
        break;
      case '\n':
        o += "<br>";
        break;
      case '\r':
        break;
      // Table cells, emphasis, code spans, links and images, headings, strikethrough.
      case '|':
      case '\\':
      case '*':
      case '_':
      case '`':
      case '[':
      case ']':
      case '#':
      case '~':
        o += '\\';
        o += c;
        break;
      default:
        o += c;
    }
  }
  // Newlines became <br>, so the text is one line: only its start can open a list
  // ("- x", "+ x", "1. x") or a setext heading ("=").
  auto spaceAt = [&](std::size_t i) { return i >= o.size() || o[i] == ' ' || o[i] == '\t'; };
  if (!o.empty() && (((o[0] == '-' || o[0] == '+') && spaceAt(1)) || o[0] == '=')) o.insert(0, 1, '\\');
  std::size_t digits = 0;
  while (digits < o.size() && std::isdigit(static_cast<unsigned char>(o[digits]))) ++digits;
  if (digits > 0 && digits < o.size() && (o[digits] == '.' || o[digits] == ')') && spaceAt(digits + 1))
    o.insert(digits, 1, '\\');
  return o;
}

namespace {

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

/// A fence longer than any run of backticks in the text: the text cannot close it.
std::string fenceFor(const std::string& text) {
  std::size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return std::string(std::max<std::size_t>(3, longest + 1), '`');
}

std::string mdTable(const DocTable& t) {
  std::ostringstream o;
  if (!t.caption.empty()) o << "*" << markdownEscape(t.caption) << "*\n\n";
  o << "|";
  for (const auto& h : t.headers) o << " " << markdownEscape(h) << " |";
  o << "\n|";
  for (std::size_t i = 0; i < t.headers.size(); ++i) o << " --- |";
  o << "\n";
  for (const auto& row : t.rows) {
    o << "|";
    for (const auto& cell : row) o << " " << markdownEscape(cell) << " |";
    o << "\n";
  }
  return o.str() + "\n";
}

/// Language names of a fence's info string are ours ("json", "cuda"), but keep them to word characters.
std::string safeLanguage(const std::string& l) {
  std::string o;
  for (char c : l)
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '_') o += c;
  return o;
}

/// The banner's verdict words: its label ("checked, not run") or the verdict's name.
std::string bannerLabel(const DocBanner& b) { return b.label.empty() ? verdictName(b.verdict) : b.label; }

}  // namespace

std::string renderMarkdown(const Document& doc, const RenderOptions& opt) {
  std::ostringstream o;
  o << "# " << markdownEscape(doc.title) << "\n\n";
  o << "> **Verdict: " << bannerLabel(doc.banner) << "** — " << markdownEscape(doc.banner.headline) << "\n";
  if (!doc.banner.fix.empty()) o << ">\n> **Fix:** " << markdownEscape(doc.banner.fix) << "\n";
  if (!doc.banner.example.empty()) {
    o << ">\n> ```" << safeLanguage(doc.banner.exampleLanguage) << "\n";
    std::size_t at = 0;
    while (at <= doc.banner.example.size()) {
      const std::size_t nl = std::min(doc.banner.example.find('\n', at), doc.banner.example.size());
      o << "> " << doc.banner.example.substr(at, nl - at) << "\n";
      at = nl + 1;
    }
    o << "> ```\n";
  }
  o << "\n";
  for (const DocSection& s : doc.sections) {
    o << "## " << markdownEscape(s.heading) << "\n\n";
    for (const DocBlock& b : s.blocks)
      std::visit(Overloaded{[&](const DocParagraph& p) {
                              o << (p.note ? "*" : "") << markdownEscape(p.text) << (p.note ? "*" : "")
                                << "\n\n";
                            },
                            [&](const DocSubheading& h) { o << "### " << markdownEscape(h.text) << "\n\n"; },
                            [&](const DocTable& t) { o << mdTable(t); },
                            [&](const DocCode& c) {
                              const std::string fence = fenceFor(c.text);
                              o << fence << safeLanguage(c.language) << "\n"
                                << c.text << (c.text.ends_with('\n') ? "" : "\n") << fence << "\n\n";
                            },
                            [&](const DocFigure& f) {
                              const auto img = opt.figures ? opt.figures(f) : std::nullopt;
                              // The src is ours (a relative file name or a data: URI), never the report's.
                              if (img) o << "![" << markdownEscape(f.title) << "](" << img->src << ")\n\n";
                            }},
                 b);
  }
  return o.str();
}

namespace {

// QTextDocument understands a small CSS subset (no classes on tables' width,
// no flexbox): keep to it so the PDF looks like the page.
const char* const kCss =
    "body { font-family: sans-serif; font-size: 10pt; color: #222; }"
    "h1 { font-size: 18pt; } h2 { font-size: 14pt; margin-top: 18px; } h3 { font-size: 11pt; margin-top: "
    "10px; }"
    "table { border-collapse: collapse; margin: 6px 0; }"
    "th, td { border: 1px solid #bbb; padding: 3px 6px; text-align: left; vertical-align: top; }"
    "th { background: #eee; } .caption { font-style: italic; margin-top: 8px; } .note { color: #555; "
    "font-style: italic; }"
    "pre { font-family: monospace; font-size: 8pt; background: #f6f6f6; }"
    ".figure { margin: 10px 0; } .figcaption { color: #555; font-size: 9pt; }";

/// Banner colours: Okabe–Ito tints with dark text (contrast above 4.5:1); the
/// verdict is also spelled out, so colour is never the only channel.
const char* bannerColour(Verdict v) {
  switch (v) {
    case Verdict::ok:
      return "#d4eee6";
    case Verdict::slow:
      return "#fbeacc";
    default:
      return "#f6d9c8";
  }
}

std::string htmlTable(const DocTable& t) {
  std::ostringstream o;
  if (!t.caption.empty()) o << "<p class=\"caption\">" << htmlEscape(t.caption) << "</p>\n";
  // width=100%: QTextDocument otherwise shrinks a table to its content (half a PDF page).
  o << "<table width=\"100%\" border=\"1\" cellspacing=\"0\" cellpadding=\"3\">\n<tr>";
  for (const auto& h : t.headers) o << "<th>" << htmlEscape(h) << "</th>";
  o << "</tr>\n";
  for (const auto& row : t.rows) {
    o << "<tr>";
    for (const auto& cell : row) o << "<td>" << htmlEscape(cell) << "</td>";
    o << "</tr>\n";
  }
  return o.str() + "</table>\n";
}

}  // namespace

std::string renderHtml(const Document& doc, const RenderOptions& opt) {
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>" << htmlEscape(doc.title)
    << "</title>\n<style>" << kCss << "</style>\n</head><body>\n<h1>" << htmlEscape(doc.title) << "</h1>\n";
  o << "<table class=\"banner\" width=\"100%\" cellpadding=\"8\" cellspacing=\"0\"><tr><td bgcolor=\""
    << (doc.banner.label.empty() ? bannerColour(doc.banner.verdict) : "#e4e4e4")
    << "\"><b>Verdict: " << htmlEscape(bannerLabel(doc.banner)) << "</b> — "
    << htmlEscape(doc.banner.headline);
  if (!doc.banner.fix.empty()) o << "<br><b>Fix:</b> " << htmlEscape(doc.banner.fix);
  if (!doc.banner.example.empty()) o << "<pre>" << htmlEscape(doc.banner.example) << "</pre>";
  o << "</td></tr></table>\n";
  for (const DocSection& s : doc.sections) {
    o << "<h2 id=\"" << s.id << "\""
      << (opt.paged && s.pageBreakBefore ? " style=\"page-break-before: always\"" : "") << ">"
      << htmlEscape(s.heading) << "</h2>\n";
    for (const DocBlock& b : s.blocks)
      std::visit(Overloaded{[&](const DocParagraph& p) {
                              o << (p.note ? "<p class=\"note\">" : "<p>") << htmlEscape(p.text) << "</p>\n";
                            },
                            [&](const DocSubheading& h) { o << "<h3>" << htmlEscape(h.text) << "</h3>\n"; },
                            [&](const DocTable& t) { o << htmlTable(t); },
                            [&](const DocCode& c) { o << "<pre>" << htmlEscape(c.text) << "</pre>\n"; },
                            [&](const DocFigure& f) {
                              const auto img = opt.figures ? opt.figures(f) : std::nullopt;
                              if (!img) return;
                              o << "<div class=\"figure\"><img src=\"" << htmlEscape(img->src) << "\"";
                              if (img->width > 0) o << " width=\"" << img->width << "\"";
                              o << " alt=\"" << htmlEscape(f.title) << "\"><p class=\"figcaption\">"
                                << htmlEscape(f.title) << "</p></div>\n";
                            }},
                 b);
  }
  o << "</body></html>\n";
  return o.str();
}

}  // namespace tilescope
