// Element-wise kernels of the CUDA backend. Parameter order follows the launch ABI of
// runtime/server/cuda/launch/launcher.ts: buffer pointers, (byte lengths when the kernel asks), metadata
// words, then scalars. Every kernel guards its index, so any grid that covers n is valid.
// The simulated driver (tests/fixtures/cuda_sim) runs their PTX through its interpreter.

extern "C" __global__ void fill_f32(float* out, unsigned n, float value) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}

extern "C" __global__ void fill_u32(unsigned* out, unsigned n, unsigned value) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}

extern "C" __global__ void add_f32(const float* a, const float* b, float* out, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

// out = a * s + b
extern "C" __global__ void scale_add_f32(const float* a, const float* b, float* out, unsigned n,
                                         float s) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] * s + b[i];
}

extern "C" __global__ void copy_u32(const unsigned* src, unsigned* dst, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[i];
}

extern "C" __global__ void scale_f32(float* v, unsigned n, float s) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] *= s;
}

// a[i] += 1 over the whole buffer: launched with byte lengths (bytes = a's size).
extern "C" __global__ void increment_u32(unsigned* a, unsigned bytes) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < bytes / 4) a[i] += 1;
}

// Deliberately slow: every thread sleeps about `micros` microseconds, then adds 1.
extern "C" __global__ void slow_f32(float* v, unsigned n, unsigned micros) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  for (unsigned t = 0; t < micros; t++) __nanosleep(1000);
  if (i < n) v[i] += 1.0f;
}
