// A capture folder (`tilescope-run capture -o DIR -- COMMAND`, docs/capture.md):
// the launches the recorders wrote (launch_record.h) become one
// tilescope.config/1 per launch, and DIR/capture.json (schema
// tilescope.capture/1) says what ran, how it ended and what each launch became.
// Pure functions over the folder's files: tested on recorded fixtures without a GPU.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilescope/capture/launch_record.h"

namespace tilescope {

inline constexpr const char* kCaptureSchema = "tilescope.capture/1";

/// How the program ended.
struct ProgramExit {
  std::string status;   ///< exited | signal | not_started | timeout | running
  int code = 0;         ///< the exit code (exited) or the signal number (signal)
  std::string message;  ///< "exited with status 1", "killed by signal 11 (SIGSEGV)"
  double seconds = 0;
};

/// One launch of the capture, as capture.json lists it.
struct CapturedLaunch {
  std::string id;
  std::int64_t index = -1;
  std::string recorder, language, kernel;
  std::array<std::uint32_t, 3> grid{1, 1, 1}, block{1, 1, 1};
  std::optional<double> kernelNs;
  std::string config;  ///< the config written for it (relative to the folder), "" when none
  std::string reason;  ///< why there is no config, or why it did not load
  std::string fault;
  std::vector<std::string> notes;
};

struct CaptureInfo {
  std::vector<std::string> command;
  std::string cwd, host, startedAt;
  std::string remote;  ///< --remote HOST, "" for a local capture
  ProgramExit exit;
  nlohmann::json environment = nlohmann::json::object();  ///< GPU, driver, CUDA/Triton/PyTorch versions
  nlohmann::json selection = nlohmann::json::object();    ///< kernel regex, skip, count, max bytes
  std::vector<CapturedLaunch> launches;
  std::vector<std::string> notes;
};

/// Options of the config writer.
struct CaptureWriteOptions {
  /// Verify each written config by loading it back (the config loader); a
  /// config that does not load is kept under `.invalid.json` with the reason.
  bool verify = true;
};

/// The config for one recorded launch, relative to the capture folder (paths
/// to the launch folder's .npy files, the copied source or module image).
/// Returns null and sets *whyNot when the launch cannot become a config (an
/// unresolved parameter, bytes not saved, an unsupported dtype).
nlohmann::ordered_json configFromLaunch(const LaunchRecord& r, const CaptureInfo& capture,
                                        std::string* whyNot);

/// The config file name for a launch: "<kernel>-<id>.tscfg.json", safe characters only.
std::string captureConfigName(const LaunchRecord& r);

/// The launch as capture.json lists it: what the record says, and the config
/// name writeCaptureFolder gives it or the reason it has none (nothing written).
CapturedLaunch launchSummary(const LaunchRecord& r, const CaptureInfo& capture);

/// Every complete launch folder of `dir` (DIR/launches/*/launch.json), by launch
/// index, then id. A folder whose record does not load, or names a file outside
/// the capture folder (captureNameProblem), is reported in *errors
/// ("launches/x/launch.json: ...") and skipped.
std::vector<LaunchRecord> readLaunches(const std::filesystem::path& dir, std::vector<std::string>* errors);

/// Writes a config per launch and DIR/capture.json (atomically), filling
/// info.launches; returns the number of configs written. Environment files the
/// recorders left (DIR/env-*.json) are merged into info.environment.
int writeCaptureFolder(const std::filesystem::path& dir, CaptureInfo& info,
                       const CaptureWriteOptions& opts = {});

/// Why `name` (a file named by capture.json or a launch record, relative to
/// `base`, a folder inside the capture folder `dir`) may not be read: it is
/// absolute, or it resolves (through `..` and symbolic links) outside `dir`.
/// "" when it may (and for an empty name).
std::string captureNameProblem(const std::filesystem::path& dir, const std::filesystem::path& base,
                               const std::string& name);
/// A capture folder stays inside itself: each launch whose capture.json `config`
/// or `id` names something outside `dir` loses its config, and its `reason` says
/// why (so triage lists it as not_run with that reason).
void confineCaptureInfo(const std::filesystem::path& dir, CaptureInfo& info);

/// Reads DIR/capture.json (or a capture.json path), confined to its folder
/// (confineCaptureInfo).
CaptureInfo loadCaptureInfo(const std::filesystem::path& dirOrFile);
/// Reads a tilescope.capture/1 object (capture.json's, or a `capture_done`
/// stream event's `capture`); throws std::runtime_error naming the JSON path.
CaptureInfo captureInfoFromJson(const nlohmann::json& j);
nlohmann::json toJson(const CaptureInfo& c);

}  // namespace tilescope
