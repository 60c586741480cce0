// diagnose's time on a large kernel (bench/gpu_diagnose_time.sh): a byte copy over
// 2^31 + 4096 elements whose global index is an int, so the threads past 2^31
// wrap to negative indices and write before the output (the int32 overflow of
// seed 000's taxonomy). copy_ref indexes with 64 bits and is the reference.
extern "C" __global__ void copy_i32(const unsigned char* x, unsigned char* y, long long n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}

extern "C" __global__ void copy_ref(const unsigned char* x, unsigned char* y, long long n) {
  long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}
