// Row sums of a rows × COLS f32 matrix with Hopper's bulk copy: thread 0 of
// each CTA copies its ROWS_PER_CTA rows into shared memory with one
// cp.async.bulk (the copy engine, not the threads, moves the bytes) that
// completes on an mbarrier; every thread waits on the barrier, and the first
// ROWS_PER_CTA threads each sum a row. Needs sm_90.
//
// Bug variant:
//   BUG_NO_TAIL  the last CTA copies a whole tile even when fewer rows are
//                left: the copy reads past the input's end. The sums of the
//                missing rows are never stored, so the output is right and
//                only the trace (or compute-sanitizer) sees the read.
#ifndef ROWS_PER_CTA
#define ROWS_PER_CTA 16
#endif
#ifndef COLS
#define COLS 64
#endif
static_assert(COLS * sizeof(float) % 16 == 0, "a bulk copy moves multiples of 16 bytes");

extern "C" __global__ void bulk_rowsum(const float* __restrict__ x, float* __restrict__ out, int rows) {
  __shared__ __align__(128) float tile[ROWS_PER_CTA * COLS];
  __shared__ __align__(8) unsigned long long full;  // the mbarrier the copy completes on
  const int row0 = blockIdx.x * ROWS_PER_CTA;
#ifdef BUG_NO_TAIL
  const int n = ROWS_PER_CTA;  // the bug: no clamp for the last tile
#else
  const int n = rows - row0 < ROWS_PER_CTA ? rows - row0 : ROWS_PER_CTA;
#endif
  const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&full));
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(tile));
  const unsigned bytes = static_cast<unsigned>(n) * COLS * sizeof(float);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // the copy engine sees the initialised barrier
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 ::"r"(dst), "l"(x + static_cast<long long>(row0) * COLS), "r"(bytes), "r"(bar)
                 : "memory");
  }
  // Phase 0 of the barrier completes when the copy's bytes have landed.
  asm volatile(
      "{\n"
      " .reg .pred done;\n"
      "WAIT_%=:\n"
      " mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n"
      " @!done bra WAIT_%=;\n"
      "}\n" ::"r"(bar)
      : "memory");
  const int r = threadIdx.x;
  if (r < n && row0 + r < rows) {
    float s = 0.0f;
    for (int c = 0; c < COLS; ++c) s += tile[r * COLS + c];
    out[row0 + r] = s;
  }
}
