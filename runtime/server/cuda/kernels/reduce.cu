// Reductions. sum_f32 writes one partial sum per block (blockDim.x a power of two, at most 1024):
// the host or a second launch sums the partials. The tree order is part of the contract: the
// simulated driver adds in the same order, so results match bit for bit.

extern "C" __global__ void sum_f32(const float* in, float* partial, unsigned n) {
  __shared__ float s[1024];
  unsigned t = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = s[0];
}
