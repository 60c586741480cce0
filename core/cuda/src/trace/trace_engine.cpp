// traceLaunch: patch, lay out the trace buffer, launch once, copy back.
#include "trace/trace_engine.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tilescope/cuda/driver.h"
#include "tilescope/cuda/module.h"
#include "trace/trace_abi.h"
#include "trace/trace_sanitizer.h"

#ifdef TILESCOPE_HAVE_SANITIZER
// The map reduction's fatbin, embedded by CMake (trace_reduce_blob.cpp) beside the patches.
extern "C" const unsigned char tilescope_trace_reduce[];
#endif

namespace tilescope::cuda::detail {
namespace {

// Offsets into one allocation, 256-byte aligned.
struct Layout {
  std::uint64_t size = 0;
  std::uint64_t take(std::uint64_t bytes) {
    const std::uint64_t off = (size + 255) / 256 * 256;
    size = off + bytes;
    return off;
  }
};

struct Region {
  std::uint64_t offset = 0, bytes = 0;
  std::uint8_t fill = 0;
};

// The map geometry of a tensor: rows x pitch elements, cells of 2^h x 2^w
// elements, at most `maxCells` of them.
void planMap(const DeviceTensor& t, std::int64_t maxCells, TsTensor* tt, TraceTensor* out) {
  const std::size_t es = dtypeSize(t.dtype);
  const std::int64_t span = std::int64_t(t.bytes / es);
  std::int64_t pitch = t.strides.size() >= 2 ? t.strides[t.strides.size() - 2] : span;
  if (pitch <= 0 || pitch > span) pitch = std::max<std::int64_t>(span, 1);
  const std::int64_t rows = (span + pitch - 1) / pitch;
  int sh = 0, sw = 0;
  while (((rows + (1 << sh) - 1) >> sh) * ((pitch + (1 << sw) - 1) >> sw) > maxCells) {
    if (((pitch + (1 << sw) - 1) >> sw) >= ((rows + (1 << sh) - 1) >> sh))
      ++sw;
    else
      ++sh;
  }
  tt->pitch = std::uint32_t(pitch);
  tt->rows = std::uint32_t(rows);
  tt->cellShiftH = std::uint32_t(sh);
  tt->cellShiftW = std::uint32_t(sw);
  tt->cellRows = std::uint32_t((rows + (1 << sh) - 1) >> sh);
  tt->cellCols = std::uint32_t((pitch + (1 << sw) - 1) >> sw);
  out->pitch = pitch;
  out->rows = rows;
  out->cellH = 1 << sh;
  out->cellW = 1 << sw;
  out->cellRows = tt->cellRows;
  out->cellCols = tt->cellCols;
}

std::int64_t decodeMin(std::uint32_t v) { return v == TS_NONE32 ? -1 : std::int64_t(v); }
// The device keeps a maximum as the minimum of ~x, so ~0 (CTA or row 0) and "none" share
// TS_NONE32: the minimum beside it tells them apart (no minimum, no maximum).
std::int64_t decodeMax(std::uint32_t v, std::int64_t min) {
  return min < 0 ? -1 : std::int64_t(std::uint32_t(~v));
}

bool download(CUdeviceptr base, std::uint64_t offset, void* dst, std::uint64_t bytes) {
  return bytes == 0 || cuMemcpyDtoH(dst, base + offset, bytes) == CUDA_SUCCESS;
}

// The map reduction (trace_reduce.cu), loaded once per context.
CUfunction reduceKernel(CUcontext ctx, std::string* error) {
#ifndef TILESCOPE_HAVE_SANITIZER
  (void)ctx;
  *error = "built without the tracer";
  return nullptr;
#else
  static CUcontext loadedIn = nullptr;
  static CUfunction fn = nullptr;
  if (loadedIn == ctx && fn) return fn;
  CUmodule m = nullptr;
  if (CUresult r = cuModuleLoadData(&m, tilescope_trace_reduce); r != CUDA_SUCCESS) {
    *error = "loading the map reduction: " + cuErrorText(r);
    return nullptr;
  }
  if (CUresult r = cuModuleGetFunction(&fn, m, "TsReduceCells"); r != CUDA_SUCCESS) {
    *error = "the map reduction's kernel: " + cuErrorText(r);
    return nullptr;
  }
  loadedIn = ctx;
  return fn;
#endif
}

// Folds tensor tt's map (at `cells` in the trace buffer) into blocks of fh x fw
// cells on the device and copies back the folded map (4 words per block, as
// the patches keep them) and the counts taken on the unfolded map.
bool reduceMap(CUcontext ctx, CUdeviceptr cells, const TsTensor& tt, int fh, int fw,
               std::vector<std::uint32_t>* out, TraceTensor::MapCounts* counts, std::string* error) {
  CUfunction fn = reduceKernel(ctx, error);
  if (!fn) return false;
  const std::uint32_t outRows = (tt.cellRows + fh - 1) / fh, outCols = (tt.cellCols + fw - 1) / fw;
  const std::size_t outBytes = std::size_t(outRows) * outCols * 16;
  CUdeviceptr d = 0;
  if (CUresult r = cuMemAlloc(&d, outBytes + 3 * 8); r != CUDA_SUCCESS) {
    *error = "allocating the folded map: " + cuErrorText(r);
    return false;
  }
  struct Free {
    CUdeviceptr p;
    ~Free() { cuMemFree(p); }
  } freeD{d};
  CUdeviceptr countsPtr = d + outBytes;
  std::uint32_t rows = tt.cellRows, cols = tt.cellCols, h = std::uint32_t(fh), w = std::uint32_t(fw),
                oc = outCols;
  void* params[] = {&cells, &rows, &cols, &h, &w, &oc, &d, &countsPtr};
  const std::uint64_t n = std::uint64_t(rows) * cols;
  CUresult r = cuMemsetD8(d, 0xFF, outBytes);
  if (r == CUDA_SUCCESS) r = cuMemsetD8(countsPtr, 0, 3 * 8);
  if (r == CUDA_SUCCESS)
    r = cuLaunchKernel(fn, unsigned((n + 255) / 256), 1, 1, 256, 1, 1, 0, nullptr, params, nullptr);
  if (r == CUDA_SUCCESS) r = cuCtxSynchronize();
  out->resize(outBytes / 4);
  unsigned long long c[3] = {0, 0, 0};
  if (r == CUDA_SUCCESS) r = cuMemcpyDtoH(out->data(), d, outBytes);
  if (r == CUDA_SUCCESS) r = cuMemcpyDtoH(c, countsPtr, sizeof c);
  if (r != CUDA_SUCCESS) {
    *error = "folding the map: " + cuErrorText(r);
    return false;
  }
  *counts = {std::int64_t(c[0]), std::int64_t(c[1]), std::int64_t(c[2])};
  return true;
}

// Functions of the traced module and where their code sits.
void findFunctions(const CompiledKernel& ck, CUmodule module, const std::string& entry, TraceCapture* c) {
  std::vector<std::string> names;
  if (ck.format == CompiledKernel::Format::cubin)
    for (const CubinSymbol& s : cubinSymbols(ck.image))
      if (s.function) names.push_back(s.name);
  if (std::find(names.begin(), names.end(), entry) == names.end()) names.push_back(entry);
  for (const std::string& n : names) {
    std::uint64_t pc = 0, size = 0;
    if (SanitizerApi::instance().functionPcAndSize(module, n, &pc, &size) && size > 0)
      c->functions.push_back({n, pc, size});
  }
}

}  // namespace

TracePc decodePc(const TsPc& p) {
  TracePc tp;
  tp.execs = p.execs;
  tp.flags = p.flags, tp.sizes = p.sizes;
  tp.faults = p.faults, tp.uninit = p.uninit, tp.hazards = p.hazards, tp.maxWays = p.maxWays;
  if (p.firstFaultKey) tp.firstFaultKey = ~p.firstFaultKey;
  if (p.firstUninitKey) tp.firstUninitKey = ~p.firstUninitKey;
  if (!(p.flags & (TS_PC_GLOBAL | TS_PC_SHARED | TS_PC_LOCAL))) return tp;  // a barrier: executions only
  // One instruction has one access size; the largest bit stands for it should a PC ever report two.
  const std::uint32_t size = p.sizes ? 1u << (31 - __builtin_clz(p.sizes)) : 0u;
  tp.threads = 32 * p.execs - std::min<std::uint64_t>(p.missingLanes, 32 * p.execs);
  tp.bytes = (p.flags & TS_PC_BULK) ? p.bulkBytes : tp.threads * size;
  if ((p.flags & TS_PC_SHARED) && !(p.flags & TS_PC_ASYNC)) {
    const std::uint64_t phases = size >= 8 ? size / 4 : 1;
    tp.ideal = p.execs * phases - std::min<std::uint64_t>(p.idealShort, p.execs * phases);
    tp.wavefronts = tp.ideal + p.extraWaves;
  }
  return tp;
}

namespace {

/// The trace buffer's plan: one allocation, each part at its offset, and what
/// each part is cleared to before the launch.
struct BufferPlan {
  Layout layout;
  std::vector<Region> regions;
  std::uint64_t reserve(std::uint64_t bytes, std::uint8_t fill) {
    const std::uint64_t off = layout.take(bytes);
    regions.push_back({off, bytes, fill});
    return off;
  }
};

/// Diagnostic (docs/measurements.md, "The tracer's own switches"):
/// TILESCOPE_TRACE_POINTS=0,2 patches only those entries of the point list
/// (0 global, 1 shared, 2 local, 3 barrier, 4 cp.async, 5 ldmatrix, 6 block
/// entry, 7 block exit) and no bulk copies or mbarriers; "none" patches nothing.
bool patchPointWanted(const char* only, std::size_t i) {
  if (!only || std::string(only) == "all") return true;
  return (std::string(",") + only + ",").find("," + std::to_string(i) + ",") != std::string::npos;
}

/// Setup: the Sanitizer API, and a second copy of the module patched (the first
/// stays untouched for the untraced launch and the timing). "" or why not.
std::string patchCopy(const TraceInputs& s, const CompiledKernel& ck, const TraceOptions& o, TraceRun& run,
                      LoadedKernel* tk) {
  SanitizerApi& api = SanitizerApi::instance();
  if (!api.init().empty()) return api.init();
  if (s.limits.ccMajor < 8)
    return "the tracer needs compute capability 8.0 or newer (this GPU is " +
           std::to_string(s.limits.ccMajor) + "." + std::to_string(s.limits.ccMinor) + ")";
  CUcontext ctx = nullptr;
  cuCtxGetCurrent(&ctx);
  if (auto e = api.addPatches(ctx); !e.empty()) return e;
  std::string err;
  if (!loadKernel(ck, tk, &err)) {
    if (tk->module) s.modules.push_back(*tk);
    return "loading the module to trace: " + err;
  }
  s.modules.push_back(*tk);
  std::vector<PatchPoint> points{PatchPoint::globalAccess, PatchPoint::sharedAccess, PatchPoint::localAccess,
                                 PatchPoint::barrier,      PatchPoint::memcpyAsync,  PatchPoint::matrixAccess,
                                 PatchPoint::blockEnter};  // always: it records the header (trace_patches.cu)
  if (o.hazards) points.push_back(PatchPoint::blockExit);
  const char* only = std::getenv("TILESCOPE_TRACE_POINTS");
  for (std::size_t i = 0; i < points.size(); ++i)
    if (patchPointWanted(only, i))
      if (auto e = api.patch(tk->module, points[i]); !e.empty()) return e;
  if (only && std::string(only) != "all") return api.patchModule(tk->module);
  // Hopper's bulk copies: where the API cannot patch them, the rest is still traced.
  for (PatchPoint p : {PatchPoint::bulkCopyGlobalToShared, PatchPoint::bulkCopySharedToGlobal})
    if (auto e = api.patch(tk->module, p); !e.empty())
      run.note += (run.note.empty() ? "" : "; ") + e + ": bulk copies not traced";
  // mbarrier operations: counted, so that hazards in a kernel ordered by them are not called proof.
  for (PatchPoint p : {PatchPoint::cudaBarrier, PatchPoint::cudaBarrierAttempt})
    if (auto e = api.patch(tk->module, p); !e.empty())
      run.note += (run.note.empty() ? "" : "; ") + e + ": mbarrier operations not counted";
  return api.patchModule(tk->module);
}

/// The header the patches read: options, the code range's PC slots, the limits,
/// the launch's shape and its shared window.
TsHeader traceHeader(const LaunchGeometry& g, const TraceOptions& o, std::uint64_t lo, std::uint64_t hi,
                     int staticSmem) {
  const std::uint64_t ctas = std::uint64_t(g.grid[0]) * g.grid[1] * g.grid[2];
  TsHeader h{};
  h.magic = TS_TRACE_MAGIC;
  h.version = TS_TRACE_VERSION;
  h.options = TS_OPT_FOOTPRINT | TS_OPT_SHARED | TS_OPT_UNINIT | (o.hazards ? TS_OPT_HAZARDS : 0u);
  if (const char* e = std::getenv("TILESCOPE_TRACE_NOP"); e && *e == '1') h.options |= TS_OPT_NOP;
  h.codeBase = lo;
  h.codeSize = hi - lo;
  h.numPcs = std::uint32_t((hi - lo + 15) / 16);
  h.maxRecords = o.maxRecords;
  h.maxHazards = o.maxHazards;
  h.maxCtas = std::uint32_t(std::min<std::uint64_t>(ctas, o.maxCtas));
  for (int d = 0; d < 3; ++d) h.grid[d] = g.grid[d], h.block[d] = g.block[d];
  h.blockThreads = g.block[0] * g.block[1] * g.block[2];
  // The shared window: static + dynamic + the 1 KiB the system reserves from sm_90 on (slack elsewhere).
  h.smemBytes = std::uint32_t(staticSmem) + g.sharedBytes + 1024;
  h.clusterCtas = g.cluster[0] * g.cluster[1] * g.cluster[2];
  return h;
}

/// The local-window offsets a generic access of the traced function may use:
/// its frame and the stack (the patches' frames included), with 64 KiB of
/// slack, since where the driver puts a thread's stack top is not exposed.
std::uint32_t localWindowBytes(CUfunction traced) {
  int local = 0;
  std::size_t stack = 0;
  cuFuncGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, traced);
  cuCtxGetLimit(&stack, CU_LIMIT_STACK_SIZE);
  const std::uint64_t bytes = std::uint64_t(std::max(local, 0)) + stack + (std::uint64_t(64) << 10);
  return std::uint32_t(std::min<std::uint64_t>(bytes, 0xFFFFFFFFu));
}

/// Each tensor's slot in the header, with its map, boxes and init bits in the
/// buffer; then the module's __device__ variables, legal targets too.
void planTensors(const TraceInputs& s, const CompiledKernel& ck, CUmodule module, std::int64_t cellBudget,
                 TsHeader& h, BufferPlan& plan, TraceCapture& c) {
  for (const DeviceTensor& t : s.tensors) {
    if (h.numTensors >= TS_MAX_TENSORS) break;
    TsTensor& tt = h.tensors[h.numTensors++];
    TraceTensor info;
    info.name = t.name;
    info.elemSize = int(dtypeSize(t.dtype));
    info.output = t.spec && t.spec->output;
    info.trackInit = info.output && t.sentinel;
    info.base = t.ptr, info.bytes = t.bytes;
    info.allocBegin = t.allocation, info.allocEnd = t.allocation + t.allocationBytes;
    info.shape = t.shape;
    tt.base = t.ptr, tt.bytes = t.bytes, tt.allocBegin = info.allocBegin, tt.allocEnd = info.allocEnd;
    tt.elemSize = std::uint32_t(info.elemSize);
    tt.spanElements = t.bytes / std::max<std::size_t>(dtypeSize(t.dtype), 1);
    tt.flags = (info.output ? TS_T_OUTPUT : 0u) | (info.trackInit ? TS_T_TRACK_INIT : 0u);
    // Element indices are 32-bit on the device: larger tensors are checked, not drawn.
    if (tt.spanElements < (std::uint64_t(1) << 32) && tt.spanElements > 0) {
      planMap(t, cellBudget, &tt, &info);
      tt.cellsOffset = plan.reserve(std::uint64_t(tt.cellRows) * tt.cellCols * 16, 0xFF);
      tt.boxesOffset = plan.reserve(std::uint64_t(h.maxCtas) * 2 * sizeof(TsBox), 0xFF);
      if (info.trackInit) tt.initOffset = plan.reserve((tt.spanElements + 31) / 32 * 4, 0);
    }
    c.tensors.push_back(std::move(info));
  }
  if (ck.format != CompiledKernel::Format::cubin) return;
  for (const CubinSymbol& sym : cubinSymbols(ck.image)) {
    if (sym.function || h.numTensors >= TS_MAX_TENSORS) continue;
    CUdeviceptr p = 0;
    std::size_t bytes = 0;
    if (cuModuleGetGlobal(&p, &bytes, module, sym.name.c_str()) != CUDA_SUCCESS || bytes == 0) continue;
    TsTensor& tt = h.tensors[h.numTensors++];
    tt.base = tt.allocBegin = p;
    tt.bytes = bytes;
    tt.allocEnd = p + bytes;
    tt.elemSize = 1;
    tt.flags = TS_T_MODULE;
  }
}

/// The hazard tracker's slots: one per resident CTA at most, its shadow (16
/// bytes per shared word) within a quarter of the free memory.
void planHazards(const TraceInputs& s, CUfunction plain, const LaunchGeometry& g, std::size_t free,
                 TsHeader& h, BufferPlan& plan) {
  const std::uint32_t threads = h.blockThreads;
  int perSm = 0;
  cuOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, plain, int(threads), g.sharedBytes);
  std::uint64_t slots =
      std::min<std::uint64_t>(h.maxCtas, std::uint64_t(std::max(perSm, 1)) * std::max(s.limits.smCount, 1));
  h.smemWords = h.smemBytes / 4;
  const std::uint64_t perSlot = std::uint64_t(h.smemWords) * 24 + std::uint64_t(threads) * 4 + 8;
  slots = std::max<std::uint64_t>(
      1, std::min<std::uint64_t>(slots, free / 4 / std::max<std::uint64_t>(perSlot, 1)));
  h.numSlots = std::uint32_t(slots);
  h.slotOwnerOffset = plan.reserve(slots * 4, 0xFF);
  h.slotExitOffset = plan.reserve(slots * 4, 0);
  h.ctaSlotOffset = plan.reserve(std::uint64_t(h.maxCtas) * 4, 0);
  h.epochOffset = plan.reserve(slots * threads * 4, 0);
  h.shadowOffset = plan.reserve(slots * h.smemWords * 16, 0);
  h.valueOffset = plan.reserve(slots * h.smemWords * 8, 0);
}

/// The PC slots that saw anything, and the access counts by space.
void readPcs(const std::vector<TsPc>& pcs, const TsHeader& back, std::uint64_t lo, TraceCapture& c) {
  std::uint64_t accesses[3] = {back.outsideGlobal, back.outsideShared, back.outsideLocal};
  std::uint64_t barriers = back.outsideBarriers;
  for (std::size_t i = 0; i < pcs.size(); ++i) {
    const TsPc& p = pcs[i];
    if (!p.execs && !p.faults && !p.uninit && !p.hazards) continue;
    TracePc tp = decodePc(p);
    tp.pc = lo + i * 16;
    if (p.flags & TS_PC_GLOBAL)
      accesses[0] += tp.threads;
    else if (p.flags & TS_PC_SHARED)
      accesses[1] += tp.threads;
    else if (p.flags & TS_PC_LOCAL)
      accesses[2] += tp.threads;
    if (p.flags & TS_PC_BARRIER) barriers += p.execs;
    c.pcs.push_back(tp);
  }
  c.globalAccesses = accesses[0], c.sharedAccesses = accesses[1], c.localAccesses = accesses[2];
  c.barriers = barriers;
}

/// The bad-access records and the hazards, as the device left them.
void readRecords(CUdeviceptr buf, const TsHeader& h, const TsHeader& back, TraceCapture& c) {
  c.recordsSeen = back.recordCount;
  c.maxRecords = h.maxRecords;
  std::vector<TsRecord> recs(std::min(back.recordCount, h.maxRecords));
  download(buf, h.recordsOffset, recs.data(), recs.size() * sizeof(TsRecord));
  for (const TsRecord& r : recs) {
    TraceRecord tr;
    tr.kind = TraceFaultKind(r.kind);
    tr.tensor = r.tensor == TS_NONE32 ? -1 : int(r.tensor);
    if (tr.tensor >= int(c.tensors.size())) tr.tensor = -1;  // a module variable: not drawn
    tr.size = r.size, tr.flags = r.flags, tr.pc = r.pc, tr.addr = r.addr;
    for (int d = 0; d < 3; ++d) tr.block[d] = r.block[d], tr.thread[d] = r.thread[d];
    c.records.push_back(tr);
  }
  std::vector<TsHazard> hz(h.maxHazards);
  download(buf, h.hazardsOffset, hz.data(), hz.size() * sizeof(TsHazard));
  for (const TsHazard& x : hz) {
    if (!x.sig) continue;
    TraceHazard th;
    th.kind = HazardKind(x.kind);
    th.pcFirst = x.pcFirst, th.pcSecond = x.pcSecond, th.count = x.count, th.offset = x.offset;
    th.tidFirst = x.tidFirst, th.tidSecond = x.tidSecond;
    for (int d = 0; d < 3; ++d) th.block[d] = x.block[d];
    c.hazards.push_back(th);
  }
}

/// The raw maps and boxes, per tensor, as copied back.
struct RawMaps {
  std::vector<std::vector<std::uint32_t>> cells;
  std::vector<std::vector<TsBox>> boxes;
};

/// Copies the maps and boxes back. A map larger than the report keeps is folded
/// to the report's size on the device first (trace_reduce.cu); should that fail,
/// the whole map comes back.
RawMaps readMaps(CUcontext ctx, CUdeviceptr buf, const TsHeader& h, const TraceOptions& o, TraceCapture& c,
                 TraceRun& run) {
  RawMaps raw{std::vector<std::vector<std::uint32_t>>(c.tensors.size()),
              std::vector<std::vector<TsBox>>(c.tensors.size())};
  for (std::size_t i = 0; i < c.tensors.size(); ++i) {
    const TsTensor& tt = h.tensors[i];
    if (tt.cellsOffset) {
      const auto [fh, fw] = footprintFold(tt.cellRows, tt.cellCols, o.reportCells);
      TraceTensor::MapCounts counts;
      std::string why;
      TraceTensor& t = c.tensors[i];
      if ((fh > 1 || fw > 1) &&
          reduceMap(ctx, buf + tt.cellsOffset, tt, fh, fw, &raw.cells[i], &counts, &why)) {
        t.deviceCounts = counts;
        t.cellH *= fh, t.cellW *= fw;
        t.cellRows = (t.cellRows + fh - 1) / fh, t.cellCols = (t.cellCols + fw - 1) / fw;
      } else {
        if (!why.empty())
          run.note += (run.note.empty() ? "" : "; ") + t.name + ": " + why + " (the whole map was copied)";
        raw.cells[i].resize(std::size_t(tt.cellRows) * tt.cellCols * 4);
        download(buf, tt.cellsOffset, raw.cells[i].data(), raw.cells[i].size() * 4);
      }
    }
    if (tt.boxesOffset) {
      raw.boxes[i].resize(std::size_t(h.maxCtas) * 2);
      download(buf, tt.boxesOffset, raw.boxes[i].data(), raw.boxes[i].size() * sizeof(TsBox));
    }
  }
  return raw;
}

/// Each tensor's reader/writer minima and maxima per cell, and its CTAs' boxes.
void decodeMaps(const TsHeader& h, RawMaps& raw, TraceCapture& c) {
  for (std::size_t i = 0; i < c.tensors.size(); ++i) {
    TraceTensor& t = c.tensors[i];
    if (const std::vector<std::uint32_t>& cells = raw.cells[i]; !cells.empty()) {
      const std::size_t n = cells.size() / 4;
      t.readMin.resize(n), t.readMax.resize(n), t.writeMin.resize(n), t.writeMax.resize(n);
      for (std::size_t k = 0; k < n; ++k) {
        t.readMin[k] = decodeMin(cells[k * 4]), t.readMax[k] = decodeMax(cells[k * 4 + 1], t.readMin[k]);
        t.writeMin[k] = decodeMin(cells[k * 4 + 2]),
        t.writeMax[k] = decodeMax(cells[k * 4 + 3], t.writeMin[k]);
      }
      std::vector<std::uint32_t>().swap(raw.cells[i]);
    }
    if (const std::vector<TsBox>& boxes = raw.boxes[i]; !boxes.empty()) {
      t.readBoxes.resize(h.maxCtas), t.writeBoxes.resize(h.maxCtas);
      for (std::size_t k = 0; k < boxes.size(); ++k) {
        const TsBox& b = boxes[k];
        TraceTensor::Box& out = (k % 2 ? t.writeBoxes : t.readBoxes)[k / 2];
        out.count = b.count == TS_NONE32 ? 0 : std::int64_t(~b.count);
        if (out.count > 0)
          out = {decodeMin(b.rowMin), decodeMax(b.rowMax, 0), decodeMin(b.colMin), decodeMax(b.colMax, 0),
                 out.count};
      }
    }
  }
}

/// The buffer's header and plan: PC slots, records, hazards, the tensors' maps,
/// the hazard shadow. "" or why it cannot be (it would take over half the free memory).
std::string planBuffer(const TraceInputs& s, const CompiledKernel& ck, const LaunchGeometry& g,
                       const TraceOptions& o, const LoadedKernel& tk, std::uint64_t lo, std::uint64_t hi,
                       TraceCapture& c, TsHeader* h, BufferPlan* plan) {
  CUfunction plain = s.modules.front().function;
  int staticSmem = 0;
  cuFuncGetAttribute(&staticSmem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, plain);
  if (g.sharedBytes > 48 * 1024)
    cuFuncSetAttribute(tk.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(g.sharedBytes));
  *h = traceHeader(g, o, lo, hi, staticSmem);
  h->localBytes = localWindowBytes(tk.function);
  plan->layout.take(sizeof(TsHeader));
  h->pcsOffset = plan->reserve(std::uint64_t(h->numPcs) * sizeof(TsPc), 0);
  h->recordsOffset = plan->reserve(std::uint64_t(h->maxRecords) * sizeof(TsRecord), 0);
  h->hazardsOffset = plan->reserve(std::uint64_t(h->maxHazards) * sizeof(TsHazard), 0);
  std::size_t free = 0, total = 0;
  cuMemGetInfo(&free, &total);
  planTensors(s, ck, tk.module, o.deviceCells, *h, *plan, c);
  if (o.hazards) planHazards(s, plain, g, free, *h, *plan);
  if (plan->layout.size <= free / 2) return "";
  return "the trace buffer needs " + std::to_string(plan->layout.size >> 20) +
         " MiB, more than half the free device memory (" + std::to_string(free >> 20) +
         " MiB): lower --trace-cells";
}

/// Allocates the buffer, clears its parts and uploads the header; "" or why not.
std::string prepareBuffer(const BufferPlan& plan, const TsHeader& h, CUfunction traced, CUdeviceptr* buf) {
  if (CUresult r = cuMemAlloc(buf, plan.layout.size); r != CUDA_SUCCESS)
    return "allocating the trace buffer: " + cuErrorText(r);
  for (const Region& r : plan.regions)
    if (r.bytes && cuMemsetD8(*buf + r.offset, r.fill, r.bytes) != CUDA_SUCCESS)
      return "clearing the trace buffer";
  if (cuMemcpyHtoD(*buf, &h, sizeof h) != CUDA_SUCCESS) return "uploading the trace header";
  if (auto e = SanitizerApi::instance().setCallbackData(traced, *buf); !e.empty()) return e;
  cuCtxSynchronize();  // the clearing memsets are asynchronous: their time is the buffer's, not the launch's
  return "";
}

}  // namespace

TraceRun traceLaunch(const TraceInputs& s, const CompiledKernel& ck, const LaunchGeometry& g,
                     KernelArgs& args, const TraceOptions& o) {
  TraceRun run;
  auto mark = [&run, t = std::chrono::steady_clock::now()](const char* phase) mutable {
    const auto now = std::chrono::steady_clock::now();
    run.phases.emplace_back(phase, std::chrono::duration<double>(now - t).count());
    t = now;
  };
  auto fail = [&](const std::string& e) {
    run.error = e;
    return run;
  };
  LoadedKernel tk;
  if (auto e = patchCopy(s, ck, o, run, &tk); !e.empty()) return fail(e);
  CUcontext ctx = nullptr;
  cuCtxGetCurrent(&ctx);

  TraceCapture& c = run.capture;
  c.mode = o.hazards ? "full" : "memory";
  c.kernel = tk.symbol;
  for (int d = 0; d < 3; ++d) c.grid[d] = g.grid[d], c.block[d] = g.block[d];
  findFunctions(ck, tk.module, tk.symbol, &c);
  if (c.functions.empty()) return fail("sanitizerGetFunctionPcAndSize found no function of the module");
  std::uint64_t lo = ~0ull, hi = 0;
  for (const auto& f : c.functions) lo = std::min(lo, f.base), hi = std::max(hi, f.base + f.size);
  if (hi - lo > (std::uint64_t(64) << 20))
    hi = lo + (std::uint64_t(64) << 20);  // PC slots for 64 MiB of code at most
  mark("setup");

  TsHeader h{};
  BufferPlan plan;
  if (auto e = planBuffer(s, ck, g, o, tk, lo, hi, c, &h, &plan); !e.empty()) return fail(e);
  CUdeviceptr buf = 0;
  const std::string bufferError = prepareBuffer(plan, h, tk.function, &buf);
  struct Free {
    CUdeviceptr p;
    ~Free() {
      if (p) cuMemFree(p);
    }
  } freeBuf{buf};
  if (!bufferError.empty()) return fail(bufferError);
  mark("buffer");

  const auto t0 = std::chrono::steady_clock::now();
  run.launchResult = launch(tk.function, g, args, nullptr);
  if (run.launchResult == CUDA_SUCCESS) run.launchResult = cuCtxSynchronize();
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (run.launchResult != CUDA_SUCCESS) {
    c.launchError = cuErrorText(run.launchResult);
    run.dead = isStickyError(run.launchResult);
    if (run.dead) return fail("the traced launch faulted: " + c.launchError);
  }
  mark("launch");

  // Copy back what the host reads (the shadow and the init bits stay behind):
  // all copied first (the phase "readback"), then decoded ("decode").
  TsHeader back{};
  std::vector<TsPc> pcs(h.numPcs);
  if (!download(buf, 0, &back, sizeof back) ||
      !download(buf, h.pcsOffset, pcs.data(), pcs.size() * sizeof(TsPc)))
    return fail("copying the trace back");
  readPcs(pcs, back, lo, c);
  if (back.orphanCalls)
    run.note += (run.note.empty() ? "" : "; ") + std::to_string(back.orphanCalls) +
                " patched accesses in out-of-line device functions came without the trace buffer "
                "(the Sanitizer API passed no userdata) and were not checked";
  readRecords(buf, h, back, c);
  RawMaps raw = readMaps(ctx, buf, h, o, c, run);
  mark("readback");
  decodeMaps(h, raw, c);
  c.hazardOverflow = back.hazardOverflow;
  c.outsidePcs = back.outsidePcs, c.stoppedWarps = back.stoppedWarps;
  c.mbarrierOps = back.mbarrierOps;
  c.maxCtas = h.maxCtas, c.untrackedCtas = back.untrackedCtas, c.untrackedSlots = back.untrackedSlots;
  mark("decode");

  if (ck.format == CompiledKernel::Format::cubin)
    run.lines = parseCubinLineTable(ck.image, &run.linesNote);
  else
    run.linesNote = "no line table: the module is not a cubin";
  mark("lines");
  run.ok = true;
  return run;
}

}  // namespace tilescope::cuda::detail
