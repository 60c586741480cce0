// The worker protocol's line format, tilescope.stream/1 (docs/protocol.md): one
// JSON object per line. This is its one reader and writer: the worker writes
// with toLine, the session, `run --stream`, `diagnose --stream` and the GUI's
// RunStream read with parseStreamEvent. A line someone else wrote (a worker on
// another host, a wrapper script) is untrusted input: reading it either gives
// a typed event, says the line is not an event, or throws StreamError naming
// the problem and its JSON path.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilescope/model/report.h"

namespace tilescope {

inline constexpr const char* kStreamSchema = "tilescope.stream/1";

/// The longest line read (a `report` event carries a whole sweep's report);
/// a longer line is a StreamError, refused before any parsing.
inline constexpr std::size_t kMaxStreamLineBytes = std::size_t{256} << 20;

/// `device`: the live GPU, read through the driver and laid over the database.
struct DeviceEvent {
  DeviceInfo device;
  GpuRecord gpu;  ///< which GPU of which host the capture runs on (absent from older workers)
  bool operator==(const DeviceEvent&) const = default;
};

/// `progress`: a line for a person. One shape for everyone who reports progress:
/// a worker adds `t`; diagnose's own progress has `stage: diagnose` and, as a
/// capture starts, the capture number and limit; after a group, its group and
/// conclusions. Which point or experiment it is about is in StreamTags.
struct ProgressEvent {
  std::string message;
  std::optional<double> t;            ///< t: seconds since the worker started
  std::string stage;                  ///< "diagnose" for diagnose's own progress, "" for a worker's
  std::string group;                  ///< diagnose: the experiment group (trials, shapes, ...)
  std::optional<int> capture;         ///< diagnose: the capture that starts (1-based)
  std::optional<int> maxCaptures;     ///< max_captures: diagnose's capture limit
  std::vector<std::string> findings;  ///< diagnose: a settled group's finding categories
  bool operator==(const ProgressEvent&) const = default;
};

/// The worker phases that arm and disarm the parent's watchdog.
enum class Phase { launch, launched, trace, traced };
const char* phaseName(Phase p);
/// Throws std::invalid_argument naming the known phases.
Phase parsePhase(const std::string& name);

/// `phase`: `launch`/`launched` around the first launch (the launch watchdog),
/// `trace`/`traced` around the traced launch.
struct PhaseEvent {
  Phase phase = Phase::launch;
  bool operator==(const PhaseEvent&) const = default;
};

/// `partial`: the capture before (and during) the profiling pass; the parent
/// keeps the last one if the worker dies in that pass.
struct PartialEvent {
  Point point;
  bool operator==(const PartialEvent&) const = default;
};

/// `point`: the worker's result, its last event.
struct PointEvent {
  Point point;
  bool operator==(const PointEvent&) const = default;
};

/// `report`: the whole report, after every point (`run|sweep|diagnose --stream`).
struct ReportEvent {
  Report report;
  bool operator==(const ReportEvent&) const = default;
};

/// `capture`: `tilescope-run capture --stream` forwards what a recorder inside
/// the user's program reported (docs/capture.md): `capture_event` "launch" (a
/// launch recorded: its folder under launches/, kernel, grid, the CUDA error
/// it raised in the program) or "note" (`message`). The program's own fields
/// (pid, ...) are not read.
struct CaptureEvent {
  std::string captureEvent;           ///< capture_event: launch | note
  std::string recorder;               ///< cuda | triton
  std::string id;                     ///< launch: its folder, launches/<id>
  std::optional<std::int64_t> index;  ///< launch: the process-wide launch number
  std::string kernel;
  std::vector<std::int64_t> grid;
  std::string fault;    ///< launch: the CUDA error the kernel raised in the program
  std::string message;  ///< note
  bool operator==(const CaptureEvent&) const = default;
};

/// `capture_done`: the capture folder `dir` is complete; `capture` is its
/// capture.json (tilescope.capture/1), kept as JSON here because its reader
/// is the capture layer's (captureInfoFromJson, capture.h).
struct CaptureDoneEvent {
  std::string dir;
  nlohmann::json capture = nlohmann::json::object();
  bool operator==(const CaptureDoneEvent&) const = default;
};

using StreamBody = std::variant<DeviceEvent, ProgressEvent, PhaseEvent, PartialEvent, PointEvent, ReportEvent,
                                CaptureEvent, CaptureDoneEvent>;

/// What the parent adds to a worker's event as it forwards it: which capture it
/// belongs to (the session: point_index, trial; diagnose: experiment) and how
/// many captures the run makes (`run --stream`: total).
struct StreamTags {
  std::optional<int> pointIndex;  ///< point_index
  std::optional<int> trial;
  std::optional<std::int64_t> total;
  std::string experiment;  ///< diagnose: the experiment this event belongs to
  bool operator==(const StreamTags&) const = default;
};

struct StreamEvent {
  StreamBody body;
  StreamTags tags;
  bool operator==(const StreamEvent&) const = default;
};

/// The event's name on the wire ("device", "progress", ...).
const char* eventName(const StreamBody& body);

/// A line that claims to be a stream event and is not a valid one. what() reads
/// "stream event 'point': point.verdict: unknown verdict 'great' (expected ...)"
/// or "stream line: 1:61: invalid JSON: ...".
class StreamError : public std::runtime_error {
 public:
  StreamError(std::string event, std::string path, std::string problem);
  const std::string& event() const { return m_event; }  ///< "" when the line named no (known) event
  const std::string& path() const {
    return m_path;
  }  ///< JSON path in the line ("point.verdict"), or "line:col"
  const std::string& problem() const { return m_problem; }

 private:
  std::string m_event, m_path, m_problem;
};

/// Reads one line (without its newline). Returns the event; std::nullopt for a
/// line that is not a stream event (plain text, binary, a JSON value that is not
/// an object or whose `schema` is not a tilescope.stream one); throws
/// StreamError, and nothing else, for a line that starts with `{` but is not
/// valid JSON, or is too long, too deep, of an unknown event or stream version,
/// or holds a value of the wrong type, an unknown verdict, severity, phase or
/// finding category. Limits: kMaxStreamLineBytes, nesting kMaxJsonDepth.
std::optional<StreamEvent> parseStreamEvent(std::string_view line);

/// The event as one line of JSON (no newline). Invalid UTF-8 in strings is
/// replaced by U+FFFD. parseStreamEvent(toLine(e)) == e for every event whose
/// numbers are not NaN (JSON writes NaN as null).
std::string toLine(const StreamEvent& event);

/// A warm worker's request (`worker --serve`, docs/protocol.md): one line on its
/// stdin, {"schema":"tilescope.stream/1","request":"capture","point":I,"trial":T}.
/// The worker answers with the events of that capture, the last one its `point`.
struct WorkerRequest {
  int point = 0;
  int trial = 0;
  bool operator==(const WorkerRequest&) const = default;
};
std::string toRequestLine(const WorkerRequest& request);
/// Throws StreamError naming what is wrong with a line that is not a request.
WorkerRequest parseRequestLine(std::string_view line);

}  // namespace tilescope
