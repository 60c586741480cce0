// The field lists of the runner's answer (triage_runner.h), on the report's codec
// (json_fields.h; the reader only: TileScope reads the answer, the runner writes it).
#include "triage_runner.h"

#include <algorithm>

#include "tilescope/model/json_fields.h"
#include "tilescope/triage/triage_run.h"

namespace tilescope {

using json_io::Is;
using nlohmann::json;

namespace {

// ---------------------------------------------------------------- lenient shapes

/// A figure of the runner's: a number, or 0 when it is another value.
template <class T>
struct Lenient {
  T& v;
};
template <class T>
Lenient<T> lenient(T& v) {
  return {v};
}
void fromValue(const json& j, Lenient<double> out, const JsonPath&) {
  out.v = j.is_number() ? j.get<double>() : 0.0;
}
void fromValue(const json& j, Lenient<std::optional<double>> out, const JsonPath&) {
  out.v = j.is_number() ? j.get<double>() : 0.0;
}
/// A line: an integer, or none.
void fromValue(const json& j, Lenient<std::int64_t> out, const JsonPath&) {
  if (j.is_number_integer()) out.v = j.get<std::int64_t>();
}
/// A name: a string, or none.
void fromValue(const json& j, Lenient<std::optional<std::string>> out, const JsonPath&) {
  if (j.is_string()) out.v = j.get<std::string>();
}

/// A section that is read when it is an object and is not there otherwise.
template <class T>
struct IfObject {
  T& v;
};
template <class T>
IfObject<T> ifObject(T& v) {
  return {v};
}
template <class T>
void fromValue(const json& j, IfObject<T> out, const JsonPath& path) {
  if (!j.is_object()) return;
  if constexpr (json_io::IsOptional<T>::value) {
    typename T::value_type v{};
    json_io::readObject(j, v, path);
    out.v = std::move(v);
  } else {
    json_io::readObject(j, out.v, path);
  }
}

/// `launches`, of which the entry reads the candidate's own count.
struct Launches {
  std::optional<double>& own;
};
template <class IO, Is<Launches> S>
void fields(IO& io, S& l) {
  io("own", lenient(l.own));
}

/// `findings`: a list of the report's findings, or none when it is not a list.
struct FindingsOf {
  std::vector<Finding>& v;
};
void fromValue(const json& j, FindingsOf out, const JsonPath& path) {
  if (!j.is_array()) return;
  for (std::size_t i = 0; i < j.size(); ++i) out.v.push_back(findingFromJson(j[i], path.index(i).str()));
}

/// `cases`: a list; an empty object has none either.
struct CasesOf {
  std::vector<RunnerCase>& v;
};
void fromValue(const json& j, CasesOf out, const JsonPath& path) {
  if (!j.is_array() && j.empty()) return;
  if (!j.is_array()) json_io::expected(path, "an array", j);
  out.v.resize(j.size());
  for (std::size_t i = 0; i < j.size(); ++i) json_io::readObject(j[i], out.v[i], path.index(i));
}

}  // namespace

// ---------------------------------------------------------------- the field lists

template <class IO, Is<RunnerCompare> S>
void fields(IO& io, S& c) {
  io("output", c.output);
  io("max_abs_err", lenient(c.maxAbsErr));
  io("max_rel_err", lenient(c.maxRelErr));
  io("mismatches", lenient(c.mismatches));
  io("elements", lenient(c.elements));
  io("nan", lenient(c.nan));
  io("inf", lenient(c.inf));
  io("rtol", lenient(c.rtol));
  io("atol", lenient(c.atol));
}

/// `compare` must be an object; one with any key at all says the case was compared.
void fromValue(const json& j, RunnerCompare& out, const JsonPath& path) {
  if (!j.is_object()) json_io::expected(path, "an object", j);
  out.given = !j.empty();
  json_io::readObject(j, out, path);
}

template <class IO, Is<RunnerCase> S>
void fields(IO& io, S& c) {
  io("label", c.label);
  io("shape", c.shape);
  io("seed", c.seed);
  io("status", c.status);
  io("compare", c.compare);
}

template <class IO, Is<RunnerException> S>
void fields(IO& io, S& x) {
  io("type", x.type);
  io("message", x.message);
  io("text", x.text);
  io("file", x.file);
  io("line", lenient(x.line));
  io("source_line", x.sourceLine);
  io("limit", lenient(x.limit));
}

template <class IO, Is<RunnerTiming> S>
void fields(IO& io, S& t) {
  io("candidate_ns", lenient(t.candidateNs));
  io("reference_ns", lenient(t.referenceNs));
  io("reps", lenient(t.reps));
}

template <class IO, Is<RunnerAnswer> S>
void fields(IO& io, S& a) {
  io("status", a.status);
  io("error", a.error);
  io("no_gpu", a.noGpu);
  io("phase", a.phase);
  io.object("environment", [&](auto& env) { env("gpu", a.gpu); });
  io("cases", CasesOf{a.cases});
  io("exception", ifObject(a.exception));
  io("stderr", a.stderrText);
  io("timing", ifObject(a.timing));
  Launches launches{a.launchesOwn};
  io("launches", ifObject(launches));
  io("findings", FindingsOf{a.findings});
}

RunnerAnswer readRunnerAnswer(const json& j) {
  RunnerAnswer a;
  json_io::readObject(j, a, JsonPath(""));
  return a;
}

std::int64_t runnerCount(double v, double hi) {
  if (!(v > 0)) return 0;
  return static_cast<std::int64_t>(std::min(v, hi));
}

}  // namespace tilescope
