// The reduction of a traced tensor's reader/writer map on the device, before
// it is copied back (trace_engine.cpp). The patches keep up to 4 M cells per
// tensor (element-exact up to that size); the report keeps at most
// TraceOptions::reportCells of them. Copying the whole map back and reducing
// it on the host cost more than the traced launch itself for most kernels
// (docs/measurements.md), so one thread per cell folds the map into blocks of
// fh x fw cells here and counts, at the map's own resolution, the cells read,
// written and written by more than one CTA.
//
// The cell words (trace_abi.h) are minima: a CTA minimum, and a maximum kept as
// the minimum of its complement. A block of cells is therefore the minimum of
// its cells word by word, and the host decodes it as it decodes a cell.
#include <stdint.h>

#include "trace/trace_abi.h"

extern "C" __global__ void TsReduceCells(const uint32_t* __restrict__ cells, uint32_t cellRows,
                                         uint32_t cellCols, uint32_t fh, uint32_t fw, uint32_t outCols,
                                         uint32_t* __restrict__ out,
                                         unsigned long long* __restrict__ counts) {
  const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint64_t n = uint64_t(cellRows) * cellCols;
  bool read = false, written = false, multi = false;
  if (i < n) {
    const uint4 c = reinterpret_cast<const uint4*>(cells)[i];
    read = c.x != TS_NONE32;
    written = c.z != TS_NONE32;
    multi = written && c.z != ~c.w;  // lowest writer != highest writer
    if (read || written) {
      const uint32_t r = uint32_t(i / cellCols), q = uint32_t(i % cellCols);
      uint32_t* o = out + (uint64_t(r / fh) * outCols + q / fw) * 4;
      if (read) {
        atomicMin(&o[0], c.x);
        atomicMin(&o[1], c.y);
      }
      if (written) {
        atomicMin(&o[2], c.z);
        atomicMin(&o[3], c.w);
      }
    }
  }
  const unsigned lanes = __activemask();
  const uint32_t nr = __popc(__ballot_sync(lanes, read)), nw = __popc(__ballot_sync(lanes, written)),
                 nm = __popc(__ballot_sync(lanes, multi));
  if ((threadIdx.x & 31) == 0) {
    if (nr) atomicAdd(&counts[0], nr);
    if (nw) atomicAdd(&counts[1], nw);
    if (nm) atomicAdd(&counts[2], nm);
  }
}
