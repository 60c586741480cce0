// Reading compiler logs: the first error (for compile_error findings) and the
// resource usage ptxas prints with -v (NVRTC passes it through -Xptxas=-v).
#include <algorithm>
#include <charconv>
#include <limits>
#include <sstream>

#include "tilescope/base/regex.h"
#include "tilescope/cuda/compile.h"

namespace tilescope::cuda {

namespace {

// A line is cut to this many bytes before it is matched: the parts we look for
// (file(line): error: ..., ptxas info) come first in a line, and a message stays
// readable when a line is a 50 KB template name or a minified header (matching
// itself is linear, tilescope/base/regex.h).
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
  static const Regex frontEnd(R"(^.*\((\d+)\): (?:catastrophic )?error[^:]*: (.*)$)");
  // host compilers and clang-style: "k.cu:12:5: error: ..."
  // (the first ":N:" is the line: a greedy prefix would take the column for it)
  static const Regex gccStyle(R"(^.*?:(\d+):(?:\d+:)? (?:fatal )?error: (.*)$)");
  // ptxas on PTX: "ptxas /tmp/x.ptx, line 7; error   : Unknown symbol"
  static const Regex ptxas(R"(^ptxas.*line (\d+); (?:fatal )?error\s*: (.*)$)");
  // anything else that says error: "nvcc fatal   : ...", "ptxas fatal : ..."
  static const Regex generic(R"(^.*\b(?:error|fatal)\s*: (.*)$)", RegexOptions{/*icase=*/true});
  std::istringstream in(log);
  std::string line;
  std::optional<std::pair<int, std::string>> fallback;
  while (nextLine(in, line)) {
    RegexMatch m;
    if (frontEnd.fullMatch(line, m) || gccStyle.fullMatch(line, m) || ptxas.fullMatch(line, m))
      return std::make_pair(std::max(0, smallNumber(m.str(1))), m.str(2));
    if (!fallback && generic.fullMatch(line, m)) fallback = std::make_pair(0, m.str(1));
  }
  return fallback;
}

void parsePtxasResources(const std::string& log, const std::string& symbol, CompileInfo* info) {
  static const Regex fn(
      R"(ptxas info\s*: (?:Compiling entry function|Function properties for) '?([^' ]+)'?)");
  static const Regex frame(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const Regex regs(R"(Used (\d+) registers)");
  static const Regex smem(R"((\d+) bytes smem)");
  std::istringstream in(log);
  std::string line, current, chosen = symbol;
  while (nextLine(in, line)) {
    RegexMatch m;
    if (fn.search(line, m)) {
      current = m.str(1);
      if (chosen.empty()) chosen = current;
      continue;
    }
    if (current.empty() || current != chosen) continue;
    if (frame.search(line, m)) {
      info->localBytes = number(m.str(1));
      info->spillStores = number(m.str(2));
      info->spillLoads = number(m.str(3));
    }
    if (regs.search(line, m)) info->regs = smallNumber(m.str(1));
    if (line.find("Used ") != std::string::npos) {
      // "Used N registers, ..." without "bytes smem" means no static shared memory.
      info->smemStatic = smem.search(line, m) ? number(m.str(1)) : 0;
    }
  }
}

std::string archForCc(int major, int minor) { return "sm_" + std::to_string(major * 10 + minor); }

}  // namespace tilescope::cuda
