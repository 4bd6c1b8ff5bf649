// Matrix multiplication variants for the tuner: c[m x n] = a[m x k] * b[k x n], row-major, x
// covering columns and y rows. Both accumulate in k order (nvcc fuses into FMAs), so both give
// the same bits; the tiled one stages 16 x 16 tiles in shared memory (launch with 16 x 16 blocks).

extern "C" __global__ void matmul_f32(const float* a, const float* b, float* c, unsigned m,
                                      unsigned k, unsigned n) {
  unsigned row = blockIdx.y * blockDim.y + threadIdx.y;
  unsigned col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n) return;
  float acc = 0.0f;
  for (unsigned p = 0; p < k; p++) acc = fmaf(a[row * k + p], b[p * n + col], acc);
  c[row * n + col] = acc;
}

#define TILE 16
extern "C" __global__ void matmul_tiled_f32(const float* a, const float* b, float* c, unsigned m,
                                            unsigned k, unsigned n) {
  __shared__ float as[TILE][TILE];
  __shared__ float bs[TILE][TILE];
  unsigned ty = threadIdx.y, tx = threadIdx.x;
  unsigned row = blockIdx.y * TILE + ty;
  unsigned col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (unsigned t = 0; t < k; t += TILE) {
    as[ty][tx] = row < m && t + tx < k ? a[row * k + t + tx] : 0.0f;
    bs[ty][tx] = t + ty < k && col < n ? b[(t + ty) * n + col] : 0.0f;
    __syncthreads();
    unsigned last = k - t < TILE ? k - t : TILE;
    for (unsigned p = 0; p < last; p++) acc = fmaf(as[ty][p], bs[p][tx], acc);
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = acc;
}
