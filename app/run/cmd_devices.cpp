// `devices`: the database, and the local GPUs where CUDA is built in (asked of a
// worker process, so this process never touches the GPU).
#include <iomanip>
#include <iostream>

#include "commands.h"
#include "options.h"
#include "tilescope/base/process.h"
#include "tilescope/model/devices.h"

namespace tilescope::cli {

int cmdDevices(bool json) {
  DeviceDb db = DeviceDb::loadDefault();
  // Local GPUs: `tilescope-run worker --list-gpus` would touch CUDA; a plain
  // nvidia-smi query keeps this verb dependency-free and works without our build.
  std::vector<std::string> local;
  ChildResult r = runChild({"nvidia-smi", "--query-gpu=index,name,compute_cap", "--format=csv,noheader"}, 10,
                           [&](const std::string& line) {
                             if (!line.empty()) local.push_back(line);
                           });
  if (json) {
    nlohmann::json j = {{"devices", nlohmann::json::array()}, {"local_gpus", local}};
    for (const auto& d : db.all()) j["devices"].push_back(toJson(d));
    std::cout << j.dump(1) << '\n';
    return kExitOk;
  }
  std::cout << std::left << std::setw(9) << "key" << std::setw(30) << "name" << std::setw(7) << "arch"
            << std::right << std::setw(5) << "SMs" << std::setw(12) << "smem/blk" << std::setw(12) << "opt-in"
            << std::setw(10) << "L2 MiB" << std::setw(10) << "DRAM GB/s" << '\n';
  for (const auto& d : db.all()) {
    std::cout << std::left << std::setw(9) << d.key << std::setw(30) << d.name.substr(0, 29) << std::setw(7)
              << d.arch << std::right << std::setw(5) << d.smCount << std::setw(12) << d.smemPerBlock
              << std::setw(12) << d.smemPerBlockOptin << std::setw(10) << d.l2Bytes / (1024 * 1024)
              << std::setw(10) << static_cast<long>(d.dramGBs) << '\n';
  }
  std::cout << "\nlocal GPUs: " << (local.empty() ? "none found (nvidia-smi)" : "") << '\n';
  for (const auto& l : local) std::cout << "  " << l << '\n';
  (void)r;
  return kExitOk;
}

Verb addDevicesCommand(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  auto* d = app.add_subcommand("devices", "list the device database (and the local GPUs)");
  d->add_flag("--json", *json, "print JSON");
  return {d, [json] { return cmdDevices(*json); }};
}

}  // namespace tilescope::cli
