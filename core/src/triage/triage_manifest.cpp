// `tilescope-run triage --pairs FILE` (docs/triage.md, "A manifest of pairs"):
// pairs that no naming rule finds, listed one a line. The manifest is input
// from anyone, so its paths stay inside its folder (links resolved) unless the
// user says --allow-outside-paths, and a line that breaks a rule is an error
// naming the file and the line: nothing runs on a half-read manifest.
#include <stdexcept>
#include <string_view>

#include "tilescope/base/format.h"
#include "tilescope/base/json_input.h"
#include "tilescope/config/trust.h"
#include "triage_pairing.h"

namespace tilescope {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxPairNameChars = 200;

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

struct Manifest {
  fs::path file;  ///< as given
  fs::path dir;   ///< what relative paths resolve against (the file's folder as given)
  fs::path root;  ///< that folder, canonical: where every path must lie
  bool allowOutside = false;
  std::size_t line = 0;

  [[noreturn]] void fail(const std::string& why) const {
    throw std::runtime_error(file.string() + ":" + std::to_string(line) + ": " + why);
  }
};

/// `# tilescope.triage.pairs/N`: any N but 1 is a format this reader does not know.
void checkSchemaComment(const Manifest& m, std::string_view comment) {
  constexpr std::string_view family = "tilescope.triage.pairs/";
  const std::string_view c = trimmed(comment);
  if (c.substr(0, family.size()) != family) return;
  std::size_t end = 0;
  while (end < c.size() && !isBlank(c[end])) ++end;
  if (c.substr(0, end) != kTriagePairsSchema)
    m.fail("the format is " + clipForMessage(std::string(c.substr(0, end))) + "; this TileScope reads " +
           kTriagePairsSchema);
}

/// Splits at tabs: REFERENCE, CANDIDATE and an optional NAME, each trimmed.
std::vector<std::string_view> fieldsOf(const Manifest& m, std::string_view line) {
  std::vector<std::string_view> f;
  for (std::size_t start = 0;;) {
    const std::size_t tab = line.find('\t', start);
    f.push_back(trimmed(line.substr(start, tab == std::string_view::npos ? tab : tab - start)));
    if (tab == std::string_view::npos || f.size() > 3) break;
    start = tab + 1;
  }
  if (f.size() < 2 || f.size() > 3)
    m.fail("expected REFERENCE<TAB>CANDIDATE[<TAB>NAME], found " +
           (f.size() > 3 ? std::string("more than 3 fields") : "1 field (the fields are separated by tabs)"));
  for (std::size_t i = 0; i < f.size(); ++i)
    if (f[i].empty())
      m.fail(std::string(i == 0 ? "the reference" : i == 1 ? "the candidate" : "the name") + " is empty");
  return f;
}

/// The file a field names: resolved against the manifest's folder, confined to
/// it (before anything about the file is said), existing, holding `role`.
fs::path resolve(const Manifest& m, std::string_view field, const std::string& what, PyRole role) {
  const std::string shown = "'" + clipForMessage(std::string(field), 200) + "'";
  const fs::path given{std::string(field)};
  const fs::path p = given.is_absolute() ? given : m.dir / given;
  if (!m.allowOutside && !insideRoots(fs::absolute(p), {m.root}))
    m.fail("the " + what + " " + shown + " resolves outside the manifest's folder " + m.root.string() +
           " (--allow-outside-paths allows it)");
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) m.fail("the " + what + " " + shown + ": no such file");
  const PyRole got = pyRole(readSmallTriageFile(p));
  if (got != role && got != PyRole::both)
    m.fail("the " + what + " " + shown +
           (role == PyRole::reference ? " holds no top-level class Model with def get_inputs"
                                      : " holds no top-level class ModelNew") +
           (got == PyRole::none ? "" : " (the columns swapped?)"));
  return p;
}

TriageInput pairOfLine(const Manifest& m, std::string_view line) {
  const std::vector<std::string_view> f = fieldsOf(m, line);
  const fs::path ref = resolve(m, f[0], "reference", PyRole::reference);  // the reference's error first
  TriageInput in = problemPair(ref, resolve(m, f[1], "candidate", PyRole::candidate));
  if (f.size() == 3) {
    if (f[2].size() > kMaxPairNameChars)
      m.fail("the name is longer than " + std::to_string(kMaxPairNameChars) + " characters");
    for (char c : f[2])
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) m.fail("the name holds a control character");
    in.name = std::string(f[2]);
  }
  return in;
}

}  // namespace

std::vector<TriageInput> readTriagePairs(const fs::path& manifest, bool allowOutside) {
  Manifest m{manifest, manifest.parent_path(), {}, allowOutside, 0};
  const auto failFile = [&](const std::string& why) {
    throw std::runtime_error(manifest.string() + ": " + why);
  };
  std::error_code ec;
  if (!fs::is_regular_file(manifest, ec)) failFile("no such file (a manifest of pairs: docs/triage.md)");
  if (fs::file_size(manifest, ec) > kMaxTriageSourceBytes) failFile("over 4 MiB: not a manifest of pairs");
  m.root = fs::weakly_canonical(fs::absolute(m.dir.empty() ? fs::path(".") : m.dir), ec);
  const std::string text = readSmallTriageFile(manifest);
  std::vector<TriageInput> out;
  const std::string_view t(text);
  for (std::size_t start = 0; start < t.size();) {
    std::size_t end = t.find('\n', start);
    if (end == std::string_view::npos) end = t.size();
    const std::string_view raw = t.substr(start, end - start), line = trimmed(raw);
    start = end + 1;
    ++m.line;
    if (line.empty()) continue;
    if (line.front() == '#') {
      checkSchemaComment(m, line.substr(1));
      continue;
    }
    if (out.size() == kMaxTriageSearchEntries)
      m.fail("more than " + std::to_string(kMaxTriageSearchEntries) + " pairs: split the manifest");
    mergeTriageInputs(out, {pairOfLine(m, raw)});
  }
  if (out.empty()) failFile("no pairs (one a line: REFERENCE<TAB>CANDIDATE[<TAB>NAME])");
  return out;
}

}  // namespace tilescope
