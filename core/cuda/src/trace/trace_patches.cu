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
#include "trace/trace_patch_checks.cuh"

// --- the callbacks ------------------------------------------------------------

extern "C" __device__ __noinline__ SanitizerPatchResult TsGlobalAccess(void* userdata, uint64_t pc, void* ptr,
                                                                       uint32_t size, uint32_t flags,
                                                                       const void* pData) {
  TsHeader* h = traceBuffer(userdata);
  if (!h) return SANITIZER_PATCH_SUCCESS;
  if (h->options & TS_OPT_NOP) return SANITIZER_PATCH_SUCCESS;
  if (flags & SANITIZER_MEMORY_DEVICE_FLAG_PREFETCH) return SANITIZER_PATCH_SUCCESS;
  // A kernel parameter read in place through its generic address (a
  // __grid_constant__ struct, PyTorch's multi_tensor_apply lists) or constant
  // memory is not checked against the allocations; nor is a generic access that
  // resolves to this thread's local memory or this block's shared memory, as
  // compute-sanitizer does. An address in those windows past them is wild: a
  // global instruction there (an index that wrapped) faults with an invalid
  // address space, a generic one past the memory faults too.
  if (__isGridConstant(ptr) || __isConstant(ptr)) return SANITIZER_PATCH_SUCCESS;
  uint32_t window = 0;
  if (__isLocal(ptr)) {
    if (uint64_t(__cvta_generic_to_local(ptr)) + size <= h->localBytes) return SANITIZER_PATCH_SUCCESS;
    window = TS_REC_LOCAL_WINDOW;
  } else if (__isShared(ptr)) {
    if (h->clusterCtas > 1 || uint64_t(__cvta_generic_to_shared(ptr)) + size <= h->smemBytes)
      return SANITIZER_PATCH_SUCCESS;
    window = TS_REC_SHARED_WINDOW;
  }
  const unsigned mask = __activemask();
  const bool write = flags & SANITIZER_MEMORY_DEVICE_FLAG_WRITE;
  const bool atomic = write && (flags & SANITIZER_MEMORY_DEVICE_FLAG_READ);
  TsPc* s = pcSlot(h, pc);
  countPc(h, s, mask,
          TS_PC_GLOBAL | (write ? TS_PC_WRITE : TS_PC_READ) | (atomic ? TS_PC_ATOMIC | TS_PC_READ : 0u), size,
          &h->outsideGlobal);
  const uint32_t used = (!write && pData) ? *static_cast<const uint32_t*>(pData) : 0xFFFFFFFFu;
  if (globalAccess(h, s, mask, pc, reinterpret_cast<uint64_t>(ptr), size, size, flags | window, write, atomic,
                   used))
    return stopWarp(h);
  return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult TsSharedAccess(void* userdata, uint64_t pc, void* ptr,
                                                                       uint32_t size, uint32_t flags,
                                                                       const void* pData) {
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
  if ((h->options & TS_OPT_HAZARDS) && !atomic) sharedHazards(h, mask, pc, offset, size, write, stop, pData);
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
  if (h->options & TS_OPT_HAZARDS) sharedHazards(h, mask, pc, dst, size, true, stop, nullptr);
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
  if (h->options & TS_OPT_HAZARDS) sharedHazards(h, mask, pc, address, size, write, stop, nullptr);
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
