// The text reports of compute-sanitizer and cuda-memcheck (tilescope/logs/sanitizer.h).
// A report is a header line ("Invalid __global__ write of size 4 bytes", "Race reported
// between ...", "Barrier error detected ...") followed by detail lines ("at ...", "by
// thread ...", "Address ... is out of bounds", "and is 85 bytes after the nearest
// allocation ..."); every line may carry the "=========" prefix, or none when pasted.
#include <algorithm>
#include <map>
#include <regex>

#include "sanitizer_detail.h"
#include "tilescope/logs/sanitizer.h"

namespace tilescope {
namespace {

using sv = std::string_view;
using detail::parseCount;
using detail::parseHex;

// std::regex recurses per character: lines are cut where no report line reaches.
constexpr std::size_t kMaxLine = 2048;
constexpr std::size_t kMaxFindings = 2000;

struct Patterns {
  std::regex invalid{
      R"re(^Invalid (?:__(\w+)__ )?(read|write|atomic|\?)(?: of size (\d[\d,]*)(?: bytes?)?)?)re"};
  std::regex uninit{
      R"re(^Uninitialized (?:__(\w+)__ )?memory (read|write|access)(?: of size (\d[\d,]*)(?: bytes?)?)?)re"};
  std::regex hostApi{
      R"re(^Host API memory access error at host access to (0x[0-9a-fA-F]+) of size (\d[\d,]*) bytes?)re"};
  std::regex race{
      R"re(^(?:(Error|Warning|ERROR|WARN|WARNING|INFO)\s*(?:\([^)]*\))?\s*:\s*(?:\([^)]*\)\s*)?)?Race reported between (Read|Write) access at (.*)$)re"};
  std::regex hazard{
      R"re(^(?:(Error|Warning|ERROR|WARN|WARNING|INFO)\s*(?:\([^)]*\))?\s*:\s*(?:\([^)]*\)\s*)?)?Potential (RAW|WAR|WAW) hazard detected at __(\w+)__ (0x[0-9a-fA-F]+) in block \((\d+), ?(\d+), ?(\d+)\))re"};
  std::regex barrier{R"re(^Barrier error detected\.?\s*(.*)$)re"};
  std::regex api{R"re(^Program hit (\w+) \(error (\d+)\) due to "([^"]*)" on CUDA API call to (\w+))re"};
  std::regex leak{R"re(^Leaked (\d[\d,]*) bytes? at (0x[0-9a-fA-F]+))re"};
  std::regex andAccess{R"re(^and (Read|Write) access at (.*)$)re"};
  std::regex hazardThread{R"re(^(Read|Write) Thread \((\d+), ?(\d+), ?(\d+)\) at (.*)$)re"};
  std::regex byThread{R"re(^by thread \((\d+), ?(\d+), ?(\d+)\) in block \((\d+), ?(\d+), ?(\d+)\))re"};
  std::regex address{
      R"re(^(?:Address|Access at|Access to) (0x[0-9a-fA-F]+)(?: is (out of bounds|misaligned))?)re"};
  std::regex nearest{
      R"re(^and is (?:(inside)|(\d[\d,]*) bytes? (after|before)) the nearest allocation at (0x[0-9a-fA-F]+) of size (\d[\d,]*) bytes?)re"};
  std::regex uninitAccess{R"re(^Uninitialized access at (0x[0-9a-fA-F]+) on access by (\S+))re"};
  std::regex errorSummary{R"re(^ERROR SUMMARY: (\d[\d,]*) errors?( were not printed)?)re"};
  std::regex raceSummary{
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
    std::cmatch m;
    const char* b = body.data();
    const char* e = body.data() + body.size();
    const char first = body.front();
    // Cheap dispatch on the first letters before any regex runs.
    if (first == 'I' && body.rfind("Invalid ", 0) == 0 && std::regex_search(b, e, m, p.invalid)) {
      begin("memcheck", "invalid_access", body, number);
      m_cur.space = m[1].str();
      m_cur.access = m[2] == "?" ? "" : m[2].str();
      m_cur.size = m[3].matched ? int(parseCount(m[3].str())) : 0;
      return;
    }
    if (first == 'U' && body.rfind("Uninitialized ", 0) == 0) {
      if (std::regex_search(b, e, m, p.uninit)) {
        begin("initcheck", "uninitialized", body, number);
        m_cur.space = m[1].str();
        m_cur.access = m[2] == "access" ? "read" : m[2].str();
        m_cur.size = m[3].matched ? int(parseCount(m[3].str())) : 0;
        return;
      }
      if (m_open && std::regex_search(b, e, m, p.uninitAccess)) {
        m_cur.address = parseHex(m[1].str());
        m_cur.apiCall = m[2].str();
        return;
      }
    }
    if (first == 'H' && std::regex_search(b, e, m, p.hostApi)) {
      begin("initcheck", "uninitialized", body, number);
      m_cur.access = "read";
      m_cur.address = parseHex(m[1].str());
      m_cur.size = int(parseCount(m[2].str()));
      return;
    }
    if (body.find("Race reported between") != sv::npos && std::regex_search(b, e, m, p.race)) {
      begin("racecheck", "race", body, number);
      if (m[1].matched) m_cur.severity = severityOf(m[1].str());
      m_cur.space = "shared";
      sv loc(m[3].first, static_cast<std::size_t>(m[3].length()));
      // One-line form: "... at A and Read access at B"
      std::string second;
      if (auto andPos = loc.find(" and ");
          andPos != sv::npos && loc.find(" access at ", andPos) != sv::npos) {
        second = std::string(loc.substr(andPos + 1));
        loc = loc.substr(0, andPos);
      }
      m_cur.accesses.push_back(accessFrom(m[2].str(), loc));
      if (!second.empty()) andAccess(bodyOf(second));
      return;
    }
    if (body.find(" hazard detected at ") != sv::npos && std::regex_search(b, e, m, p.hazard)) {
      begin("racecheck", "hazard", body, number);
      if (m[1].matched) m_cur.severity = severityOf(m[1].str());
      m_cur.hazardType = m[2].str();
      m_cur.space = m[3].str();
      m_cur.address = parseHex(m[4].str());
      m_cur.block = Index3{std::stoll(m[5].str()), std::stoll(m[6].str()), std::stoll(m[7].str())};
      return;
    }
    if (first == 'B' && std::regex_search(b, e, m, p.barrier)) {
      begin("synccheck", "barrier", body, number);
      return;
    }
    if (first == 'P' && std::regex_search(b, e, m, p.api)) {
      begin("", "api_error", body, number);
      m_cur.apiError = m[1].str();
      m_cur.apiCall = m[4].str();
      return;
    }
    if (first == 'L' && std::regex_search(b, e, m, p.leak)) {
      begin("memcheck", "leak", body, number);
      m_cur.size = int(std::min<long long>(parseCount(m[1].str()), 1LL << 30));
      m_cur.address = parseHex(m[2].str());
      return;
    }
    if (first == 'E' && std::regex_search(b, e, m, p.errorSummary)) {
      flush();
      (m[2].matched ? m_report.notPrinted : m_report.errorSummary) = parseCount(m[1].str());
      return;
    }
    if (first == 'R' && std::regex_search(b, e, m, p.raceSummary)) {
      flush();
      m_report.hazardsDisplayed = parseCount(m[1].str());
      m_report.raceErrors = parseCount(m[2].str());
      m_report.raceWarnings = parseCount(m[3].str());
      if (m_report.tool.empty()) m_report.tool = "racecheck";
      return;
    }
    if (m_open) detailLine(body, b, e);
  }

  void detailLine(sv body, const char* b, const char* e) {
    const Patterns& p = patterns();
    std::cmatch m;
    if (body.rfind("and ", 0) == 0 && body.find(" access at ") != sv::npos) {
      andAccess(body);
      return;
    }
    if (body.rfind("and is ", 0) == 0 && std::regex_search(b, e, m, p.nearest)) {
      m_cur.allocRelation = m[1].matched ? "inside" : m[3].str();
      if (m[2].matched) m_cur.allocDistance = std::uint64_t(parseCount(m[2].str()));
      m_cur.allocBase = parseHex(m[4].str());
      m_cur.allocSize = std::uint64_t(parseCount(m[5].str()));
      return;
    }
    if (body.rfind("at ", 0) == 0) {
      if (m_cur.kernel.empty() && !m_cur.pc && m_cur.file.empty())
        detail::parseLocation(body.substr(3), &m_cur.kernel, &m_cur.pc, &m_cur.file, &m_cur.line);
      return;
    }
    if (body.rfind("by thread", 0) == 0 && std::regex_search(b, e, m, p.byThread)) {
      m_cur.thread = Index3{std::stoll(m[1].str()), std::stoll(m[2].str()), std::stoll(m[3].str())};
      m_cur.block = Index3{std::stoll(m[4].str()), std::stoll(m[5].str()), std::stoll(m[6].str())};
      return;
    }
    if ((body.rfind("Address ", 0) == 0 || body.rfind("Access ", 0) == 0) &&
        std::regex_search(b, e, m, p.address)) {
      m_cur.address = parseHex(m[1].str());
      if (m[2].matched && m_cur.kind == "invalid_access")
        m_cur.kind = m[2] == "misaligned" ? "misaligned" : "out_of_bounds";
      return;
    }
    if ((body.rfind("Read Thread", 0) == 0 || body.rfind("Write Thread", 0) == 0) &&
        std::regex_search(b, e, m, p.hazardThread)) {
      SanitizerAccess a = accessFrom(m[1].str(), sv(m[5].first, static_cast<std::size_t>(m[5].length())));
      a.thread = Index3{std::stoll(m[2].str()), std::stoll(m[3].str()), std::stoll(m[4].str())};
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
    std::cmatch m;
    if (!std::regex_search(body.data(), body.data() + body.size(), m, patterns().andAccess)) return;
    m_cur.accesses.push_back(accessFrom(m[1].str(), sv(m[2].first, static_cast<std::size_t>(m[2].length()))));
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
