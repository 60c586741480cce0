"""A CUDA kernel launched from Python through CuPy's RawKernel (bench/capture):
the CUDA recorder sees it as a plain cubin launch (no Triton)."""
import sys

import cupy as cp

SRC = r'''
extern "C" __global__ void softsign(const float* x, float* y, float scale, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = scale * x[i] / (1.0f + fabsf(x[i]));
}
'''


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
    k = cp.RawKernel(SRC, "softsign")
    x = cp.random.default_rng(0).standard_normal(n, dtype=cp.float32)
    y = cp.empty_like(x)
    k(((n + 255) // 256,), (256,), (x, y, cp.float32(2.0), cp.int32(n)))
    cp.cuda.Device().synchronize()
    print(f"softsign: n={n} sum {float(y.sum()):.4f}")


if __name__ == "__main__":
    main()
