// The taxonomy and the speedup distribution of a triage (docs/triage.md): pure
// counting over entries, so the CLI's table, the exports and the GUI's chart
// agree to the entry.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>

#include "tilescope/triage/triage.h"

namespace tilescope {

std::string taxonomyKey(const TriageEntry& e) {
  switch (e.status) {
    case EntryStatus::pending:
      return "pending";
    case EntryStatus::not_run:
      return "not_run";
    case EntryStatus::done:
      break;
  }
  if (!e.category.empty()) return e.category;
  // Passed the checks that need no GPU, but nothing ran (no GPU here, or
  // --depth check): not proof of a correct kernel (docs/triage.md, "What runs
  // for an entry").
  return e.level == "check" || (e.extra.is_object() && e.extra.value("no_gpu", false)) ? "checked" : "ok";
}

std::vector<TaxonomyRow> taxonomy(const std::vector<TriageEntry>& entries) {
  std::map<std::string, int> perCategory;
  std::map<std::string, std::map<std::string, int>> perDetail;
  int finished = 0;
  for (const TriageEntry& e : entries) {
    if (e.status == EntryStatus::pending) continue;
    ++finished;
    const std::string key = taxonomyKey(e);
    ++perCategory[key];
    if (e.status == EntryStatus::done && !e.category.empty() && !e.detail.empty()) ++perDetail[key][e.detail];
  }
  const auto pct = [](int n, int of) { return of > 0 ? 100.0 * n / of : 0.0; };
  std::vector<std::pair<std::string, int>> cats(perCategory.begin(), perCategory.end());
  std::stable_sort(cats.begin(), cats.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<TaxonomyRow> rows;
  for (const auto& [cat, n] : cats) {
    rows.push_back({cat, "", n, pct(n, finished), 100.0});
    std::vector<std::pair<std::string, int>> details(perDetail[cat].begin(), perDetail[cat].end());
    std::stable_sort(details.begin(), details.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    for (const auto& [detail, m] : details) rows.push_back({cat, detail, m, pct(m, finished), pct(m, n)});
  }
  return rows;
}

namespace {

/// The bins of the speedup histogram: a ladder around 1× (slower on the left).
std::vector<SpeedupBin> speedupLadder() {
  const double inf = std::numeric_limits<double>::infinity();
  return {{0, 0.5, "< 0.5×"},     {0.5, 0.8, "0.5–0.8×"}, {0.8, 1.0, "0.8–1×"}, {1.0, 1.25, "1–1.25×"},
          {1.25, 2.0, "1.25–2×"}, {2.0, 4.0, "2–4×"},     {4.0, inf, "≥ 4×"}};
}

/// The q-quantile of sorted values, interpolated linearly between ranks.
double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * double(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - double(lo));
}

}  // namespace

SpeedupSummary speedupSummary(const std::vector<TriageEntry>& entries) {
  SpeedupSummary s;
  s.bins = speedupLadder();
  std::vector<double> v;
  for (const TriageEntry& e : entries)
    if (e.status == EntryStatus::done && e.verdict == Verdict::ok && e.speed.speedup &&
        std::isfinite(*e.speed.speedup) && *e.speed.speedup > 0)
      v.push_back(*e.speed.speedup);
  std::sort(v.begin(), v.end());
  s.n = static_cast<int>(v.size());
  if (v.empty()) return s;
  double logSum = 0;
  for (double x : v) {
    logSum += std::log(x);
    s.faster += x > 1.0;
    for (SpeedupBin& b : s.bins)
      if (x >= b.lo && x < b.hi) ++b.count;
  }
  s.min = v.front();
  s.max = v.back();
  s.p10 = quantile(v, 0.1);
  s.median = quantile(v, 0.5);
  s.p90 = quantile(v, 0.9);
  s.geomean = std::exp(logSum / double(v.size()));
  return s;
}

std::map<std::string, int> triageCounts(const std::vector<TriageEntry>& entries) {
  std::map<std::string, int> c{{"entries", static_cast<int>(entries.size())}};
  for (const TriageEntry& e : entries) {
    ++c[entryStatusName(e.status)];
    // An `ok` that nothing ran counts as `checked`, never as correct.
    if (e.status == EntryStatus::done)
      ++c[e.verdict == Verdict::ok && taxonomyKey(e) == "checked" ? "checked" : verdictName(e.verdict)];
  }
  return c;
}

// ---------------------------------------------------------------- the seed's classes

namespace {

bool has(const std::string& text, const char* what) { return text.find(what) != std::string::npos; }

std::string evidenceString(const Finding& f, const char* key) {
  if (!f.evidence.is_object()) return "";
  const auto it = f.evidence.find(key);
  return it != f.evidence.end() && it->is_string() ? it->get<std::string>() : "";
}

/// The exception's type: the evidence's, else the message's "pkg.TypeError:" prefix (last component).
std::string exceptionType(const Finding& f) {
  std::string t = evidenceString(f, "exception");
  if (t.empty() || t == "Error" || t == "Exception") {
    const auto colon = f.message.find(": ");
    const std::string head = colon == std::string::npos ? f.message : f.message.substr(0, colon);
    if (!head.empty() && head.size() < 120 && head.find(' ') == std::string::npos) t = head;
  }
  if (const auto dot = t.rfind('.'); dot != std::string::npos) t = t.substr(dot + 1);
  return t;
}

/// "RLIMIT_DATA" → "memory_limit": the limit that stopped the runner, by name.
FailureClass limitClass(const std::string& limit) {
  if (limit == "RLIMIT_DATA") return {"resource_limit", "memory_limit"};
  if (limit == "RLIMIT_CPU") return {"resource_limit", "cpu_time_limit"};
  if (limit == "RLIMIT_FSIZE") return {"resource_limit", "file_size_limit"};
  if (limit == "wall_clock") return {"resource_limit", "wall_clock_limit"};
  if (limit == "oom_killer") return {"resource_limit", "oom_killer"};
  return {"resource_limit", limit};
}

/// The CUDA memory errors, by category or by the driver's words.
FailureClass cudaMemoryClass(const Finding& f) {
  const std::string& m = f.message;
  if (f.category == "misaligned_access" || has(m, "misaligned address"))
    return {"cuda_memory_error", "misaligned_address"};
  if (f.category == "oob_write") return {"cuda_memory_error", "out_of_bounds_write"};
  if (f.category == "oob_read") return {"cuda_memory_error", "out_of_bounds_read"};
  if (has(m, "global/shared address space") || f.detail == "cuda_invalid_address_space")
    return {"cuda_memory_error", "invalid_address_space"};  // a generic access to a wild pointer
  if (f.category == "illegal_address" || has(m, "illegal memory access"))
    return {"cuda_memory_error", "illegal_address"};
  if (has(m, "illegal instruction")) return {"cuda_memory_error", "illegal_instruction"};
  if (has(m, "out of bounds") || has(m, "out-of-bounds")) return {"cuda_memory_error", "out_of_bounds"};
  if (has(m, "unspecified launch failure")) return {"cuda_memory_error", "launch_failure"};
  return {};
}

/// A compile error's sub-class: the classifier's detail, else the cause's words.
FailureClass compileClass(const Finding& f) {
  const std::string& d = f.detail;
  const std::string& m = f.message;
  std::string sub = "other";
  if (d == "triton_arange_constexpr" || has(m, "arange's arguments must be of type tl.constexpr"))
    sub = "arange_constexpr";
  else if (d == "triton_dot_shape" || has(m, "compatible for matmul") || has(m, "compatible for dot"))
    sub = "dot_shape_mismatch";
  else if (d == "triton_dot_min_shape" || has(m, "must be >= 16"))
    sub = "dot_min_shape";
  else if (d == "triton_broadcast" || has(m, "annot broadcast") || has(m, "incompatible dimensions") ||
           has(m, "rank"))
    sub = "dimension_error";
  else if (has(m, "Cannot access global variable"))
    sub = "global_variable";
  else if (has(m, "static_assert") || exceptionType(f) == "CompileTimeAssertionFailure")
    sub = "static_assert";
  else if (d == "torch_extension_build" || has(m, "Error building extension"))
    sub = "extension_build";
  else if (!d.empty() && d != "python_exception" && d.rfind("python_", 0) != 0)
    sub = d;
  return {"compile_error", sub};
}

FailureClass runtimeClass(const std::string& m) {
  std::string sub = "other";
  if (has(m, "must match the size of tensor") || has(m, "shapes cannot be multiplied") ||
      has(m, "size mismatch") || has(m, "shape mismatch") || has(m, "is invalid for input of size") ||
      has(m, "Sizes of tensors must match"))
    sub = "shape_mismatch";
  else if (has(m, "expected scalar type") || has(m, "same dtype") || has(m, "dtype") ||
           has(m, "Expected object of scalar type"))
    sub = "dtype_mismatch";
  else if (has(m, "out of memory") || has(m, "OutOfMemory"))
    sub = "out_of_memory";
  else if (has(m, "out of resource"))
    sub = "out_of_resources";
  else if (has(m, "same device") || has(m, "device-side") || has(m, "on cpu") || has(m, "CPU tensor"))
    sub = "device_mismatch";
  else if (has(m, "not been initiali") || has(m, "not initiali"))
    sub = "uninitialized_state";
  return {"runtime_error", sub};
}

std::string snakeCase(const std::string& type) {
  std::string out;
  for (char c : type) {
    if (std::isupper(static_cast<unsigned char>(c)) && !out.empty()) out += '_';
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

/// A Python exception by its type: the seed's classes of them.
FailureClass exceptionClass(const std::string& type, const Finding& f) {
  const std::string& m = f.message;
  if (type == "ModuleNotFoundError") return {"missing_dependency", "module_not_found"};
  if (type == "ImportError") return {"missing_dependency", "import_error"};
  if (type == "AttributeError" && has(m, "module '")) return {"missing_dependency", "module_attribute"};
  if (type == "AssertionError") return {"assertion", "assert"};
  if (type == "TypeError") {
    if (has(m, "required positional argument") || has(m, "missing a required"))
      return {"type_error", "missing_argument"};
    if (has(m, "unexpected keyword argument") || has(m, "positional argument"))
      return {"type_error", "bad_argument"};
    if (has(m, "unsupported operand")) return {"type_error", "unsupported_operand"};
    if (has(m, "not callable")) return {"type_error", "not_callable"};
    if (has(m, "not subscriptable")) return {"type_error", "not_subscriptable"};
    return {"type_error", "other"};
  }
  if (type == "ValueError") {
    if (has(m, "values to unpack")) return {"value_error", "unpack"};
    if (has(m, "shape") || has(m, "dimension")) return {"value_error", "shape"};
    return {"value_error", "other"};
  }
  if (type == "MemoryError") return {"resource_limit", "host_memory"};
  if (type == "RuntimeError" || type == "OutOfMemoryError" || type == "AcceleratorError" ||
      type == "OutOfResources" || type == "CalledProcessError")
    return runtimeClass(m);
  if (!type.empty() && (has(type, "Error") || has(type, "Exception")))
    return {"other_error", snakeCase(type)};
  return {};
}

}  // namespace

FailureClass failureClass(const Finding& f) {
  if (f.category.empty()) return {};
  if (const std::string limit = evidenceString(f, "limit"); !limit.empty()) return limitClass(limit);
  if (f.category == "hang") return limitClass("wall_clock");
  if (FailureClass c = cudaMemoryClass(f); !c.errorClass.empty()) return c;
  if (f.category == "device_assert" || has(f.message, "device-side assert"))
    return {"assertion", "device_assert"};
  const std::string type = exceptionType(f);
  // A Triton CompilationError is a compile error whatever error it wraps (seed 000 counts it so).
  if (f.category == "compile_error" &&
      (type == "CompilationError" || has(f.message, "(CompilationError at ") ||
       f.detail.rfind("triton_", 0) == 0 || f.detail == "torch_extension_build" ||
       evidenceString(f, "source") != "runner"))
    return compileClass(f);
  if (FailureClass c = exceptionClass(type, f); !c.errorClass.empty()) return c;
  if (f.category == "compile_error") return compileClass(f);
  // A candidate that games the evaluation: the pattern is the sub-class (docs/triage.md, "Integrity").
  if (f.category == "integrity") return {"integrity", f.detail.empty() ? "other" : f.detail};
  const CategoryInfo* info = findCategory(f.category);
  if (!info) return {"other_error", f.category};
  switch (info->verdict) {
    case Verdict::launch_error:
      return {"runtime_error", f.category == "worker_error" ? "worker_error" : "launch_" + f.category};
    case Verdict::incorrect:
      return {"wrong_result", f.category};
    case Verdict::slow:
      return {"slow", f.category};
    default:
      return {"other_error", f.category};
  }
}

FailureClass entryFailureClass(const TriageEntry& e) {
  if (e.status != EntryStatus::done || e.category.empty()) return {};
  if (!e.errorClass.empty()) return {e.errorClass, e.errorSubclass};
  for (const Finding& f : e.findings)
    if (f.category == e.category && f.message == e.message) return failureClass(f);
  Finding f;
  f.category = e.category;
  f.detail = e.detail;
  f.message = e.message;
  return failureClass(f);
}

std::vector<TaxonomyRow> failureTaxonomy(const std::vector<TriageEntry>& entries) {
  // The same counting as taxonomy(), over entries whose category is their class
  // and whose detail is their sub-class.
  std::vector<TriageEntry> keyed;
  keyed.reserve(entries.size());
  for (const TriageEntry& e : entries) {
    TriageEntry k;
    k.status = e.status;
    k.level = e.level;
    k.extra = e.extra;
    const FailureClass c = entryFailureClass(e);
    k.category = c.errorClass;
    k.detail = c.subclass;
    keyed.push_back(std::move(k));
  }
  return taxonomy(keyed);
}

}  // namespace tilescope
