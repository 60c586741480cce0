// Device patch functions of the tracer, compiled by nvcc with
// `-Xptxas --compile-as-tools-patch` into a fatbin that is embedded in the
// library and handed to sanitizerAddPatches. The Sanitizer API calls them at
// the patched instructions of the kernel under test, once per active thread,
// with `userdata` pointing at the trace buffer (trace_abi.h).
//
// Everything aggregates on the device: per-PC counters, per-CTA boxes and
// per-cell reader/writer maps (atomicMin only, so the host initialises whole
// regions with 0xFF: maxima and counts are stored complemented), a bounded
// list of bad accesses, a hash table of shared-memory hazard pairs. Warp-level
// work is done once per warp (or per group of lanes touching the same cell or
// word) by its lowest lane, found with __activemask/__match_any_sync: every
// lane of the active mask is at the same patched instruction.
//
// The cost of a trace is the cost of these atomics: every warp of a kernel
// hits the same PC slots and its CTA's boxes. So the hot path adds one
// counter per warp execution and derives the rest on the host (TsPc), and
// every monotone update (min, max, or) first reads the value and skips the
// atomic when it would change nothing. The read may be stale, but only in
// the safe direction: a minimum only falls and a set of bits only grows, so a
// stale value that already makes the atomic useless proves the current one
// does too.
//
// Tools patches may not use the `redux` instruction (__reduce_*_sync), so
// group reductions are trees of shuffles over the lanes' ranks in their group.
#include <sanitizer_patching.h>

#include "trace/trace_abi.h"

namespace {

__device__ __forceinline__ unsigned laneId() {
  unsigned l;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(l));
  return l;
}

__device__ __forceinline__ bool isLeader(unsigned mask) { return laneId() == unsigned(__ffs(mask) - 1); }

__device__ __forceinline__ uint32_t blockLinear() {
  return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}
__device__ __forceinline__ uint32_t threadLinear() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
// The order in which "first" is meant: lowest block, then lowest thread.
__device__ __forceinline__ uint64_t accessKey() { return (uint64_t(blockLinear()) << 32) | threadLinear(); }

__device__ __forceinline__ unsigned lanesBelow() {
  unsigned m;
  asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
  return m;
}

// A reduction over the lanes of `group` (every lane of it calls with the same
// mask); the result is valid in the group's lowest lane.
struct Group {
  unsigned mask, rank, n;
  __device__ explicit Group(unsigned m) : mask(m), rank(__popc(m & lanesBelow())), n(__popc(m)) {}
  template <class Op>
  __device__ uint32_t reduce(uint32_t v, Op op) const {
    for (unsigned off = 1; off < n; off <<= 1) {
      const unsigned srcRank = rank + off;
      const unsigned src = srcRank < n ? __fns(mask, 0, int(srcRank + 1)) : laneId();
      const uint32_t other = __shfl_sync(mask, v, int(src));
      if ((rank & (2 * off - 1)) == 0 && srcRank < n) v = op(v, other);
    }
    return v;
  }
  __device__ uint32_t min(uint32_t v) const {
    return reduce(v, [](uint32_t a, uint32_t b) { return a < b ? a : b; });
  }
  __device__ uint32_t max(uint32_t v) const {
    return reduce(v, [](uint32_t a, uint32_t b) { return a > b ? a : b; });
  }
  __device__ uint32_t sum(uint32_t v) const {
    return reduce(v, [](uint32_t a, uint32_t b) { return a + b; });
  }
};

template <class T>
__device__ __forceinline__ T* at(TsHeader* h, uint64_t offset) {
  return reinterpret_cast<T*>(reinterpret_cast<char*>(h) + offset);
}

__device__ __forceinline__ TsPc* pcSlot(TsHeader* h, uint64_t pc) {
  const uint64_t off = pc - h->codeBase;
  if (off >= h->codeSize) return nullptr;
  return at<TsPc>(h, h->pcsOffset) + (off >> 4);
}

__device__ __forceinline__ uint32_t log2Size(uint32_t size) { return 31 - __clz(size | 1); }

// Monotone updates that skip the atomic when a (possibly stale) read shows it
// would change nothing; see the file comment.
__device__ __forceinline__ void minTo(uint32_t* p, uint32_t v) {
  if (*p > v) atomicMin(p, v);
}
__device__ __forceinline__ void maxTo(uint32_t* p, uint32_t v) {
  if (*p < v) atomicMax(p, v);
}
__device__ __forceinline__ void setBits(uint32_t* p, uint32_t bits) {
  if ((*p & bits) != bits) atomicOr(p, bits);
}
__device__ __forceinline__ void add64(uint64_t* p, uint64_t v) {
  atomicAdd(reinterpret_cast<unsigned long long*>(p), (unsigned long long)v);
}

// Warp-aggregated per-PC counters: one lane adds the whole warp's figures
// (threads and bytes are derived on the host, see TsPc).
__device__ void countPc(TsHeader* h, TsPc* s, unsigned mask, uint32_t flags, uint32_t size,
                        uint64_t* outside) {
  if (!isLeader(mask)) return;
  const unsigned n = __popc(mask);
  if (!s) {
    add64(outside, n);
    add64(&h->outsidePcs, 1);
    return;
  }
  add64(&s->execs, 1);
  if (n != 32) add64(&s->missingLanes, 32 - n);
  setBits(&s->flags, flags);
  setBits(&s->sizes, 1u << log2Size(size));
}

// Appends to the bounded record list: the first half of it takes any record,
// the rest only records that lowered their PC's first key (so the exact first
// bad access of each PC is kept while the list lasts).
__device__ void appendRecord(TsHeader* h, uint32_t kind, uint32_t tensor, uint32_t size, uint32_t flags,
                             uint64_t pc, uint64_t addr, bool lowered) {
  const uint32_t seen = *reinterpret_cast<volatile uint32_t*>(&h->recordCount);
  if (!lowered && seen >= h->maxRecords / 2) return;
  const uint32_t i = atomicAdd(&h->recordCount, 1u);
  if (i >= h->maxRecords) return;
  TsRecord* r = at<TsRecord>(h, h->recordsOffset) + i;
  r->kind = kind;
  r->tensor = tensor;
  r->size = size;
  r->flags = flags;
  r->pc = pc;
  r->addr = addr;
  r->block[0] = blockIdx.x, r->block[1] = blockIdx.y, r->block[2] = blockIdx.z;
  r->thread[0] = threadIdx.x, r->thread[1] = threadIdx.y, r->thread[2] = threadIdx.z;
}

// Counts a bad access at its PC and keeps the lowest (block, thread) that made it.
__device__ void reportBad(TsHeader* h, TsPc* s, uint32_t kind, uint32_t tensor, uint32_t size, uint32_t flags,
                          uint64_t pc, uint64_t addr) {
  const uint64_t inv = ~accessKey();
  bool lowered = false;
  if (s) {
    if (kind == TS_K_UNINIT) {
      atomicAdd(&s->uninit, 1u);
      lowered = atomicMax(reinterpret_cast<unsigned long long*>(&s->firstUninitKey), inv) < inv;
    } else {
      atomicAdd(&s->faults, 1u);
      lowered = atomicMax(reinterpret_cast<unsigned long long*>(&s->firstFaultKey), inv) < inv;
    }
  }
  appendRecord(h, kind, tensor, size, flags, pc, addr, lowered);
}

// --- footprints --------------------------------------------------------------

struct Span {
  uint32_t e0, e1;  // first and last element touched (inclusive)
};

__device__ __forceinline__ void rowCol(const TsTensor& t, uint32_t e, uint32_t* r, uint32_t* c) {
  *r = e / t.pitch;
  *c = e - *r * t.pitch;
}

// Per-CTA box of one tensor, read (w = 0) or write (w = 1), for the lanes in `group`.
__device__ void updateBox(TsHeader* h, const TsTensor& t, unsigned group, uint32_t w, Span sp) {
  uint32_t r0, c0, r1, c1;
  rowCol(t, sp.e0, &r0, &c0);
  rowCol(t, sp.e1, &r1, &c1);
  if (r0 != r1) c0 = 0, c1 = t.pitch - 1;  // an access that wraps a row
  const Group g(group);
  const uint32_t rowMin = g.min(r0), rowMax = g.max(r1);
  const uint32_t colMin = g.min(c0), colMax = g.max(c1);
  const uint32_t b = blockLinear();
  if (!isLeader(group) || b >= h->maxCtas || t.boxesOffset == 0) return;
  TsBox* box = at<TsBox>(h, t.boxesOffset) + (uint64_t(b) * 2 + w);
  minTo(&box->rowMin, rowMin);
  minTo(&box->rowMax, ~rowMax);  // complemented: maxima are minima of ~x
  minTo(&box->colMin, colMin);
  minTo(&box->colMax, ~colMax);
  atomicSub(&box->count, unsigned(__popc(group)));  // starts at 0xFFFFFFFF: count = ~value
}

__device__ __forceinline__ uint32_t cellOf(const TsTensor& t, uint32_t e) {
  uint32_t r, c;
  rowCol(t, e, &r, &c);
  return (r >> t.cellShiftH) * t.cellCols + (c >> t.cellShiftW);
}

// Reader/writer map: min and (complemented) max CTA per cell. Lanes whose whole
// access falls in one cell are merged per cell; the others walk their elements.
__device__ void updateCells(TsHeader* h, const TsTensor& t, unsigned group, uint32_t w, Span sp) {
  if (t.cellsOffset == 0) return;
  uint32_t* cells = at<uint32_t>(h, t.cellsOffset);
  const uint32_t b = blockLinear();
  const uint32_t c0 = cellOf(t, sp.e0), c1 = cellOf(t, sp.e1);
  const unsigned same = __match_any_sync(group, c0 == c1 ? c0 : 0xFFFFFFFFu);
  if (c0 == c1) {
    if (isLeader(same)) {
      minTo(&cells[uint64_t(c0) * 4 + w * 2], b);
      minTo(&cells[uint64_t(c0) * 4 + w * 2 + 1], ~b);
    }
    return;
  }
  // One element per cell and row: the next is at the next cell's column or the next row.
  const uint32_t cellWidth = 1u << t.cellShiftW;
  for (uint32_t e = sp.e0;;) {
    uint32_t r, col;
    rowCol(t, e, &r, &col);
    const uint32_t c = (r >> t.cellShiftH) * t.cellCols + (col >> t.cellShiftW);
    minTo(&cells[uint64_t(c) * 4 + w * 2], b);
    minTo(&cells[uint64_t(c) * 4 + w * 2 + 1], ~b);
    const uint32_t step = min(cellWidth - (col & (cellWidth - 1)), t.pitch - col);
    if (sp.e1 - e < step) break;
    e += step;
  }
}

// Elements [e0, e1] of a tracked tensor: `write` sets their bits; otherwise the
// return says whether every element whose bytes are used was written before.
__device__ bool initBits(const TsTensor& t, TsHeader* h, Span sp, bool write, uint32_t usedBytes,
                         uint32_t firstByte) {
  uint32_t* bits = at<uint32_t>(h, t.initOffset);
  bool ok = true;
  for (uint32_t e = sp.e0; e <= sp.e1; ++e) {
    const uint32_t bit = 1u << (e & 31);
    if (write) {
      setBits(&bits[e >> 5], bit);
      continue;
    }
    // Bytes of element e within the access: [(e - e0) * es - firstByte, ...)
    const int lo = int((e - sp.e0) * t.elemSize) - int(firstByte);
    uint32_t elemMask = 0;
    for (uint32_t k = 0; k < t.elemSize; ++k)
      if (lo + int(k) >= 0 && lo + int(k) < 32) elemMask |= 1u << (lo + k);
    if ((usedBytes & elemMask) == 0) continue;
    if ((*reinterpret_cast<volatile uint32_t*>(&bits[e >> 5]) & bit) == 0) ok = false;
  }
  return ok;
}

// --- shared-memory hazards -------------------------------------------------------

__device__ __forceinline__ uint64_t packShadow(uint32_t tag, uint32_t epoch, uint32_t tid,
                                               uint32_t pcSlotIdx) {
  return (uint64_t(tag & 0xFFFFFu) << 44) | (uint64_t(epoch & 0x7FFu) << 33) |
         (uint64_t(tid & 0x7FFu) << 22) | uint64_t(pcSlotIdx & 0x3FFFFFu);
}
__device__ __forceinline__ uint32_t shTag(uint64_t v) { return uint32_t(v >> 44); }
__device__ __forceinline__ uint32_t shEpoch(uint64_t v) { return uint32_t(v >> 33) & 0x7FFu; }
__device__ __forceinline__ uint32_t shTid(uint64_t v) { return uint32_t(v >> 22) & 0x7FFu; }
__device__ __forceinline__ uint32_t shPc(uint64_t v) { return uint32_t(v) & 0x3FFFFFu; }

__device__ void recordHazard(TsHeader* h, uint32_t kind, uint64_t pcFirst, uint64_t pcSecond, uint32_t offset,
                             uint32_t tidFirst) {
  if (TsPc* s = pcSlot(h, pcSecond)) atomicAdd(&s->hazards, 1u);
  uint32_t sig =
      uint32_t(pcFirst - h->codeBase) * 2654435761u ^ uint32_t(pcSecond - h->codeBase) * 40503u ^ kind;
  sig |= 1u;
  TsHazard* table = at<TsHazard>(h, h->hazardsOffset);
  for (uint32_t probe = 0; probe < 16; ++probe) {
    TsHazard* e = &table[(sig + probe) % h->maxHazards];
    const uint32_t old = atomicCAS(&e->sig, 0u, sig);
    if (old == 0u) {
      e->kind = kind;
      e->pcFirst = pcFirst;
      e->pcSecond = pcSecond;
      e->offset = offset;
      e->tidFirst = tidFirst;
      e->tidSecond = threadLinear();
      e->block[0] = blockIdx.x, e->block[1] = blockIdx.y, e->block[2] = blockIdx.z;
      atomicAdd(&e->count, 1u);
      return;
    }
    if (old == sig) {
      atomicAdd(&e->count, 1u);
      return;
    }
  }
  atomicAdd(&h->hazardOverflow, 1u);
}

__device__ __forceinline__ int32_t mySlot(TsHeader* h) {
  const uint32_t b = blockLinear();
  if (b >= h->maxCtas) return -1;
  const uint32_t v = *reinterpret_cast<volatile uint32_t*>(at<uint32_t>(h, h->ctaSlotOffset) + b);
  return (v == 0 || v == TS_NONE32) ? -1 : int32_t(v - 1);
}

// One word of a shared access, checked against the last write and read of it in
// this CTA. Accesses of the same warp are not hazards (lanes of a warp are
// ordered by the warp's own execution and __syncwarp).
__device__ void hazardWord(TsHeader* h, int32_t slot, uint32_t word, bool write, uint64_t pc) {
  const uint32_t tid = threadLinear(), warp = tid >> 5;
  const uint32_t epoch = at<uint32_t>(h, h->epochOffset)[uint64_t(slot) * h->blockThreads + tid];
  const uint32_t tag = (blockLinear() + 1) & 0xFFFFFu;
  const uint32_t pcIdx = uint32_t((pc - h->codeBase) >> 4);
  unsigned long long* sh = reinterpret_cast<unsigned long long*>(at<uint64_t>(h, h->shadowOffset) +
                                                                 (uint64_t(slot) * h->smemWords + word) * 2);
  const uint64_t mine = packShadow(tag, epoch, tid, pcIdx);
  auto sameInterval = [&](uint64_t v) { return v != 0 && shTag(v) == tag && shEpoch(v) == (epoch & 0x7FFu); };
  if (write) {
    const uint64_t prev = atomicExch(&sh[0], (unsigned long long)mine);
    if (sameInterval(prev) && (shTid(prev) >> 5) != warp)
      recordHazard(h, TS_H_WAW, h->codeBase + uint64_t(shPc(prev)) * 16, pc, word * 4, shTid(prev));
    const uint64_t r = *reinterpret_cast<volatile unsigned long long*>(&sh[1]);
    if (sameInterval(r) && (shTid(r) == TS_SH_TID_MULTI || (shTid(r) >> 5) != warp))
      recordHazard(h, TS_H_WAR, h->codeBase + uint64_t(shPc(r)) * 16, pc, word * 4, shTid(r));
    return;
  }
  const uint64_t wv = *reinterpret_cast<volatile unsigned long long*>(&sh[0]);
  if (sameInterval(wv) && (shTid(wv) >> 5) != warp)
    recordHazard(h, TS_H_RAW, h->codeBase + uint64_t(shPc(wv)) * 16, pc, word * 4, shTid(wv));
  const uint64_t r = *reinterpret_cast<volatile unsigned long long*>(&sh[1]);
  if (!sameInterval(r)) {
    atomicCAS(&sh[1], (unsigned long long)r, (unsigned long long)mine);
  } else if (shTid(r) != TS_SH_TID_MULTI && (shTid(r) >> 5) != warp) {
    // A second warp read it in this interval: any later write by a third warp is a hazard too.
    atomicCAS(&sh[1], (unsigned long long)r,
              (unsigned long long)packShadow(tag, epoch, TS_SH_TID_MULTI, shPc(r)));
  }
}

// Bank conflicts of one warp-wide shared access (docs/report.md, "trace"): the
// request is split into phases of 128 bytes' worth of lanes (32 lanes for
// accesses of up to 4 bytes, 16 for 8, 8 for 16); within a phase each bank
// serves one distinct word (of the access's width, at least 4 bytes) per
// wavefront, so a phase takes as many wavefronts as the most distinct words any
// bank holds. The PC keeps only what departs from a full, conflict-free warp
// (TsPc): most executions add nothing.
__device__ void bankConflicts(TsPc* s, unsigned mask, uint32_t offset, uint32_t size) {
  const uint32_t unitShift = size >= 8 ? log2Size(size) : 2;
  const uint32_t banks = 128u >> unitShift;
  const uint32_t phases = 32u / banks;
  const uint32_t phase = laneId() / banks;
  const uint32_t word = offset >> unitShift;
  const uint32_t bank = word & (banks - 1);
  const unsigned sameWord = __match_any_sync(mask, (word << 2) | phase);
  const unsigned sameBank = __match_any_sync(mask, (bank << 2) | phase);
  const unsigned samePhase = __match_any_sync(mask, phase);
  const bool phaseLeader = isLeader(samePhase);
  const uint32_t ideal = __popc(__ballot_sync(mask, phaseLeader));
  // Conflict-free when every lane shares its bank only with lanes of its word.
  if (__all_sync(mask, sameWord == sameBank)) {
    if (s && isLeader(mask) && ideal != phases) add64(&s->idealShort, phases - ideal);
    return;
  }
  const unsigned wordLeaders = __ballot_sync(mask, isLeader(sameWord));
  const uint32_t distinct = __popc(sameBank & wordLeaders);
  // Leader-only results: the phase leader holds its phase's wavefronts.
  const uint32_t phaseWaves = Group(samePhase).max(distinct);
  const Group warp(mask);
  const uint32_t waves = warp.sum(phaseLeader ? phaseWaves : 0u);
  const uint32_t worst = warp.max(phaseLeader ? phaseWaves : 0u);
  if (!s || !isLeader(mask)) return;
  if (waves > ideal) add64(&s->extraWaves, waves - ideal);
  if (ideal != phases) add64(&s->idealShort, phases - ideal);
  maxTo(&s->maxWays, worst);
}

// The checks and footprints of one global access by the lanes of `mask` (every
// lane of it calls, with its own address). Returns true where the access must
// not happen (it would fault and kill the context): the caller exits the warp.
__device__ bool globalAccess(TsHeader* h, TsPc* s, unsigned mask, uint64_t pc, uint64_t a, uint32_t size,
                             uint32_t align, uint32_t flags, bool write, bool atomic, uint32_t usedBytes) {
  uint32_t ti = TS_NONE32;
  for (uint32_t i = 0; i < h->numTensors; ++i)
    if (a >= h->tensors[i].allocBegin && a < h->tensors[i].allocEnd) {
      ti = i;
      break;
    }
  const TsTensor* t = ti == TS_NONE32 ? nullptr : &h->tensors[ti];
  const bool inBounds = t && a >= t->base && a + size <= t->base + t->bytes;
  uint32_t kind = 0;
  if (align > 1 && (a & (align - 1)) != 0) {
    kind = TS_K_MISALIGNED;
  } else if (!t) {
    kind = TS_K_WILD;
  } else if (!inBounds) {
    kind = write ? TS_K_OOB_WRITE : TS_K_OOB_READ;
  }
  // Misaligned and wild accesses would fault and kill the context: the warp is
  // exited instead; so is one that runs past the allocation (a bulk copy can).
  // Past-the-end accesses land in the guard zones and complete.
  const bool stop = kind == TS_K_MISALIGNED || kind == TS_K_WILD || (t && a + size > t->allocEnd);
  if (kind) {
    // A bulk range that starts inside the tensor is reported at its first byte past the end.
    const uint64_t end = t ? t->base + t->bytes : 0;
    reportBad(h, s, kind, ti, size, flags, pc, (size > 16 && t && a >= t->base && a < end) ? end : a);
    if (stop && s) setBits(&s->flags, TS_PC_STOPPED);
  }

  // Footprints and initialisation of the in-bounds part (uniform control flow
  // up to the warp intrinsics: every lane computes its group).
  const bool track = inBounds && !(t->flags & TS_T_MODULE);
  Span sp{0, 0};
  if (track) {
    sp.e0 = uint32_t((a - t->base) / t->elemSize);
    sp.e1 = uint32_t((a + size - 1 - t->base) / t->elemSize);
  }
  if (h->options & TS_OPT_FOOTPRINT) {
    const uint32_t groupKey = track ? (ti << 1) | (write ? 1u : 0u) : 0xFFFFFFFFu;
    const unsigned group = __match_any_sync(mask, groupKey);
    if (track) {
      updateBox(h, *t, group, write ? 1u : 0u, sp);
      updateCells(h, *t, group, write ? 1u : 0u, sp);
      if (atomic) {
        updateBox(h, *t, group, 0u, sp);
        updateCells(h, *t, group, 0u, sp);
      }
    }
  }
  if (track && (h->options & TS_OPT_UNINIT) && (t->flags & TS_T_TRACK_INIT) && t->initOffset) {
    const uint32_t firstByte = uint32_t((a - t->base) % t->elemSize);
    if (!write || atomic) {
      if (!initBits(*t, h, sp, false, usedBytes, firstByte))
        reportBad(h, s, TS_K_UNINIT, ti, size, flags, pc, a);
    }
    if (write) initBits(*t, h, sp, true, 0, firstByte);
  }
  return stop;
}

// A shared-window access that would fault (misaligned, or past the block's
// shared memory) is reported; the caller exits the warp.
__device__ bool sharedFault(TsHeader* h, TsPc* s, uint64_t pc, uint32_t offset, uint32_t size, uint32_t align,
                            uint32_t flags) {
  const bool misaligned = align > 1 && (offset & (align - 1)) != 0;
  const bool stop = misaligned || uint64_t(offset) + size > h->smemBytes;
  if (stop) {
    reportBad(h, s, misaligned ? TS_K_MISALIGNED : TS_K_SHARED_OOB, TS_NONE32, size, flags | TS_REC_SHARED,
              pc, offset);
    if (s) setBits(&s->flags, TS_PC_STOPPED);
  }
  return stop;
}

// Hazards of a shared access (or the shared side of cp.async): lanes of one
// warp that touch the same word act as one access.
__device__ void sharedHazards(TsHeader* h, unsigned mask, uint64_t pc, uint32_t offset, uint32_t size,
                              bool write, bool stop) {
  const int32_t slot = mySlot(h);
  const unsigned same = __match_any_sync(mask, (slot < 0 || stop) ? 0xFFFFFFFFu : offset);
  if (slot >= 0 && !stop && isLeader(same)) {
    const uint32_t w0 = offset >> 2, w1 = (offset + size - 1) >> 2;
    for (uint32_t w = w0; w <= w1 && w < h->smemWords; ++w) hazardWord(h, slot, w, write, pc);
  }
}

__device__ SanitizerPatchResult stopWarp(TsHeader* h) {
  const unsigned stopping = __activemask();
  if (isLeader(stopping)) add64(&h->stoppedWarps, 1);
  return SANITIZER_PATCH_ERROR;
}

// The trace buffer a callback acts on. The Sanitizer API passes it as
// `userdata` to the patches of the kernel's own code, but called some patches
// in a __noinline__ device function that reads a by-value struct through a
// reference (kernels/trace/tensor_list.cu, PyTorch's multi_tensor_apply;
// docs/measurements.md) with a null one and arguments that made no sense (pc 0,
// sizes in the billions). Such a callback acts on nothing: it is
// counted, in the buffer that each warp records at its block's entry (one
// traced launch runs per context at a time, so the record is current).
__device__ TsHeader* g_header;

__device__ TsHeader* traceBuffer(void* userdata) {
  if (userdata) return static_cast<TsHeader*>(userdata);
  TsHeader* h = *reinterpret_cast<TsHeader* volatile*>(&g_header);
  if (h && h->magic == TS_TRACE_MAGIC)
    atomicAdd(reinterpret_cast<unsigned long long*>(&h->orphanCalls), 1ull);
  return nullptr;
}

}  // namespace

// --- the callbacks ------------------------------------------------------------

extern "C" __device__ __noinline__ SanitizerPatchResult TsGlobalAccess(void* userdata, uint64_t pc, void* ptr,
                                                                       uint32_t size, uint32_t flags,
                                                                       const void* pData) {
  TsHeader* h = traceBuffer(userdata);
  if (!h) return SANITIZER_PATCH_SUCCESS;
  if (h->options & TS_OPT_NOP) return SANITIZER_PATCH_SUCCESS;
  const unsigned mask = __activemask();
  if (flags & SANITIZER_MEMORY_DEVICE_FLAG_PREFETCH) return SANITIZER_PATCH_SUCCESS;
  // A generic access that resolves to shared or local memory is not global; nor
  // is one of a kernel parameter read in place through its generic address (a
  // __grid_constant__ struct, PyTorch's multi_tensor_apply lists) or of constant
  // memory: compute-sanitizer checks neither against the allocations.
  if (__isShared(ptr) || __isLocal(ptr) || __isGridConstant(ptr) || __isConstant(ptr))
    return SANITIZER_PATCH_SUCCESS;
  const bool write = flags & SANITIZER_MEMORY_DEVICE_FLAG_WRITE;
  const bool atomic = write && (flags & SANITIZER_MEMORY_DEVICE_FLAG_READ);
  TsPc* s = pcSlot(h, pc);
  countPc(h, s, mask,
          TS_PC_GLOBAL | (write ? TS_PC_WRITE : TS_PC_READ) | (atomic ? TS_PC_ATOMIC | TS_PC_READ : 0u), size,
          &h->outsideGlobal);
  const uint32_t used = (!write && pData) ? *static_cast<const uint32_t*>(pData) : 0xFFFFFFFFu;
  if (globalAccess(h, s, mask, pc, reinterpret_cast<uint64_t>(ptr), size, size, flags, write, atomic, used))
    return stopWarp(h);
  return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult TsSharedAccess(void* userdata, uint64_t pc, void* ptr,
                                                                       uint32_t size, uint32_t flags,
                                                                       const void* pData) {
  (void)pData;
  TsHeader* h = traceBuffer(userdata);
  if (!h) return SANITIZER_PATCH_SUCCESS;
  if (h->options & TS_OPT_NOP) return SANITIZER_PATCH_SUCCESS;
  const unsigned mask = __activemask();
  const uint32_t offset = uint32_t(reinterpret_cast<uint64_t>(ptr));
  const bool write = flags & SANITIZER_MEMORY_DEVICE_FLAG_WRITE;
  const bool atomic = write && (flags & SANITIZER_MEMORY_DEVICE_FLAG_READ);
  TsPc* s = pcSlot(h, pc);
  countPc(h, s, mask,
          TS_PC_SHARED | (write ? TS_PC_WRITE : TS_PC_READ) | (atomic ? TS_PC_ATOMIC | TS_PC_READ : 0u), size,
          &h->outsideShared);
  if (h->options & TS_OPT_SHARED) bankConflicts(s, mask, offset, size);
  // A misaligned shared access faults like a global one; so does one past the
  // window. The lanes that stop still take part in the warp intrinsics below:
  // every lane of `mask` must reach them.
  const bool stop = sharedFault(h, s, pc, offset, size, size, flags);
  if ((h->options & TS_OPT_HAZARDS) && !atomic) sharedHazards(h, mask, pc, offset, size, write, stop);
  return stop ? stopWarp(h) : SANITIZER_PATCH_SUCCESS;
}

// cp.async: a global read of `size` bytes at `src` whose data the copy writes
// to the shared window at `dst` later (by the pipeline wait). A lane whose
// source size is 0 (the zero-fill of a masked load) reads nothing: src is null.
// The shared side is checked for faults and hazards (as a write at the issue);
// its bank conflicts are the asynchronous unit's business, not counted.
extern "C" __device__ __noinline__ SanitizerPatchResult TsMemcpyAsync(void* userdata, uint64_t pc, void* src,
                                                                      uint32_t dst, uint32_t size) {
  TsHeader* h = traceBuffer(userdata);
  if (!h) return SANITIZER_PATCH_SUCCESS;
  const unsigned mask = __activemask();
  TsPc* s = pcSlot(h, pc);
  countPc(h, s, mask, TS_PC_GLOBAL | TS_PC_READ | TS_PC_ASYNC, size, &h->outsideGlobal);
  const bool reads = src != nullptr;
  const unsigned readers = __ballot_sync(mask, reads);
  bool stop = false;
  if (readers) {
    // Only the reading lanes take part in the global checks' warp intrinsics.
    if (reads)
      stop = globalAccess(h, s, readers, pc, reinterpret_cast<uint64_t>(src), size, size,
                          SANITIZER_MEMORY_DEVICE_FLAG_READ, false, false, 0xFFFFFFFFu);
  }
  stop = sharedFault(h, s, pc, dst, size, size, SANITIZER_MEMORY_DEVICE_FLAG_WRITE) || stop;
  if (h->options & TS_OPT_HAZARDS) sharedHazards(h, mask, pc, dst, size, true, stop);
  return stop ? stopWarp(h) : SANITIZER_PATCH_SUCCESS;
}

// ldmatrix/stmatrix: each lane addresses one 16-byte row of the `count`
// 8x8 matrices (lanes 0-7 the first matrix, 8-15 the second, ...); the other
// lanes' addresses are unused. A 16-byte shared access of the addressing lanes.
extern "C" __device__ __noinline__ SanitizerPatchResult TsMatrixAccess(void* userdata, uint64_t pc,
                                                                       uint32_t address, uint32_t size,
                                                                       uint32_t flags, uint32_t count,
                                                                       const void* pNewValue) {
  (void)pNewValue;
  TsHeader* h = traceBuffer(userdata);
  if (!h) return SANITIZER_PATCH_SUCCESS;
  const unsigned all = __activemask();
  const bool addressing = laneId() < 8 * count;
  const unsigned mask = __ballot_sync(all, addressing);
  if (!addressing) return SANITIZER_PATCH_SUCCESS;
  const bool write = flags & SANITIZER_MEMORY_DEVICE_FLAG_WRITE;
  TsPc* s = pcSlot(h, pc);
  countPc(h, s, mask, TS_PC_SHARED | TS_PC_MATRIX | (write ? TS_PC_WRITE : TS_PC_READ), size,
          &h->outsideShared);
  if (h->options & TS_OPT_SHARED) bankConflicts(s, mask, address, size);
  const bool stop = sharedFault(h, s, pc, address, size, size, flags);
  if (h->options & TS_OPT_HAZARDS) sharedHazards(h, mask, pc, address, size, write, stop);
  return stop ? stopWarp(h) : SANITIZER_PATCH_SUCCESS;
}

// Hopper's bulk copies (cp.async.bulk): every active lane has the same operands,
// and the copy engine moves `bytes` (a multiple of 16) between global memory and
// the shared window. Traced as one global access of the whole range by the
// lowest active lane (bounds, 16-byte alignment, footprint, initialisation; a
// read for a copy into shared memory, a write for one out of it) and the shared
// side's bounds. Not their hazards: a bulk copy's consumers wait on its
// mbarrier, which the barrier epochs do not model. A multicast copy's shared
// side is in other CTAs' windows too: only its global side is checked.
static __device__ SanitizerPatchResult bulkCopy(TsHeader* h, uint64_t pc, uint64_t global, uint32_t shared,
                                                uint32_t bytes, bool toShared, bool checkShared) {
  if (!h) return SANITIZER_PATCH_SUCCESS;
  const unsigned all = __activemask();
  const unsigned first = unsigned(__ffs(all) - 1);
  bool stop = false;
  if (laneId() == first) {
    const unsigned mask = 1u << first;
    TsPc* s = pcSlot(h, pc);
    countPc(h, s, mask, TS_PC_GLOBAL | TS_PC_BULK | (toShared ? TS_PC_READ : TS_PC_WRITE), bytes,
            &h->outsideGlobal);
    if (s) add64(&s->bulkBytes, bytes);
    stop = globalAccess(h, s, mask, pc, global, bytes, 16,
                        toShared ? SANITIZER_MEMORY_DEVICE_FLAG_READ : SANITIZER_MEMORY_DEVICE_FLAG_WRITE,
                        !toShared, false, 0xFFFFFFFFu);
    if (checkShared)
      stop = sharedFault(h, s, pc, shared, bytes, 16,
                         toShared ? SANITIZER_MEMORY_DEVICE_FLAG_WRITE : SANITIZER_MEMORY_DEVICE_FLAG_READ) ||
             stop;
  }
  return __shfl_sync(all, stop, int(first)) ? stopWarp(h) : SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult TsBulkCopyGlobalToShared(void* userdata, uint64_t pc,
                                                                                 uint64_t src, uint32_t dst,
                                                                                 uint32_t barrier,
                                                                                 uint32_t data,
                                                                                 uint32_t isMulticast) {
  (void)barrier;
  return bulkCopy(traceBuffer(userdata), pc, src, dst, (data & 0xFFFFu) * 16, true, !isMulticast);
}

extern "C" __device__ __noinline__ SanitizerPatchResult TsBulkCopySharedToGlobal(void* userdata, uint64_t pc,
                                                                                 uint64_t dst, uint32_t src,
                                                                                 uint32_t numBlocks) {
  return bulkCopy(traceBuffer(userdata), pc, dst, src, numBlocks * 16, false, true);
}

extern "C" __device__ __noinline__ SanitizerPatchResult TsLocalAccess(void* userdata, uint64_t pc, void* ptr,
                                                                      uint32_t size, uint32_t flags,
                                                                      const void* pData) {
  (void)ptr, (void)pData;
  TsHeader* h = traceBuffer(userdata);
  if (!h) return SANITIZER_PATCH_SUCCESS;
  if (h->options & TS_OPT_NOP) return SANITIZER_PATCH_SUCCESS;
  const bool write = flags & SANITIZER_MEMORY_DEVICE_FLAG_WRITE;
  countPc(h, pcSlot(h, pc), __activemask(), TS_PC_LOCAL | (write ? TS_PC_WRITE : TS_PC_READ), size,
          &h->outsideLocal);
  return SANITIZER_PATCH_SUCCESS;
}

// mbarrier operations (SanitizerCallbackCudaBarrier / ...Attempt): counted once
// per warp, so that the hazards of a kernel ordered by them are reported as
// unproven (trace_fold.cpp, raceFinding).
__device__ void countMbarrier(void* userdata) {
  TsHeader* h = traceBuffer(userdata);
  if (h && isLeader(__activemask()) && h->mbarrierOps < (uint64_t(1) << 32)) add64(&h->mbarrierOps, 1);
}

extern "C" __device__ __noinline__ SanitizerPatchResult TsCudaBarrier(void* userdata, uint64_t pc,
                                                                      void* barrier, uint32_t kind,
                                                                      uint32_t data) {
  (void)pc, (void)barrier, (void)kind, (void)data;
  countMbarrier(userdata);
  return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult TsCudaBarrierAttempt(void* userdata, uint64_t pc,
                                                                             void* barrier, uint32_t kind,
                                                                             uint32_t data, uint32_t result) {
  (void)pc, (void)barrier, (void)kind, (void)data, (void)result;
  countMbarrier(userdata);
  return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult TsBarrier(void* userdata, uint64_t pc,
                                                                  uint32_t barIndex, uint32_t threadCount,
                                                                  uint32_t flags) {
  (void)barIndex, (void)threadCount, (void)flags;
  TsHeader* h = traceBuffer(userdata);
  if (!h) return SANITIZER_PATCH_SUCCESS;
  const unsigned mask = __activemask();
  if (isLeader(mask)) {
    if (TsPc* s = pcSlot(h, pc)) {
      add64(&s->execs, 1);
      setBits(&s->flags, TS_PC_BARRIER);
    } else {
      add64(&h->outsideBarriers, 1);
    }
  }
  if (h->options & TS_OPT_HAZARDS) {
    const int32_t slot = mySlot(h);
    // Each thread counts the barriers it reached: two accesses are ordered when
    // a barrier lies between them, i.e. when their counts differ.
    if (slot >= 0) at<uint32_t>(h, h->epochOffset)[uint64_t(slot) * h->blockThreads + threadLinear()] += 1;
  }
  return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult TsBlockEnter(void* userdata, uint64_t pc) {
  (void)pc;
  TsHeader* h = traceBuffer(userdata);
  if (!h) return SANITIZER_PATCH_SUCCESS;
  if (isLeader(__activemask())) g_header = h;  // see traceBuffer
  if (!(h->options & TS_OPT_HAZARDS)) return SANITIZER_PATCH_SUCCESS;
  const uint32_t b = blockLinear();
  if (b >= h->maxCtas) {
    if (threadLinear() == 0) atomicAdd(&h->untrackedCtas, 1u);
    return SANITIZER_PATCH_SUCCESS;
  }
  uint32_t* ctaSlot = at<uint32_t>(h, h->ctaSlotOffset);
  if (threadLinear() == 0) {
    // Thread 0 takes a free slot for the CTA's shadow; the others wait for it.
    uint32_t* owner = at<uint32_t>(h, h->slotOwnerOffset);
    uint32_t got = TS_NONE32;
    for (uint32_t i = 0; i < h->numSlots && got == TS_NONE32; ++i) {
      const uint32_t s = (b + i) % h->numSlots;
      if (atomicCAS(&owner[s], TS_NONE32, b) == TS_NONE32) got = s;
    }
    if (got != TS_NONE32)
      atomicExch(&at<uint32_t>(h, h->slotExitOffset)[got], 0u);
    else
      atomicAdd(&h->untrackedSlots, 1u);
    __threadfence();
    atomicExch(&ctaSlot[b], got == TS_NONE32 ? TS_NONE32 : got + 1);
  }
  uint32_t v;
  while ((v = *reinterpret_cast<volatile uint32_t*>(&ctaSlot[b])) == 0) __nanosleep(64);
  if (v != TS_NONE32) at<uint32_t>(h, h->epochOffset)[uint64_t(v - 1) * h->blockThreads + threadLinear()] = 0;
  return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult TsBlockExit(void* userdata, uint64_t pc) {
  (void)pc;
  TsHeader* h = traceBuffer(userdata);
  if (!h) return SANITIZER_PATCH_SUCCESS;
  if (!(h->options & TS_OPT_HAZARDS)) return SANITIZER_PATCH_SUCCESS;
  const int32_t slot = mySlot(h);
  if (slot < 0) return SANITIZER_PATCH_SUCCESS;
  // The last thread of the CTA to exit frees the slot; the shadow needs no
  // clearing: its words carry the owner's tag.
  const uint32_t n = atomicAdd(&at<uint32_t>(h, h->slotExitOffset)[slot], 1u) + 1;
  if (n == h->blockThreads) atomicExch(&at<uint32_t>(h, h->slotOwnerOffset)[slot], TS_NONE32);
  return SANITIZER_PATCH_SUCCESS;
}
