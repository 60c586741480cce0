// tilescope-run: the headless command line (README.md; exit statuses in docs/report.md).
// Each verb registers itself (add<Verb>Command in its cmd_<verb>.cpp).
#include <CLI/CLI.hpp>

#include <iostream>

#include "commands.h"
#include "options.h"
#include "tilescope/model/report.h"

using namespace tilescope::cli;
using tilescope::kExitOk;
using tilescope::kExitUsage;

int main(int argc, char** argv) {
  CLI::App app{"TileScope: run GPU kernels under control and see where they go wrong", "tilescope-run"};
  app.set_version_flag("--version", tilescope::toolVersion());
  app.require_subcommand(1);
  const std::vector<Verb> verbs = {addCheckCommand(app),    addRunCommand(app),        addSweepCommand(app),
                                   addDiagnoseCommand(app), addCaptureCommand(app),    addTriageCommand(app),
                                   addClassifyCommand(app), addExportCommand(app),     addCompareCommand(app),
                                   addDevicesCommand(app),  addInitTritonCommand(app), addWorkerCommand(app)};

  // An unknown verb is named, with the verbs there are (CLI11 would only say
  // that a subcommand is required).
  std::string names;
  bool known = false;
  for (const Verb& v : verbs) {
    known |= argc > 1 && v.command->get_name() == argv[1];
    if (v.command->get_name() != "worker") names += (names.empty() ? "" : ", ") + v.command->get_name();
  }
  if (argc > 1 && argv[1][0] != '-' && !known) {
    std::cerr << "tilescope-run: unknown verb '" << argv[1] << "' (verbs: " << names
              << "; --help for more)\n";
    return kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& err) {
    int rc = app.exit(err);
    return rc == 0 ? kExitOk : kExitUsage;
  }
  try {
    for (const Verb& v : verbs)
      if (*v.command) return v.run();
  } catch (const std::exception& ex) {
    std::cerr << "tilescope-run: error: " << ex.what() << '\n';
    return kExitUsage;
  }
  return kExitUsage;
}
