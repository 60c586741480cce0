// buildTriageDocument: a triage's summary, taxonomy, speedups and entry table as
// the export document model (docs/triage.md, "Exports").
#include "tilescope/triage/triage_document.h"

#include <filesystem>
#include <map>
#include <set>

#include "tilescope/base/format.h"
#include "tilescope/triage/triage_run.h"

namespace tilescope {

namespace {

std::string percent(double p) { return formatPercent(p / 100.0); }

Verdict worstVerdict(const TriageReport& r) {
  Verdict v = Verdict::ok;
  for (const TriageEntry& e : r.entries)
    if (e.status == EntryStatus::done) v = worse(v, e.verdict);
  return v;
}

DocSection summarySection(const TriageReport& r, const TriageDocumentOptions& o) {
  const auto counts = triageCounts(r.entries);
  const auto count = [&](const char* k) {
    const auto it = counts.find(k);
    return it == counts.end() ? 0 : it->second;
  };
  DocSection s{"summary", "Summary", {}, false};
  DocTable t{"", {"Field", "Value"}, {}};
  t.rows = {{"entries", std::to_string(r.entries.size())},
            {"judged", std::to_string(count("done"))},
            {"correct (ok)", std::to_string(count("ok"))},
            {"checked, not run", std::to_string(count("checked"))},
            {"not run", std::to_string(count("not_run"))},
            {"pending", std::to_string(count("pending"))},
            {"wall time", formatDuration(r.seconds * 1e9)},
            {"created", r.createdAt},
            {"host", r.host}};
  if (r.options.is_object())
    for (const auto& [k, v] : r.options.items())
      t.rows.push_back({k, v.is_string() ? v.get<std::string>() : v.dump()});
  s.blocks.push_back(std::move(t));
  if (!r.complete)
    s.blocks.push_back(
        DocParagraph{"This triage is not complete: " + std::to_string(count("pending")) +
                         " entries are pending (tilescope-run triage ... --resume finishes them).",
                     true});
  if (!o.note.empty()) s.blocks.push_back(DocParagraph{o.note, true});
  return s;
}

DocTable taxonomyTable(const std::vector<TaxonomyRow>& rows, const char* first, const char* second) {
  DocTable t{"", {first, second, "entries", "% of entries", "% of category"}, {}};
  for (const TaxonomyRow& row : rows)
    t.rows.push_back(
        {row.detail.empty() ? (row.category == "checked" ? "checked, not run" : row.category) : "",
         row.detail, std::to_string(row.count), percent(row.percent),
         row.detail.empty() ? "" : percent(row.share)});
  return t;
}

DocSection taxonomySection(const TriageReport& r) {
  DocSection s{"taxonomy", "Taxonomy", {}, false};
  s.blocks.push_back(
      DocParagraph{"What each judged entry first went wrong with: the lead finding's category "
                   "(and its sub-category), counted over the finished entries.",
                   false});
  s.blocks.push_back(taxonomyTable(taxonomy(r.entries), "category", "sub-category"));
  s.blocks.push_back(DocFigure{"triage_taxonomy", "Entries per category"});
  s.blocks.push_back(
      DocParagraph{"The same failures in the classes of the seed's error analysis: compile error, CUDA "
                   "memory error, runtime error, type error, value error, missing dependency, assertion, "
                   "a resource limit, other errors, wrong results (docs/triage.md).",
                   false});
  DocTable classes = taxonomyTable(failureTaxonomy(r.entries), "class", "sub-class");
  classes.caption = "Failure classes";
  s.blocks.push_back(std::move(classes));
  return s;
}

DocSection speedupSection(const TriageReport& r) {
  const SpeedupSummary sp = speedupSummary(r.entries);
  DocSection s{"speedups", "Speed of the correct entries", {}, false};
  if (sp.n == 0) {
    s.blocks.push_back(DocParagraph{"No correct entry has a measured speed.", false});
    return s;
  }
  s.blocks.push_back(DocTable{
      "",
      {"correct with a speed", "faster", "geomean", "min", "p10", "median", "p90", "max"},
      {{std::to_string(sp.n), std::to_string(sp.faster), formatRatio(sp.geomean), formatRatio(sp.min),
        formatRatio(sp.p10), formatRatio(sp.median), formatRatio(sp.p90), formatRatio(sp.max)}}});
  DocTable bins{"Speedup against the reference or baseline", {"speedup", "entries"}, {}};
  for (const SpeedupBin& b : sp.bins) bins.rows.push_back({b.label, std::to_string(b.count)});
  s.blocks.push_back(std::move(bins));
  s.blocks.push_back(DocFigure{"triage_speedups", "Speedup distribution"});
  return s;
}

/// "1.80×" against the reference (the table says so below), "0.70× vs cublas" otherwise.
std::string speedupCell(const TriageEntry& e) {
  if (!e.speed.speedup) return "";
  const std::string ratio = formatRatio(*e.speed.speedup);
  return e.speed.against == "reference" || e.speed.against.empty() ? ratio : ratio + " vs " + e.speed.against;
}

std::string where(const TriageEntry& e) { return entryLineLabel(e); }

/// The entry's wall time; "" for one still pending or not run (it took none yet).
std::string timeCell(const TriageEntry& e) {
  if (e.status != EntryStatus::done && e.seconds <= 0) return "";
  return formatDuration(e.seconds * 1e9);
}

DocSection entriesSection(const TriageReport& r, const TriageDocumentOptions& o) {
  DocSection s{"entries", "Entries", {}, true};
  DocTable t{"", {"entry", "kind", "verdict", "category", "line", "speedup", "judged by", "time"}, {}};
  for (const TriageEntry& e : r.entries) {
    if (t.rows.size() >= o.maxRows) break;
    t.rows.push_back({e.name, entryKindName(e.kind), entryVerdictLabel(e), entryCategoryLabel(e), where(e),
                      speedupCell(e), e.level, timeCell(e)});
  }
  s.blocks.push_back(std::move(t));
  s.blocks.push_back(
      DocParagraph{"Speedups are the reference's time over the candidate's, unless another "
                   "baseline is named.",
                   true});
  if (r.entries.size() > o.maxRows)
    s.blocks.push_back(
        DocParagraph{std::to_string(r.entries.size() - o.maxRows) + " more entries are not listed.", true});
  return s;
}

/// Each distinct lead (category, detail) once: an example entry, its located line and the fix.
DocSection fixesSection(const TriageReport& r) {
  DocSection s{"fixes", "Findings and fixes", {}, false};
  std::set<std::string> seen;
  for (const TriageEntry& e : r.entries) {
    if (e.status != EntryStatus::done || e.category.empty() || !seen.insert(entryCategoryLabel(e)).second)
      continue;
    s.blocks.push_back(DocSubheading{entryCategoryLabel(e)});
    std::string text = e.name + ": " + e.message;
    if (e.line) text += " (" + where(e) + (e.sourceLine.empty() ? "" : ": " + e.sourceLine) + ")";
    s.blocks.push_back(DocParagraph{text, false});
    if (!e.fix.empty())
      s.blocks.push_back(
          DocParagraph{(e.treeNode.empty() ? "Fix: " : "Fix (" + e.treeNode + "): ") + e.fix, false});
  }
  if (s.blocks.empty()) s.blocks.push_back(DocParagraph{"No entry has a finding.", false});
  return s;
}

DocSection notRunSection(const TriageReport& r) {
  DocSection s{"not_run", "Not run", {}, false};
  DocTable t{"", {"entry", "why"}, {}};
  for (const TriageEntry& e : r.entries)
    if (e.status == EntryStatus::not_run || !e.note.empty()) t.rows.push_back({e.name, e.note});
  if (!t.rows.empty()) s.blocks.push_back(std::move(t));
  return s;
}

}  // namespace

std::string entryVerdictLabel(const TriageEntry& e) {
  if (e.status != EntryStatus::done) return entryStatusName(e.status);
  // A check compiles and reasons about the declaration; it measured nothing
  // (docs/triage.md, "What runs for an entry").
  return e.verdict == Verdict::ok && taxonomyKey(e) == "checked" ? "checked, not run"
                                                                 : verdictName(e.verdict);
}

std::string entryLineLabel(const TriageEntry& e) {
  if (!e.line) return "";
  const Finding* lead = leadFinding(e.findings);
  const bool store = lead && lead->evidence.is_object() && lead->evidence.contains("line_from");
  return std::filesystem::path(e.file).filename().string() + ":" + std::to_string(*e.line) +
         (store ? " (store)" : "");
}

std::string entryCategoryLabel(const TriageEntry& e) {
  const std::string key = taxonomyKey(e);
  // " / ": a place to break the line in a narrow table column (the PDF's).
  return e.status == EntryStatus::done && !e.detail.empty() && !e.category.empty() ? key + " / " + e.detail
                                                                                   : key;
}

Document buildTriageDocument(const TriageReport& r, const TriageDocumentOptions& o) {
  Document d;
  d.title = "TileScope triage: " + std::to_string(r.entries.size()) + " entries";
  d.banner.verdict = worstVerdict(r);
  const auto tax = taxonomy(r.entries);
  int ok = 0, judged = 0, checked = 0;
  for (const TriageEntry& e : r.entries)
    if (e.status == EntryStatus::done) {
      ++judged;
      const std::string key = taxonomyKey(e);
      ok += key == "ok";
      checked += key == "checked";
    }
  d.banner.headline = std::to_string(ok) + " of " + std::to_string(judged) + " judged entries are correct";
  // Nothing judged but checks: the triage measured nothing, its banner is not green
  // (docs/triage.md, "What runs for an entry").
  if (ok == 0 && checked > 0 && d.banner.verdict == Verdict::ok) d.banner.label = "checked, not run";
  if (checked > 0)
    d.banner.headline +=
        " (" + std::to_string(checked) + " more checked without running: not proof of correctness)";
  for (const TaxonomyRow& row : tax)
    if (row.detail.empty() && row.category != "ok" && row.category != "not_run" &&
        row.category != "checked") {
      d.banner.headline += "; most often: " + row.category + " (" + std::to_string(row.count) + ")";
      break;
    }
  d.sections.push_back(summarySection(r, o));
  d.sections.push_back(taxonomySection(r));
  d.sections.push_back(speedupSection(r));
  d.sections.push_back(entriesSection(r, o));
  d.sections.push_back(fixesSection(r));
  if (DocSection s = notRunSection(r); !s.blocks.empty()) d.sections.push_back(std::move(s));
  // A triage file comes from anyone: a 1 MB entry name took the PDF export over 240 s.
  clipDocument(d);
  return d;
}

std::vector<DocFigure> triageFigures(const TriageReport& r) {
  std::vector<DocFigure> f{{"triage_taxonomy", "Entries per category"}};
  if (speedupSummary(r.entries).n > 0) f.push_back({"triage_speedups", "Speedup distribution"});
  return f;
}

}  // namespace tilescope
