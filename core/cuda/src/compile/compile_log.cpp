// Reading compiler logs: the first error (for compile_error findings) and the
// resource usage ptxas prints with -v (NVRTC passes it through -Xptxas=-v).
#include <algorithm>
#include <charconv>
#include <limits>
#include <regex>
#include <sstream>

#include "tilescope/cuda/compile.h"

namespace tilescope::cuda {

namespace {

// std::regex matches recursively, about one stack frame per character: a 50 KB
// line (a long template name, a minified header) overflows the stack. Every
// line is cut to this many bytes before it is matched; the parts we look for
// (file(line): error: ..., ptxas info) come first in a line.
constexpr std::size_t kMaxMatchedLine = 512;

bool nextLine(std::istringstream& in, std::string& line) {
  if (!std::getline(in, line)) return false;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.size() > kMaxMatchedLine) line.resize(kMaxMatchedLine);
  return true;
}

/// A decimal number of a log line (a `#line` directive can make it anything):
/// values that do not fit an int64 become -1 instead of throwing.
std::int64_t number(const std::string& digits) {
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  return ec == std::errc() && end == digits.data() + digits.size() ? v : -1;
}

int smallNumber(const std::string& digits) {
  const std::int64_t v = number(digits);
  return v >= 0 && v <= std::numeric_limits<int>::max() ? static_cast<int>(v) : -1;
}

}  // namespace

std::optional<std::pair<int, std::string>> firstCompileError(const std::string& log) {
  // NVRTC / nvcc front end: "k.cu(12): error: identifier "x" is undefined"
  static const std::regex frontEnd(R"(^.*\((\d+)\): (?:catastrophic )?error[^:]*: (.*)$)");
  // host compilers and clang-style: "k.cu:12:5: error: ..."
  // (the first ":N:" is the line: a greedy prefix would take the column for it)
  static const std::regex gccStyle(R"(^.*?:(\d+):(?:\d+:)? (?:fatal )?error: (.*)$)");
  // ptxas on PTX: "ptxas /tmp/x.ptx, line 7; error   : Unknown symbol"
  static const std::regex ptxas(R"(^ptxas.*line (\d+); (?:fatal )?error\s*: (.*)$)");
  // anything else that says error: "nvcc fatal   : ...", "ptxas fatal : ..."
  static const std::regex generic(R"(^.*\b(?:error|fatal)\s*: (.*)$)", std::regex::icase);
  std::istringstream in(log);
  std::string line;
  std::optional<std::pair<int, std::string>> fallback;
  while (nextLine(in, line)) {
    std::smatch m;
    if (std::regex_match(line, m, frontEnd) || std::regex_match(line, m, gccStyle) ||
        std::regex_match(line, m, ptxas))
      return std::make_pair(std::max(0, smallNumber(m[1].str())), m[2].str());
    if (!fallback && std::regex_match(line, m, generic)) fallback = std::make_pair(0, m[1].str());
  }
  return fallback;
}

void parsePtxasResources(const std::string& log, const std::string& symbol, CompileInfo* info) {
  static const std::regex fn(
      R"(ptxas info\s*: (?:Compiling entry function|Function properties for) '?([^' ]+)'?)");
  static const std::regex frame(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex regs(R"(Used (\d+) registers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  std::istringstream in(log);
  std::string line, current, chosen = symbol;
  while (nextLine(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, fn)) {
      current = m[1].str();
      if (chosen.empty()) chosen = current;
      continue;
    }
    if (current.empty() || current != chosen) continue;
    if (std::regex_search(line, m, frame)) {
      info->localBytes = number(m[1].str());
      info->spillStores = number(m[2].str());
      info->spillLoads = number(m[3].str());
    }
    if (std::regex_search(line, m, regs)) info->regs = smallNumber(m[1].str());
    if (line.find("Used ") != std::string::npos) {
      // "Used N registers, ..." without "bytes smem" means no static shared memory.
      info->smemStatic = std::regex_search(line, m, smem) ? number(m[1].str()) : 0;
    }
  }
}

std::string archForCc(int major, int minor) { return "sm_" + std::to_string(major * 10 + minor); }

}  // namespace tilescope::cuda
