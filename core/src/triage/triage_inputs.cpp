// Inputs of a triage: configs, capture folders, folders of them, and
// reference/candidate problems paired by name (docs/triage.md, "Inputs").
#include "tilescope/triage/triage_inputs.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "tilescope/capture/capture.h"

namespace tilescope {

namespace fs = std::filesystem;

namespace {

/// Larger Python files are not problems (KernelBench's are a few KiB); a config
/// given by hand is read whole only up to this size.
constexpr std::uintmax_t kMaxSourceBytes = 4u << 20;
constexpr int kMaxDepth = 8;

std::string readSmallFile(const fs::path& p) {
  std::error_code ec;
  const auto size = fs::file_size(p, ec);
  if (ec || size > kMaxSourceBytes) return "";
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool endsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string key(const fs::path& p) { return p.lexically_normal().generic_string(); }

/// "17_relu" for 17_relu.py, 17_relu_new.py and candidate/17_relu.py.
std::string problemStem(const fs::path& p) {
  std::string s = p.stem().string();
  if (endsWith(s, "_new")) s.resize(s.size() - 4);
  return s;
}

bool isCandidateDir(const std::string& d) { return d == "candidate" || d == "candidates"; }

TriageInput problemInput(const fs::path& ref, const fs::path& cand) {
  TriageInput in;
  in.kind = EntryKind::problem;
  in.id = key(cand);
  in.name = problemStem(ref.empty() ? cand : ref);
  in.inputs = {key(ref), key(cand)};
  return in;
}

TriageInput unpaired(const fs::path& p, PyRole role) {
  TriageInput in;
  in.kind = EntryKind::problem;
  in.id = key(p);
  in.name = problemStem(p);
  in.inputs = {key(p)};
  const std::string stem = problemStem(p);
  if (role == PyRole::reference)
    in.skipReason = "no candidate found for this reference (looked for " + stem + "_new.py beside it and " +
                    "candidate/" + stem + ".py beside its folder)";
  else
    in.skipReason = "no reference found for this candidate (looked for " + stem + ".py beside it and " +
                    "reference/" + stem + ".py beside its folder)";
  return in;
}

bool isConfigFile(const fs::path& p) {
  const std::string name = p.filename().string();
  if (endsWith(name, ".tscfg.json")) return true;
  if (p.extension() != ".json" || name == "capture.json") return false;
  static const std::regex schema(R"re("schema"\s*:\s*"tilescope\.config/)re");
  return std::regex_search(readSmallFile(p), schema);
}

void addCapture(const fs::path& dir, std::vector<TriageInput>& out, std::vector<std::string>* problems) {
  CaptureInfo info;
  try {
    info = loadCaptureInfo(dir);
  } catch (const std::exception& e) {
    if (problems) problems->push_back(dir.string() + ": " + e.what());
    return;
  }
  for (const CapturedLaunch& l : info.launches) {
    TriageInput in;
    in.kind = EntryKind::capture;
    if (!l.config.empty()) {
      in.id = key(dir / l.config);
      in.name = fs::path(l.config).filename().string();
      if (endsWith(in.name, ".tscfg.json")) in.name.resize(in.name.size() - 11);
      in.inputs = {in.id};
    } else {
      in.id = key(dir / "launches" / l.id);
      in.name = l.kernel.empty() ? l.id : l.kernel;
      in.skipReason = "launch " + l.id + " was recorded without a config: " + l.reason;
    }
    out.push_back(std::move(in));
  }
  if (info.launches.empty() && problems)
    problems->push_back(dir.string() + ": a capture folder without launches (" + info.exit.message + ")");
}

struct Search {
  std::vector<TriageInput>* out;
  std::vector<std::pair<fs::path, PyRole>> python;
  std::vector<std::string>* problems;
  fs::path skipDir;
};

void searchFolder(const fs::path& dir, int depth, Search& s) {
  std::error_code ec;
  if (fs::exists(dir / "capture.json", ec)) return addCapture(dir, *s.out, s.problems);
  std::vector<fs::path> children;
  for (const auto& de : fs::directory_iterator(dir, fs::directory_options::skip_permission_denied, ec))
    children.push_back(de.path());
  std::sort(children.begin(), children.end());  // plans are the same on every file system
  for (const fs::path& c : children) {
    const std::string name = c.filename().string();
    if (fs::is_directory(c, ec)) {
      if (depth < kMaxDepth && name[0] != '.' && name != "__pycache__" &&
          (s.skipDir.empty() || !fs::equivalent(c, s.skipDir, ec)))
        searchFolder(c, depth + 1, s);
    } else if (endsWith(name, ".tscfg.json")) {
      s.out->push_back({EntryKind::config, key(c), name.substr(0, name.size() - 11), {key(c)}, ""});
    } else if (c.extension() == ".py") {
      const PyRole role = pyRole(readSmallFile(c));
      if (role != PyRole::none) s.python.emplace_back(c, role);
    }
  }
}

void addFile(const fs::path& p, Search& s) {
  const std::string name = p.filename().string();
  if (p.extension() == ".py") {
    const PyRole role = pyRole(readSmallFile(p));
    if (role == PyRole::none) {
      if (s.problems) s.problems->push_back(p.string() + ": a Python file without class Model or ModelNew");
      return;
    }
    s.python.emplace_back(p, role);
    // Its partner, by the same rule as in a folder search.
    const std::string stem = problemStem(p);
    const fs::path dir = p.parent_path();
    std::vector<fs::path> partners = {dir / (stem + ".py"), dir / (stem + "_new.py")};
    for (const char* d : {"reference", "references", "candidate", "candidates"})
      for (const std::string& f : {stem + ".py", stem + "_new.py"})
        partners.push_back(dir.parent_path() / d / f);
    std::error_code ec;
    for (const fs::path& q : partners)
      if (q != p && fs::is_regular_file(q, ec)) s.python.emplace_back(q, pyRole(readSmallFile(q)));
  } else if (isConfigFile(p)) {
    std::string stem = name;
    if (endsWith(stem, ".tscfg.json"))
      stem.resize(stem.size() - 11);
    else
      stem = p.stem().string();
    s.out->push_back({EntryKind::config, key(p), stem, {key(p)}, ""});
  } else if (s.problems) {
    s.problems->push_back(p.string() + ": not a config, capture folder or Python problem");
  }
}

}  // namespace

PyRole pyRole(const std::string& text) {
  static const std::regex model(R"(^class\s+Model\s*[(:])", std::regex::multiline);
  static const std::regex modelNew(R"(^class\s+ModelNew\s*[(:])", std::regex::multiline);
  static const std::regex inputs(R"(^def\s+get_inputs\s*\()", std::regex::multiline);
  const bool m = std::regex_search(text, model) && std::regex_search(text, inputs);
  const bool n = std::regex_search(text, modelNew);
  if (m && n) return PyRole::both;
  if (m) return PyRole::reference;
  if (n) return PyRole::candidate;
  return PyRole::none;
}

std::vector<TriageInput> pairProblems(const std::vector<std::pair<fs::path, PyRole>>& files) {
  std::map<std::string, fs::path> refs;  // key(path) -> path
  std::vector<std::pair<fs::path, PyRole>> sorted(files);
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  for (const auto& [p, role] : sorted)
    if (role == PyRole::reference) refs[key(p)] = p;
  std::vector<TriageInput> out;
  std::set<std::string> used;
  for (const auto& [p, role] : sorted) {
    if (role == PyRole::both) out.push_back(problemInput(p, p));
    if (role != PyRole::candidate) continue;
    const std::string stem = problemStem(p);
    std::vector<fs::path> wanted;
    if (endsWith(p.stem().string(), "_new")) wanted.push_back(p.parent_path() / (stem + ".py"));
    if (isCandidateDir(p.parent_path().filename().string()))
      for (const char* d : {"reference", "references"})
        wanted.push_back(p.parent_path().parent_path() / d / (stem + ".py"));
    const fs::path* ref = nullptr;
    for (const fs::path& w : wanted)
      if (auto it = refs.find(key(w)); it != refs.end() && !used.count(it->first)) {
        ref = &it->second;
        break;
      }
    if (!ref) {
      out.push_back(unpaired(p, role));
      continue;
    }
    used.insert(key(*ref));
    out.push_back(problemInput(*ref, p));
  }
  for (const auto& [k, p] : refs)
    if (!used.count(k)) out.push_back(unpaired(p, PyRole::reference));
  // Problems in the order of their names, so a folder's plan reads like its listing.
  std::stable_sort(out.begin(), out.end(), [](const TriageInput& a, const TriageInput& b) {
    return a.inputs.front() < b.inputs.front();
  });
  return out;
}

std::vector<TriageInput> discoverTriageInputs(const std::vector<std::string>& args,
                                              std::vector<std::string>* problems, const fs::path& skipDir) {
  std::vector<TriageInput> all;
  for (const std::string& a : args) {
    std::vector<TriageInput> found;
    Search s{&found, {}, problems, skipDir};
    std::error_code ec;
    const fs::path p(a);
    if (fs::is_directory(p, ec))
      searchFolder(p, 0, s);
    else if (fs::is_regular_file(p, ec))
      addFile(p, s);
    else if (problems)
      problems->push_back(a + ": no such file or folder");
    for (TriageInput& in : pairProblems(s.python)) found.push_back(std::move(in));
    for (TriageInput& in : found) all.push_back(std::move(in));
  }
  // The same entry named twice (a file and its folder) runs once, where first named.
  std::set<std::string> seen;
  std::vector<TriageInput> out;
  for (TriageInput& in : all)
    if (seen.insert(in.id).second) out.push_back(std::move(in));
  return out;
}

TriageEntry plannedEntry(const TriageInput& in) {
  TriageEntry e;
  e.id = in.id;
  e.kind = in.kind;
  e.name = in.name;
  e.inputs = in.inputs;
  if (!in.skipReason.empty()) {
    e.status = EntryStatus::not_run;
    e.note = in.skipReason;
  }
  return e;
}

}  // namespace tilescope
