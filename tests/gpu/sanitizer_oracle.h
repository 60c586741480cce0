// compute-sanitizer as the tracer's oracle: runs a worker under memcheck,
// racecheck or initcheck and reads the errors it logs (kind, function + SASS
// offset, file:line, thread, block; racecheck's pairs of accesses).
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_util.h"

namespace tilescope::gputest {

struct OracleError {
  std::string what;   ///< "Invalid __global__ read", "Uninitialized __global__ memory read", ...
  std::string space;  ///< global | shared | local
  bool write = false, read = false, misaligned = false, outOfBounds = false, uninit = false;
  int size = 0;
  std::string function;
  std::uint64_t offset = 0;
  std::string file;
  int line = 0;
  int thread[3] = {-1, -1, -1}, block[3] = {-1, -1, -1};
};

struct OracleRace {
  std::string firstKind, secondKind;  ///< Write | Read
  std::uint64_t firstOffset = 0, secondOffset = 0;
  int firstLine = 0, secondLine = 0;
};

struct OracleLog {
  std::vector<OracleError> errors;
  std::vector<OracleRace> races;
  std::string text;
};

inline std::string computeSanitizer() {
  if (const char* env = std::getenv("TILESCOPE_COMPUTE_SANITIZER"); env && *env) return env;
  const char* home = std::getenv("CUDA_HOME");
  for (const char* root : {home, static_cast<const char*>("/usr/local/cuda")}) {
    if (!root) continue;
    const std::filesystem::path p = std::filesystem::path(root) / "compute-sanitizer" / "compute-sanitizer";
    if (std::filesystem::exists(p)) return p.string();
    const std::filesystem::path b = std::filesystem::path(root) / "bin" / "compute-sanitizer";
    if (std::filesystem::exists(b)) return b.string();
  }
  return std::system("command -v compute-sanitizer >/dev/null 2>&1") == 0 ? "compute-sanitizer" : "";
}

inline OracleLog parseSanitizerLog(const std::string& text) {
  OracleLog log;
  log.text = text;
  static const std::regex header(
      R"((Invalid __(global|shared|local)__ (read|write|atomic)|Uninitialized __(global|shared)__ memory read) of size (\d+) bytes)");
  // Function names may carry a signature: "at load8(__half *, int)+0x750 in gemm_tiled.cu:77".
  static const std::regex atNew(R"(\bat (.+?)\+0x([0-9a-fA-F]+)(?: in (\S+):(\d+))?\s*$)");
  static const std::regex atOld(R"(at 0x([0-9a-fA-F]+) in (\S+?):(\d+):(\S+))");
  static const std::regex by(R"(by thread \((\d+),(\d+),(\d+)\) in block \((\d+),(\d+),(\d+)\))");
  static const std::regex race(
      R"((Write|Read) access at (.+?)\+0x([0-9a-fA-F]+)(?: in (\S+?):(\d+))?(?: \[|\s*$))");
  std::istringstream in(text);
  std::string line;
  OracleError* cur = nullptr;
  OracleRace pending;
  bool racePending = false;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, header)) {
      log.errors.emplace_back();
      cur = &log.errors.back();
      cur->what = m[1];
      cur->uninit = m[1].str().rfind("Uninitialized", 0) == 0;
      cur->space = cur->uninit ? m[4].str() : m[2].str();
      cur->read = cur->uninit || m[3] == "read" || m[3] == "atomic";
      cur->write = m[3] == "write" || m[3] == "atomic";
      cur->size = std::stoi(m[5]);
      continue;
    }
    // racecheck: "Race reported between A" then one "and B [N hazards]" line per partner of A.
    const bool opens = line.find("Race reported between") != std::string::npos;
    if ((opens || (racePending && line.find(" and ") != std::string::npos)) &&
        std::regex_search(line, m, race)) {
      const std::uint64_t off = std::stoull(m[3], nullptr, 16);
      const int ln = m[5].matched ? std::stoi(m[5]) : 0;
      if (opens) {
        pending = {};
        pending.firstKind = m[1];
        pending.firstOffset = off;
        pending.firstLine = ln;
        racePending = true;
      } else {
        OracleRace r = pending;
        r.secondKind = m[1];
        r.secondOffset = off;
        r.secondLine = ln;
        log.races.push_back(r);
      }
      cur = nullptr;
      continue;
    }
    if (!cur) continue;
    if (cur->function.empty() && std::regex_search(line, m, atNew)) {
      cur->function = m[1];
      cur->offset = std::stoull(m[2], nullptr, 16);
      if (m[3].matched) cur->file = m[3], cur->line = std::stoi(m[4]);
    } else if (cur->function.empty() && std::regex_search(line, m, atOld)) {
      cur->offset = std::stoull(m[1], nullptr, 16);
      cur->file = m[2];
      cur->line = std::stoi(m[3]);
      cur->function = m[4];
    } else if (std::regex_search(line, m, by)) {
      for (int d = 0; d < 3; ++d) cur->thread[d] = std::stoi(m[1 + d]), cur->block[d] = std::stoi(m[4 + d]);
    } else if (line.find("is misaligned") != std::string::npos) {
      cur->misaligned = true;
    } else if (line.find("out of bounds") != std::string::npos) {
      cur->outOfBounds = true;
    }
  }
  return log;
}

/// Runs `command` (a worker) under compute-sanitizer --tool `tool`; the log is
/// written to `logFile`. Returns "" or why it could not run.
inline std::string runUnderSanitizer(const std::string& tool, const std::string& kernel,
                                     const std::string& command, const std::filesystem::path& logFile,
                                     OracleLog* out) {
  const std::string cs = computeSanitizer();
  if (cs.empty()) return "compute-sanitizer not found";
  // --padding: an unallocated gap after every allocation, so that a read just
  // past one tensor cannot land in the next one (where memcheck sees nothing wrong).
  std::string cmd = shellQuote(cs) + " --tool " + tool + " --log-file " + shellQuote(logFile.string()) +
                    " --print-limit 0 --show-backtrace no --kernel-name kns=" + kernel +
                    (tool == "memcheck" ? " --padding 1048576" : "") + " " + command + " > /dev/null 2>&1";
  const int status = std::system(cmd.c_str());
  if (!WIFEXITED(status)) return "compute-sanitizer did not exit: " + cmd;
  *out = parseSanitizerLog(readFile(logFile));
  if (out->text.empty()) return "compute-sanitizer wrote no log: " + cmd;
  return "";
}

}  // namespace tilescope::gputest
