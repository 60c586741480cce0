// The tilescope.stream/1 codec (stream.h) against saved streams (tests/data/stream,
// written by make_fixtures.py from the chart fixture sweep), and the session
// against a worker that prints malformed lines (tests/data/diagnose/fake_worker.py):
// a malformed line is an error naming what is wrong and where, for its point
// only, never an abort of the parent.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "tilescope/run/session.h"
#include "tilescope/run/stream.h"

namespace fs = std::filesystem;
using namespace tilescope;

namespace {

const fs::path kStream = fs::path(TILESCOPE_TEST_DATA) / "stream";
const fs::path kDiagnose = fs::path(TILESCOPE_TEST_DATA) / "diagnose";

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> lines(const fs::path& p) {
  std::vector<std::string> out;
  std::istringstream in(readFile(p));
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

/// The StreamError a line gives, or "(accepted)" / "(not an event)".
std::string streamError(const std::string& line) {
  try {
    return parseStreamEvent(line) ? "(accepted)" : "(not an event)";
  } catch (const StreamError& e) {
    return e.what();
  }
}

Point workerPoint(const std::string& scenario, std::vector<StreamEvent>* events = nullptr) {
  const fs::path config = kDiagnose / "gemm_whole_tiles.tscfg.json";
  Config cfg = loadConfig(config);
  SessionOptions opts;
  opts.workerCommand = {"python3", (kDiagnose / "fake_worker.py").string(), "--scenario", scenario};
  opts.configPath = config.string();
  opts.timeoutS = 30;
  if (events) opts.onEvent = [events](const StreamEvent& e) { events->push_back(e); };
  return runWorkerPoint(cfg, expandSweep(cfg).front(), 0, 0, opts);
}

}  // namespace

TEST(Stream, ASavedSweepStreamReadsEventByEventAndWritesBackTheSame) {
  const auto all = lines(kStream / "sweep_stream.jsonl");
  ASSERT_EQ(all.size(), 24u);
  EXPECT_FALSE(parseStreamEvent(all.front())) << "a wrapper's text is not an event";
  const Report fixture = loadReport(fs::path(TILESCOPE_TEST_DATA) / "reports_charts" / "sweep_h100.json");
  std::map<std::string, int> seen;
  int points = 0;
  for (std::size_t i = 1; i < all.size(); ++i) {
    SCOPED_TRACE(all[i].substr(0, 120));
    const auto e = parseStreamEvent(all[i]);
    ASSERT_TRUE(e);
    ++seen[eventName(e->body)];
    // toLine writes what parseStreamEvent reads.
    EXPECT_EQ(parseStreamEvent(toLine(*e)), e);
    if (const auto* p = std::get_if<PointEvent>(&e->body)) {
      const Point& expected = fixture.points[static_cast<std::size_t>(points++)];
      EXPECT_EQ(p->point, expected);
      EXPECT_EQ(e->tags.pointIndex, expected.index);
      EXPECT_EQ(e->tags.trial, expected.trial);
      EXPECT_EQ(e->tags.total, 3);
    }
    if (const auto* c = std::get_if<PartialEvent>(&e->body)) {
      EXPECT_EQ(c->point, fixture.points[static_cast<std::size_t>(points)]);
    }
    if (const auto* d = std::get_if<DeviceEvent>(&e->body)) {
      EXPECT_EQ(d->device, fixture.device);
    }
    if (const auto* pr = std::get_if<ProgressEvent>(&e->body)) {
      if (pr->stage.empty()) {
        EXPECT_EQ(pr->message, "compile gemm_tiled.cu for sm_90");
        EXPECT_EQ(pr->t, 0.012);
      } else if (pr->maxCaptures) {
        EXPECT_EQ(pr->capture, 2);
        EXPECT_EQ(pr->maxCaptures, 12);
        EXPECT_EQ(pr->group, "trials");
        EXPECT_EQ(e->tags.experiment, "trial 2/5");
        EXPECT_FALSE(e->tags.pointIndex);
      } else {
        EXPECT_EQ(pr->findings, std::vector<std::string>{"race"});
      }
    }
    if (const auto* r = std::get_if<ReportEvent>(&e->body)) {
      EXPECT_EQ(r->report, fixture);
    }
  }
  EXPECT_EQ(points, 3);
  EXPECT_EQ(seen,
            (std::map<std::string, int>{
                {"device", 3}, {"progress", 5}, {"phase", 8}, {"partial", 3}, {"point", 3}, {"report", 1}}));
}

TEST(Stream, EveryMalformedFixtureIsAnErrorNamingTheProblemAndWhere) {
  // fixture → what the message must start with (the JSON path, then the problem).
  const std::map<std::string, std::string> expected = {
      {"wrong_type", "stream event 'point': point.verdict: expected a string, found an integer"},
      {"unknown_verdict", "stream event 'point': point.verdict: unknown verdict 'great' (expected ok, slow"},
      {"unknown_category",
       "stream event 'point': point.findings[0].category: unknown finding category 'oob_wirte'"},
      {"unknown_event",
       "stream line: event: unknown event 'telemetry' (expected device, progress, phase, partial, "
       "point, report, capture or capture_done)"},
      {"unknown_phase",
       "stream event 'phase': phase: unknown phase 'lunch' (expected launch, launched, trace or traced)"},
      {"unknown_version",
       "stream line: schema: stream version 'tilescope.stream/2' is not the one this build reads"},
      {"no_event", "stream line: event: missing"},
      {"no_point", "stream event 'point': point: missing"},
      {"partial_wrong_type", "stream event 'partial': point.trial: expected an integer, found a string"},
      {"progress_wrong_type", "stream event 'progress': message: expected a string, found an integer"},
      {"device_wrong_type", "stream event 'device': device.sm_count: expected an integer, found a string"},
      {"report_wrong_schema",
       "stream event 'report': report.schema: not a report: schema is 'tilescope.config/1'"},
      {"report_unknown_category",
       "stream event 'report': report.findings[0].category: unknown finding category 'oops'"},
      {"invalid_utf8", "stream line: 1:"},
      {"truncated", "stream line: 1:81: invalid JSON: "},
      {"duplicate_key", "stream line: message: duplicate key 'message'"},
      {"deep", "stream line: message[0]"},
  };
  int files = 0;
  for (const auto& entry : fs::directory_iterator(kStream)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("malformed_", 0) != 0) continue;
    ++files;
    const std::string kind = name.substr(10, name.size() - 10 - 5);
    SCOPED_TRACE(kind);
    ASSERT_TRUE(expected.count(kind)) << "no expectation for " << name;
    const std::string error = streamError(readFile(entry.path()));
    EXPECT_EQ(error.rfind(expected.at(kind), 0), 0u) << error;
  }
  EXPECT_EQ(files, static_cast<int>(expected.size()));
  EXPECT_NE(streamError(readFile(kStream / "malformed_invalid_utf8.line")).find("UTF-8"), std::string::npos);
  EXPECT_NE(streamError(readFile(kStream / "malformed_deep.line")).find("nested deeper than 128 levels"),
            std::string::npos);
}

TEST(Stream, ErrorsCarryTheEventAndThePathApart) {
  try {
    (void)parseStreamEvent(readFile(kStream / "malformed_unknown_verdict.line"));
    FAIL() << "accepted";
  } catch (const StreamError& e) {
    EXPECT_EQ(e.event(), "point");
    EXPECT_EQ(e.path(), "point.verdict");
    EXPECT_EQ(e.problem().rfind("unknown verdict 'great'", 0), 0u) << e.problem();
  }
}

TEST(Stream, LinesThatAreNotEventsAreText) {
  for (const char* name : {"text_binary.line", "text_other_schema.line", "text_array.line"})
    EXPECT_EQ(streamError(readFile(kStream / name)), "(not an event)") << name;
  EXPECT_EQ(streamError(""), "(not an event)");
  EXPECT_EQ(streamError("   \r"), "(not an event)");
  EXPECT_EQ(streamError("compiling gemm.cu"), "(not an event)");
  EXPECT_EQ(streamError(R"({"schema": 3, "event": "point"})"), "(not an event)");
  // A line that opens an object is meant as JSON: broken, it is an error.
  EXPECT_EQ(streamError("{").rfind("stream line: 1:2: invalid JSON", 0), 0u) << streamError("{");
}

TEST(Stream, ALineOverTheLimitIsRefusedBeforeParsing) {
  std::string huge(kMaxStreamLineBytes + 1, ' ');
  huge[0] = '{';
  EXPECT_EQ(
      streamError(huge).rfind("stream line: a line of 268435457 bytes, over the limit of 268435456 bytes", 0),
      0u);
}

TEST(Stream, EveryEventRoundTripsThroughToLine) {
  const Report fixture = loadReport(fs::path(TILESCOPE_TEST_DATA) / "reports_charts" / "sweep_h100.json");
  ProgressEvent diag;
  diag.message = "shapes: settled";
  diag.stage = "diagnose";
  diag.group = "shapes";
  diag.capture = 3;
  diag.maxCaptures = 16;
  diag.findings = {"coverage_gap", "mismatch"};
  StreamTags tags;
  tags.pointIndex = 2;
  tags.trial = 1;
  tags.total = 12;
  tags.experiment = "shape M=65";
  const std::vector<StreamEvent> events = {
      {DeviceEvent{fixture.device, {}}, {}}, {diag, tags},
      {PhaseEvent{Phase::traced}, tags},     {PartialEvent{fixture.points[1]}, tags},
      {PointEvent{fixture.points[2]}, {}},   {ReportEvent{fixture}, {}},
  };
  for (const auto& e : events) {
    SCOPED_TRACE(eventName(e.body));
    const std::string line = toLine(e);
    EXPECT_EQ(line.find('\n'), std::string::npos);
    EXPECT_EQ(parseStreamEvent(line), e);
  }
}

// `tilescope-run capture --stream` (docs/capture.md): a recorder's launch event
// as the CLI forwards it (with the recorder's own fields, such as pid, that the
// codec does not read), and capture_done carrying capture.json.
TEST(Stream, CaptureEventsReadAsTheCliForwardsThem) {
  const auto launch = parseStreamEvent(
      R"({"event":"capture","capture_event":"launch","recorder":"triton","id":"t1377-0000","pid":1377,)"
      R"("kernel":"add_kernel","grid":[4,1,1],"index":2,"schema":"tilescope.stream/1"})");
  ASSERT_TRUE(launch);
  const auto* e = std::get_if<CaptureEvent>(&launch->body);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->captureEvent, "launch");
  EXPECT_EQ(e->recorder, "triton");
  EXPECT_EQ(e->id, "t1377-0000");
  EXPECT_EQ(e->index, 2);
  EXPECT_EQ(e->kernel, "add_kernel");
  EXPECT_EQ(e->grid, (std::vector<std::int64_t>{4, 1, 1}));
  EXPECT_EQ(parseStreamEvent(toLine(*launch)), launch);

  const StreamEvent done{CaptureDoneEvent{"/tmp/cap", {{"schema", "tilescope.capture/1"}, {"launches", {}}}},
                         {}};
  EXPECT_EQ(parseStreamEvent(toLine(done)), done);

  // The body keys are required, and capture.json is an object.
  try {
    parseStreamEvent(R"({"schema":"tilescope.stream/1","event":"capture","kernel":"k"})");
    ADD_FAILURE() << "a capture event without capture_event was read";
  } catch (const StreamError& x) {
    EXPECT_EQ(x.event(), "capture");
    EXPECT_EQ(x.path(), "capture_event");
  }
  try {
    parseStreamEvent(R"({"schema":"tilescope.stream/1","event":"capture_done","dir":"/x","capture":3})");
    ADD_FAILURE() << "a capture_done whose capture is a number was read";
  } catch (const StreamError& x) {
    EXPECT_EQ(x.event(), "capture_done");
    EXPECT_EQ(x.path(), "capture");
  }
}

TEST(Stream, InvalidUtf8InAStringIsReplacedOnWriting) {
  ProgressEvent p;
  p.message = "ptxas \xff\xfe";
  const auto back = parseStreamEvent(toLine({p, {}}));
  ASSERT_TRUE(back);
  EXPECT_EQ(std::get<ProgressEvent>(back->body).message, "ptxas \xEF\xBF\xBD\xEF\xBF\xBD");
}

// ---------------------------------------------------------------- the session

// A worker_error, not a kernel fault (docs/security.md, "Worker results and remote baselines"): nothing is
// known about the kernel.
TEST(StreamSession, AWorkerWhoseResultCannotBeReadIsAWorkerErrorSayingWhy) {
  const std::map<std::string, std::string> why = {
      {"bad_types", "point.verdict: expected a string, found an integer"},
      {"bad_verdict", "point.verdict: unknown verdict 'great'"},
      {"bad_category", "point.findings[0].category: unknown finding category 'oob_wirte'"},
      {"bad_utf8", "invalid JSON"},
      {"truncated", "invalid JSON"},
      {"deep", "nested deeper than 128 levels"},
      {"unknown_event", "unknown event 'result'"},
  };
  for (const auto& [scenario, problem] : why) {
    SCOPED_TRACE(scenario);
    const Point p = workerPoint(scenario);
    EXPECT_EQ(p.verdict, Verdict::launch_error);
    ASSERT_EQ(p.findings.size(), 1u);
    EXPECT_EQ(p.findings[0].category, "worker_error");
    EXPECT_NE(p.findings[0].message.find("without a result: its result could not be read: stream "),
              std::string::npos)
        << p.findings[0].message;
    EXPECT_NE(p.findings[0].message.find(problem), std::string::npos) << p.findings[0].message;
    EXPECT_NE(p.status.streamError.find(problem), std::string::npos) << p.status.streamError;
    EXPECT_EQ(p.status.workerExit, 0);
  }
}

TEST(StreamSession, BinaryAroundAGoodPointLeavesThePointAndAWritableReport) {
  const Point p = workerPoint("binary");
  EXPECT_EQ(p.verdict, Verdict::ok);
  EXPECT_TRUE(p.findings.empty());
  EXPECT_TRUE(p.status.streamError.empty()) << "binary without '{' is text, not a broken event";
  EXPECT_NE(p.workerStderr.find('\xff'), std::string::npos);
  Report r;
  r.points = {p};
  r.finalize();
  const fs::path file = fs::temp_directory_path() / ("ts_stream_" + std::to_string(::getpid()) + ".json");
  ASSERT_NO_THROW(saveReport(r, file)) << "binary stderr must not make the report unwritable";
  EXPECT_EQ(loadReport(file).points.size(), 1u);
  fs::remove(file);
}

TEST(StreamSession, ABrokenProgressOrDeviceLineLeavesTheGoodPointAndIsNotForwarded) {
  std::vector<StreamEvent> events;
  const Point p = workerPoint("bad_progress", &events);
  EXPECT_EQ(p.verdict, Verdict::ok);
  EXPECT_TRUE(p.findings.empty());
  // The first unreadable line is named; the good events after it are forwarded, tagged.
  EXPECT_EQ(p.status.streamError.rfind("stream event 'device': device.sm_count: expected an integer", 0), 0u)
      << p.status.streamError;
  ASSERT_EQ(events.size(), 5u);  // device, progress, phase ×2, point
  EXPECT_EQ(std::get<DeviceEvent>(events[0].body).device.smCount, 132);
  EXPECT_EQ(std::get<ProgressEvent>(events[1].body).message, "scenario bad_progress");
  EXPECT_TRUE(std::holds_alternative<PointEvent>(events.back().body));
  for (const auto& e : events) EXPECT_EQ(e.tags.pointIndex, 0);
}

TEST(StreamSession, AMalformedCheckpointIsNoCheckpoint) {
  const Point p = workerPoint("bad_partial");
  // The good checkpoint before it is dropped too: the worker's last word on the
  // capture was unreadable, so the crash is reported as the worker's.
  EXPECT_EQ(p.verdict, Verdict::fault);
  EXPECT_NE(p.findings.at(0).message.find("Segmentation fault"), std::string::npos) << p.findings[0].message;
  EXPECT_EQ(p.status.streamError.rfind("stream event 'partial': point.verdict: unknown verdict 'great'", 0),
            0u)
      << p.status.streamError;
}

TEST(StreamSession, SessionOfMalformedWorkersKeepsEveryPoint) {
  // Three points × trials through a worker whose every result is unreadable:
  // the session ends with a report of every capture, each a worker_error saying why.
  const fs::path config = kDiagnose / "gemm_whole_tiles.tscfg.json";
  SessionOptions opts;
  opts.workerCommand = {"python3", (kDiagnose / "fake_worker.py").string(), "--scenario", "bad_verdict"};
  opts.configPath = config.string();
  opts.timeoutS = 30;
  opts.trials = 3;
  opts.jobs = 2;
  const Report r = runSession(loadConfig(config), "run", opts);
  ASSERT_EQ(r.points.size(), 3u);
  for (const auto& p : r.points)
    EXPECT_NE(p.status.streamError.find("unknown verdict 'great'"), std::string::npos);
  EXPECT_EQ(r.verdict, Verdict::launch_error);
}
