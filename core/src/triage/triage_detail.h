// Private to the triage layer: what one entry's run needs (its folder, its GPU's
// environment, the watchdogged child runner) and the steps the entry kinds share.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "tilescope/base/process.h"
#include "tilescope/triage/triage_run.h"

namespace tilescope {

struct EntryContext {
  const TriageOptions* opts = nullptr;
  const Tree* tree = nullptr;
  std::filesystem::path dir;        ///< OUTPUT.d/<slug>/: this entry's files
  std::filesystem::path outputDir;  ///< the triage file's folder (entry reports are relative to it)
  std::vector<std::string> env;     ///< CUDA_VISIBLE_DEVICES=..., for every child
  /// Runs argv with the entry's environment and a watchdog of `timeoutS`; stdout is dropped.
  ChildResult run(const std::vector<std::string>& argv, double timeoutS) const;
  /// Runs argv, which executes the entry's own Python (the runner, its capture),
  /// confined (sandbox.h): sandboxDir() the one writable, `files`' folders,
  /// the interpreter and TileScope readable, the GPU bound, no network, the
  /// environment filtered, the whole process tree ended with it. Where no sandbox
  /// starts it runs unconfined only with opts->allowUnconfined; else nothing runs
  /// and the result is not started, its startError saying why (triage_sandbox.cpp).
  ChildResult runUntrusted(const std::vector<std::string>& argv,
                           const std::vector<std::filesystem::path>& files, double timeoutS) const;
  /// Writes `r` into the entry's folder as `name`; returns its path relative to the triage file.
  std::string saveReport(const Report& r, const std::string& name) const;
  /// OUTPUT.d/<slug>/sandbox/, created: the one folder a problem's confined code
  /// may write (its working directory; home/ in it its HOME and caches).
  std::filesystem::path sandboxDir() const;
  /// A path of the entry's folder, relative to the triage file.
  std::string relative(const std::filesystem::path& p) const;
};

/// Why a problem's code may not run here ("" when it may): no sandbox starts and
/// the user gave no --allow-commands.
std::string untrustedRefusal(const TriageOptions& opts);
/// How a problem's code runs here: {"kind": "bubblewrap", ...limits} or
/// {"kind": "none", "why": ...} (the entry's extra "sandbox").
nlohmann::json sandboxDescription(const TriageOptions& opts);

/// A config entry (or a captured launch's config): check, then run or diagnose.
void runConfigEntry(TriageEntry& e, const EntryContext& ctx);
/// A problem: the runner, its report, the capture and the diagnosis of its kernels.
void runProblemEntry(TriageEntry& e, const EntryContext& ctx);
/// `diagnose` (or `run --trace`: at --depth run, or `traceOnly`) of a problem's
/// captured kernels, the faulting first, at most opts.maxDiagnosed; the first
/// whose verdict is not ok leads the entry (its located finding and fix), the
/// runner's speed and findings kept. Where none leads, a symptom the runner
/// found (a mismatch, NaN, race, unwritten output) gets the line of the traced
/// kernel's store (locateSymptom).
void diagnoseCaptured(TriageEntry& e, const EntryContext& ctx,
                      const std::vector<std::filesystem::path>& configs, bool traceOnly = false);

}  // namespace tilescope
