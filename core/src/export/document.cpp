// buildDocument: the report's summary, configuration, findings, troubleshooting
// path and diagnose experiments (the per-point tables are in document_points.cpp).
#include "tilescope/export/document.h"

#include <algorithm>
#include <map>

#include "document_detail.h"
#include "tilescope/base/format.h"
#include "tilescope/base/json_input.h"
#include "tilescope/diagnose/headline.h"
#include "tilescope/diagnose/tree.h"
#include "tilescope/model/location.h"

namespace tilescope {

using namespace doc_detail;

const DocSection* Document::section(const std::string& id) const {
  for (const DocSection& s : sections)
    if (s.id == id) return &s;
  return nullptr;
}

std::string pointLabel(const Point& p) {
  std::string s = !p.label.empty()        ? p.label
                  : !p.experiment.empty() ? p.experiment
                                          : "#" + std::to_string(p.index);
  if (p.trial > 0) s += " t" + std::to_string(p.trial);
  return s;
}

int focusPoint(const Report& r) {
  for (std::size_t i = 0; i < r.points.size(); ++i)
    if (r.points[i].verdict == r.verdict) return static_cast<int>(i);
  return r.points.empty() ? -1 : 0;
}

namespace doc_detail {

std::string jsonText(const nlohmann::json& j) {
  if (j.is_null()) return "";
  if (j.is_string()) return j.get<std::string>();
  if (j.is_number()) return formatNumber(j.get<double>());
  if (j.is_boolean()) return j.get<bool>() ? "yes" : "no";
  if (j.is_object()) {
    std::string out;
    for (const auto& [k, v] : j.items()) out += (out.empty() ? "" : ", ") + k + "=" + jsonText(v);
    return out;
  }
  std::string out;  // an array
  for (const auto& v : j) out += (out.empty() ? "" : ", ") + jsonText(v);
  return "[" + out + "]";
}

}  // namespace doc_detail

namespace {

void flatten(const nlohmann::json& j, const std::string& key,
             std::vector<std::pair<std::string, std::string>>* rows) {
  auto endsWith = [&](const char* suffix) {
    const std::string s = suffix;
    return key.size() >= s.size() && key.compare(key.size() - s.size(), s.size(), s) == 0;
  };
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) flatten(v, jsonPathChild(key, k), rows);
    return;
  }
  const bool scalars = j.is_array() && std::all_of(j.begin(), j.end(),
                                                   [](const nlohmann::json& e) { return e.is_primitive(); });
  if (j.is_array() && !scalars) {
    std::size_t i = 0;
    for (const auto& v : j) flatten(v, jsonPathIndex(key, i++), rows);
    return;
  }
  std::string value;
  if (j.is_number() && endsWith("_ns"))
    value = formatDuration(j.get<double>());
  else if (j.is_number() && endsWith("_bytes"))
    value = formatBytes(j.get<double>());
  else if (scalars) {
    std::size_t n = 0;
    for (const auto& v : j) {
      if (n == 16) {
        value += ", … (" + std::to_string(j.size() - 16) + " more)";
        break;
      }
      value += (n++ ? ", " : "") + jsonText(v);
    }
  } else
    value = jsonText(j);
  rows->emplace_back(key.empty() ? "value" : key, value);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> evidenceRows(const nlohmann::json& evidence,
                                                              std::size_t maxRows) {
  std::vector<std::pair<std::string, std::string>> rows;
  if (evidence.is_null() || (evidence.is_object() && evidence.empty()) ||
      (evidence.is_array() && evidence.empty()))
    return rows;
  flatten(evidence, "", &rows);
  if (rows.size() > maxRows) {
    const std::size_t left = rows.size() - maxRows;
    rows.resize(maxRows);
    rows.emplace_back("…", std::to_string(left) + " more values in the report's JSON");
  }
  return rows;
}

namespace {

DocTable keyValueTable(const std::vector<std::pair<std::string, std::string>>& rows,
                       std::string caption = "") {
  DocTable t{std::move(caption), {"Key", "Value"}, {}};
  for (const auto& [k, v] : rows) t.rows.push_back({k, v});
  return t;
}

const TreeNode* leafOf(const Report& r, const Tree* tree) {
  if (!tree || r.treePath.empty()) return nullptr;
  const TreeNode* n = tree->find(r.treePath.back());
  return n && n->isLeaf() ? n : nullptr;
}

DocBanner banner(const Report& r, const Tree* tree) {
  // The workbench's banner says the same (headline.h): the cause, then the walk's fix.
  const Headline h = reportHeadline(r, tree);
  DocBanner b;
  b.verdict = r.verdict;
  if (r.verb == "check" && r.verdict == Verdict::ok) b.label = "checked, not run";  // nothing ran
  if (h.cause) b.headline = headlineText(h);  // a performance cause with its estimated gain
  if (b.headline.empty() && !r.findings.empty()) b.headline = r.findings.front().message;
  if (b.headline.empty())
    b.headline = r.points.empty() ? "nothing was run: the report holds no points"
                                  : std::to_string(r.points.size()) +
                                        (r.points.size() == 1 ? " point" : " points") + ", no findings";
  b.fix = h.fix;
  if (b.fix.empty() && !r.treePath.empty()) b.fix = "see the troubleshooting node " + r.treePath.back();
  if (h.example) {
    b.example = h.exampleAfter;
    b.exampleLanguage = h.example->language;
  }
  return b;
}

DocSection summary(const Report& r, const DocumentOptions& o) {
  DocSection s{"summary", "Summary", {}, false};
  std::string device = r.device.name;
  if (!r.device.cc.empty())
    device += " (cc " + r.device.cc + ", " + std::to_string(r.device.smCount) + " SMs, " +
              (r.device.live ? "measured" : "from the device database") + ")";
  std::map<std::string, std::size_t> verdicts;
  for (const Point& p : r.points) ++verdicts[verdictName(p.verdict)];
  std::string counts;
  for (const auto& [v, n] : verdicts) counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + v;
  DocTable t{"", {"Field", "Value"}, {}};
  t.rows = {{"Verdict", verdictName(r.verdict)},
            {"Verb", r.verb},
            {"Device", device},
            {"Points", std::to_string(r.points.size()) + (counts.empty() ? "" : " (" + counts + ")")},
            {"Findings", std::to_string(r.findings.size())},
            {"Created", r.createdAt + (r.host.empty() ? "" : " on " + r.host)},
            {"Tool version", r.toolVersion}};
  s.blocks.push_back(t);
  if (!o.note.empty()) s.blocks.push_back(DocParagraph{o.note, true});
  return s;
}

DocSection configuration(const Report& r) {
  DocSection s{"configuration", "Configuration", {}, false};
  const ConfigHeadline c = configHeadline(r.config);
  DocTable t{"", {"Field", "Value"}, {}};
  const std::string source = jsonText(c.source);
  const std::pair<const char*, std::string> rows[] = {
      {"Name", jsonText(c.name)},
      {"Description", jsonText(c.description)},
      {"Kernel entry", jsonText(c.entry)},
      {"Kernel source", source.empty() ? "" : source + " (relative to the config's folder)"},
      {"Compiler", jsonText(c.compiler)},
      {"Defines", jsonText(c.defines)},
      {"Params", jsonText(c.params)},
      {"Grid", jsonText(c.grid)},
      {"Block", jsonText(c.block)},
      {"Shared bytes", jsonText(c.sharedBytes)},
      {"Reference", jsonText(c.reference)},
      {"Baseline", jsonText(c.baseline)},
      {"Sweep", jsonText(c.sweep)},
  };
  for (const auto& [k, v] : rows)
    if (!v.empty()) t.rows.push_back({k, v});
  if (t.rows.empty()) {
    s.blocks.push_back(DocParagraph{"The report carries no config.", true});
    return s;
  }
  s.blocks.push_back(t);
  s.blocks.push_back(DocSubheading{"The resolved config"});
  s.blocks.push_back(DocCode{"json", dumpJson(r.config, 2)});
  return s;
}

std::string findingName(const Finding& f) {
  return f.category + (f.detail.empty() ? "" : " (" + f.detail + ")");
}

DocSection findings(const Report& r, const DocumentOptions& o) {
  DocSection s{"findings", "Findings", {}, false};
  if (r.findings.empty()) {
    s.blocks.push_back(DocParagraph{"No findings."});
    return s;
  }
  const std::size_t shown = std::min(r.findings.size(), o.maxFindings);
  DocTable t{"", {"#", "Severity", "Category", "Message", "Location", "Tensor"}, {}};
  for (std::size_t i = 0; i < shown; ++i) {
    const Finding& f = r.findings[i];
    t.rows.push_back({std::to_string(i + 1), severityName(f.severity), findingName(f), f.message,
                      locationText(f.location), f.tensor});
  }
  s.blocks.push_back(t);
  if (shown < r.findings.size()) {
    std::map<std::string, std::size_t> rest;
    for (std::size_t i = shown; i < r.findings.size(); ++i) ++rest[r.findings[i].category];
    std::string counts;
    for (const auto& [c, n] : rest) counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + c;
    s.blocks.push_back(DocParagraph{"The first " + std::to_string(shown) + " of " +
                                        std::to_string(r.findings.size()) +
                                        " findings are listed; the others: " + counts + ".",
                                    true});
  }
  for (std::size_t i = 0; i < shown; ++i) {
    const Finding& f = r.findings[i];
    const auto rows = evidenceRows(f.evidence, o.maxEvidenceRows);
    auto sass = doc_detail::findingSass(r, f);
    if (rows.empty() && f.treeNode.empty() && f.experiment.empty() && sass.empty()) continue;
    s.blocks.push_back(
        DocSubheading{std::to_string(i + 1) + ". " + severityName(f.severity) + " " + findingName(f)});
    std::vector<std::pair<std::string, std::string>> facts;
    if (!f.experiment.empty()) facts.emplace_back("experiment", f.experiment);
    if (!f.treeNode.empty()) facts.emplace_back("troubleshooting node", f.treeNode);
    facts.insert(facts.end(), rows.begin(), rows.end());
    if (!facts.empty()) s.blocks.push_back(keyValueTable(facts, "Evidence"));
    for (auto& b : sass) s.blocks.push_back(std::move(b));
  }
  return s;
}

DocSection troubleshooting(const Report& r, const Tree* tree, const DocumentOptions& o) {
  DocSection s{"troubleshooting", "Troubleshooting path", {}, false};
  std::string path;
  for (const std::string& n : r.treePath) {
    const TreeNode* node = tree ? tree->find(n) : nullptr;
    path += (path.empty() ? "" : " → ") + (node && !node->title.empty() ? node->title + " (" + n + ")" : n);
  }
  s.blocks.push_back(DocParagraph{"Path: " + path});
  if (!r.treeSteps.empty()) {
    DocTable t{"", {"Step", "Node", "Question", "Answer", "How"}, {}};
    for (std::size_t i = 0; i < r.treeSteps.size(); ++i) {
      const TreeStep& st = r.treeSteps[i];
      t.rows.push_back({std::to_string(i + 1), st.node, st.question, st.answer,
                        st.automatic ? "from the evidence" : "answered by a person"});
    }
    s.blocks.push_back(t);
    for (std::size_t i = 0; i < r.treeSteps.size(); ++i) {
      const auto rows = evidenceRows(r.treeSteps[i].evidence, o.maxEvidenceRows);
      if (!rows.empty()) s.blocks.push_back(keyValueTable(rows, "Evidence of step " + std::to_string(i + 1)));
    }
  }
  if (const TreeNode* walked = leafOf(r, tree)) {
    // The report's device and the kernel's language, not the tree's example GPU and code.
    const TreeNode rendered = renderLeaf(*walked, treeTextContext(r));
    const TreeNode* leaf = &rendered;
    s.blocks.push_back(DocSubheading{"Fix: " + leaf->title});
    if (!leaf->explanation.empty()) s.blocks.push_back(DocParagraph{leaf->explanation});
    s.blocks.push_back(DocParagraph{leaf->fix});
    for (const TreeExample& e : leaf->examples) {
      if (!e.before.empty()) s.blocks.push_back(DocCode{e.language, "// before\n" + e.before});
      if (!e.after.empty()) s.blocks.push_back(DocCode{e.language, "// after\n" + e.after});
    }
  } else if (!tree) {
    s.blocks.push_back(DocParagraph{
        "The troubleshooting tree was not available: node titles and the fix text are left out.", true});
  } else {
    s.blocks.push_back(DocParagraph{
        "The walk stopped before a fix: answer its open question in the GUI's Troubleshooting panel.", true});
  }
  return s;
}

/// diagnose's experiments (extra.diagnose): what each one asked and what it found.
DocSection diagnoseExperiments(const Report& r) {
  DocSection s{"diagnose", "Diagnose experiments", {}, false};
  if (!r.diagnose) return s;
  const DiagnoseInfo& d = *r.diagnose;
  DocTable runs{"", {"Experiment", "Group", "Why", "Verdict", "Wall time"}, {}};
  for (const DiagnoseExperiment& e : d.experiments)
    runs.rows.push_back({e.experiment, e.group, e.why, verdictName(e.verdict),
                         e.wallSeconds > 0 ? formatDuration(e.wallSeconds * 1e9) : "–"});
  if (!runs.rows.empty()) s.blocks.push_back(runs);
  DocTable settled{"Conclusions", {"Group", "Runs", "Settled", "Summary"}, {}};
  for (const DiagnoseConclusion& c : d.conclusions)
    settled.rows.push_back({c.group, formatNumber(c.runs), c.settled ? "yes" : "no", c.summary});
  if (!settled.rows.empty()) s.blocks.push_back(settled);
  if (!d.stopped.empty()) s.blocks.push_back(DocParagraph{"Stopped: " + d.stopped});
  return s;
}

}  // namespace

namespace {

/// Text longer than `max` bytes, cut on a character boundary with a note of how
/// much went. Every renderer lays out what the model holds: a 5 MB label took
/// the PDF export (QTextDocument) over 900 s (docs/security.md, "Denial of service").
void clipText(std::string& s, std::size_t max) {
  if (s.size() <= max) return;
  const std::size_t total = s.size();
  s = clipForMessage(s, max) + " [" + std::to_string(total) + " bytes, cut at " + std::to_string(max) + "]";
}

/// Preformatted text: each line and the whole are bounded.
void clipCode(std::string& s) {
  std::string out;
  std::size_t start = 0;
  while (start < s.size() && out.size() < kMaxDocCodeBytes) {
    const std::size_t nl = s.find('\n', start);
    std::string line = s.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    clipText(line, kMaxDocLineBytes);
    out += line;
    if (nl == std::string::npos) break;
    out += '\n';
    start = nl + 1;
  }
  if (start < s.size() && out.size() >= kMaxDocCodeBytes)
    out += "[... cut at " + std::to_string(kMaxDocCodeBytes) + " bytes]\n";
  s = std::move(out);
}

}  // namespace

void clipDocument(Document& doc) {
  clipText(doc.title, kMaxDocCellBytes);
  clipText(doc.banner.headline, kMaxDocLineBytes);
  clipText(doc.banner.fix, kMaxDocLineBytes);
  for (DocSection& sec : doc.sections)
    for (DocBlock& b : sec.blocks) {
      if (auto* p = std::get_if<DocParagraph>(&b)) clipText(p->text, kMaxDocLineBytes);
      if (auto* h = std::get_if<DocSubheading>(&b)) clipText(h->text, kMaxDocCellBytes);
      if (auto* f = std::get_if<DocFigure>(&b)) clipText(f->title, kMaxDocCellBytes);
      if (auto* c = std::get_if<DocCode>(&b)) clipCode(c->text);
      if (auto* t = std::get_if<DocTable>(&b)) {
        clipText(t->caption, kMaxDocCellBytes);
        for (auto& h : t->headers) clipText(h, kMaxDocCellBytes);
        for (auto& row : t->rows)
          for (auto& cell : row) clipText(cell, kMaxDocCellBytes);
      }
    }
}

Document buildDocument(const Report& r, const DocumentOptions& o) {
  Document doc;
  const std::string name = jsonText(configHeadline(r.config).name);
  doc.title = "TileScope report: " + (name.empty() ? r.verb : name);
  doc.banner = banner(r, o.tree);
  doc.sections.push_back(summary(r, o));
  doc.sections.push_back(configuration(r));
  doc.sections.push_back(findings(r, o));
  if (!r.treePath.empty() || !r.treeSteps.empty()) doc.sections.push_back(troubleshooting(r, o.tree, o));
  if (DocSection d = diagnoseExperiments(r); !d.blocks.empty()) doc.sections.push_back(std::move(d));
  if (DocSection t = traceSection(r, o); !t.blocks.empty()) doc.sections.push_back(std::move(t));
  if (DocSection t = doc_detail::sassSection(r); !t.blocks.empty()) doc.sections.push_back(std::move(t));
  for (DocSection& s : pointSections(r, o))
    if (!s.blocks.empty()) doc.sections.push_back(std::move(s));
  clipDocument(doc);
  return doc;
}

}  // namespace tilescope
