// The pairing rule of a triage's Python problems (docs/triage.md, "Inputs"):
// which reference goes with which candidate, read off their names and folders
// only (pure over paths), and what a file left alone says was looked for.
#include "triage_pairing.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string_view>

namespace tilescope {

namespace fs = std::filesystem;

namespace {

/// reference[s]/ and candidate[s]/ are looked for this many folders above a file.
constexpr int kMaxMirrorDepth = 8;

bool endsWith(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

/// Consumes `lit` at the front of `s`.
bool eat(std::string_view& s, std::string_view lit) {
  if (s.substr(0, lit.size()) != lit) return false;
  s.remove_prefix(lit.size());
  return true;
}

/// Consumes 1 to 6 digits at the front of `s` into `out`.
bool number(std::string_view& s, int& out) {
  std::size_t n = 0;
  out = 0;
  while (n < s.size() && n < 7 && s[n] >= '0' && s[n] <= '9') out = out * 10 + (s[n++] - '0');
  if (n == 0 || n > 6) return false;
  s.remove_prefix(n);
  return true;
}

bool isCandidateDir(const std::string& d) { return d == "candidate" || d == "candidates"; }
bool isReferenceDir(const std::string& d) { return d == "reference" || d == "references"; }

/// A file under a reference[s]/ or candidate[s]/ folder: `base` holds that
/// folder, `rel` leads from it to the file's folder ("" when it is the folder).
struct Mirror {
  fs::path base, rel;
  bool candidateSide = false;
};

/// The nearest reference[s]/ or candidate[s]/ above `p`, within kMaxMirrorDepth folders.
std::optional<Mirror> mirrorOf(const fs::path& p) {
  fs::path dir = p.parent_path(), rel;
  for (int i = 0; i < kMaxMirrorDepth && dir.has_filename(); ++i) {
    const std::string name = dir.filename().string();
    if (isCandidateDir(name) || isReferenceDir(name))
      return Mirror{dir.parent_path(), rel, isCandidateDir(name)};
    if (name == "." || name == "..") break;
    rel = rel.empty() ? fs::path(name) : fs::path(name) / rel;
    dir = dir.parent_path();
  }
  return std::nullopt;
}

fs::path mirrored(const Mirror& m, const std::string& folder, const std::string& file) {
  return (m.rel.empty() ? m.base / folder : m.base / folder / m.rel) / file;
}

/// `w` as a person reads it from `p`'s folder ("17_relu.py", "../reference[s]/17_relu.py").
std::string fromFolderOf(const fs::path& p, const fs::path& w) {
  const fs::path r = w.lexically_normal().lexically_relative(p.parent_path().lexically_normal());
  return (r.empty() ? w : r).generic_string();
}

/// The references a candidate pairs with, in the rule's order (a KernelBench
/// sample's problem is looked up by number, after these).
std::vector<fs::path> wantedReferences(const fs::path& p, bool sample) {
  const std::string stem = p.stem().string(), name = problemStem(p);
  std::vector<fs::path> w;
  if (!sample && endsWith(stem, "_new")) w.push_back(p.parent_path() / (name + ".py"));
  if (!sample && !endsWith(stem, "_ref")) w.push_back(p.parent_path() / (name + "_ref.py"));
  if (const auto m = mirrorOf(p); m && m->candidateSide)
    for (const char* d : {"reference", "references"}) w.push_back(mirrored(*m, d, name + ".py"));
  return w;
}

std::string kernelBenchHint(const KernelBenchSample& k) {
  return "level" + std::to_string(k.level) + "/" + std::to_string(k.problem) +
         "_*.py (a KernelBench level folder among the inputs)";
}

constexpr const char* kPairsHint = "; --pairs FILE pairs files of any name";

TriageInput unpairedCandidate(const fs::path& p, const std::optional<KernelBenchSample>& sample) {
  const std::string stem = p.stem().string(), name = problemStem(p);
  std::string text;
  const auto add = [&](const std::string& what) { text += (text.empty() ? "" : ", ") + what; };
  if (!sample && endsWith(stem, "_new")) add(name + ".py");
  if (!sample && !endsWith(stem, "_ref")) add(name + "_ref.py");
  if (const auto m = mirrorOf(p); m && m->candidateSide)
    add(fromFolderOf(p, mirrored(*m, "reference[s]", name + ".py")));
  if (!text.empty()) text += " (paths from its folder)";
  if (sample) add(kernelBenchHint(*sample));
  if (text.empty()) text = "nothing: its name fits no rule";
  TriageInput in;
  in.kind = EntryKind::problem;
  in.id = triageKey(p);
  in.name = name;
  in.inputs = {triageKey(p)};
  in.skipReason = "no reference found for this candidate: looked for " + text + kPairsHint;
  return in;
}

TriageInput unpairedReference(const fs::path& p) {
  const std::string name = problemStem(p);
  std::string text = name + "_new.py";
  if (endsWith(p.stem().string(), "_ref")) text += ", " + name + ".py";
  if (const auto m = mirrorOf(p); m && !m->candidateSide)
    text += ", " + fromFolderOf(p, mirrored(*m, "candidate[s]", name + "[_new].py"));
  text += " (paths from its folder)";
  if (const auto k = kernelBenchProblem(p))
    text += ", level_" + std::to_string(k->level) + "_problem_" + std::to_string(k->problem) +
            "_sample_*_kernel.py (a KernelBench sample among the inputs)";
  TriageInput in;
  in.kind = EntryKind::problem;
  in.id = triageKey(p);
  in.name = name;
  in.inputs = {triageKey(p)};
  in.skipReason = "no candidate found for this reference: looked for " + text + kPairsHint;
  return in;
}

/// A file named as KernelBench names its samples that holds no class ModelNew
/// (a generation that produced no model): an entry that says so, not a silence.
TriageInput notACandidate(const fs::path& p, const KernelBenchSample& k) {
  TriageInput in;
  in.kind = EntryKind::problem;
  in.id = triageKey(p);
  in.name = problemStem(p);
  in.inputs = {triageKey(p)};
  in.skipReason = "named as KernelBench's sample " + std::to_string(k.sample) + " of level " +
                  std::to_string(k.level) + ", problem " + std::to_string(k.problem) +
                  ", but it holds no top-level class ModelNew: nothing to judge";
  return in;
}

struct References {
  std::map<std::string, fs::path> byPath;            ///< triageKey(path) -> path
  std::map<KernelBenchProblem, fs::path> byProblem;  ///< the first by path of each (level, number)
};

const fs::path* findReference(const fs::path& p, const std::optional<KernelBenchSample>& sample,
                              const References& refs) {
  for (const fs::path& w : wantedReferences(p, sample.has_value()))
    if (auto it = refs.byPath.find(triageKey(w)); it != refs.byPath.end()) return &it->second;
  if (!sample) return nullptr;
  const auto it = refs.byProblem.find({sample->level, sample->problem});
  return it == refs.byProblem.end() ? nullptr : &it->second;
}

}  // namespace

std::string readSmallTriageFile(const fs::path& p) {
  std::error_code ec;
  const auto size = fs::file_size(p, ec);
  if (ec || size > kMaxTriageSourceBytes) return "";
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string triageKey(const fs::path& p) { return p.lexically_normal().generic_string(); }

std::string problemStem(const fs::path& p) {
  std::string s = p.stem().string();
  if (kernelBenchSample(p)) {
    if (endsWith(s, "_kernel")) s.resize(s.size() - 7);
  } else if (endsWith(s, "_new") || endsWith(s, "_ref")) {
    s.resize(s.size() - 4);
  }
  return s;
}

std::optional<KernelBenchSample> kernelBenchSample(const fs::path& p) {
  if (p.extension() != ".py") return std::nullopt;
  const std::string stem = p.stem().string();
  std::string_view s = stem;
  KernelBenchSample k;
  if (!eat(s, "level_") || !number(s, k.level) || !eat(s, "_problem_") || !number(s, k.problem) ||
      !eat(s, "_sample_") || !number(s, k.sample))
    return std::nullopt;
  if (!s.empty() && s != "_kernel") return std::nullopt;
  return k;
}

std::optional<KernelBenchProblem> kernelBenchProblem(const fs::path& p) {
  if (p.extension() != ".py") return std::nullopt;
  const std::string dir = p.parent_path().filename().string(), stem = p.stem().string();
  std::string_view d = dir, s = stem;
  KernelBenchProblem k;
  if (!eat(d, "level")) return std::nullopt;
  eat(d, "_");
  if (!number(d, k.level) || !d.empty() || !number(s, k.problem) || (!s.empty() && s.front() != '_'))
    return std::nullopt;
  return k;
}

TriageInput problemPair(const fs::path& ref, const fs::path& cand) {
  TriageInput in;
  in.kind = EntryKind::problem;
  in.id = triageKey(cand);
  in.name = problemStem(ref);
  const auto sample = kernelBenchSample(cand);
  const auto problem = kernelBenchProblem(ref);
  if (ref != cand && sample && problem && problem->level == sample->level &&
      problem->problem == sample->problem)
    in.name = ref.parent_path().filename().string() + "/" + ref.stem().string() + "/sample_" +
              std::to_string(sample->sample);
  in.inputs = {triageKey(ref), triageKey(cand)};
  return in;
}

std::vector<std::pair<fs::path, fs::path>> partnerPaths(const fs::path& p) {
  const std::string name = problemStem(p);
  const fs::path dir = p.parent_path();
  const fs::path around = fs::absolute(dir.empty() ? fs::path(".") : dir).parent_path();
  std::vector<std::pair<fs::path, fs::path>> out;
  for (const std::string& f : {name + ".py", name + "_new.py", name + "_ref.py"})
    out.emplace_back(dir / f, around);
  if (const auto m = mirrorOf(p)) {
    const fs::path base = fs::absolute(m->base.empty() ? fs::path(".") : m->base);
    for (const char* d : {"reference", "references", "candidate", "candidates"})
      for (const std::string& f : {name + ".py", name + "_new.py"})
        out.emplace_back(mirrored(*m, d, f), base);
  }
  return out;
}

std::vector<TriageInput> pairProblems(const std::vector<std::pair<fs::path, PyRole>>& files) {
  std::vector<std::pair<fs::path, PyRole>> sorted(files);
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  References refs;
  for (const auto& [p, role] : sorted)
    if (role == PyRole::reference && !kernelBenchSample(p)) {
      refs.byPath.emplace(triageKey(p), p);
      if (const auto k = kernelBenchProblem(p)) refs.byProblem.emplace(*k, p);
    }
  std::vector<TriageInput> out;
  std::set<std::string> used;
  for (const auto& [p, role] : sorted) {
    const auto sample = kernelBenchSample(p);
    if (sample && (role == PyRole::none || role == PyRole::reference)) {
      out.push_back(notACandidate(p, *sample));
      continue;
    }
    if (role != PyRole::candidate && role != PyRole::both) continue;
    const fs::path* ref = findReference(p, sample, refs);
    // A file with both classes is a problem alone, unless it is a KernelBench
    // sample whose problem is here: the benchmark's reference judges it, not its copy.
    if (role == PyRole::both && (!sample || !ref)) {
      out.push_back(problemPair(p, p));
      continue;
    }
    if (!ref) {
      out.push_back(unpairedCandidate(p, sample));
      continue;
    }
    used.insert(triageKey(*ref));  // a reference may serve several candidates (KernelBench's samples)
    out.push_back(problemPair(*ref, p));
  }
  for (const auto& [k, p] : refs.byPath)
    if (!used.count(k)) out.push_back(unpairedReference(p));
  // Problems in the order of their names, so a folder's plan reads like its listing.
  std::stable_sort(out.begin(), out.end(), [](const TriageInput& a, const TriageInput& b) {
    return a.inputs.front() < b.inputs.front();
  });
  return out;
}

}  // namespace tilescope
