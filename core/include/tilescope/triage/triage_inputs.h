// What `tilescope-run triage INPUT...` judges: the inputs expanded into entries
// (docs/triage.md, "Inputs"). Configs, capture folders (each config of one is an
// entry), folders of them, and KernelBench-style problems: a reference file
// (`class Model`, `get_inputs`, `get_init_inputs`) and a candidate (`class
// ModelNew`), paired by name. Pure over the file system; no process is started.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "tilescope/triage/triage.h"

namespace tilescope {

/// One command-line input expands to at most this many configs, capture
/// launches and Python problem files (each entry is a process or more; a folder
/// of generated kernels holds hundreds, KernelBench's three levels 250), and
/// its search visits at most this many folders; past either, the search stops
/// and says so in *problems.
inline constexpr std::size_t kMaxTriageSearchEntries = 10000;
inline constexpr std::size_t kMaxTriageSearchFolders = 10000;
/// pyRole reads this many characters of each line: `class ModelNew(` needs a
/// few dozen, and a file of one 4 MiB line costs no more than a short one.
inline constexpr std::size_t kMaxRoleLineChars = 256;

/// What a Python file holds, read off its top-level classes and functions.
enum class PyRole {
  none,       ///< neither
  reference,  ///< class Model (+ get_inputs)
  candidate,  ///< class ModelNew, no class Model
  both        ///< a problem in one file: Model and ModelNew
};
/// Line by line (each line up to kMaxRoleLineChars), in linear time: a line
/// `class<blanks>Model<blanks?>` then `(` or `:`, `class ... ModelNew`, `def
/// get_inputs(`; blanks are spaces, tabs, \f, \v and \r.
PyRole pyRole(const std::string& text);

/// One planned entry: what runTriage runs (or says why it cannot).
struct TriageInput {
  EntryKind kind = EntryKind::config;
  std::string id;                   ///< TriageEntry::id
  std::string name;                 ///< TriageEntry::name
  std::vector<std::string> inputs;  ///< config; or reference, candidate
  std::string skipReason;  ///< not "" : the entry cannot run (an unpaired file, a launch without config)
};

/// The pairing rule for the Python files of a triage (absolute or relative
/// paths, each with its role), in this order:
///  1. a file that holds both Model and ModelNew is a problem alone (unless it
///     is a KernelBench sample, rule 5, whose problem is among the files);
///  2. `DIR/NAME_new.py` (candidate) pairs with `DIR/NAME.py`, else `DIR/NAME_ref.py`;
///  3. `DIR/NAME.py` (candidate) pairs with `DIR/NAME_ref.py`;
///  4. `.../candidate[s]/SUB/NAME[_new].py` pairs with `.../reference[s]/SUB/NAME.py`
///     (SUB: any folders, the nearest candidate[s]/ above the file counts);
///  5. KernelBench: `level_L_problem_P_sample_S_kernel.py` (anywhere) pairs with
///     `levelL/P_Name.py` (the first by path when two are found).
/// A reference may serve several candidates. A reference or candidate left
/// without a partner becomes an entry with a skipReason that names the files
/// looked for; so does a KernelBench sample without class ModelNew (role none).
std::vector<TriageInput> pairProblems(const std::vector<std::pair<std::filesystem::path, PyRole>>& files);

/// Appends `more` to `into`, the same id once: the first kept, unless it cannot
/// run (a skipReason) and the later one can (a pair found for a file left alone).
void mergeTriageInputs(std::vector<TriageInput>& into, std::vector<TriageInput> more);

/// Expands the command line's inputs, in order, without duplicates (the same id
/// twice is one entry): a `.tscfg.json` (or a `.json` whose schema is
/// tilescope.config/N) is a config entry; a folder with `capture.json` gives one
/// capture entry per launch (a launch without a config is an entry that says
/// why); another folder is searched (8 levels at most, hidden folders and
/// `__pycache__` skipped, `skipDir` too: the triage's own output folder) for
/// configs, capture folders and Python problems; a `.py` file is paired as above
/// (its partners looked for beside it and in the mirrored folder). The Python
/// files of all inputs are paired together (KernelBench's level folders and a
/// runs folder are two inputs). Anything else is named in *problems
/// ("x.txt: not a config, capture folder or Python problem").
///
/// A folder search reads nothing outside the folder: the tree without links
/// first, then each symbolic link met, followed only when its target (resolved)
/// lies inside the folder; a folder or file reached twice (a link to ".") is
/// taken once, by canonical path; links that lead out are named in *problems.
/// One input gives at most kMaxTriageSearchEntries entries (a message says where
/// it stopped).
std::vector<TriageInput> discoverTriageInputs(const std::vector<std::string>& args,
                                              std::vector<std::string>* problems,
                                              const std::filesystem::path& skipDir = {});

inline constexpr const char* kTriagePairsSchema = "tilescope.triage.pairs/1";

/// The problems a `--pairs` manifest lists (docs/triage.md, "A manifest of
/// pairs"): one pair a line, `REFERENCE<TAB>CANDIDATE[<TAB>NAME]`; blank lines
/// and lines starting with `#` skipped (`# tilescope.triage.pairs/1` may say the
/// format; another version is refused). A relative path resolves against the
/// manifest's folder; every path, resolved through its links, must lie inside
/// that folder unless `allowOutside` (--allow-outside-paths). Each file must
/// exist and hold its role (class Model + get_inputs; class ModelNew). At most
/// kMaxTriageSearchEntries pairs. Throws std::runtime_error "FILE:LINE: why" for
/// the first line that breaks a rule, "FILE: why" for the file itself.
std::vector<TriageInput> readTriagePairs(const std::filesystem::path& manifest, bool allowOutside = false);

/// The entry a planned input starts as (status pending, or not_run with the skip reason).
TriageEntry plannedEntry(const TriageInput& in);

}  // namespace tilescope
