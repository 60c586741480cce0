// The tilescope.stream/1 codec (stream.h): one field list per event, read and
// written through the report's field machinery (json_fields.h), so a point in a
// stream is read exactly as a point in a saved report and fails with the same
// JSON-path messages.
#include "tilescope/run/stream.h"

#include "tilescope/base/json_input.h"
#include "tilescope/model/json_fields.h"

namespace tilescope {

using json_io::Is;
using json_io::skipIf;
using json_io::skipIfEmpty;
using nlohmann::json;

namespace {

constexpr const char* kPhaseNames[] = {"launch", "launched", "trace", "traced"};
constexpr const char* kEventNames[] = {"device", "progress", "phase",   "partial",
                                       "point",  "report",   "capture", "capture_done"};
constexpr const char* kKnownEvents =
    "device, progress, phase, partial, point, report, capture or capture_done";

}  // namespace

Phase parsePhase(const std::string& s) {
  for (int i = 0; i < 4; ++i)
    if (s == kPhaseNames[i]) return static_cast<Phase>(i);
  throw std::invalid_argument("unknown phase '" + clipForMessage(s) +
                              "' (expected launch, launched, trace or traced)");
}

const char* phaseName(Phase p) {
  const int i = static_cast<int>(p);
  return i >= 0 && i < 4 ? kPhaseNames[i] : "launch";
}

const char* eventName(const StreamBody& body) { return kEventNames[body.index()]; }

StreamError::StreamError(std::string event, std::string path, std::string problem)
    : std::runtime_error((event.empty() ? std::string("stream line: ") : "stream event '" + event + "': ") +
                         (path.empty() ? std::string() : path + ": ") + problem),
      m_event(std::move(event)),
      m_path(std::move(path)),
      m_problem(std::move(problem)) {}

// ---------------------------------------------------------------- field lists

template <class IO, Is<StreamTags> S>
void fields(IO& io, S& t) {
  io("point_index", t.pointIndex);
  io("trial", t.trial);
  io("total", t.total);
  io("experiment", t.experiment, skipIfEmpty(t.experiment));
}

template <class IO, Is<DeviceEvent> S>
void fields(IO& io, S& e) {
  io("device", e.device);
  io("gpu", e.gpu, skipIf(e.gpu.empty()));
}

template <class IO, Is<ProgressEvent> S>
void fields(IO& io, S& e) {
  io("message", e.message);
  io("t", e.t);
  io("stage", e.stage, skipIfEmpty(e.stage));
  io("group", e.group, skipIfEmpty(e.group));
  io("capture", e.capture);
  io("max_captures", e.maxCaptures);
  io("findings", e.findings, skipIfEmpty(e.findings));
}

template <class IO, Is<PhaseEvent> S>
void fields(IO& io, S& e) {
  // A closed set read by name, like a verdict.
  if constexpr (IO::reading) {
    std::string name;
    io("phase", name);
    try {
      e.phase = parsePhase(name);
    } catch (const std::invalid_argument& x) {
      json_io::fail("phase", x.what());
    }
  } else {
    io("phase", std::string(phaseName(e.phase)));
  }
}

template <class IO, Is<PartialEvent> S>
void fields(IO& io, S& e) {
  io("point", e.point);
}

template <class IO, Is<PointEvent> S>
void fields(IO& io, S& e) {
  io("point", e.point);
}

template <class IO, Is<ReportEvent> S>
void fields(IO& io, S& e) {
  io("report", e.report);
}

template <class IO, Is<CaptureEvent> S>
void fields(IO& io, S& e) {
  io("capture_event", e.captureEvent);
  io("recorder", e.recorder, skipIfEmpty(e.recorder));
  io("id", e.id, skipIfEmpty(e.id));
  io("index", e.index);
  io("kernel", e.kernel, skipIfEmpty(e.kernel));
  io("grid", e.grid, skipIfEmpty(e.grid));
  io("fault", e.fault, skipIfEmpty(e.fault));
  io("message", e.message, skipIfEmpty(e.message));
}

template <class IO, Is<CaptureDoneEvent> S>
void fields(IO& io, S& e) {
  io("dir", e.dir);
  io("capture", e.capture);
  if constexpr (IO::reading)
    if (!e.capture.is_object()) json_io::fail("capture", "expected the capture.json object");
}

// ---------------------------------------------------------------- reading

namespace {

/// The key that carries an event's body: it must be there (an event without
/// its point is a broken event, not an empty one).
const char* bodyKey(std::size_t index) {
  switch (index) {
    case 0:
      return "device";
    case 2:
      return "phase";
    case 3:
    case 4:
      return "point";
    case 5:
      return "report";
    case 6:
      return "capture_event";
    case 7:
      return "capture";
  }
  return nullptr;  // progress: every field may be absent
}

/// Every finding's category must be one the registry knows: a misspelt one
/// would otherwise surface later as an exception far from the line it came in.
void checkCategories(const std::vector<Finding>& findings, const std::string& path) {
  for (std::size_t i = 0; i < findings.size(); ++i)
    if (!isKnownCategory(findings[i].category))
      throw ReportError(jsonPathChild(jsonPathIndex(jsonPathChild(path, "findings"), i), "category"),
                        "unknown finding category '" + clipForMessage(findings[i].category) + "'");
}

void checkCategories(const StreamBody& body) {
  if (const auto* p = std::get_if<PointEvent>(&body)) checkCategories(p->point.findings, "point");
  if (const auto* p = std::get_if<PartialEvent>(&body)) checkCategories(p->point.findings, "point");
  if (const auto* r = std::get_if<ReportEvent>(&body)) {
    checkCategories(r->report.findings, "report");
    for (std::size_t i = 0; i < r->report.points.size(); ++i)
      checkCategories(r->report.points[i].findings, jsonPathIndex("report.points", i));
  }
  if (const auto* p = std::get_if<ProgressEvent>(&body))
    for (std::size_t i = 0; i < p->findings.size(); ++i)
      if (!isKnownCategory(p->findings[i]))
        throw ReportError(jsonPathIndex("findings", i),
                          "unknown finding category '" + clipForMessage(p->findings[i]) + "'");
}

template <std::size_t I = 0>
StreamBody readBody(std::size_t index, const json& j) {
  if constexpr (I < std::variant_size_v<StreamBody>) {
    if (index != I) return readBody<I + 1>(index, j);
    std::variant_alternative_t<I, StreamBody> e;
    json_io::readObject(j, e, "");
    if constexpr (std::is_same_v<decltype(e), ReportEvent>)
      if (e.report.schema != kReportSchema)
        throw ReportError("report.schema", "not a report: schema is '" + clipForMessage(e.report.schema) +
                                               "', expected '" + kReportSchema + "'");
    return e;
  } else {
    return {};
  }
}

/// The problem without the "path: " prefix ReportError's what() carries.
std::string problemOf(const ReportError& e) {
  const std::string what = e.what();
  const std::string prefix = e.path().empty() ? "" : e.path() + ": ";
  return what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : what;
}

StreamEvent readEvent(const json& j, const std::string& name) {
  std::size_t index = std::size(kEventNames);
  for (std::size_t i = 0; i < std::size(kEventNames); ++i)
    if (name == kEventNames[i]) index = i;
  if (index == std::size(kEventNames))
    throw StreamError("", "event",
                      "unknown event '" + clipForMessage(name) + "' (expected " + kKnownEvents + ")");
  try {
    if (const char* key = bodyKey(index); key && (!j.contains(key) || j[key].is_null()))
      throw ReportError(key, std::string("missing: a '") + name + "' event carries its " + key);
    StreamEvent e{readBody(index, j), {}};
    json_io::readObject(j, e.tags, "");
    checkCategories(e.body);
    return e;
  } catch (const ReportError& x) {
    throw StreamError(name, x.path(), problemOf(x));
  } catch (const std::exception& x) {  // a reader that names no path: name the event
    throw StreamError(name, "", x.what());
  }
}

}  // namespace

std::optional<StreamEvent> parseStreamEvent(std::string_view line) {
  const std::size_t start = line.find_first_not_of(" \t\r");
  // Only a line that opens an object can be meant as an event; anything else is
  // somebody's text (a library printing on stdout, a wrapper's banner).
  if (start == std::string_view::npos || line[start] != '{') return std::nullopt;
  if (line.size() > kMaxStreamLineBytes)
    throw StreamError("", "",
                      "a line of " + std::to_string(line.size()) + " bytes, over the limit of " +
                          std::to_string(kMaxStreamLineBytes) + " bytes");
  JsonLimits limits = reportJsonLimits();  // the stream's point is the report's
  limits.maxBytes = kMaxStreamLineBytes;
  json j;
  try {
    j = parseJson(std::string(line), limits);
  } catch (const JsonInputError& e) {
    throw StreamError("", e.where, e.problem);
  } catch (const std::exception& e) {
    throw StreamError("", "", std::string("invalid JSON: ") + e.what());
  }
  const auto schema = j.find("schema");
  const std::string family = std::string(kStreamSchema).substr(0, std::string(kStreamSchema).find('/') + 1);
  if (schema == j.end() || !schema->is_string() || schema->get<std::string>().rfind(family, 0) != 0)
    return std::nullopt;  // JSON of another tool or schema
  if (*schema != kStreamSchema)
    throw StreamError("", "schema",
                      "stream version '" + clipForMessage(schema->get<std::string>()) +
                          "' is not the one this build reads (" + kStreamSchema + ")");
  const auto event = j.find("event");
  if (event == j.end() || !event->is_string())
    throw StreamError("", "event",
                      event == j.end() ? std::string("missing: every stream line names its event")
                                       : "expected a string, found " + jsonKind(*event));
  return readEvent(j, event->get<std::string>());
}

// ---------------------------------------------------------------- writing

std::string toLine(const StreamEvent& event) {
  json j = json::object();
  json_io::Writer w(j);
  fields(w, event.tags);
  std::visit([&](const auto& body) { fields(w, body); }, event.body);
  j["schema"] = kStreamSchema;
  j["event"] = eventName(event.body);
  return dumpJson(j);
}

std::string toRequestLine(const WorkerRequest& request) {
  return json{
      {"schema", kStreamSchema}, {"request", "capture"}, {"point", request.point}, {"trial", request.trial}}
      .dump();
}

WorkerRequest parseRequestLine(std::string_view line) {
  json j;
  try {
    j = parseJson(std::string(line), JsonLimits{});
  } catch (const std::exception& e) {
    throw StreamError("", "", std::string("a request is one JSON object: ") + e.what());
  }
  auto integer = [&](const char* key) {
    const auto it = j.is_object() ? j.find(key) : j.end();
    if (it == j.end() || !it->is_number_integer() || *it < 0 || *it > 1'000'000'000)
      throw StreamError("", key, "a request carries a non-negative integer '" + std::string(key) + "'");
    return it->get<int>();
  };
  auto text = [&](const char* key) {
    const auto it = j.is_object() ? j.find(key) : j.end();
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  if (text("schema") != kStreamSchema || text("request") != "capture")
    throw StreamError("", "request", std::string("not a capture request of ") + kStreamSchema);
  return {integer("point"), integer("trial")};
}

}  // namespace tilescope
