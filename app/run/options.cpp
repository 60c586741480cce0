// Options shared by several verbs.
#include "options.h"

namespace tilescope::cli {

void addConsentOptions(CLI::App* s, Consent& c) {
  s->add_flag("--allow-commands", c.commands,
              "run the programs the config names (a command baseline, compiler options such as -ccbin)");
  s->add_flag("--allow-outside-paths", c.outsidePaths,
              "read sources, includes and .npy files outside the config's folder");
}

void addRemoteOptions(CLI::App* s, std::string& host, bool& shared) {
  s->add_option("--remote", host,
                "run the workers on this host over ssh (the config's files are copied there)");
  s->add_flag("--remote-shared", shared,
              "with --remote: the host sees the same paths (a shared filesystem); copy nothing");
}

void addRunOptions(CLI::App* s, RunArgs& a) {
  s->add_option("CONFIG", a.config, "kernel configuration (.tscfg.json)")->required();
  s->add_option("-o,--output", a.output, "write the report (JSON) here");
  s->add_option("--trials", a.trials, "repeat each point N times (default: the config's trials)")
      ->check(CLI::Range(1, 1000));
  s->add_option("--timeout", a.timeoutS, "watchdog limit per worker in seconds");
  s->add_option("--launch-timeout", a.launchTimeoutS,
                "watchdog limit from a kernel's launch to its completion (s)")
      ->check(CLI::PositiveNumber);
  s->add_flag("--stream", a.stream, "print tilescope.stream/1 events on stdout (for the GUI)");
  addRemoteOptions(s, a.remote, a.remoteShared);
  s->add_flag("--trace", a.trace,
              "trace each point's kernel through the Sanitizer API first (docs/report.md)");
  s->add_option("--trace-mode", a.traceMode, "full (default) or memory: without the shared-memory hazards")
      ->check(CLI::IsMember({"full", "memory"}));
  s->add_option("--trace-cells", a.traceCells, "footprint map cells per tensor in the report (default 65536)")
      ->check(CLI::Range(1, 1 << 24));
  s->add_flag("--fresh-workers", a.freshWorkers,
              "a fresh worker process for every capture (by default a worker serves capture after capture "
              "until one faults)");
  addCounterOption(s, a.counters);
  addConsentOptions(s, a.consent);
}

void addCounterOption(CLI::App* s, std::string& set) {
  s->add_option("--counters", set,
                "hardware counters: basic (default: what the findings need, 2 replay passes), full (every "
                "standard metric and PC sampling), none")
      ->check(CLI::IsMember({"basic", "full", "none"}));
}

std::vector<std::string> counterArgs(const std::string& set) {
  if (set.empty()) return {};
  if (set == "none") return {"--no-counters"};
  return {"--counters", set};
}

}  // namespace tilescope::cli
