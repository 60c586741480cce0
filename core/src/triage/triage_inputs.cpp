// Inputs of a triage: configs, capture folders, folders of them, and
// reference/candidate problems paired by name (docs/triage.md, "Inputs").
#include "tilescope/triage/triage_inputs.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string_view>

#include "tilescope/capture/capture.h"
#include "tilescope/config/trust.h"
#include "triage_pairing.h"

namespace tilescope {

namespace fs = std::filesystem;

namespace {

constexpr int kMaxDepth = 8;

bool endsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string key(const fs::path& p) { return triageKey(p); }

bool isJsonSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

/// Whether a JSON text holds `"schema" : "tilescope.config/`, found by a scan
/// that is linear in the text: the blanks skipped after one `"schema"` end
/// before the next one starts (no std::regex over a file from anyone: it recursed
/// once per character; docs/security.md, "What is not trusted").
bool declaresConfigSchema(std::string_view t) {
  constexpr std::string_view key = "\"schema\"", value = "\"tilescope.config/";
  for (std::size_t at = t.find(key); at != std::string_view::npos; at = t.find(key, at + 1)) {
    std::size_t i = at + key.size();
    while (i < t.size() && isJsonSpace(t[i])) ++i;
    if (i == t.size() || t[i] != ':') continue;
    for (++i; i < t.size() && isJsonSpace(t[i]);) ++i;
    if (t.substr(i, value.size()) == value) return true;
  }
  return false;
}

bool isConfigFile(const fs::path& p) {
  const std::string name = p.filename().string();
  if (endsWith(name, ".tscfg.json")) return true;
  if (p.extension() != ".json" || name == "capture.json") return false;
  return declaresConfigSchema(readSmallTriageFile(p));
}

/// One search: everything one command-line input expands to. Nothing outside
/// `root` is read: a symbolic link is followed only when its target lies inside
/// it, and a folder or file reached twice (a link to ".") counts once.
struct Search {
  std::vector<TriageInput>* out = nullptr;
  std::vector<std::pair<fs::path, PyRole>> python;
  std::vector<std::string>* problems = nullptr;
  fs::path skipDir;
  fs::path root;                                ///< the input, canonical ("" for a file named alone)
  std::set<fs::path> seen;                      ///< canonical folders and files taken
  std::vector<std::pair<fs::path, int>> links;  ///< met in the real tree, followed after it
  std::vector<std::string> outside;             ///< links not followed: they lead out of root
  std::size_t folders = 0;
  bool full = false;  ///< a cap was reached: the search stopped
};

void problem(Search& s, const std::string& text) {
  if (s.problems) s.problems->push_back(text);
}

std::size_t taken(const Search& s) { return s.out->size() + s.python.size(); }

/// False (and, once, a message) when the search holds as much as one search may.
bool room(Search& s, const fs::path& where) {
  if (s.full) return false;
  if (taken(s) < kMaxTriageSearchEntries && s.folders <= kMaxTriageSearchFolders) return true;
  s.full = true;
  problem(
      s, where.string() + ": the search stopped at " +
             (s.folders > kMaxTriageSearchFolders ? std::to_string(kMaxTriageSearchFolders) + " folders"
                                                  : std::to_string(kMaxTriageSearchEntries) + " entries") +
             " (configs, launches and problem files); what lies beyond is not triaged: name smaller folders");
  return false;
}

/// The canonical path of `p` if it is inside the search's root and not taken
/// yet (then it is marked taken); "" otherwise.
fs::path takeOnce(const fs::path& p, Search& s) {
  std::error_code ec;
  const fs::path c = fs::weakly_canonical(p, ec);
  if (ec || (!s.root.empty() && !insideRoots(c, {s.root})) || !s.seen.insert(c).second) return {};
  return c;
}

void addCapture(const fs::path& dir, Search& s) {
  CaptureInfo info;
  try {
    info = loadCaptureInfo(dir);
  } catch (const std::exception& e) {
    problem(s, dir.string() + ": " + e.what());
    return;
  }
  for (const CapturedLaunch& l : info.launches) {
    if (!room(s, dir)) return;
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
      in.inputs = {key(dir / "capture.json")};  // what names the launch: a file inside the folder
      in.skipReason = "launch " + l.id + " has no config to run: " + l.reason;
    }
    s.out->push_back(std::move(in));
  }
  if (info.launches.empty())
    problem(s, dir.string() + ": a capture folder without launches (" + info.exit.message + ")");
}

bool searchable(const std::string& name) { return !name.empty() && name[0] != '.' && name != "__pycache__"; }

void searchFolder(const fs::path& dir, int depth, Search& s);

/// One file or folder of a folder being searched (already known to be inside root, not a link).
void searchChild(const fs::path& c, const fs::file_status& st, int depth, Search& s) {
  const std::string name = c.filename().string();
  std::error_code ec;
  if (fs::is_directory(st)) {
    if (depth < kMaxDepth && searchable(name) && (s.skipDir.empty() || !fs::equivalent(c, s.skipDir, ec)))
      searchFolder(c, depth + 1, s);
  } else if (!fs::is_regular_file(st)) {
    return;  // a socket, a FIFO, a device: nothing to read
  } else if (endsWith(name, ".tscfg.json")) {
    if (takeOnce(c, s).empty() || !room(s, c)) return;
    s.out->push_back({EntryKind::config, key(c), name.substr(0, name.size() - 11), {key(c)}, ""});
  } else if (c.extension() == ".py") {
    if (takeOnce(c, s).empty() || !room(s, c)) return;
    const PyRole role = pyRole(readSmallTriageFile(c));
    // A KernelBench sample without ModelNew is kept: its entry says so (a failed generation).
    if (role != PyRole::none || kernelBenchSample(c)) s.python.emplace_back(c, role);
  }
}

/// The real tree first: links are noted and followed after it, so an entry keeps
/// the path without links where it has one, whatever the names sort to.
void searchFolder(const fs::path& dir, int depth, Search& s) {
  if (takeOnce(dir, s).empty()) return;
  ++s.folders;
  if (!room(s, dir)) return;
  std::error_code ec;
  if (const fs::path capture = dir / "capture.json";
      fs::is_regular_file(capture, ec) && insideRoots(capture, {s.root}))
    return addCapture(dir, s);
  std::vector<std::pair<fs::path, fs::file_status>> children;
  for (const auto& de : fs::directory_iterator(dir, fs::directory_options::skip_permission_denied, ec)) {
    children.emplace_back(de.path(), de.symlink_status(ec));
    if (children.size() > kMaxTriageSearchEntries + kMaxTriageSearchFolders)
      break;  // the caps stop it anyway
  }
  std::sort(children.begin(), children.end(),  // plans are the same on every file system
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [c, st] : children) {
    if (s.full) return;
    if (fs::is_symlink(st))
      s.links.emplace_back(c, depth);
    else
      searchChild(c, st, depth, s);
  }
}

/// The links the tree search met, in the order met (a folder reached through a
/// link may hold links again): each followed only where it stays inside root.
void followLinks(Search& s) {
  for (std::size_t i = 0; i < s.links.size() && !s.full; ++i) {
    const auto [link, depth] = s.links[i];
    std::error_code ec;
    const fs::path target = fs::weakly_canonical(link, ec);
    if (ec || !insideRoots(target, {s.root})) {
      s.outside.push_back(link.filename().string());
      continue;
    }
    searchChild(link, fs::status(link, ec), depth, s);
  }
  if (s.outside.empty()) return;
  std::string names;
  for (std::size_t i = 0; i < s.outside.size() && i < 5; ++i) names += (i ? ", " : "") + s.outside[i];
  if (s.outside.size() > 5) names += ", ...";
  problem(s, s.root.string() + ": " + std::to_string(s.outside.size()) +
                 " symbolic link(s) lead out of the folder and were not followed (" + names + ")");
}

/// A Python file named alone, and its partners where the rule looks for them.
void addPython(const fs::path& p, Search& s) {
  const PyRole role = pyRole(readSmallTriageFile(p));
  if (role == PyRole::none) {
    problem(s, p.string() + ": a Python file without class Model or ModelNew");
    return;
  }
  s.python.emplace_back(p, role);
  // Only a file that lies where the rule looks (a link to elsewhere is no partner).
  std::error_code ec;
  for (const auto& [q, around] : partnerPaths(p)) {
    if (q == p || !fs::is_regular_file(q, ec) || !insideRoots(q, {fs::weakly_canonical(around, ec)}))
      continue;
    if (const PyRole r = pyRole(readSmallTriageFile(q)); r != PyRole::none) s.python.emplace_back(q, r);
  }
}

void addFile(const fs::path& p, Search& s) {
  const std::string name = p.filename().string();
  if (p.extension() == ".py") {
    addPython(p, s);
  } else if (isConfigFile(p)) {
    std::string stem = name;
    if (endsWith(stem, ".tscfg.json"))
      stem.resize(stem.size() - 11);
    else
      stem = p.stem().string();
    s.out->push_back({EntryKind::config, key(p), stem, {key(p)}, ""});
  } else {
    problem(s, p.string() + ": not a config, capture folder or Python problem");
  }
}

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r'; }

/// Whether a line starts `WORD<blank>+NAME<blank>*` and then one of `then`
/// (`class Model(`, `def get_inputs (`), within its first kMaxRoleLineChars.
bool definesName(std::string_view line, std::string_view word, std::string_view name, std::string_view then) {
  line = line.substr(0, kMaxRoleLineChars);
  if (line.substr(0, word.size()) != word) return false;
  std::size_t i = word.size();
  while (i < line.size() && isBlank(line[i])) ++i;
  if (i == word.size() || line.substr(i, name.size()) != name) return false;
  for (i += name.size(); i < line.size() && isBlank(line[i]);) ++i;
  return i < line.size() && then.find(line[i]) != std::string_view::npos;
}

}  // namespace

PyRole pyRole(const std::string& text) {
  // Line by line, each line looked at up to kMaxRoleLineChars: linear in the
  // text whatever it holds (std::regex recursed per character; docs/security.md,
  // "What is not trusted").
  bool model = false, modelNew = false, inputs = false;
  const std::string_view t(text);
  for (std::size_t start = 0; start <= t.size();) {
    std::size_t end = t.find('\n', start);
    if (end == std::string_view::npos) end = t.size();
    const std::string_view line = t.substr(start, end - start);
    model = model || definesName(line, "class", "Model", "(:");
    modelNew = modelNew || definesName(line, "class", "ModelNew", "(:");
    inputs = inputs || definesName(line, "def", "get_inputs", "(");
    start = end + 1;
  }
  const bool m = model && inputs;
  if (m && modelNew) return PyRole::both;
  if (m) return PyRole::reference;
  if (modelNew) return PyRole::candidate;
  return PyRole::none;
}

void mergeTriageInputs(std::vector<TriageInput>& into, std::vector<TriageInput> more) {
  std::map<std::string, std::size_t> at;
  for (std::size_t i = 0; i < into.size(); ++i) at.emplace(into[i].id, i);
  for (TriageInput& in : more) {
    const auto [it, added] = at.emplace(in.id, into.size());
    if (added)
      into.push_back(std::move(in));
    else if (!into[it->second].skipReason.empty() && in.skipReason.empty())
      into[it->second] = std::move(in);  // a pair found for what was left alone takes its place
  }
}

std::vector<TriageInput> discoverTriageInputs(const std::vector<std::string>& args,
                                              std::vector<std::string>* problems, const fs::path& skipDir) {
  // Each input is searched on its own (its root, its caps); the Python files of
  // all of them are paired together, so KernelBench's level folders pair with a
  // runs folder named beside them. A problem is listed with the input that
  // found its candidate (or its lone file).
  std::vector<std::vector<TriageInput>> found(args.size());
  std::vector<std::pair<fs::path, PyRole>> python;
  std::map<std::string, std::size_t> foundBy;  // key(python file) -> the first input that found it
  for (std::size_t i = 0; i < args.size(); ++i) {
    Search s;
    s.out = &found[i];
    s.problems = problems;
    s.skipDir = skipDir;
    std::error_code ec;
    const fs::path p(args[i]);
    if (fs::is_directory(p, ec)) {
      s.root = fs::weakly_canonical(fs::absolute(p, ec), ec);  // a link named on the command line is followed
      searchFolder(p, 0, s);
      followLinks(s);
    } else if (fs::is_regular_file(p, ec)) {
      addFile(p, s);
    } else if (problems) {
      problems->push_back(args[i] + ": no such file or folder");
    }
    for (auto& f : s.python) {
      foundBy.emplace(key(f.first), i);
      python.push_back(std::move(f));
    }
  }
  for (TriageInput& in : pairProblems(python)) {
    const auto by = foundBy.find(in.id);
    found[by == foundBy.end() ? 0 : by->second].push_back(std::move(in));
  }
  // The same entry named twice (a file and its folder) runs once, where first named.
  std::vector<TriageInput> out;
  for (std::vector<TriageInput>& f : found) mergeTriageInputs(out, std::move(f));
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
