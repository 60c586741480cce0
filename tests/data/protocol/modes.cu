// One kernel, three behaviours chosen by MODE, for the worker-isolation tests:
//   0  y = 2x (correct)
//   1  stores through a wild pointer (a sticky illegal-address fault)
//   2  spins on a flag nobody sets (a hang the watchdog must end)
extern "C" __global__ void modes(const float* x, float* y, const int* flag, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
#if MODE == 1
  if (i == 0) *reinterpret_cast<volatile float*>(0x10) = 1.0f;
#elif MODE == 2
  while (*reinterpret_cast<const volatile int*>(flag) == 0) {
  }
#endif
  if (i < n) y[i] = 2.0f * x[i];
}
