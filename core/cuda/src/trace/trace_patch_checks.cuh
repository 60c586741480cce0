// The tracer's device-side helpers and checks, which the patch functions of
// trace_patches.cu call: warp groups and their reductions, per-PC counters,
// bounded records, footprints (per-CTA boxes, per-cell maps), init bits,
// shared-memory hazards and bank conflicts, and the global and shared access
// checks. Included once, by trace_patches.cu: the patches are one nvcc
// translation unit (a tools-patch fatbin), so these stay in an anonymous
// namespace there.
#pragma once

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
// ordered by the warp's own execution and __syncwarp). A write of the value the
// last write wrote (`newValue`, when known) changes nothing whichever warp goes
// first: no WAW (Triton's replicated layouts store each element from several
// warps). The last value is kept beside the shadow, not read from shared memory:
// a patch runs before its store, so the other warp's may not have happened yet.
__device__ void hazardWord(TsHeader* h, int32_t slot, uint32_t word, bool write, uint64_t pc,
                           const uint32_t* newValue) {
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
    unsigned long long* value = reinterpret_cast<unsigned long long*>(at<uint64_t>(h, h->valueOffset) +
                                                                      uint64_t(slot) * h->smemWords + word);
    const uint64_t written = newValue ? (uint64_t(*newValue) << 32) | (tid + 1u) : 0ull;
    const uint64_t last = atomicExch(value, (unsigned long long)written);
    // The same value, written by the thread the shadow names (a stale slot proves nothing).
    const bool rewrite =
        newValue && last != 0 && uint32_t(last) == shTid(prev) + 1u && uint32_t(last >> 32) == *newValue;
    if (sameInterval(prev) && (shTid(prev) >> 5) != warp && !rewrite)
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
                              bool write, bool stop, const void* newValue) {
  const int32_t slot = mySlot(h);
  const unsigned same = __match_any_sync(mask, (slot < 0 || stop) ? 0xFFFFFFFFu : offset);
  if (slot >= 0 && !stop && isLeader(same)) {
    const uint32_t w0 = offset >> 2, w1 = (offset + size - 1) >> 2;
    // Whole words only: a narrower write's value is compared with nothing.
    const uint32_t* words = (write && newValue && size >= 4 && (offset & 3) == 0)
                                ? static_cast<const uint32_t*>(newValue)
                                : nullptr;
    for (uint32_t w = w0; w <= w1 && w < h->smemWords; ++w)
      hazardWord(h, slot, w, write, pc, words ? words + (w - w0) : nullptr);
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
