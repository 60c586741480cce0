// The field lists of tilescope.compare/1 (docs/compare.md), read by both the
// writer and the reader (json_fields.h). Values a side did not measure are left
// out, so a reader tells "not measured" from zero.
#include "tilescope/export/report_diff.h"
#include "tilescope/model/json_fields.h"

namespace tilescope {

namespace {

using json_io::Is;
using json_io::skipIf;
using json_io::skipIfEmpty;
using nlohmann::json;

}  // namespace

const char* findingChangeName(FindingChange c) {
  switch (c) {
    case FindingChange::same:
      return "same";
    case FindingChange::moved:
      return "moved";
    case FindingChange::appeared:
      return "appeared";
    case FindingChange::gone:
      return "gone";
  }
  return "same";
}

FindingChange parseFindingChange(const std::string& s) {
  for (FindingChange c :
       {FindingChange::same, FindingChange::moved, FindingChange::appeared, FindingChange::gone})
    if (s == findingChangeName(c)) return c;
  throw std::invalid_argument("unknown finding change '" + s + "' (same, moved, appeared, gone)");
}

// The enum as its name; found by argument-dependent lookup from the field lists.
json toValue(FindingChange c) { return findingChangeName(c); }
void fromValue(const json& j, FindingChange& out, const JsonPath& path) {
  if (!j.is_string()) json_io::expected(path, "a string", j);
  try {
    out = parseFindingChange(j.get<std::string>());
  } catch (const std::invalid_argument& e) {
    json_io::fail(path, e.what());
  }
}

template <class IO, Is<DiffValue> S>
void fields(IO& io, S& v) {
  io("key", v.key);
  io("label", v.label);
  io("unit", v.unit);
  io("a", v.a);
  io("b", v.b);
}

template <class IO, Is<DiffSide> S>
void fields(IO& io, S& s) {
  io("file", s.file);
  io("name", s.name);
  io("entry", s.entry);
  io("verb", s.verb);
  io("device", s.device);
  io("points", s.points);
  io("point", s.point);
  io("sweep_index", s.sweepIndex);
  io("trial", s.trial);
  io("label", s.label);
  io("verdict", s.verdict);
}

template <class IO, Is<TimingDiff> S>
void fields(IO& io, S& t) {
  io("measured_a", t.measuredA);
  io("measured_b", t.measuredB);
  io("values", t.values);
  io("significant", t.significant);
}

template <class IO, Is<ErrorMapDiff> S>
void fields(IO& io, S& m) {
  io("rows", m.rows);
  io("cols", m.cols);
  io("cell", m.cell);
  io("resampled", m.resampled);
  io("tolerance", m.tolerance);
  io("cells", m.cells);
  io("same", m.same);
  io("worse", m.worse);
  io("better", m.better);
  io("both_bad", m.bothBad);
  io("max_growth", m.maxGrowth);
  io("max_shrink", m.maxShrink);
}

template <class IO, Is<CorrectnessDiff> S>
void fields(IO& io, S& c) {
  io("tensor", c.tensor);
  io("in_a", c.inA);
  io("in_b", c.inB);
  io("values", c.values);
  io("map", c.map);
  io("map_note", c.mapNote, skipIfEmpty(c.mapNote));
}

template <class IO, Is<OutputBytesDiff> S>
void fields(IO& io, S& o) {
  io("tensor", o.tensor);
  io("digest_a", o.digestA, skipIfEmpty(o.digestA));
  io("digest_b", o.digestB, skipIfEmpty(o.digestB));
  io("identical", o.identical);
}

template <class IO, Is<CountersDiff> S>
void fields(IO& io, S& c) {
  io("collected_a", c.collectedA);
  io("collected_b", c.collectedB);
  io("speed_of_light", c.speedOfLight, skipIfEmpty(c.speedOfLight));
  io("metrics", c.metrics, skipIfEmpty(c.metrics));
}

template <class IO, Is<FindingDiff> S>
void fields(IO& io, S& f) {
  io("change", f.change);
  io("category", f.category);
  io("severity_a", f.severityA);
  io("severity_b", f.severityB);
  io("message_a", f.messageA, skipIf(!f.severityA));
  io("message_b", f.messageB, skipIf(!f.severityB));
  io("location_a", f.locationA);
  io("location_b", f.locationB);
}

template <class IO, Is<ReportDiff> S>
void fields(IO& io, S& d) {
  io("schema", d.schema);
  io("a", d.a);
  io("b", d.b);
  io("same_kernel", d.sameKernel);
  io("warnings", d.warnings);
  io("timing", d.timing);
  io("resources", d.resources);
  io("correctness", d.correctness);
  io("outputs", d.outputs, skipIfEmpty(d.outputs));
  io("counters", d.counters);
  io("findings", d.findings);
}

json toJson(const ReportDiff& d) { return json_io::toValue(d); }

ReportDiff reportDiffFromJson(const json& j) {
  if (!j.is_object()) throw ReportError("", "expected an object, found " + std::string(j.type_name()));
  const auto it = j.find("schema");
  if (it == j.end() || !it->is_string() || *it != kCompareSchema)
    throw ReportError("schema", "expected \"" + std::string(kCompareSchema) + "\", found " +
                                    (it == j.end() ? std::string("none") : it->dump()));
  ReportDiff d;
  json_io::fromValue(j, d, JsonPath(""));
  return d;
}

}  // namespace tilescope
