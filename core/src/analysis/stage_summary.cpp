// What each source line's SASS does (compiler_stages.h): instruction counts,
// memory access widths, tensor-core instructions, spills. The widths are in the
// opcode's modifiers: LDG.E is 32 bits a thread, .64 and .128 are vectorised,
// .U8/.S8/.U16/.S16 narrower; LDSM.16.M88.4 (ldmatrix .x4) gives each thread four
// 32-bit registers; TMA (UTMALDG/UTMASTG) and bulk copies (UBLKCP) move a block.
#include <algorithm>
#include <map>
#include <set>

#include "stage_text.h"
#include "tilescope/analysis/compiler_stages.h"

namespace tilescope {

using namespace stage_text;

namespace {

std::vector<std::string_view> modifiers(std::string_view opcode) {
  std::vector<std::string_view> out;
  std::size_t at = 0;
  while (at <= opcode.size()) {
    std::size_t dot = opcode.find('.', at);
    if (dot == std::string_view::npos) dot = opcode.size();
    out.push_back(opcode.substr(at, dot - at));
    at = dot + 1;
  }
  return out;
}

/// Bytes a thread moves, from the size modifier (32 bits when there is none).
int accessBytes(const std::vector<std::string_view>& mods) {
  int bytes = 4;
  for (std::size_t i = 1; i < mods.size(); ++i) {
    const auto m = mods[i];
    if (m == "U8" || m == "S8") bytes = 1;
    if (m == "U16" || m == "S16") bytes = 2;
    if (m == "32") bytes = 4;
    if (m == "64") bytes = 8;
    if (m == "128") bytes = 16;
    if (m == "256") bytes = 32;
  }
  return bytes;
}

/// ldmatrix/stmatrix: .1, .2 or .4 matrices of 8x8 16-bit values, one register each a thread.
int matrixBytes(const std::vector<std::string_view>& mods) {
  int n = 1;
  for (std::size_t i = 1; i < mods.size(); ++i)
    if (mods[i] == "1" || mods[i] == "2" || mods[i] == "4") n = mods[i][0] - '0';
  return 4 * n;
}

}  // namespace

SassClass classifySass(std::string_view opcode) {
  SassClass c;
  const auto mods = modifiers(opcode);
  const std::string_view base = mods.empty() ? opcode : mods[0];
  c.tensor =
      base.size() > 3 && base.substr(base.size() - 3) == "MMA";  // HMMA IMMA DMMA HGMMA QGMMA UTCHMMA ...
  if (base == "LDG" || base == "LDGSTS") {
    c.memory = SassMemory::globalLoad;
    c.bytes = accessBytes(mods);
    c.alsoSharedStore = base == "LDGSTS";
  } else if (base == "STG") {
    c.memory = SassMemory::globalStore;
    c.bytes = accessBytes(mods);
  } else if (base == "UTMALDG" || base == "UBLKCP") {
    c.memory = SassMemory::globalLoad;  // TMA: a tile of global memory into shared memory
  } else if (base == "UTMASTG" || base == "UBLKRED" || base == "UTMAREDG") {
    c.memory = SassMemory::globalStore;
  } else if (base == "LDS") {
    c.memory = SassMemory::sharedLoad;
    c.bytes = accessBytes(mods);
  } else if (base == "LDSM") {
    c.memory = SassMemory::sharedLoad;
    c.bytes = matrixBytes(mods);
  } else if (base == "STS") {
    c.memory = SassMemory::sharedStore;
    c.bytes = accessBytes(mods);
  } else if (base == "STSM") {
    c.memory = SassMemory::sharedStore;
    c.bytes = matrixBytes(mods);
  } else if (base == "LDL") {
    c.memory = SassMemory::localLoad;
    c.bytes = accessBytes(mods);
  } else if (base == "STL") {
    c.memory = SassMemory::localStore;
    c.bytes = accessBytes(mods);
  }
  return c;
}

namespace {

void addWidth(std::vector<WidthCount>& v, int bytes) {
  auto it = std::find_if(v.begin(), v.end(), [&](const WidthCount& w) { return w.bytes == bytes; });
  if (it == v.end())
    v.push_back({bytes, 1});
  else
    ++it->count;
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.bytes < b.bytes; });
}

void count(StageLineSummary& l, const SassInstruction& s) {
  ++l.sass;
  const SassClass c = classifySass(s.opcode);
  switch (c.memory) {
    case SassMemory::globalLoad:
      addWidth(l.globalLoads, c.bytes);
      break;
    case SassMemory::globalStore:
      addWidth(l.globalStores, c.bytes);
      break;
    case SassMemory::sharedLoad:
      addWidth(l.sharedLoads, c.bytes);
      break;
    case SassMemory::sharedStore:
      addWidth(l.sharedStores, c.bytes);
      break;
    case SassMemory::localLoad:
      ++l.localLoads;
      break;
    case SassMemory::localStore:
      ++l.localStores;
      break;
    case SassMemory::none:
      break;
  }
  if (c.alsoSharedStore) addWidth(l.sharedStores, c.bytes);
  if (c.tensor) {
    ++l.tensor;
    if (std::find(l.tensorOps.begin(), l.tensorOps.end(), s.opcode) == l.tensorOps.end() &&
        l.tensorOps.size() < 8)
      l.tensorOps.push_back(s.opcode);
  }
  if (int(l.instructions.size()) < kMaxLineInstructions) {
    char offset[24];
    std::snprintf(offset, sizeof offset, "/*%04llx*/ ", static_cast<unsigned long long>(s.offset));
    l.instructions.push_back(offset + s.text);
  }
}

using Key = std::pair<std::string, int>;

}  // namespace

std::vector<StageLineSummary> summarizeLines(const std::vector<SassInstruction>& sass, std::string_view ptx,
                                             const std::vector<StageSpan>& ptxSpans) {
  std::map<Key, StageLineSummary> byLine;
  auto at = [&](const std::string& file, int line) -> StageLineSummary& {
    StageLineSummary& l = byLine[{file, line}];
    l.file = file;
    l.line = line;
    return l;
  };
  for (const auto& s : sass)
    if (s.line > 0) count(at(s.file, s.line), s);
  if (!ptxSpans.empty()) {
    const auto lines = splitLines(ptx);
    for (const auto& span : ptxSpans) at(span.file, span.line).ptx += countPtxInstructions(span, lines);
  }
  std::vector<StageLineSummary> out;
  for (auto& [key, l] : byLine) out.push_back(std::move(l));
  if (out.size() > std::size_t(kMaxStageLines)) {
    // The busiest lines are the ones read: keep those, in file and line order.
    std::stable_sort(out.begin(), out.end(),
                     [](const auto& a, const auto& b) { return a.sass + a.ptx > b.sass + b.ptx; });
    out.resize(std::size_t(kMaxStageLines));
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
      return std::tie(a.file, a.line) < std::tie(b.file, b.line);
    });
  }
  return out;
}

}  // namespace tilescope
