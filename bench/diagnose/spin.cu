// diagnose's time on a kernel that never ends (bench/gpu_diagnose_time.sh): every
// thread spins on a flag nobody sets, so the baseline hangs until the watchdog.
extern "C" __global__ void spin(const float* x, float* y, const int* flag, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  while (*reinterpret_cast<const volatile int*>(flag) == 0) {
  }
  if (i < n) y[i] = x[i];
}
