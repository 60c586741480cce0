// JSON of the `counters` field of a point (docs/report.md). Written only with
// what was measured: a reader tells "not collected" from zero by absence.
#include "tilescope/model/counters_model.h"

namespace tilescope {

using nlohmann::json;

double KernelCounters::get(const std::string& metric, double fallback) const {
  auto it = metrics.find(metric);
  return it == metrics.end() ? fallback : it->second;
}

namespace {

template <class T>
void getIf(const json& j, const char* key, T& out) {
  auto it = j.find(key);
  if (it != j.end() && !it->is_null()) out = it->get<T>();
}

json toJson(const KernelCounters& k) {
  json m = json::object();
  for (const auto& [name, v] : k.metrics) m[name] = v;
  return {{"name", k.name}, {"launches", k.launches}, {"metrics", m}};
}

KernelCounters kernelFromJson(const json& j) {
  KernelCounters k;
  getIf(j, "name", k.name);
  getIf(j, "launches", k.launches);
  if (auto it = j.find("metrics"); it != j.end() && it->is_object())
    for (const auto& [name, v] : it->items())
      if (v.is_number()) k.metrics[name] = v.get<double>();
  return k;
}

json toJson(const std::vector<StallCount>& stalls) {
  json a = json::array();
  for (const auto& s : stalls) a.push_back({{"reason", s.reason}, {"samples", s.samples}});
  return a;
}

std::vector<StallCount> stallsFromJson(const json& j) {
  std::vector<StallCount> out;
  if (!j.is_array()) return out;
  for (const auto& s : j) {
    StallCount c;
    getIf(s, "reason", c.reason);
    getIf(s, "samples", c.samples);
    out.push_back(c);
  }
  return out;
}

json toJson(const PcSamplingInfo& p) {
  json j = {{"collected", p.collected}};
  if (!p.note.empty()) j["note"] = p.note;
  if (!p.collected) return j;
  j["period_log2"] = p.periodLog2;
  j["total_samples"] = p.totalSamples;
  j["dropped_samples"] = p.droppedSamples;
  j["unmapped_samples"] = p.unmappedSamples;
  j["stalls"] = toJson(p.stalls);
  j["lines"] = json::array();
  for (const auto& l : p.lines)
    j["lines"].push_back(
        {{"file", l.file}, {"line", l.line}, {"samples", l.samples}, {"stalls", toJson(l.stalls)}});
  return j;
}

PcSamplingInfo pcSamplingFromJson(const json& j) {
  PcSamplingInfo p;
  getIf(j, "collected", p.collected);
  getIf(j, "note", p.note);
  getIf(j, "period_log2", p.periodLog2);
  getIf(j, "total_samples", p.totalSamples);
  getIf(j, "dropped_samples", p.droppedSamples);
  getIf(j, "unmapped_samples", p.unmappedSamples);
  if (j.contains("stalls")) p.stalls = stallsFromJson(j["stalls"]);
  if (auto it = j.find("lines"); it != j.end() && it->is_array())
    for (const auto& l : *it) {
      HotLine h;
      getIf(l, "file", h.file);
      getIf(l, "line", h.line);
      getIf(l, "samples", h.samples);
      if (l.contains("stalls")) h.stalls = stallsFromJson(l["stalls"]);
      p.lines.push_back(std::move(h));
    }
  return p;
}

}  // namespace

json toJson(const CountersInfo& c) {
  json j = {{"collected", c.collected}};
  if (!c.note.empty()) j["note"] = c.note;
  if (!c.chip.empty()) j["chip"] = c.chip;
  if (c.passes > 0) j["passes"] = c.passes;
  if (c.seconds > 0) j["seconds"] = c.seconds;
  if (c.kernelSeconds > 0) j["seconds_kernel"] = c.kernelSeconds;
  if (c.baselineSeconds > 0) j["seconds_baseline"] = c.baselineSeconds;
  if (c.pcSamplingSeconds > 0) j["seconds_pc_sampling"] = c.pcSamplingSeconds;
  if (!c.metrics.empty()) j["metrics"] = c.metrics;
  if (c.collected) j["kernel"] = toJson(c.kernel);
  if (c.baseline) j["baseline"] = toJson(*c.baseline);
  if (!c.baselineKernels.empty()) {
    j["baseline_kernels"] = json::array();
    for (const auto& k : c.baselineKernels) j["baseline_kernels"].push_back(toJson(k));
  }
  if (!c.baselineNote.empty()) j["baseline_note"] = c.baselineNote;
  if (c.baselineReused) j["baseline_reused"] = true;
  if (c.passFailed) j["pass_failed"] = true;
  if (c.pcSampling.collected || !c.pcSampling.note.empty()) j["pc_sampling"] = toJson(c.pcSampling);
  return j;
}

CountersInfo countersFromJson(const json& j) {
  CountersInfo c;
  if (!j.is_object()) return c;
  getIf(j, "collected", c.collected);
  getIf(j, "note", c.note);
  getIf(j, "chip", c.chip);
  getIf(j, "passes", c.passes);
  getIf(j, "seconds", c.seconds);
  getIf(j, "seconds_kernel", c.kernelSeconds);
  getIf(j, "seconds_baseline", c.baselineSeconds);
  getIf(j, "seconds_pc_sampling", c.pcSamplingSeconds);
  getIf(j, "metrics", c.metrics);
  if (j.contains("kernel")) c.kernel = kernelFromJson(j["kernel"]);
  if (j.contains("baseline")) c.baseline = kernelFromJson(j["baseline"]);
  if (auto it = j.find("baseline_kernels"); it != j.end() && it->is_array())
    for (const auto& k : *it) c.baselineKernels.push_back(kernelFromJson(k));
  getIf(j, "baseline_note", c.baselineNote);
  getIf(j, "baseline_reused", c.baselineReused);
  getIf(j, "pass_failed", c.passFailed);  // absent in reports from before it
  if (j.contains("pc_sampling")) c.pcSampling = pcSamplingFromJson(j["pc_sampling"]);
  return c;
}

}  // namespace tilescope
