// Reading compiler logs: the first error (for compile_error findings) and the
// resource usage ptxas prints with -v (NVRTC passes it through -Xptxas=-v).
#include <regex>
#include <sstream>

#include "tilescope/cuda/compile.h"

namespace tilescope::cuda {

std::optional<std::pair<int, std::string>> firstCompileError(const std::string& log) {
  // NVRTC / nvcc front end: "k.cu(12): error: identifier "x" is undefined"
  static const std::regex frontEnd(R"(^.*\((\d+)\): (?:catastrophic )?error[^:]*: (.*)$)");
  // host compilers and clang-style: "k.cu:12:5: error: ..."
  static const std::regex gccStyle(R"(^.*:(\d+):(?:\d+:)? (?:fatal )?error: (.*)$)");
  // ptxas on PTX: "ptxas /tmp/x.ptx, line 7; error   : Unknown symbol"
  static const std::regex ptxas(R"(^ptxas.*line (\d+); (?:fatal )?error\s*: (.*)$)");
  // anything else that says error: "nvcc fatal   : ...", "ptxas fatal : ..."
  static const std::regex generic(R"(^.*\b(?:error|fatal)\s*: (.*)$)", std::regex::icase);
  std::istringstream in(log);
  std::string line;
  std::optional<std::pair<int, std::string>> fallback;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::smatch m;
    if (std::regex_match(line, m, frontEnd) || std::regex_match(line, m, gccStyle) ||
        std::regex_match(line, m, ptxas))
      return std::make_pair(std::stoi(m[1].str()), m[2].str());
    if (!fallback && std::regex_match(line, m, generic)) fallback = std::make_pair(0, m[1].str());
  }
  return fallback;
}

void parsePtxasResources(const std::string& log, const std::string& symbol, CompileInfo* info) {
  static const std::regex fn(R"(ptxas info\s*: (?:Compiling entry function|Function properties for) '?([^' ]+)'?)");
  static const std::regex frame(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex regs(R"(Used (\d+) registers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  std::istringstream in(log);
  std::string line, current, chosen = symbol;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, fn)) {
      current = m[1].str();
      if (chosen.empty()) chosen = current;
      continue;
    }
    if (current.empty() || current != chosen) continue;
    if (std::regex_search(line, m, frame)) {
      info->localBytes = std::stoll(m[1].str());
      info->spillStores = std::stoll(m[2].str());
      info->spillLoads = std::stoll(m[3].str());
    }
    if (std::regex_search(line, m, regs)) info->regs = std::stoi(m[1].str());
    if (line.find("Used ") != std::string::npos) {
      // "Used N registers, ..." without "bytes smem" means no static shared memory.
      info->smemStatic = std::regex_search(line, m, smem) ? std::stoll(m[1].str()) : 0;
    }
  }
}

std::string archForCc(int major, int minor) { return "sm_" + std::to_string(major * 10 + minor); }

}  // namespace tilescope::cuda
