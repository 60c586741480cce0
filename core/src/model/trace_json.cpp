// The report's `trace` section <-> JSON (docs/report.md, "trace"): one field
// list per struct drives both directions (json_fields.h). Addresses and PCs are
// hex strings, footprint maps run-length encoded, CTA boxes six-value arrays.
#include "tilescope/model/json_fields.h"
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

using json_io::hex64;
using json_io::Is;
using json_io::runLength;
using json_io::Skip;
using json_io::skipIf;
using json_io::skipIfEmpty;
using nlohmann::json;

/// [cta, row_min, row_max, col_min, col_max, count].
template <Is<TraceCtaBox> S>
auto tupleOf(S& b) {
  return std::tie(b.cta, b.rowMin, b.rowMax, b.colMin, b.colMax, b.count);
}

template <class IO, Is<TraceSite> S>
void fields(IO& io, S& s) {
  io("pc", hex64(s.pc));
  io("function", s.function);
  io("sass_offset", s.sassOffset);
  io("file", s.file, skipIf(s.line <= 0));  // no line information: neither
  io("line", s.line, skipIf(s.line <= 0));
}

template <class IO, Is<TraceTileHint> S>
void fields(IO& io, S& t) {
  io("tensor", t.tensor);
  io("origin", t.origin);
  io("extent", t.extent);
}

template <class IO, Is<TraceFault> S>
void fields(IO& io, S& x) {
  io("kind", x.kind);
  io("category", x.category);
  io("space", x.space);
  io("window", x.window, skipIfEmpty(x.window));
  io("tensor", x.tensor);
  io("site", x.site);
  io("element", x.element);
  io("element_linear", x.elementLinear);
  io("bytes_past_end", x.bytesPastEnd);
  io("bytes_before_start", x.bytesBeforeStart);
  io("size", x.size);
  io("write", x.write);
  io("atomic", x.atomic);
  io("address", hex64(x.address));
  io("thread", x.thread);
  io("block", x.block);
  io("tile", x.tile);
  io("count", x.count);
  io("stopped", x.stopped);
  io("exact", x.exact);
}

template <class IO, Is<TraceHazardInfo> S>
void fields(IO& io, S& h) {
  io("kind", h.kind);
  io("first", h.first);
  io("second", h.second);
  io("first_thread", h.firstThread);
  io("second_thread", h.secondThread);
  io("block", h.block);
  io("count", h.count);
  io("shared_offset", h.sharedOffset);
}

template <class IO, Is<TraceLine> S>
void fields(IO& io, S& x) {
  io("file", x.file);
  io("line", x.line);
  io("sass_offsets", x.sassOffsets);
  io("executions", x.executions);
  io("accesses", x.accesses);
  io("bytes", x.bytes);
  io("spaces", x.spaces);
  io("read", x.read);
  io("write", x.write);
  io("atomic", x.atomic);
  io("faults", x.faults);
  io("uninit", x.uninit);
  io("hazards", x.hazards);
  io("wavefronts", x.wavefronts);
  io("ideal_wavefronts", x.ideal);
  io("max_ways", x.maxWays);
}

template <class IO, Is<TraceFootprint> S>
void fields(IO& io, S& x) {
  io("tensor", x.tensor);
  io("shape", x.shape);
  io("pitch", x.pitch);
  io("rows", x.rows);
  io("cell", std::tie(x.cellH, x.cellW));
  io("cell_rows", x.cellRows);
  io("cell_cols", x.cellCols);
  io("exact", x.exact);
  io("read_min", runLength(x.readMin));
  io("read_max", runLength(x.readMax));
  io("write_min", runLength(x.writeMin));
  io("write_max", runLength(x.writeMax));
  io("cells_read", x.cellsRead);
  io("cells_written", x.cellsWritten);
  io("cells_multi_writer", x.cellsMultiWriter);
  io("read_boxes", x.readBoxes);
  io("write_boxes", x.writeBoxes);
  io("ctas_listed", x.ctasListed);
  io("ctas_total", x.ctasTotal);
}

template <class IO, Is<TraceCounts> S>
void fields(IO& io, S& x) {
  io("global_accesses", x.globalAccesses);
  io("shared_accesses", x.sharedAccesses);
  io("local_accesses", x.localAccesses);
  io("barriers", x.barriers);
  io("bad_accesses", x.badAccesses);
  io("uninit_reads", x.uninitReads);
  io("hazards", x.hazards);
  io("stopped_warps", x.stoppedWarps);
  io("shared_wavefronts", x.sharedWavefronts);
  io("shared_ideal_wavefronts", x.sharedIdeal);
  io("mbarrier_ops", x.mbarrierOps, skipIf(x.mbarrierOps == 0));
}

template <class IO, Is<TraceLimits> S>
void fields(IO& io, S& x) {
  io("records_seen", x.recordsSeen);
  io("max_records", x.maxRecords);
  io("hazard_overflow", x.hazardOverflow);
  io("max_ctas", x.maxCtas);
  io("untracked_ctas", x.untrackedCtas);
  io("untracked_slots", x.untrackedSlots);
  io("outside_pcs", x.outsidePcs);
}

/// A section that did not trace holds its status and the reason only.
template <class IO, Is<TraceInfo> S>
void fields(IO& io, S& t) {
  if constexpr (!IO::reading) io("schema", std::string(kTraceSchema));
  io("status", t.status);
  io("reason", t.reason, skipIfEmpty(t.reason));
  const Skip untraced = skipIf(!t.traced());
  io("mode", t.mode, untraced);
  io("kernel", t.kernel, untraced);
  io("file", t.file, untraced);
  io("line_info", t.lineInfo, untraced);
  io("grid", t.grid, untraced);
  io("block", t.block, untraced);
  io("counts", t.counts, untraced);
  io("faults", t.faults, untraced);
  io("hazards", t.hazards, untraced);
  io("lines", t.lines, untraced);
  io("footprints", t.footprints, untraced);
  io("limits", t.limits, untraced);
}

namespace json_io {
json toValue(const TraceInfo& v) {
  json j = json::object();
  Writer w(j);
  fields(w, v);
  return j;
}
template <Value V>
void fromValue(const V& j, TraceInfo& out, const JsonPath& path) {
  readObject(j, out, path);
}
template void fromValue(const json&, TraceInfo&, const JsonPath&);
template void fromValue(const JsonView&, TraceInfo&, const JsonPath&);
}  // namespace json_io

json toJson(const TraceInfo& t) { return json_io::toValue(t); }

TraceInfo traceInfoFromJson(const json& j, const std::string& path) {
  TraceInfo t;
  json_io::fromValue(j, t, path);
  return t;
}

}  // namespace tilescope
