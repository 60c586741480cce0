// analyzeTrace: bad accesses -> located findings (see trace.h).
#include "tilescope/trace/trace.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "trace_detail.h"

namespace tilescope {

using namespace trace_detail;

const char* traceFaultKindName(TraceFaultKind k) {
  switch (k) {
    case TraceFaultKind::oob_read:
      return "oob_read";
    case TraceFaultKind::oob_write:
      return "oob_write";
    case TraceFaultKind::misaligned:
      return "misaligned";
    case TraceFaultKind::wild:
      return "wild";
    case TraceFaultKind::shared_oob:
      return "shared_oob";
    case TraceFaultKind::uninit:
      return "uninit_read";
  }
  return "unknown";
}

const char* traceFaultCategory(TraceFaultKind k) {
  switch (k) {
    case TraceFaultKind::oob_read:
      return "oob_read";
    case TraceFaultKind::oob_write:
      return "oob_write";
    case TraceFaultKind::misaligned:
      return "misaligned_access";
    case TraceFaultKind::wild:
    case TraceFaultKind::shared_oob:
      return "illegal_address";
    case TraceFaultKind::uninit:
      return "uninitialized_read";
  }
  return "illegal_address";
}

const char* hazardKindName(HazardKind k) {
  switch (k) {
    case HazardKind::raw:
      return "RAW";
    case HazardKind::waw:
      return "WAW";
    case HazardKind::war:
      return "WAR";
  }
  return "?";
}

namespace trace_detail {

Dim3 unlinear(std::uint64_t linear, const Dim3& extent) {
  const std::uint64_t x = std::max<std::uint32_t>(extent[0], 1), y = std::max<std::uint32_t>(extent[1], 1);
  return {std::uint32_t(linear % x), std::uint32_t(linear / x % y), std::uint32_t(linear / x / y)};
}

std::uint64_t keyOf(const Dim3& b, const Dim3& t, const Dim3& grid, const Dim3& blockDim) {
  const std::uint64_t bl = b[0] + std::uint64_t(grid[0]) * (b[1] + std::uint64_t(grid[1]) * b[2]);
  const std::uint64_t tl = t[0] + std::uint64_t(blockDim[0]) * (t[1] + std::uint64_t(blockDim[1]) * t[2]);
  return (bl << 32) | tl;
}

std::string dim3Text(const Dim3& d) {
  return "(" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) + ")";
}

// "_Z10load_tilesP6__half..." -> "load_tiles(__half*, ...)"; extern "C" names stay.
static std::string demangle(const std::string& symbol) {
  if (symbol.rfind("_Z", 0) != 0) return symbol;
  int status = 0;
  char* d = abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status);
  std::string out = status == 0 && d ? d : symbol;
  std::free(d);
  return out;
}

static std::string baseName(const std::string& p) {
  auto s = p.find_last_of('/');
  return s == std::string::npos ? p : p.substr(s + 1);
}

TraceSite siteOf(const TraceCapture& c, const LineTable& lines, std::uint64_t pc, const std::string& source) {
  TraceSite s;
  s.pc = pc;
  for (const TraceFunction& f : c.functions)
    if (pc >= f.base && pc < f.base + f.size) {
      s.function = demangle(f.name);
      s.sassOffset = pc - f.base;
      if (const LineRow* row = lines.lookup(f.name, s.sassOffset)) {
        // The config names the source as a person wrote it; the line table as the compiler saw it.
        s.file = !source.empty() && baseName(row->file) == baseName(source) ? source : row->file;
        s.line = row->line;
      }
      break;
    }
  return s;
}

std::string siteText(const TraceSite& s) {
  char off[32];
  std::snprintf(off, sizeof off, "+0x%llx", static_cast<unsigned long long>(s.sassOffset));
  std::string code = (s.function.empty() ? std::string("?") : s.function) + off;
  if (s.line > 0) return baseName(s.file) + ":" + std::to_string(s.line) + " (" + code + ")";
  return code;
}

Location siteLocation(const TraceSite& s) {
  Location l;
  l.function = s.function;
  l.sassOffset = s.sassOffset;
  if (s.line > 0) l.file = s.file, l.line = s.line;
  return l;
}

}  // namespace trace_detail

void unpackKey(std::uint64_t key, const Dim3& grid, const Dim3& block, Dim3* b, Dim3* t) {
  *b = unlinear(key >> 32, grid);
  *t = unlinear(key & 0xffffffffu, block);
}

namespace {

std::int64_t floorDiv(std::int64_t a, std::int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

/// Unravels a (possibly negative or past-the-end) element offset over `shape`
/// with the leading dimension unbounded, as tensors_guard does for guard zones.
std::vector<std::int64_t> unravel(std::int64_t e, const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> idx(shape.size(), 0);
  if (shape.empty()) return {e};
  for (std::size_t d = shape.size(); d-- > 1;) {
    const std::int64_t ext = std::max<std::int64_t>(shape[d], 1);
    idx[d] = ((e % ext) + ext) % ext;
    e = floorDiv(e, ext);
  }
  idx[0] = e;
  return idx;
}

// The tensor a wild address is nearest to (by distance to its span).
int nearestTensor(const TraceCapture& c, std::uint64_t addr) {
  int best = -1;
  std::uint64_t bestDist = ~0ull;
  for (std::size_t i = 0; i < c.tensors.size(); ++i) {
    const TraceTensor& t = c.tensors[i];
    const std::uint64_t d = addr < t.base              ? t.base - addr
                            : addr >= t.base + t.bytes ? addr - (t.base + t.bytes)
                                                       : 0;
    if (d < bestDist) bestDist = d, best = int(i);
  }
  return best;
}

TraceFault describe(const TraceCapture& c, const LineTable& lines, const TileLookup& tiles,
                    const std::string& source, const TraceRecord& r, const TracePc* pc,
                    std::optional<std::uint64_t> firstKey) {
  TraceFault f;
  f.kind = traceFaultKindName(r.kind);
  f.category = traceFaultCategory(r.kind);
  f.site = siteOf(c, lines, r.pc, source);
  f.size = r.size;
  f.write = r.flags & 2;
  f.atomic = (r.flags & 3) == 3;
  f.address = r.addr;
  f.block = r.block;
  f.thread = r.thread;
  if (r.flags & 0x100) f.space = "shared";
  if (r.flags & 0x200) f.window = "local";
  if (r.flags & 0x400) f.window = "shared";
  f.count = pc ? (r.kind == TraceFaultKind::uninit ? pc->uninit : pc->faults) : 1;
  f.stopped = r.kind == TraceFaultKind::misaligned || r.kind == TraceFaultKind::wild ||
              r.kind == TraceFaultKind::shared_oob;
  // No key (the PC had no slot): the record is all there is.
  const std::uint64_t mine = keyOf(r.block, r.thread, c.grid, c.block);
  std::uint64_t first = mine;
  if (firstKey.has_value()) first = *firstKey;
  f.exact = first == mine;
  if (!f.exact) unpackKey(first, c.grid, c.block, &f.block, &f.thread);
  if (tiles)
    if (auto hint = tiles(f.block)) f.tile = *hint;
  if (f.space == "shared") return f;
  const int ti = r.kind == TraceFaultKind::wild ? nearestTensor(c, r.addr) : r.tensor;
  if (ti < 0 || ti >= int(c.tensors.size())) return f;
  const TraceTensor& t = c.tensors[std::size_t(ti)];
  f.tensor = t.name;
  const std::int64_t rel = std::int64_t(r.addr - t.base);  // two's complement: negative before the start
  f.elementLinear = floorDiv(rel, std::max(t.elemSize, 1));
  f.element = unravel(f.elementLinear, t.shape);
  if (r.addr + r.size > t.base + t.bytes)
    f.bytesPastEnd = std::max<std::int64_t>(rel - std::int64_t(t.bytes), 0);
  if (r.addr < t.base) f.bytesBeforeStart = std::int64_t(t.base - r.addr);
  return f;
}

std::string elementText(const TraceFault& f) {
  std::string s = "[";
  for (std::size_t i = 0; i < f.element.size(); ++i) s += (i ? ", " : "") + std::to_string(f.element[i]);
  return s + "]";
}

std::string faultMessage(const TraceFault& f, std::uint64_t total, std::size_t sites) {
  std::string what;
  const std::string acc = std::to_string(f.size) + "-byte " +
                          (f.atomic  ? "atomic"
                           : f.write ? "write"
                                     : "read");
  if (f.kind == "oob_write" || f.kind == "oob_read") {
    what = f.tensor + ": " + acc + " " +
           (f.bytesBeforeStart ? std::to_string(*f.bytesBeforeStart) + " bytes before its start"
                               : std::to_string(f.bytesPastEnd.value_or(0)) + " bytes past its end") +
           ", element " + elementText(f);
  } else if (f.kind == "misaligned" && f.space == "shared") {
    what = "shared memory: " + acc + " at offset " + std::to_string(f.address) + ", " +
           std::to_string(f.address % std::max<std::uint32_t>(f.size, 1)) + " bytes off its " +
           std::to_string(f.size) + "-byte alignment";
  } else if (f.kind == "misaligned") {
    what = f.tensor + ": " + acc + " at an address " +
           std::to_string(f.address % std::max<std::uint32_t>(f.size, 1)) + " bytes off its " +
           std::to_string(f.size) + "-byte alignment (element " + elementText(f) + ")";
  } else if (f.kind == "wild") {
    what = acc + " outside every tensor of the launch";
    if (!f.window.empty())
      what += ", in the generic window of " + f.window + " memory beyond the " +
              (f.window == "local" ? "thread's" : "block's") +
              " own (a global access there faults with an invalid address space)";
    if (!f.tensor.empty())
      what += " (nearest: " + f.tensor + ", " +
              (f.bytesBeforeStart ? std::to_string(*f.bytesBeforeStart) + " bytes before its start"
                                  : std::to_string(f.bytesPastEnd.value_or(0)) + " bytes past its end") +
              ")";
  } else if (f.kind == "shared_oob") {
    what =
        acc + " of shared memory at offset " + std::to_string(f.address) + ", past the block's shared memory";
  } else {
    what = f.tensor + ": " + acc + " of element " + elementText(f) + " before any thread wrote it";
  }
  std::string m = what + " at " + siteText(f.site) + " by thread " + dim3Text(f.thread) + " of block " +
                  dim3Text(f.block);
  if (f.tile) {
    m += " (tile of " + f.tile->tensor + " at [";
    for (std::size_t i = 0; i < f.tile->origin.size(); ++i)
      m += (i ? ", " : "") + std::to_string(f.tile->origin[i]);
    m += "])";
  }
  m += "; " + std::to_string(total) + " such access" + (total == 1 ? "" : "es");
  if (sites > 1) m += " at " + std::to_string(sites) + " instructions";
  if (f.stopped) m += "; the tracer stopped the warp instead of letting it fault";
  return m;
}

const char* treeNodeOf(const std::string& kind) {
  if (kind == "oob_write") return "fault.oob_write";
  if (kind == "oob_read") return "fault.oob_read";
  if (kind == "misaligned") return "fault.misaligned_access.vector_width";
  if (kind == "uninit_read") return "wrong.uninitialized_read";
  return "fault.illegal_address";
}

Finding faultFinding(const std::vector<const TraceFault*>& group) {
  const TraceFault& first = *group.front();
  std::uint64_t total = 0;
  nlohmann::json sites = nlohmann::json::array();
  for (const TraceFault* f : group) {
    total += f->count;
    nlohmann::json s = toJson(siteLocation(f->site));
    s["count"] = f->count;
    sites.push_back(s);
  }
  Finding fd;
  fd.category = first.category;
  fd.severity = Severity::error;
  fd.tensor = first.tensor;
  fd.message = faultMessage(first, total, group.size());
  fd.treeNode = treeNodeOf(first.kind);
  if (first.kind == "wild" || first.kind == "shared_oob") fd.detail = first.kind;
  Location loc = siteLocation(first.site);
  loc.thread = {first.thread[0], first.thread[1], first.thread[2]};
  loc.block = {first.block[0], first.block[1], first.block[2]};
  loc.cta = loc.block;
  loc.ctas = {loc.block};
  if (!first.element.empty() && first.space != "shared")
    loc.elements = ElementRange{first.element, first.element, {}, {}, {}};
  if (first.space == "shared") loc.extra["shared_offset"] = first.address;
  // The first byte of the access relative to the tensor (its size is `access`).
  if (first.bytesPastEnd) loc.bytesPastEnd = ByteRange{*first.bytesPastEnd, *first.bytesPastEnd};
  if (first.bytesBeforeStart)
    loc.bytesBeforeStart = ByteRange{*first.bytesBeforeStart, *first.bytesBeforeStart};
  if (first.tile) {
    // The declared tile's index: tiles sit at multiples of their extent.
    for (std::size_t d = 0; d < first.tile->origin.size() && d < first.tile->extent.size(); ++d)
      loc.tile.push_back(floorDiv(first.tile->origin[d], std::max<std::int64_t>(first.tile->extent[d], 1)));
    loc.output = first.tile->tensor;
  }
  loc.access = MemoryAccess{first.atomic  ? "atomic"
                            : first.write ? "write"
                                          : "read",
                            static_cast<int>(first.size), first.space};
  fd.location = std::move(loc);
  fd.evidence = {{"source", "trace"},         {"kind", first.kind},    {"accesses", total},
                 {"access_size", first.size}, {"instructions", sites}, {"stopped", first.stopped},
                 {"first_exact", first.exact}};
  return fd;
}

}  // namespace

TraceAnalysis analyzeTrace(const TraceCapture& c, const LineTable& lines, const TileLookup& tiles,
                           const TraceOptionsForAnalysis& opts) {
  TraceAnalysis a;
  TraceInfo& info = a.info;
  info.status = "ok";
  info.mode = c.mode;
  info.kernel = c.kernel;
  info.file = opts.source;
  info.lineInfo = !lines.empty();
  info.grid = c.grid;
  info.block = c.block;

  // The first bad access of each (instruction, kind).
  std::map<std::uint64_t, const TracePc*> pcs;
  for (const TracePc& p : c.pcs) pcs[p.pc] = &p;
  std::map<std::pair<std::uint64_t, int>, const TraceRecord*> firstOf;
  for (const TraceRecord& r : c.records) {
    auto it = pcs.find(r.pc);
    const TracePc* p = it == pcs.end() ? nullptr : it->second;
    // The record of the PC's first key if it was kept, else the lowest one kept.
    bool hasWant = false;
    std::uint64_t target = 0;
    if (p) {
      const auto& w = r.kind == TraceFaultKind::uninit ? p->firstUninitKey : p->firstFaultKey;
      hasWant = w.has_value();
      target = w.value_or(0);
    }
    const std::uint64_t k = keyOf(r.block, r.thread, c.grid, c.block);
    auto& slot = firstOf[{r.pc, int(r.kind)}];
    const std::uint64_t held = slot ? keyOf(slot->block, slot->thread, c.grid, c.block) : ~0ull;
    const bool better = !slot || (hasWant && k == target) || (!(hasWant && held == target) && k < held);
    if (better) slot = &r;
  }
  for (const auto& [key, r] : firstOf) {
    auto it = pcs.find(key.first);
    const TracePc* p = it == pcs.end() ? nullptr : it->second;
    std::optional<std::uint64_t> want;
    if (p) want = r->kind == TraceFaultKind::uninit ? p->firstUninitKey : p->firstFaultKey;
    info.faults.push_back(describe(c, lines, tiles, opts.source, *r, p, want));
  }
  auto keyOfFault = [&](const TraceFault& f) { return keyOf(f.block, f.thread, c.grid, c.block); };
  std::stable_sort(info.faults.begin(), info.faults.end(),
                   [&](const TraceFault& x, const TraceFault& y) { return keyOfFault(x) < keyOfFault(y); });

  // One finding per (category, tensor), located at its first access.
  std::map<std::pair<std::string, std::string>, std::vector<const TraceFault*>> groups;
  std::vector<std::pair<std::string, std::string>> order;
  for (const TraceFault& f : info.faults) {
    auto k = std::make_pair(f.category + "/" + f.kind, f.tensor);
    if (!groups.count(k)) order.push_back(k);
    groups[k].push_back(&f);
    if (f.stopped) a.wouldFault = true;
    if (f.kind == "oob_write") a.oobWriteTensors.push_back(f.tensor);
    if (f.kind == "oob_read") a.oobReadTensors.push_back(f.tensor);
  }
  for (const auto& k : order) a.findings.push_back(faultFinding(groups[k]));

  for (const TraceHazard& h : c.hazards) {
    TraceHazardInfo hi;
    hi.kind = hazardKindName(h.kind);
    hi.first = siteOf(c, lines, h.pcFirst, opts.source);
    hi.second = siteOf(c, lines, h.pcSecond, opts.source);
    hi.firstThread = unlinear(h.tidFirst, c.block);
    hi.secondThread = unlinear(h.tidSecond, c.block);
    hi.block = h.block;
    hi.count = h.count;
    hi.sharedOffset = h.offset;
    info.hazards.push_back(hi);
  }
  std::stable_sort(info.hazards.begin(), info.hazards.end(),
                   [](const TraceHazardInfo& x, const TraceHazardInfo& y) { return x.count > y.count; });

  info.lines = foldLines(c, lines, opts.source);
  info.footprints = footprints(c, opts.reportCells, opts.reportCtas);
  TraceCounts& n = info.counts;
  n.globalAccesses = c.globalAccesses;
  n.sharedAccesses = c.sharedAccesses;
  n.localAccesses = c.localAccesses;
  n.barriers = c.barriers;
  n.stoppedWarps = c.stoppedWarps;
  n.mbarrierOps = c.mbarrierOps;
  for (const TracePc& p : c.pcs) {
    n.badAccesses += p.faults;
    n.uninitReads += p.uninit;
    n.hazards += p.hazards;
    n.sharedWavefronts += p.wavefronts;
    n.sharedIdeal += p.ideal;
  }
  info.limits = {c.recordsSeen,   c.maxRecords,     c.hazardOverflow, c.maxCtas,
                 c.untrackedCtas, c.untrackedSlots, c.outsidePcs};
  if (auto f = raceFinding(info)) a.findings.push_back(*f);
  if (auto f = bankConflictFinding(info, opts.bankConflictThreshold)) a.findings.push_back(*f);
  return a;
}

}  // namespace tilescope
