// The layout of the trace buffer: one device allocation that the host fills
// (header, tensor table) and the patch functions (trace_patches.cu) aggregate
// into while the traced kernel runs; the host copies it back after the launch.
// Shared by host C++ and device CUDA code, so plain fixed-width fields only;
// every array is found through a byte offset from the buffer's start.
#pragma once

#include <stdint.h>

#define TS_TRACE_MAGIC 0x54534331u  // "TSC1"
#define TS_TRACE_VERSION 3u
#define TS_MAX_TENSORS 16

// TsHeader.options
#define TS_OPT_FOOTPRINT 0x1u  // per-CTA boxes and per-cell reader/writer maps
#define TS_OPT_SHARED 0x2u     // shared-memory bank conflicts
#define TS_OPT_HAZARDS 0x4u    // shared-memory hazards (per-word shadow, per-thread barrier epochs)
#define TS_OPT_UNINIT 0x8u     // reads of tracked tensors before any write
#define TS_OPT_NOP 0x10u       // diagnostic (TILESCOPE_TRACE_NOP=1): the memory callbacks return at once

// TsTensor.flags
#define TS_T_OUTPUT 0x1u
#define TS_T_TRACK_INIT 0x2u  // starts uninitialised (the sentinel): reads before writes are reported
#define TS_T_MODULE 0x4u      // a __device__ variable of the module: legal, not drawn

// TsRecord.kind (faults first; TS_K_UNINIT shares the list)
#define TS_K_OOB_READ 1u
#define TS_K_OOB_WRITE 2u
#define TS_K_MISALIGNED 3u
#define TS_K_WILD 4u        // outside every allocation of the launch
#define TS_K_SHARED_OOB 5u  // shared-window offset past the block's shared memory
#define TS_K_UNINIT 6u

// TsHazard.kind
#define TS_H_RAW 1u  // read after another warp's write, no barrier between
#define TS_H_WAW 2u
#define TS_H_WAR 3u

// TsPc.flags
#define TS_PC_READ 0x1u
#define TS_PC_WRITE 0x2u
#define TS_PC_ATOMIC 0x4u
#define TS_PC_GLOBAL 0x10u
#define TS_PC_SHARED 0x20u
#define TS_PC_LOCAL 0x40u
#define TS_PC_BARRIER 0x80u
#define TS_PC_STOPPED 0x100u  // a warp was exited here (the access would have faulted)
#define TS_PC_ASYNC 0x200u    // cp.async: a global read whose data lands in shared memory
#define TS_PC_MATRIX 0x400u   // ldmatrix/stmatrix: 16-byte rows of 8x8 matrices in shared memory
#define TS_PC_BULK 0x800u     // cp.async.bulk: a copy engine's global read or write of a whole range

// TsRecord.flags: the Sanitizer API's access flags, plus
#define TS_REC_SHARED 0x100u  // a shared-memory access (addr is the shared-window offset)
// A wild global access whose generic address lies in the window of local
// memory past this thread's own, or of shared memory past this block's: a
// global instruction there faults with an invalid address space.
#define TS_REC_LOCAL_WINDOW 0x200u
#define TS_REC_SHARED_WINDOW 0x400u

#define TS_NONE32 0xFFFFFFFFu
#define TS_NONE64 0xFFFFFFFFFFFFFFFFull

// Shared shadow words pack tag | epoch | tid | pc slot (see trace_patches.cu).
#define TS_SH_TID_MULTI 0x7FFu

struct TsTensor {
  uint64_t base, bytes;           // the tensor's exact span
  uint64_t allocBegin, allocEnd;  // its allocation with the guard zones
  uint64_t cellsOffset;           // 4 x u32 per cell: read min/max CTA, write min/max CTA (0: no map)
  uint64_t initOffset;            // one bit per element, set by writes (0: not tracked)
  uint64_t boxesOffset;           // TsBox[maxCtas][2] (read, write) (0: none)
  uint64_t spanElements;
  uint32_t elemSize, flags;
  uint32_t pitch;                   // elements per map row (the stride of the second-to-last dim)
  uint32_t rows;                    // ceil(spanElements / pitch)
  uint32_t cellShiftH, cellShiftW;  // log2 of a cell's height and width in elements
  uint32_t cellRows, cellCols;
};

struct TsBox {
  uint32_t rowMin, rowMax, colMin, colMax;
  uint32_t count;  // thread accesses
  uint32_t pad;
};

// Per-PC counters. The hot path adds as little as it can: one atomic per warp
// execution (execs); the rest only where an access departs from the common
// case, and the host derives the totals (trace_engine.cpp):
//   threads    = 32 * execs - missingLanes   (access PCs)
//   bytes      = threads * the PC's one access size
//   ideal      = execs * phases(size) - idealShort   (shared PCs; phases: 1, 2 for 8 bytes, 4 for 16)
//   wavefronts = ideal + extraWaves
//   bytes of a bulk copy (TS_PC_BULK) = bulkBytes
struct TsPc {
  uint64_t execs;          // warp-level executions
  uint64_t missingLanes;   // inactive lanes of those executions
  uint64_t extraWaves;     // shared: wavefronts beyond the conflict-free number
  uint64_t idealShort;     // shared: phases without an active lane
  uint64_t firstFaultKey;  // min (block linear << 32 | thread linear) of a bad access
  uint64_t firstUninitKey;
  uint32_t faults, uninit, hazards, maxWays, flags, sizes;  // sizes: bit log2(size)
  uint64_t bulkBytes;  // bulk copies: their sizes vary, so their bytes are summed
};

struct TsRecord {
  uint32_t kind, tensor, size, flags;
  uint64_t pc, addr;
  uint32_t block[3], thread[3];
};

struct TsHazard {
  uint32_t sig;  // 0: empty slot
  uint32_t kind, count;
  uint32_t offset;  // shared-window byte offset of the first instance
  uint64_t pcFirst, pcSecond;
  uint32_t tidFirst, tidSecond;
  uint32_t block[3];
  uint32_t pad;
};

struct TsHeader {
  uint32_t magic, version, options, numTensors;
  uint64_t codeBase, codeSize;  // PCs with a TsPc slot: [codeBase, codeBase + codeSize), 16 bytes each
  uint32_t numPcs, maxRecords, maxHazards, maxCtas;
  uint32_t grid[3], block[3];
  uint32_t blockThreads, smemBytes;  // per block, as launched (static + dynamic + reserved)
  // Per thread: the local-window offsets a generic access may use (the
  // function's frame, the stack limit and slack); CTAs per cluster (above 1
  // the shared window also holds the cluster's other CTAs).
  uint32_t localBytes, clusterCtas;
  uint64_t pcsOffset, recordsOffset, hazardsOffset;
  // shared hazards: slots for resident CTAs
  uint32_t numSlots, smemWords;
  uint64_t slotOwnerOffset;  // u32 per slot: owning block linear, or TS_NONE32
  uint64_t slotExitOffset;   // u32 per slot: threads that reached EXIT
  uint64_t ctaSlotOffset;    // u32 per CTA (maxCtas): its slot + 1, 0 unassigned
  uint64_t epochOffset;      // u32 per slot x blockThreads: barriers each thread passed
  uint64_t shadowOffset;     // 2 x u64 per slot x smemWords: last write, last read
  uint64_t
      valueOffset;  // u64 per slot x smemWords: the last write's value << 32 | its thread + 1 (0: unknown)
  TsTensor tensors[TS_MAX_TENSORS];
  // Device-side counters, on cache lines of their own: the fields above are
  // read by every patched access and stay in L1 while these change. Accesses
  // at PCs with a TsPc slot are counted there; these count the others.
  alignas(128) uint32_t recordCount, hazardOverflow, untrackedCtas, untrackedSlots;
  uint64_t outsideGlobal, outsideShared, outsideLocal, outsideBarriers;  // thread accesses / warp barriers
  uint64_t outsidePcs, stoppedWarps;
  uint64_t mbarrierOps;  // cuda::barrier (mbarrier) operations, warp-wide; saturates at 2^32 warps' worth
  // Callbacks that came without userdata (in an out-of-line device function,
  // trace_patches.cu traceBuffer): their arguments are not trusted, they are skipped.
  uint64_t orphanCalls;
};
