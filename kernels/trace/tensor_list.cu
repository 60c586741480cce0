// A kernel over a list of tensors described by one struct passed by value, as
// PyTorch's multi_tensor_apply_kernel (foreach ops, fused optimizers) is: the
// struct holds each tensor's pointers and size and which tensor and chunk each
// block takes (4240 bytes: past the old 4 KiB parameter limit). The device
// function takes the struct by reference, so its loads of a pointer are loads
// through the parameter's generic address, not of any tensor: a tracer must not
// call them wild. Correct: each block scales one 1024-element chunk.

namespace {
#ifndef TL_MAX_TENSORS
#define TL_MAX_TENSORS 110  // 4240 bytes; a define so that tests can vary the size
#endif
constexpr int kMaxTensors = TL_MAX_TENSORS;
constexpr int kMaxBlocks = 320;
constexpr int kChunk = 1024;

struct TensorList {
  const float* in[kMaxTensors];    // offset 0
  float* out[kMaxTensors];         // offset 8T (880)
  long long numel[kMaxTensors];    // offset 16T (1760)
  unsigned char blockToTensor[kMaxBlocks];  // offset 24T (2640)
  int blockToChunk[kMaxBlocks];    // offset 24T+320 (2960); 24T+1600 bytes in all (4240)
};

__device__ __noinline__ void scaleChunk(const TensorList& list, float s) {
  const int t = list.blockToTensor[blockIdx.x];
  const long long begin = (long long)list.blockToChunk[blockIdx.x] * kChunk;
  const long long end = min(list.numel[t], begin + kChunk);
  const float* in = list.in[t];
  float* out = list.out[t];
  for (long long i = begin + threadIdx.x; i < end; i += blockDim.x) out[i] = in[i] * s;
}
}  // namespace

extern "C" __global__ void tensor_list_scale(TensorList list, float s) { scaleChunk(list, s); }

// The same with the parameter marked __grid_constant__: the compiler must read it
// in place, through its generic address, rather than copy it to local memory.
extern "C" __global__ void tensor_list_scale_grid_constant(const __grid_constant__ TensorList list, float s) {
  scaleChunk(list, s);
}
