// The field lists of tilescope.triage/1 (docs/triage.md), read by both the writer
// and the reader (json_fields.h), and the file functions around them.
#include <fstream>
#include <stdexcept>

#include "tilescope/model/json_fields.h"
#include "tilescope/triage/triage.h"

namespace tilescope {

namespace {

/// An entry's findings: written and read through the report's own Finding codec
/// (toJson / findingFromJson), so a finding reads alike in a report and a triage.
/// The field-list templates find these overloads by argument-dependent lookup.
struct FindingList {
  std::vector<Finding>* items;
};
struct ConstFindingList {
  const std::vector<Finding>* items;
};

nlohmann::json toValue(const ConstFindingList& l) {
  nlohmann::json a = nlohmann::json::array();
  for (const Finding& f : *l.items) a.push_back(toJson(f));
  return a;
}

void fromValue(const nlohmann::json& j, FindingList& l, const JsonPath& path) {
  if (!j.is_array()) json_io::expected(path, "an array", j);
  l.items->clear();
  for (std::size_t i = 0; i < j.size(); ++i) l.items->push_back(findingFromJson(j[i], path.index(i).str()));
}

using json_io::Is;
using json_io::skipIf;
using json_io::skipIfEmpty;
using nlohmann::json;

/// Enums as their names (a wrong name names the path and the known names).
template <class E, class Name, class Parse>
void enumField(json_io::Writer& io, const char* key, const E& v, Name name, Parse) {
  io(key, std::string(name(v)));
}
template <class E, class Name, class Parse>
void enumField(json_io::Reader& io, const char* key, E& v, Name, Parse parse) {
  std::string s;
  io(key, s);
  if (s.empty()) return;
  try {
    v = parse(s);
  } catch (const std::invalid_argument& e) {
    json_io::fail(jsonPathChild(io.path(), key), e.what());
  }
}

void findingsField(json_io::Writer& io, const std::vector<Finding>& f) {
  io("findings", ConstFindingList{&f}, skipIf(f.empty()));
}
void findingsField(json_io::Reader& io, std::vector<Finding>& f) {
  FindingList l{&f};
  io("findings", l);
}

}  // namespace

template <class IO, Is<TriageSpeed> S>
void fields(IO& io, S& s) {
  io("kernel_ns", s.kernelNs);
  io("baseline_ns", s.baselineNs);
  io("against", s.against, skipIfEmpty(s.against));
  io("speedup", s.speedup);
}

template <class IO, Is<TriageEntry> S>
void fields(IO& io, S& e) {
  io("id", e.id);
  enumField(io, "kind", e.kind, entryKindName, parseEntryKind);
  io("name", e.name);
  io("inputs", e.inputs);
  enumField(io, "status", e.status, entryStatusName, parseEntryStatus);
  io("verdict", e.verdict, skipIf(e.status != EntryStatus::done));  // only what was judged has one
  io("level", e.level, skipIfEmpty(e.level));
  io("category", e.category, skipIfEmpty(e.category));
  io("detail", e.detail, skipIfEmpty(e.detail));
  io("message", e.message, skipIfEmpty(e.message));
  io("error_class", e.errorClass, skipIfEmpty(e.errorClass));
  io("error_subclass", e.errorSubclass, skipIfEmpty(e.errorSubclass));
  io("tree_node", e.treeNode, skipIfEmpty(e.treeNode));
  io("fix", e.fix, skipIfEmpty(e.fix));
  io("file", e.file, skipIfEmpty(e.file));
  io("line", e.line);
  io("source_line", e.sourceLine, skipIfEmpty(e.sourceLine));
  io("speed", e.speed);
  findingsField(io, e.findings);
  io("report", e.report, skipIfEmpty(e.report));
  io("launches", e.launches, skipIf(e.launches < 0));
  io("seconds", e.seconds);
  io("gpu", e.gpu, skipIfEmpty(e.gpu));
  io("note", e.note, skipIfEmpty(e.note));
  io("extra", e.extra, skipIf(e.extra.empty()));
}

template <class IO, Is<TriageReport> S>
void fields(IO& io, S& r) {
  io("schema", r.schema);
  io("tool_version", r.toolVersion);
  io("created_at", r.createdAt);
  io("updated_at", r.updatedAt);
  io("host", r.host);
  io("inputs", r.inputs);
  io("options", r.options);
  io("complete", r.complete);
  io("seconds", r.seconds);
  io("entries", r.entries);
  io("extra", r.extra, skipIf(r.extra.empty()));
}

// ---------------------------------------------------------------- the enums

const char* entryKindName(EntryKind k) {
  switch (k) {
    case EntryKind::capture:
      return "capture";
    case EntryKind::problem:
      return "problem";
    case EntryKind::config:
      break;
  }
  return "config";
}

EntryKind parseEntryKind(const std::string& s) {
  for (EntryKind k : {EntryKind::config, EntryKind::capture, EntryKind::problem})
    if (s == entryKindName(k)) return k;
  throw std::invalid_argument("unknown entry kind '" + s + "' (expected config, capture or problem)");
}

const char* entryStatusName(EntryStatus s) {
  switch (s) {
    case EntryStatus::done:
      return "done";
    case EntryStatus::not_run:
      return "not_run";
    case EntryStatus::pending:
      break;
  }
  return "pending";
}

EntryStatus parseEntryStatus(const std::string& s) {
  for (EntryStatus k : {EntryStatus::pending, EntryStatus::done, EntryStatus::not_run})
    if (s == entryStatusName(k)) return k;
  throw std::invalid_argument("unknown entry status '" + s + "' (expected pending, done or not_run)");
}

// ---------------------------------------------------------------- documents

namespace {

json taxonomyJson(const std::vector<TaxonomyRow>& taxonomyRows) {
  json rows = json::array();
  for (const TaxonomyRow& t : taxonomyRows) {
    json row = {{"category", t.category}, {"count", t.count}, {"percent", t.percent}};
    if (!t.detail.empty()) row["detail"] = t.detail, row["share"] = t.share;
    rows.push_back(std::move(row));
  }
  return rows;
}

json speedupsJson(const std::vector<TriageEntry>& entries) {
  const SpeedupSummary s = speedupSummary(entries);
  json j = {{"n", s.n}, {"faster", s.faster}};
  if (s.n > 0) {
    j.update({{"min", s.min},
              {"p10", s.p10},
              {"median", s.median},
              {"p90", s.p90},
              {"max", s.max},
              {"geomean", s.geomean}});
  }
  json bins = json::array();
  for (const SpeedupBin& b : s.bins) bins.push_back({{"label", b.label}, {"count", b.count}});
  j["bins"] = std::move(bins);
  return j;
}

}  // namespace

json toJson(const TriageEntry& e) { return json_io::toValue(e); }

TriageEntry triageEntryFromJson(const json& j, const std::string& path) {
  TriageEntry e;
  json_io::readObject(j, e, path);
  return e;
}

json toJson(const TriageReport& r) {
  json j = json_io::toValue(r);
  j["taxonomy"] = taxonomyJson(taxonomy(r.entries));
  j["error_taxonomy"] = taxonomyJson(failureTaxonomy(r.entries));
  j["speedups"] = speedupsJson(r.entries);
  j["counts"] = triageCounts(r.entries);
  return j;
}

bool isTriageDocument(const json& j) {
  if (!j.is_object()) return false;
  const auto it = j.find("schema");
  return it != j.end() && it->is_string() && it->get<std::string>().rfind("tilescope.triage/", 0) == 0;
}

TriageReport triageFromJson(const json& j) {
  if (!j.is_object()) json_io::expected("", "an object", j);
  const auto it = j.find("schema");
  if (it == j.end() || !it->is_string() || *it != kTriageSchema)
    throw ReportError("schema", "expected \"" + std::string(kTriageSchema) + "\", found " +
                                    (it == j.end() ? std::string("none") : it->dump()));
  TriageReport r;
  json_io::readObject(j, r, "");
  return r;
}

TriageReport loadTriage(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error(file.string() + ": cannot open");
  json j;
  try {
    j = parseJson(in);
  } catch (const std::exception& e) {
    throw std::runtime_error(file.string() + ": " + e.what());
  }
  try {
    return triageFromJson(j);
  } catch (const std::exception& e) {
    throw std::runtime_error(file.string() + ": " + e.what());
  }
}

void saveTriage(const TriageReport& r, const std::filesystem::path& file) {
  writeFileAtomically(file, dumpJson(toJson(r), 1) + "\n");
}

std::filesystem::path entryReportPath(const TriageEntry& e, const std::filesystem::path& triageFile) {
  if (e.report.empty()) return {};
  const std::filesystem::path p(e.report);
  return p.is_absolute() ? p : triageFile.parent_path() / p;
}

}  // namespace tilescope
