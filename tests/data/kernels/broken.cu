// Does not compile: line 5 uses an undeclared identifier.
extern "C" __global__ void broken(float* out) {
  int i = threadIdx.x;
  out[i] = 1.0f;
  out[i] += undeclared_value;
}
