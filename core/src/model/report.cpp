// The report's behaviour beside its field lists (report_json.cpp): merging the
// points' findings, the verdict a finding implies, and reading and writing files
// so that a hostile file cannot crash the reader and a failed write cannot lose
// the report that was there.
#include "tilescope/model/report.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "tilescope/base/json_input.h"

namespace tilescope {

using nlohmann::json;

Verdict verdictForFinding(const Finding& f) { return categoryInfo(f.category).verdict; }

Verdict verdictForFindings(const std::vector<Finding>& findings) {
  Verdict v = Verdict::ok;
  for (const auto& f : findings) {
    const Verdict implied = verdictForFinding(f);
    // A warning or an info fails nothing; being slow is a verdict at any severity.
    if (f.severity == Severity::error || implied == Verdict::slow) v = worse(v, implied);
  }
  return v;
}

void Report::finalize() {
  verdict = Verdict::ok;
  findings.clear();
  for (const auto& p : points) {
    verdict = worse(verdict, p.verdict);
    for (const auto& f : p.findings) {
      // Merge: one finding per (category, detail, tensor) across points and trials;
      // the first point's message stands for all, evidence.points lists them.
      auto same = [&](const Finding& g) {
        return g.category == f.category && g.detail == f.detail && g.tensor == f.tensor;
      };
      auto it = std::find_if(findings.begin(), findings.end(), same);
      if (it == findings.end()) {
        Finding m = f;
        if (points.size() > 1) {
          if (!m.evidence.is_object()) m.evidence = json::object();
          m.evidence["points"] = json::array({p.index});
        }
        findings.push_back(std::move(m));
      } else if (points.size() > 1) {
        auto& pts = it->evidence["points"];
        if (std::find(pts.begin(), pts.end(), json(p.index)) == pts.end()) pts.push_back(p.index);
      }
    }
  }
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    return static_cast<int>(a.severity) > static_cast<int>(b.severity);
  });
}

LaunchGeometry launchGeometry(const LaunchInfo& l) {
  return {{l.grid[0], l.grid[1], l.grid[2]}, {l.block[0], l.block[1], l.block[2]}, l.sharedBytes};
}

int exitCodeFor(const Report& r) { return r.verdict == Verdict::ok ? kExitOk : kExitFindings; }

// ---------------------------------------------------------------- JSON text

namespace {

// Rejects nesting deeper than kMaxJsonDepth before nlohmann builds the tree: the
// recursive readers after it (and the tree's own destructor and dump) would
// otherwise exhaust the stack on a file of a million '['.
void checkDepth(const std::string& text) {
  int depth = 0, line = 1, column = 0;
  bool inString = false, escaped = false;
  for (char c : text) {
    ++column;
    if (c == '\n') ++line, column = 0;
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"')
      inString = true;
    else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        throw std::runtime_error("line " + std::to_string(line) + ", column " + std::to_string(column) +
                                 ": nesting deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

// "[json.exception.parse_error.101] parse error at line 1, ..." → "parse error at line 1, ...".
std::string withoutExceptionId(const char* what) {
  std::string s = what;
  if (!s.empty() && s[0] == '[') {
    auto close = s.find("] ");
    if (close != std::string::npos) s.erase(0, close + 2);
  }
  return s;
}

}  // namespace

json parseJson(const std::string& text) {
  checkDepth(text);
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    // The base reader's SAX pass names where: the JSON path of a number too
    // large for a double (1e400), line:col of a syntax error (issue 31, N13).
    JsonLimits any;
    any.maxBytes = text.size();
    any.maxDepth = kMaxJsonDepth + 1;
    any.maxMembers = text.size() + 1;
    any.rejectDuplicateKeys = false;
    try {
      (void)tilescope::parseJson(text, any);
    } catch (const JsonInputError& located) {
      throw std::runtime_error(located.where.empty() ? located.problem
                                                     : located.where + ": " + located.problem);
    }
    throw std::runtime_error(withoutExceptionId(e.what()));
  }
}

json parseJson(std::istream& in) {
  std::ostringstream s;
  s << in.rdbuf();
  return parseJson(s.str());
}

std::string dumpJson(const json& j, int indent) {
  return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

// ---------------------------------------------------------------- files

Report loadReport(const std::filesystem::path& file) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec))
    throw std::runtime_error(file.string() + ": is a directory, not a report");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error(file.string() + ": cannot open report");
  json j;
  try {
    j = parseJson(in);
  } catch (const std::exception& e) {
    throw std::runtime_error(file.string() + ": invalid JSON: " + e.what());
  }
  try {
    return reportFromJson(j);
  } catch (const std::exception& e) {
    throw std::runtime_error(file.string() + ": " + e.what());
  }
}

void writeFileAtomically(const std::filesystem::path& file, const std::string& text) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // Not a regular file (-o /dev/stdout, a pipe): write through, there is nothing to replace.
  if (fs::exists(file, ec) && !fs::is_regular_file(file, ec)) {
    std::ofstream out(file, std::ios::binary);
    if (!out || !(out << text) || !out.flush()) throw std::runtime_error(file.string() + ": cannot write");
    return;
  }
  // A link is followed: the file it names gets the new content, the link stays.
  const fs::path target = fs::is_symlink(file, ec) ? fs::canonical(file, ec) : file;
  static std::atomic<unsigned> counter{0};
  const fs::path tmp =
      target.string() + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  // O_EXCL: never through a file or link someone placed under that name.
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) throw std::runtime_error(file.string() + ": cannot write (" + std::strerror(errno) + ")");
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      throw std::runtime_error(file.string() + ": write failed (" + why + ")");
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0 || std::rename(tmp.c_str(), target.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    throw std::runtime_error(file.string() + ": write failed (" + why + ")");
  }
}

void saveReport(const Report& r, const std::filesystem::path& file) {
  writeFileAtomically(file, dumpJson(toJson(r), 1) + "\n");
}

}  // namespace tilescope
