// How the verbs register on tilescope-run's command line: each cmd_<verb>.cpp
// has an add<Verb>Command that adds its subcommand and options to the app and
// returns the action main() runs when that subcommand was given.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>

#include "commands.h"

namespace tilescope::cli {

struct Verb {
  CLI::App* command = nullptr;
  std::function<int()> run;
};

Verb addCheckCommand(CLI::App& app);
Verb addRunCommand(CLI::App& app);
Verb addSweepCommand(CLI::App& app);  ///< sweep, and sweep --slurm (cmd_slurm.cpp)
Verb addWorkerCommand(CLI::App& app);
Verb addDevicesCommand(CLI::App& app);
Verb addClassifyCommand(CLI::App& app);
Verb addDiagnoseCommand(CLI::App& app);
Verb addInitTritonCommand(CLI::App& app);
Verb addExportCommand(CLI::App& app);
Verb addCompareCommand(CLI::App& app);  ///< compare two reports, or two points of one (cmd_compare.cpp)
Verb addCaptureCommand(CLI::App& app);
Verb addTriageCommand(CLI::App& app);

// Options several verbs share.
/// --allow-commands, --allow-outside-paths (docs/security.md).
void addConsentOptions(CLI::App* s, Consent& c);
/// --remote HOST, --remote-shared.
void addRemoteOptions(CLI::App* s, std::string& host, bool& shared);
/// run's and sweep's options.
void addRunOptions(CLI::App* s, RunArgs& a);
/// --counters basic|full|none.
void addCounterOption(CLI::App* s, std::string& set);

}  // namespace tilescope::cli
