// The text reports of compute-sanitizer and cuda-memcheck (tilescope/logs/sanitizer.h).
// A report is a header line ("Invalid __global__ write of size 4 bytes", "Race reported
// between ...", "Barrier error detected ...") followed by detail lines ("at ...", "by
// thread ...", "Address ... is out of bounds", "and is 85 bytes after the nearest
// allocation ..."); every line may carry the "=========" prefix, or none when pasted.
#include <algorithm>
#include <map>

#include "sanitizer_detail.h"
#include "tilescope/base/regex.h"
#include "tilescope/logs/sanitizer.h"

namespace tilescope {
namespace {

using sv = std::string_view;
using detail::parseCount;
using detail::parseHex;

// No report line reaches this far; a longer one is cut (matching is linear, tilescope/base/regex.h).
constexpr std::size_t kMaxLine = 2048;
constexpr std::size_t kMaxFindings = 2000;

struct Patterns {
  Regex invalid{R"re(^Invalid (?:__(\w+)__ )?(read|write|atomic|\?)(?: of size (\d[\d,]*)(?: bytes?)?)?)re"};
  Regex uninit{
      R"re(^Uninitialized (?:__(\w+)__ )?memory (read|write|access)(?: of size (\d[\d,]*)(?: bytes?)?)?)re"};
  Regex hostApi{
      R"re(^Host API memory access error at host access to (0x[0-9a-fA-F]+) of size (\d[\d,]*) bytes?)re"};
  Regex race{
      R"re(^(?:(Error|Warning|ERROR|WARN|WARNING|INFO)\s*(?:\([^)]*\))?\s*:\s*(?:\([^)]*\)\s*)?)?Race reported between (Read|Write) access at (.*)$)re"};
  Regex hazard{
      R"re(^(?:(Error|Warning|ERROR|WARN|WARNING|INFO)\s*(?:\([^)]*\))?\s*:\s*(?:\([^)]*\)\s*)?)?Potential (RAW|WAR|WAW) hazard detected at __(\w+)__ (0x[0-9a-fA-F]+) in block \((\d+), ?(\d+), ?(\d+)\))re"};
  Regex barrier{R"re(^Barrier error detected\.?\s*(.*)$)re"};
  Regex api{R"re(^Program hit (\w+) \(error (\d+)\) due to "([^"]*)" on CUDA API call to (\w+))re"};
  Regex leak{R"re(^Leaked (\d[\d,]*) bytes? at (0x[0-9a-fA-F]+))re"};
  Regex andAccess{R"re(^and (Read|Write) access at (.*)$)re"};
  Regex hazardThread{R"re(^(Read|Write) Thread \((\d+), ?(\d+), ?(\d+)\) at (.*)$)re"};
  Regex byThread{R"re(^by thread \((\d+), ?(\d+), ?(\d+)\) in block \((\d+), ?(\d+), ?(\d+)\))re"};
  Regex address{
      R"re(^(?:Address|Access at|Access to) (0x[0-9a-fA-F]+)(?: is (out of bounds|misaligned))?)re"};
  Regex nearest{
      R"re(^and is (?:(inside)|(\d[\d,]*) bytes? (after|before)) the nearest allocation at (0x[0-9a-fA-F]+) of size (\d[\d,]*) bytes?)re"};
  Regex uninitAccess{R"re(^Uninitialized access at (0x[0-9a-fA-F]+) on access by (\S+))re"};
  Regex errorSummary{R"re(^ERROR SUMMARY: (\d[\d,]*) errors?( were not printed)?)re"};
  Regex raceSummary{
      R"re(^RACECHECK SUMMARY: (\d[\d,]*) hazards? displayed \((\d[\d,]*) errors?, (\d[\d,]*) warnings?\))re"};
};

const Patterns& patterns() {
  static const Patterns p;
  return p;
}

sv bodyOf(sv line) {
  if (line.size() > kMaxLine) line = line.substr(0, kMaxLine);
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  // A Markdown quote ("> Program hit ...") as pasted in issues
  while (!line.empty() && line.front() == '>') line.remove_prefix(1);
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  while (!line.empty() && line.front() == '=') line.remove_prefix(1);
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  while (!line.empty() && (line.back() == ' ' || line.back() == '\r' || line.back() == '\t'))
    line.remove_suffix(1);
  return line;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

std::string severityOf(const std::string& word) {
  const std::string w = lower(word);
  return w.rfind("warn", 0) == 0 || w == "info" ? "warning" : "error";
}

// "x [N hazards]" → x and N.
sv splitHazards(sv loc, long long* hazards) {
  const auto open = loc.rfind(" [");
  if (open != sv::npos && loc.back() == ']' && loc.find("hazard", open) != sv::npos) {
    *hazards = parseCount(loc.substr(open + 2));
    loc = loc.substr(0, open);
  }
  return loc;
}

SanitizerAccess accessFrom(const std::string& direction, sv loc) {
  SanitizerAccess a;
  a.direction = lower(direction);
  loc = splitHazards(loc, &a.hazards);
  detail::parseLocation(loc, &a.kernel, &a.pc, &a.file, &a.line);
  return a;
}

class TextParser {
 public:
  SanitizerReport run(sv text) {
    // The legacy tool names itself in its banner or in the command that was pasted.
    m_report.legacy = text.find("cuda-memcheck") != sv::npos || text.find("CUDA-MEMCHECK") != sv::npos;
    std::size_t start = 0, number = 0;
    while (start <= text.size() && m_report.findings.size() < kMaxFindings) {
      std::size_t end = text.find('\n', start);
      if (end == sv::npos) end = text.size();
      ++number;
      line(bodyOf(text.substr(start, end - start)), number);
      if (end == text.size()) break;
      start = end + 1;
    }
    flush();
    detail::settleTool(&m_report);
    return std::move(m_report);
  }

 private:
  void line(sv body, std::size_t number) {
    if (body.empty()) return;
    if (body == "COMPUTE-SANITIZER") return;
    if (body == "CUDA-MEMCHECK") {
      m_report.legacy = true;
      return;
    }
    const Patterns& p = patterns();
    RegexMatch m;
    const char first = body.front();
    // Cheap dispatch on the first letters before any regex runs.
    if (first == 'I' && body.rfind("Invalid ", 0) == 0 && p.invalid.search(body, m)) {
      begin("memcheck", "invalid_access", body, number);
      m_cur.space = m.str(1);
      m_cur.access = m[2] == "?" ? "" : m.str(2);
      m_cur.size = m.matched(3) ? int(parseCount(m.str(3))) : 0;
      return;
    }
    if (first == 'U' && body.rfind("Uninitialized ", 0) == 0) {
      if (p.uninit.search(body, m)) {
        begin("initcheck", "uninitialized", body, number);
        m_cur.space = m.str(1);
        m_cur.access = m[2] == "access" ? "read" : m.str(2);
        m_cur.size = m.matched(3) ? int(parseCount(m.str(3))) : 0;
        return;
      }
      if (m_open && p.uninitAccess.search(body, m)) {
        m_cur.address = parseHex(m.str(1));
        m_cur.apiCall = m.str(2);
        return;
      }
    }
    if (first == 'H' && p.hostApi.search(body, m)) {
      begin("initcheck", "uninitialized", body, number);
      m_cur.access = "read";
      m_cur.address = parseHex(m.str(1));
      m_cur.size = int(parseCount(m.str(2)));
      return;
    }
    if (body.find("Race reported between") != sv::npos && p.race.search(body, m)) {
      begin("racecheck", "race", body, number);
      if (m.matched(1)) m_cur.severity = severityOf(m.str(1));
      m_cur.space = "shared";
      sv loc = m[3];
      // One-line form: "... at A and Read access at B"
      std::string second;
      if (auto andPos = loc.find(" and ");
          andPos != sv::npos && loc.find(" access at ", andPos) != sv::npos) {
        second = std::string(loc.substr(andPos + 1));
        loc = loc.substr(0, andPos);
      }
      m_cur.accesses.push_back(accessFrom(m.str(2), loc));
      if (!second.empty()) andAccess(bodyOf(second));
      return;
    }
    if (body.find(" hazard detected at ") != sv::npos && p.hazard.search(body, m)) {
      begin("racecheck", "hazard", body, number);
      if (m.matched(1)) m_cur.severity = severityOf(m.str(1));
      m_cur.hazardType = m.str(2);
      m_cur.space = m.str(3);
      m_cur.address = parseHex(m.str(4));
      m_cur.block = Index3{std::stoll(m.str(5)), std::stoll(m.str(6)), std::stoll(m.str(7))};
      return;
    }
    if (first == 'B' && p.barrier.search(body, m)) {
      begin("synccheck", "barrier", body, number);
      return;
    }
    if (first == 'P' && p.api.search(body, m)) {
      begin("", "api_error", body, number);
      m_cur.apiError = m.str(1);
      m_cur.apiCall = m.str(4);
      return;
    }
    if (first == 'L' && p.leak.search(body, m)) {
      begin("memcheck", "leak", body, number);
      m_cur.size = int(std::min<long long>(parseCount(m.str(1)), 1LL << 30));
      m_cur.address = parseHex(m.str(2));
      return;
    }
    if (first == 'E' && p.errorSummary.search(body, m)) {
      flush();
      (m.matched(2) ? m_report.notPrinted : m_report.errorSummary) = parseCount(m.str(1));
      return;
    }
    if (first == 'R' && p.raceSummary.search(body, m)) {
      flush();
      m_report.hazardsDisplayed = parseCount(m.str(1));
      m_report.raceErrors = parseCount(m.str(2));
      m_report.raceWarnings = parseCount(m.str(3));
      if (m_report.tool.empty()) m_report.tool = "racecheck";
      return;
    }
    if (m_open) detailLine(body);
  }

  void detailLine(sv body) {
    const Patterns& p = patterns();
    RegexMatch m;
    if (body.rfind("and ", 0) == 0 && body.find(" access at ") != sv::npos) {
      andAccess(body);
      return;
    }
    if (body.rfind("and is ", 0) == 0 && p.nearest.search(body, m)) {
      m_cur.allocRelation = m.matched(1) ? "inside" : m.str(3);
      if (m.matched(2)) m_cur.allocDistance = std::uint64_t(parseCount(m.str(2)));
      m_cur.allocBase = parseHex(m.str(4));
      m_cur.allocSize = std::uint64_t(parseCount(m.str(5)));
      return;
    }
    if (body.rfind("at ", 0) == 0) {
      if (m_cur.kernel.empty() && !m_cur.pc && m_cur.file.empty())
        detail::parseLocation(body.substr(3), &m_cur.kernel, &m_cur.pc, &m_cur.file, &m_cur.line);
      return;
    }
    if (body.rfind("by thread", 0) == 0 && p.byThread.search(body, m)) {
      m_cur.thread = Index3{std::stoll(m.str(1)), std::stoll(m.str(2)), std::stoll(m.str(3))};
      m_cur.block = Index3{std::stoll(m.str(4)), std::stoll(m.str(5)), std::stoll(m.str(6))};
      return;
    }
    if ((body.rfind("Address ", 0) == 0 || body.rfind("Access ", 0) == 0) && p.address.search(body, m)) {
      m_cur.address = parseHex(m.str(1));
      if (m.matched(2) && m_cur.kind == "invalid_access")
        m_cur.kind = m[2] == "misaligned" ? "misaligned" : "out_of_bounds";
      return;
    }
    if ((body.rfind("Read Thread", 0) == 0 || body.rfind("Write Thread", 0) == 0) &&
        p.hazardThread.search(body, m)) {
      SanitizerAccess a = accessFrom(m.str(1), m[5]);
      a.thread = Index3{std::stoll(m.str(2)), std::stoll(m.str(3)), std::stoll(m.str(4))};
      m_cur.accesses.push_back(std::move(a));
      return;
    }
    if (body.rfind("Device Frame:", 0) == 0 && m_cur.file.empty()) {
      // "Device Frame: kernel(...)+0x19560 in file.py:2858": the first frame with a line.
      std::string kernel, file;
      std::optional<std::uint64_t> pc;
      int ln = 0;
      detail::parseLocation(bodyOf(body.substr(13)), &kernel, &pc, &file, &ln);
      if (!file.empty()) {
        m_cur.file = file;
        m_cur.line = ln;
      }
    }
  }

  void andAccess(sv body) {
    RegexMatch m;
    if (!patterns().andAccess.search(body, m)) return;
    m_cur.accesses.push_back(accessFrom(m.str(1), m[2]));
  }

  void begin(const std::string& tool, const std::string& kind, sv header, std::size_t number) {
    flush();
    m_cur = detail::Pending{};
    m_cur.tool = tool;
    m_cur.kind = kind;
    m_cur.message = std::string(header);
    m_cur.logLine = number;
    m_open = true;
  }

  void flush() {
    if (!m_open) return;
    m_open = false;
    detail::addFolded(&m_report, detail::finish(std::move(m_cur)), &m_folded);
  }

  SanitizerReport m_report;
  detail::Pending m_cur;
  bool m_open = false;
  std::map<std::string, std::size_t> m_folded;
};

}  // namespace

SanitizerReport parseSanitizerText(std::string_view text) { return TextParser().run(text); }

bool looksLikeSanitizerOutput(std::string_view text) {
  for (sv marker :
       {"COMPUTE-SANITIZER", "CUDA-MEMCHECK", "<ComputeSanitizerOutput", "Invalid __",
        "Race reported between", " hazard detected at __", "Barrier error detected", "Uninitialized __",
        "Program hit ", "Host API memory access error", "RACECHECK SUMMARY", "ERROR SUMMARY:"})
    if (text.find(marker) != sv::npos) return true;
  return false;
}

SanitizerReport parseSanitizerLog(std::string_view text) {
  if (text.find("<ComputeSanitizerOutput") != sv::npos) return parseSanitizerXml(text);
  return parseSanitizerText(text);
}

}  // namespace tilescope
