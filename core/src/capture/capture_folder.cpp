// The capture folder: launch records in, configs and capture.json out.
#include <algorithm>
#include <fstream>
#include <system_error>

#include "tilescope/base/atomic_write.h"
#include "tilescope/base/json_input.h"
#include "tilescope/base/json_text.h"
#include "tilescope/capture/capture.h"
#include "tilescope/config/config.h"
#include "tilescope/config/trust.h"

namespace tilescope {

namespace fs = std::filesystem;

std::string captureNameProblem(const fs::path& dir, const fs::path& base, const std::string& name) {
  if (name.empty()) return "";
  const fs::path p(name);
  std::error_code ec;
  if (p.is_absolute() || p.has_root_name())
    return "'" + clipForMessage(name) +
           "' is an absolute path: a capture folder names its files relative to itself";
  const fs::path root = fs::weakly_canonical(fs::absolute(dir, ec), ec);
  if (ec || !insideRoots(fs::absolute(base / p, ec), {root}))
    return "'" + clipForMessage(name) + "' resolves outside the capture folder";
  return "";
}

void confineCaptureInfo(const fs::path& dir, CaptureInfo& info) {
  for (CapturedLaunch& l : info.launches) {
    // The id names DIR/launches/ID: one plain name.
    if (l.id.empty() || l.id == "." || l.id == ".." || l.id.find('/') != std::string::npos) {
      l.reason = "capture.json's launch id '" + clipForMessage(l.id) + "' is not a folder name (refused)";
      l.config.clear();
      continue;
    }
    if (const std::string why = captureNameProblem(dir, dir, l.config); !why.empty()) {
      l.reason = "capture.json's config " + why + " (refused)";
      l.config.clear();
    }
  }
}

namespace {

/// "" when every file a launch record names lies inside the capture folder: the
/// copied source and module image relative to the folder, the cubin and the
/// .npy files relative to the launch's own folder.
std::string recordNameProblem(const fs::path& dir, const LaunchRecord& r) {
  const fs::path own = dir / "launches" / r.id;
  std::vector<std::pair<std::string, std::string>> named = {
      {"source.copy", captureNameProblem(dir, dir, r.source.copy)},
      {"image", captureNameProblem(dir, dir, r.image)},
      {"cubin", captureNameProblem(dir, own, r.cubin)}};
  for (const LaunchArg& a : r.args) {
    // Relative to the launch's folder, inside the capture folder (launches/ or
    // its entry may be a link elsewhere).
    named.emplace_back("args." + a.name + ".before", captureNameProblem(dir, own, a.before));
    named.emplace_back("args." + a.name + ".after", captureNameProblem(dir, own, a.after));
  }
  for (const auto& [field, why] : named)
    if (!why.empty()) return field + ": " + why;
  return "";
}

}  // namespace

std::vector<LaunchRecord> readLaunches(const fs::path& dir, std::vector<std::string>* errors) {
  std::vector<LaunchRecord> out;
  std::error_code ec;
  const fs::path launches = dir / "launches";
  if (!fs::is_directory(launches, ec)) return out;
  std::vector<fs::path> folders;
  for (const auto& e : fs::directory_iterator(launches, ec)) {
    const std::string name = e.path().filename().string();
    // ".tmp-*": a recorder still writing (or killed while writing): not a launch yet.
    if (e.is_directory(ec) && !name.empty() && name[0] != '.') folders.push_back(e.path());
  }
  const fs::path root = fs::weakly_canonical(fs::absolute(dir, ec), ec);
  for (const fs::path& f : folders) {
    const fs::path file = f / "launch.json";
    if (!fs::is_regular_file(file, ec)) continue;
    // launches/ (or one launch's folder) linked out of the capture folder: not read.
    if (!insideRoots(fs::absolute(file, ec), {root})) {
      if (errors)
        errors->push_back(file.string() + ": resolves outside the capture folder (the launch is not used)");
      continue;
    }
    try {
      LaunchRecord r = loadLaunchRecord(file);
      r.id = f.filename().string();  // the folder names the launch, whatever the record says
      if (const std::string why = recordNameProblem(dir, r); !why.empty()) {
        if (errors) errors->push_back(file.string() + ": " + why + " (the launch is not used)");
        continue;
      }
      out.push_back(std::move(r));
    } catch (const std::exception& e) {
      if (errors) errors->push_back(e.what());
    }
  }
  std::sort(out.begin(), out.end(), [](const LaunchRecord& a, const LaunchRecord& b) {
    // Launches with a process-wide index first, in launch order; then by id.
    const bool ai = a.index >= 0, bi = b.index >= 0;
    if (ai != bi) return ai;
    if (ai && a.index != b.index) return a.index < b.index;
    if (a.timeUnixNs != b.timeUnixNs) return a.timeUnixNs < b.timeUnixNs;
    return a.id < b.id;
  });
  return out;
}

namespace {

/// DIR/env-*.json (one per recording process): merged, the first value of a key wins.
void mergeEnvironment(const fs::path& dir, nlohmann::json& env) {
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string n = e.path().filename().string();
    if (n.rfind("env-", 0) == 0 && e.path().extension() == ".json") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    try {
      JsonLimits lim;
      lim.maxBytes = 1 << 20;
      const nlohmann::json j = parseJson(readInputFile(f, lim.maxBytes), lim);
      if (!j.is_object()) continue;
      for (const auto& [k, v] : j.items())
        if (!env.contains(k)) env[k] = v;
    } catch (const std::exception&) {
      // A process killed while writing its environment: the launches still count.
    }
  }
}

CapturedLaunch summaryOf(const LaunchRecord& r) {
  CapturedLaunch l;
  l.id = r.id;
  l.index = r.index;
  l.recorder = r.recorder;
  l.language = r.language;
  l.kernel = r.kernel;
  l.grid = r.grid;
  l.block = r.block;
  l.kernelNs = r.kernelNs;
  l.fault = r.fault;
  l.notes = r.notes;
  return l;
}

}  // namespace

CapturedLaunch launchSummary(const LaunchRecord& r, const CaptureInfo& capture) {
  CapturedLaunch l = summaryOf(r);
  std::string why;
  if (configFromLaunch(r, capture, &why).is_null() || !why.empty())
    l.reason = why.empty() ? "no config" : why;
  else
    l.config = captureConfigName(r);
  return l;
}

int writeCaptureFolder(const fs::path& dir, CaptureInfo& info, const CaptureWriteOptions& opts) {
  std::vector<std::string> errors;
  const std::vector<LaunchRecord> launches = readLaunches(dir, &errors);
  for (const std::string& e : errors) info.notes.push_back("a launch record did not load: " + e);
  mergeEnvironment(dir, info.environment);
  info.launches.clear();
  int written = 0;
  for (const LaunchRecord& r : launches) {
    CapturedLaunch l = summaryOf(r);
    std::string why;
    const nlohmann::ordered_json cfg = configFromLaunch(r, info, &why);
    if (cfg.is_null() || !why.empty()) {
      l.reason = why.empty() ? "no config" : why;
      info.launches.push_back(std::move(l));
      continue;
    }
    const std::string name = captureConfigName(r);
    const std::string text = cfg.dump(2) + "\n";
    std::string loadError;
    if (opts.verify) {
      try {
        (void)parseConfigText(text, dir);
      } catch (const std::exception& e) {
        loadError = e.what();
      }
    }
    if (loadError.empty()) {
      writeFileAtomically(dir / name, text);
      l.config = name;
      ++written;
    } else {
      // Kept for a person to read, under a name no verb picks up by accident.
      const std::string bad = name.substr(0, name.size() - 5) + ".invalid.json";
      writeFileAtomically(dir / bad, text);
      l.reason = "the config written for it does not load: " + loadError + " (kept as " + bad + ")";
    }
    info.launches.push_back(std::move(l));
  }
  writeFileAtomically(dir / "capture.json", dumpJson(toJson(info), 1) + "\n");
  return written;
}

}  // namespace tilescope
