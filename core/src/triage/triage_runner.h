// Private to the triage layer: the Python runner's answer (runner.json,
// tilescope.triage.runner/1, docs/triage.md "The runner") as a struct, read once
// by the field lists of triage_runner.cpp. The answer is open: a key it leaves
// out (or gives as null) keeps the default below. The runner's figures are read
// leniently, as they always were: a number that is not one reads as 0, and
// `exception`, `timing` and `launches` that are not objects, or `findings` that
// is not a list, are not there. Any other value of another type is an error
// naming its path.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilescope/model/report.h"
#include "tilescope/triage/triage_run.h"

namespace tilescope {

/// A case's first output against the reference's (`compare`).
struct RunnerCompare {
  bool given = false;  ///< a non-empty object: the case was compared
  std::string output = "out";
  double maxAbsErr = 0, maxRelErr = 0, mismatches = 0, elements = 0, nan = 0, inf = 0, rtol = 0, atol = 0;
};

/// One case the runner judged (`cases[i]`).
struct RunnerCase {
  std::optional<std::string> label;
  nlohmann::json shape = nlohmann::json::object();
  int seed = 0;
  std::string status = "ok";
  RunnerCompare compare;
};

/// The exception that ended the judgement (`exception`).
struct RunnerException {
  std::string type = "Exception";
  std::string message, text, file;
  std::int64_t line = 0;                     ///< 0 unless an integer
  std::optional<nlohmann::json> sourceLine;  ///< as the runner wrote it
  std::optional<std::string> limit;          ///< the sandbox's limit that fired; none unless a string
};

/// `timing`: CUDA events around each module's forward, medians.
struct RunnerTiming {
  double candidateNs = 0, referenceNs = 0, reps = 0;
};

struct RunnerAnswer {
  std::string schema;
  std::string status;                ///< ok | failed | error | running; "" when not given
  std::optional<std::string> error;  ///< why it could not judge (status "error")
  bool noGpu = false;                ///< `no_gpu`: the error is the host's
  std::optional<std::string> phase;  ///< the phase it was in
  std::string gpu;                   ///< `environment.gpu`
  std::vector<RunnerCase> cases;     ///< an empty object reads as none
  std::optional<RunnerException> exception;
  std::optional<std::string> stderrText;  ///< `stderr`
  RunnerTiming timing;
  std::optional<double> launchesOwn;  ///< `launches.own`, 0 unless a number; none without it
  std::vector<Finding> findings;      ///< `findings`, each read by findingFromJson
};

/// The answer `j` (an object) as a struct; throws ReportError at a wrong value.
RunnerAnswer readRunnerAnswer(const nlohmann::json& j);

/// A count the runner (code from anyone) wrote: negative, NaN, fractional or
/// beyond `hi` reads as the nearest value in [0, hi], never an overflowing cast (T8).
std::int64_t runnerCount(double v, double hi = 9.0e18);

// What the public functions of triage_run.h do with a json answer, on a read one.
std::vector<Finding> runnerFindings(const RunnerAnswer& runner);
Report problemReport(const TriageEntry& e, const RunnerAnswer& runner, const Tree* tree);

}  // namespace tilescope
