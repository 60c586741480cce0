// JSON of the `counters` field of a point (docs/report.md): one field list per
// struct (json_fields.h). Written only with what was measured: a reader tells
// "not collected" from zero by absence.
#include "tilescope/model/counters_model.h"

#include "tilescope/model/json_fields.h"

namespace tilescope {

using json_io::Is;
using json_io::skipIf;
using json_io::skipIfEmpty;
using nlohmann::json;

double KernelCounters::get(const std::string& metric, double fallback) const {
  auto it = metrics.find(metric);
  return it == metrics.end() ? fallback : it->second;
}

template <class IO, Is<KernelCounters> S>
void fields(IO& io, S& k) {
  io("name", k.name);
  io("launches", k.launches);
  io("metrics", k.metrics);
}

template <class IO, Is<StallCount> S>
void fields(IO& io, S& s) {
  io("reason", s.reason);
  io("samples", s.samples);
}

template <class IO, Is<HotLine> S>
void fields(IO& io, S& l) {
  io("file", l.file);
  io("line", l.line);
  io("samples", l.samples);
  io("stalls", l.stalls);
}

template <class IO, Is<HotPc> S>
void fields(IO& io, S& h) {
  io("function", h.function);
  io("sass_offset", h.offset);
  io("samples", h.samples);
  io("stalls", h.stalls);
}

template <class IO, Is<PcSamplingInfo> S>
void fields(IO& io, S& p) {
  const auto notCollected = skipIf(!p.collected);
  io("collected", p.collected);
  io("note", p.note, skipIfEmpty(p.note));
  io("period_log2", p.periodLog2, notCollected);
  io("total_samples", p.totalSamples, notCollected);
  io("dropped_samples", p.droppedSamples, notCollected);
  io("unmapped_samples", p.unmappedSamples, notCollected);
  io("stalls", p.stalls, notCollected);
  io("lines", p.lines, notCollected);
  io("pcs", p.pcs, skipIfEmpty(p.pcs));  // absent in reports from before it
}

template <class IO, Is<CountersInfo> S>
void fields(IO& io, S& c) {
  io("collected", c.collected);
  io("note", c.note, skipIfEmpty(c.note));
  io("chip", c.chip, skipIfEmpty(c.chip));
  io("passes", c.passes, skipIf(!(c.passes > 0)));
  io("replay", c.replay, skipIfEmpty(c.replay));
  io("seconds", c.seconds, skipIf(!(c.seconds > 0)));
  io("seconds_kernel", c.kernelSeconds, skipIf(!(c.kernelSeconds > 0)));
  io("seconds_baseline", c.baselineSeconds, skipIf(!(c.baselineSeconds > 0)));
  io("seconds_pc_sampling", c.pcSamplingSeconds, skipIf(!(c.pcSamplingSeconds > 0)));
  io("metrics", c.metrics, skipIfEmpty(c.metrics));
  io("kernel", c.kernel, skipIf(!c.collected));
  io("baseline", c.baseline);
  io("baseline_kernels", c.baselineKernels, skipIfEmpty(c.baselineKernels));
  io("baseline_note", c.baselineNote, skipIfEmpty(c.baselineNote));
  io("baseline_reused", c.baselineReused, skipIf(!c.baselineReused));
  io("pass_failed", c.passFailed, skipIf(!c.passFailed));  // absent in reports from before it
  io("pc_sampling", c.pcSampling, skipIf(!c.pcSampling.collected && c.pcSampling.note.empty()));
}

namespace json_io {
json toValue(const CountersInfo& v) {
  json j = json::object();
  Writer w(j);
  fields(w, v);
  return j;
}
template <Value V>
void fromValue(const V& j, CountersInfo& out, const JsonPath& path) {
  readObject(j, out, path);
}
template void fromValue(const json&, CountersInfo&, const JsonPath&);
template void fromValue(const JsonView&, CountersInfo&, const JsonPath&);
}  // namespace json_io

json toJson(const CountersInfo& c) { return json_io::toValue(c); }

CountersInfo countersFromJson(const json& j, const std::string& path) {
  CountersInfo c;
  json_io::fromValue(j, c, path);
  return c;
}

}  // namespace tilescope
