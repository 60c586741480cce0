// The report's `trace` section <-> JSON (docs/report.md, "trace"). One field
// list per struct drives both directions.
#include <cstdio>

#include "tilescope/model/trace_info.h"

namespace tilescope {

std::vector<std::int64_t> rleEncode(const std::vector<std::int64_t>& values) {
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < values.size();) {
    std::size_t j = i;
    while (j < values.size() && values[j] == values[i]) ++j;
    out.push_back(values[i]);
    out.push_back(std::int64_t(j - i));
    i = j;
  }
  return out;
}

std::vector<std::int64_t> rleDecode(const std::vector<std::int64_t>& runs) {
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i + 1 < runs.size(); i += 2)
    if (runs[i + 1] > 0) out.insert(out.end(), std::size_t(runs[i + 1]), runs[i]);
  return out;
}

namespace {

using nlohmann::json;

// A field list visited by a writer (to JSON) or a reader (from JSON).
struct Writer {
  json& j;
  template <class T>
  void operator()(const char* key, const T& v) {
    j[key] = v;
  }
};
struct Reader {
  const json& j;
  template <class T>
  void operator()(const char* key, T& v) {
    if (j.contains(key) && !j[key].is_null()) v = j[key].get<T>();
  }
};

std::string hex(std::uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}
std::uint64_t unhex(const json& j) {
  if (j.is_number_unsigned() || j.is_number_integer()) return j.get<std::uint64_t>();
  if (j.is_string()) return std::stoull(j.get<std::string>(), nullptr, 0);
  return 0;
}

json siteJson(const TraceSite& s) {
  json j = {{"pc", hex(s.pc)}, {"function", s.function}, {"sass_offset", s.sassOffset}};
  if (s.line > 0) j["file"] = s.file, j["line"] = s.line;
  return j;
}
TraceSite siteFrom(const json& j) {
  TraceSite s;
  if (!j.is_object()) return s;
  s.pc = unhex(j.value("pc", json()));
  s.function = j.value("function", "");
  s.sassOffset = j.value("sass_offset", std::uint64_t(0));
  s.file = j.value("file", "");
  s.line = j.value("line", 0);
  return s;
}

template <class F, class V>
void faultFields(F&& f, V& x) {
  f("kind", x.kind);
  f("category", x.category);
  f("space", x.space);
  f("tensor", x.tensor);
  f("element", x.element);
  f("element_linear", x.elementLinear);
  f("size", x.size);
  f("write", x.write);
  f("atomic", x.atomic);
  f("thread", x.thread);
  f("block", x.block);
  f("count", x.count);
  f("stopped", x.stopped);
  f("exact", x.exact);
}

template <class F, class V>
void lineFields(F&& f, V& x) {
  f("file", x.file);
  f("line", x.line);
  f("sass_offsets", x.sassOffsets);
  f("executions", x.executions);
  f("accesses", x.accesses);
  f("bytes", x.bytes);
  f("spaces", x.spaces);
  f("read", x.read);
  f("write", x.write);
  f("atomic", x.atomic);
  f("faults", x.faults);
  f("uninit", x.uninit);
  f("hazards", x.hazards);
  f("wavefronts", x.wavefronts);
  f("ideal_wavefronts", x.ideal);
  f("max_ways", x.maxWays);
}

template <class F, class V>
void countFields(F&& f, V& x) {
  f("global_accesses", x.globalAccesses);
  f("shared_accesses", x.sharedAccesses);
  f("local_accesses", x.localAccesses);
  f("barriers", x.barriers);
  f("bad_accesses", x.badAccesses);
  f("uninit_reads", x.uninitReads);
  f("hazards", x.hazards);
  f("stopped_warps", x.stoppedWarps);
  f("shared_wavefronts", x.sharedWavefronts);
  f("shared_ideal_wavefronts", x.sharedIdeal);
}

template <class F, class V>
void limitFields(F&& f, V& x) {
  f("records_seen", x.recordsSeen);
  f("max_records", x.maxRecords);
  f("hazard_overflow", x.hazardOverflow);
  f("max_ctas", x.maxCtas);
  f("untracked_ctas", x.untrackedCtas);
  f("untracked_slots", x.untrackedSlots);
  f("outside_pcs", x.outsidePcs);
}

template <class F, class V>
void footprintFields(F&& f, V& x) {
  f("tensor", x.tensor);
  f("shape", x.shape);
  f("pitch", x.pitch);
  f("rows", x.rows);
  f("cell_rows", x.cellRows);
  f("cell_cols", x.cellCols);
  f("exact", x.exact);
  f("cells_read", x.cellsRead);
  f("cells_written", x.cellsWritten);
  f("cells_multi_writer", x.cellsMultiWriter);
  f("ctas_listed", x.ctasListed);
  f("ctas_total", x.ctasTotal);
}

json boxesJson(const std::vector<TraceCtaBox>& v) {
  json a = json::array();
  for (const auto& b : v) a.push_back({b.cta, b.rowMin, b.rowMax, b.colMin, b.colMax, b.count});
  return a;
}
std::vector<TraceCtaBox> boxesFrom(const json& a) {
  std::vector<TraceCtaBox> v;
  if (!a.is_array()) return v;
  for (const auto& b : a)
    if (b.is_array() && b.size() == 6)
      v.push_back({b[0].get<std::int64_t>(), b[1].get<std::int64_t>(), b[2].get<std::int64_t>(),
                   b[3].get<std::int64_t>(), b[4].get<std::int64_t>(), b[5].get<std::int64_t>()});
  return v;
}

}  // namespace

json toJson(const TraceInfo& t) {
  json j = {{"schema", kTraceSchema}, {"status", t.status}};
  if (!t.reason.empty()) j["reason"] = t.reason;
  if (!t.traced()) return j;
  j["mode"] = t.mode;
  j["kernel"] = t.kernel;
  j["file"] = t.file;
  j["line_info"] = t.lineInfo;
  j["grid"] = t.grid;
  j["block"] = t.block;
  countFields(Writer{j["counts"]}, t.counts);
  limitFields(Writer{j["limits"]}, t.limits);
  j["faults"] = json::array();
  for (const TraceFault& f : t.faults) {
    json o;
    faultFields(Writer{o}, f);
    o["site"] = siteJson(f.site);
    o["address"] = hex(f.address);
    if (f.bytesPastEnd) o["bytes_past_end"] = *f.bytesPastEnd;
    if (f.bytesBeforeStart) o["bytes_before_start"] = *f.bytesBeforeStart;
    if (f.tile)
      o["tile"] = {{"tensor", f.tile->tensor}, {"origin", f.tile->origin}, {"extent", f.tile->extent}};
    j["faults"].push_back(o);
  }
  j["hazards"] = json::array();
  for (const TraceHazardInfo& h : t.hazards)
    j["hazards"].push_back({{"kind", h.kind},
                            {"first", siteJson(h.first)},
                            {"second", siteJson(h.second)},
                            {"first_thread", h.firstThread},
                            {"second_thread", h.secondThread},
                            {"block", h.block},
                            {"count", h.count},
                            {"shared_offset", h.sharedOffset}});
  j["lines"] = json::array();
  for (const TraceLine& l : t.lines) {
    json o;
    lineFields(Writer{o}, l);
    j["lines"].push_back(o);
  }
  j["footprints"] = json::array();
  for (const TraceFootprint& fp : t.footprints) {
    json o;
    footprintFields(Writer{o}, fp);
    o["cell"] = {fp.cellH, fp.cellW};
    o["read_min"] = rleEncode(fp.readMin);
    o["read_max"] = rleEncode(fp.readMax);
    o["write_min"] = rleEncode(fp.writeMin);
    o["write_max"] = rleEncode(fp.writeMax);
    o["read_boxes"] = boxesJson(fp.readBoxes);
    o["write_boxes"] = boxesJson(fp.writeBoxes);
    j["footprints"].push_back(o);
  }
  return j;
}

TraceInfo traceInfoFromJson(const json& j) {
  TraceInfo t;
  if (!j.is_object()) return t;
  t.status = j.value("status", "");
  t.reason = j.value("reason", "");
  if (!t.traced()) return t;
  Reader r{j};
  r("mode", t.mode);
  r("kernel", t.kernel);
  r("file", t.file);
  r("line_info", t.lineInfo);
  r("grid", t.grid);
  r("block", t.block);
  if (j.contains("counts")) countFields(Reader{j["counts"]}, t.counts);
  if (j.contains("limits")) limitFields(Reader{j["limits"]}, t.limits);
  for (const json& o : j.value("faults", json::array())) {
    TraceFault f;
    faultFields(Reader{o}, f);
    f.site = siteFrom(o.value("site", json()));
    f.address = unhex(o.value("address", json()));
    if (o.contains("bytes_past_end")) f.bytesPastEnd = o["bytes_past_end"].get<std::int64_t>();
    if (o.contains("bytes_before_start")) f.bytesBeforeStart = o["bytes_before_start"].get<std::int64_t>();
    if (o.contains("tile") && o["tile"].is_object())
      f.tile =
          TraceTileHint{o["tile"].value("tensor", ""), o["tile"].value("origin", std::vector<std::int64_t>{}),
                        o["tile"].value("extent", std::vector<std::int64_t>{})};
    t.faults.push_back(std::move(f));
  }
  for (const json& o : j.value("hazards", json::array())) {
    TraceHazardInfo h;
    h.kind = o.value("kind", "");
    h.first = siteFrom(o.value("first", json()));
    h.second = siteFrom(o.value("second", json()));
    Reader hr{o};
    hr("first_thread", h.firstThread);
    hr("second_thread", h.secondThread);
    hr("block", h.block);
    hr("count", h.count);
    hr("shared_offset", h.sharedOffset);
    t.hazards.push_back(std::move(h));
  }
  for (const json& o : j.value("lines", json::array())) {
    TraceLine l;
    lineFields(Reader{o}, l);
    t.lines.push_back(std::move(l));
  }
  for (const json& o : j.value("footprints", json::array())) {
    TraceFootprint fp;
    footprintFields(Reader{o}, fp);
    const auto cell = o.value("cell", std::vector<int>{1, 1});
    if (cell.size() == 2) fp.cellH = cell[0], fp.cellW = cell[1];
    fp.readMin = rleDecode(o.value("read_min", std::vector<std::int64_t>{}));
    fp.readMax = rleDecode(o.value("read_max", std::vector<std::int64_t>{}));
    fp.writeMin = rleDecode(o.value("write_min", std::vector<std::int64_t>{}));
    fp.writeMax = rleDecode(o.value("write_max", std::vector<std::int64_t>{}));
    fp.readBoxes = boxesFrom(o.value("read_boxes", json()));
    fp.writeBoxes = boxesFrom(o.value("write_boxes", json()));
    t.footprints.push_back(std::move(fp));
  }
  return t;
}

}  // namespace tilescope
