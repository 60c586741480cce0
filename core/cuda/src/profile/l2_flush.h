// Evicts the GPU's L2 before a user-replayed pass. CUPTI's kernel replay runs
// every pass with the kernel's data out of L2 (its DRAM bytes read are the
// whole input); a pass right after the caller's restore would find the inputs
// the restore just wrote in L2 and read almost nothing from DRAM (99 % fewer
// DRAM bytes for a 12 MiB GEMM on an H200). Reading a buffer of twice the L2's
// size leaves L2 holding clean lines of that buffer only: the restore's dirty
// lines are written back before the pass, and the kernel's reads go to DRAM.
#pragma once

#include <cuda.h>

namespace tilescope::cuda::detail {

/// Reads twice the current device's L2 through L2 on `stream` (not waited
/// for). Its module and buffer are made once per context; false, with nothing
/// launched, where they cannot be (then the pass runs with L2 as it is).
bool evictL2(CUstream stream);

}  // namespace tilescope::cuda::detail
