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

// The derived sections, written for other tools (a reader recomputes them).
template <class IO, Is<TaxonomyRow> S>
void fields(IO& io, S& t) {
  io("category", t.category);
  io("count", t.count);
  io("percent", t.percent);
  io("detail", t.detail, skipIfEmpty(t.detail));
  io("share", t.share, skipIfEmpty(t.detail));  // a detail row's share of its category
}

template <class IO, Is<SpeedupBin> S>
void fields(IO& io, S& b) {
  io("label", b.label);
  io("count", b.count);
}

template <class IO, Is<SpeedupSummary> S>
void fields(IO& io, S& s) {
  io("n", s.n);
  io("faster", s.faster);
  const json_io::Skip none = skipIf(s.n == 0);  // no speedup: no figures of them
  io("min", s.min, none);
  io("p10", s.p10, none);
  io("median", s.median, none);
  io("p90", s.p90, none);
  io("max", s.max, none);
  io("geomean", s.geomean, none);
  io("bins", s.bins);
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
  if constexpr (!IO::reading) {  // derived from the entries: written, never read back
    io("taxonomy", taxonomy(r.entries));
    io("error_taxonomy", failureTaxonomy(r.entries));
    io("speedups", speedupSummary(r.entries));
    io("counts", triageCounts(r.entries));
  }
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

json toJson(const TriageEntry& e) { return json_io::toValue(e); }

TriageEntry triageEntryFromJson(const json& j, const std::string& path) {
  TriageEntry e;
  json_io::readObject(j, e, path);
  return e;
}

json toJson(const TriageReport& r) { return json_io::toValue(r); }

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
