// Fuzzes the triage's input discovery (discoverTriageInputs, triage_inputs.h)
// over a scratch folder the input describes (fuzz_folder.h): names, NAME.py /
// NAME_new.py pairs, reference/ and candidate/ folders, capture folders,
// symbolic links (to ".", "..", "/", inside), file sizes, .json files with and
// without a config schema. The promises: no exception (what cannot be used is
// named in *problems), at most kMaxTriageSearchEntries entries per argument,
// no id twice, and every input of every entry inside the folder it was found
// in (a folder argument) or inside the scratch folder (a file argument, whose
// partner may lie beside its folder).
#include "fuzz_common.h"
#include "fuzz_folder.h"
#include "tilescope/triage/triage_inputs.h"

using namespace tilescope;
namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::FolderSpec spec = fuzz::FolderSpec::parse(fuzz::text(data, size));
  fuzz::Scratch scratch;
  const fs::path tree = scratch.root() / "in";  // the inputs; the scratch folder is around it
  fs::create_directory(tree);
  spec.build(tree);

  // The arguments: the tree itself, or what the input names in it (links named
  // on the command line are followed by design, so only names that resolve inside).
  std::vector<std::string> args;
  std::vector<fs::path> folders;
  bool files = false;
  for (const std::string& a : spec.args) {
    const fs::path p = tree / a;
    std::error_code ec;
    if (!fuzz::resolvesInside(p, tree) && fs::weakly_canonical(p, ec) != tree) continue;
    args.push_back(p.string());
    if (fs::is_directory(p, ec))
      folders.push_back(fs::weakly_canonical(p, ec));
    else
      files = true;
  }
  if (args.empty()) {
    args.push_back(tree.string());
    folders.push_back(tree);
  }

  std::vector<std::string> problems;
  const std::vector<TriageInput> found = discoverTriageInputs(args, &problems);

  if (found.size() > args.size() * kMaxTriageSearchEntries) fuzz::violated("more entries than the cap");
  std::vector<std::string> ids;
  for (const TriageInput& in : found) {
    if (in.id.empty() || in.inputs.empty()) fuzz::violated("an entry without an id or inputs");
    ids.push_back(in.id);
    for (const std::string& file : in.inputs) {
      bool inside = files && fuzz::resolvesInside(file, scratch.root());
      for (const fs::path& f : folders) inside = inside || fuzz::resolvesInside(file, f);
      if (!inside) fuzz::violated("an entry's input lies outside the folder searched: " + file);
    }
  }
  std::sort(ids.begin(), ids.end());
  if (std::adjacent_find(ids.begin(), ids.end()) != ids.end()) fuzz::violated("the same entry twice");
  for (const std::string& p : problems)
    if (p.empty()) fuzz::violated("an empty problem");
  return 0;
}
