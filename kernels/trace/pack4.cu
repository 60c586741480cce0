// Copies x[N] into out[OFFSET .. OFFSET + N) four floats at a time (float4
// loads and stores), one float4 per thread. A float4 access needs a 16-byte
// aligned address: with OFFSET a multiple of 4 elements every store is
// aligned; BUG_OFFSET (OFFSET 2, 8 bytes) misaligns every store of out
// (misaligned_access, a fault without the tracer).
#ifdef BUG_OFFSET
#define OFFSET 2
#else
#define OFFSET 4
#endif

extern "C" __global__ void pack4_offset(const float* __restrict__ x, float* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i * 4 + 3 >= n) return;
  const float4 v = reinterpret_cast<const float4*>(x)[i];
  reinterpret_cast<float4*>(out + OFFSET)[i] = v;
}
