// out = in, N floats (N a multiple of 4 * blockDim.x).
// copy_vec4: 16-byte float4 accesses; a base pointer off 16-byte alignment faults
//   with CUDA_ERROR_MISALIGNED_ADDRESS (the capture's alignShiftBytes test).
// copy_smem: stages through SMEM_BYTES of dynamic shared memory per block
//   (above 48 KiB it needs the opt-in attribute).
extern "C" __global__ void copy_vec4(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (4 * i < n) reinterpret_cast<float4*>(out)[i] = reinterpret_cast<const float4*>(in)[i];
}

extern "C" __global__ void copy_smem(const float* in, float* out, int n, int smemFloats) {
  extern __shared__ float stage[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) stage[threadIdx.x % smemFloats] = in[i];
  stage[smemFloats - 1 - threadIdx.x % smemFloats] = 0.0f;  // touch the far end of the buffer
  __syncthreads();
  if (i < n) out[i] = in[i];
}
