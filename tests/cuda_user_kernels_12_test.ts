/**
 * User CUDA C, QA wave 5 (continued): ggml-cuda's small element-wise kernels (scale, clamp,
 * gelu, silu, concat, pad, upscale) and its f32 mul_mat_vec, a LayerNorm backward in the style
 * of PyTorch's hand-written kernels (warp shuffles, shared partials, atomics into the weight
 * gradients) and a block-level LSD radix sort of 1-bit splits with ballots, each against a CPU
 * reference.
 */
import assert from "node:assert/strict";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { launch, mismatch, randoms } from "./_cuda_user_run.ts";

const ignore = nvrtcSkip !== undefined;

Deno.test({
  name: nvrtcName(
    "ggml's scale_f32, clamp_f32, gelu_f32, silu_f32, concat_f32 (dim 1), pad_f32 and " +
      "upscale_f32 (nearest, float scale factors) on small tensors",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const source = `#define GELU_COEF_A 0.044715f
#define SQRT_2_OVER_PI 0.79788456080286535587989211986876f
static __global__ void scale_f32(const float * x, float * dst, const float scale, const int k) {
    const int i = blockDim.x*blockIdx.x + threadIdx.x;
    if (i >= k) return;
    dst[i] = scale * x[i];
}
static __global__ void clamp_f32(const float * x, float * dst, const float min, const float max, const int k) {
    const int i = blockDim.x*blockIdx.x + threadIdx.x;
    if (i >= k) return;
    dst[i] = x[i] < min ? min : (x[i] > max ? max : x[i]);
}
static __global__ void gelu_f32(const float * x, float * dst, const int k) {
    const int i = blockDim.x*blockIdx.x + threadIdx.x;
    if (i >= k) return;
    float xi = x[i];
    dst[i] = 0.5f*xi*(1.0f + tanhf(SQRT_2_OVER_PI*xi*(1.0f + GELU_COEF_A*xi*xi)));
}
static __global__ void silu_f32(const float * x, float * dst, const int k) {
    const int i = blockDim.x*blockIdx.x + threadIdx.x;
    if (i >= k) return;
    dst[i] = x[i] / (1.0f + expf(-x[i]));
}
static __global__ void concat_f32_dim1(const float * x, const float * y, float * dst, const int ne0, const int ne01) {
    int nidx = threadIdx.x + blockIdx.x * blockDim.x;
    if (nidx >= ne0) return;
    int offset_dst = nidx + blockIdx.y * ne0 + blockIdx.z * ne0 * gridDim.y;
    if (blockIdx.y < ne01) { // src0
        int offset_src = nidx + blockIdx.y * ne0 + blockIdx.z * ne0 * ne01;
        dst[offset_dst] = x[offset_src];
    } else {
        int offset_src = nidx + (blockIdx.y - ne01) * ne0 + blockIdx.z * ne0 * (gridDim.y - ne01);
        dst[offset_dst] = y[offset_src];
    }
}
static __global__ void pad_f32(const float * x, float * dst, const int ne0, const int ne00, const int ne01, const int ne02, const int ne03) {
    int nidx = threadIdx.x + blockIdx.x * blockDim.x;
    if (nidx >= ne0) return;
    int offset_dst = nidx + blockIdx.y * ne0 + blockIdx.z * ne0 * gridDim.y;
    if (nidx < ne00 && blockIdx.y < ne01 && blockIdx.z < ne02*ne03) {
        int offset_src = nidx + blockIdx.y * ne00 + blockIdx.z * ne00 * ne01;
        dst[offset_dst] = x[offset_src];
    } else {
        dst[offset_dst] = 0.0f;
    }
}
static __global__ void upscale_f32(const float * x, float * dst, const int nb00, const int nb01, const int nb02, const int nb03,
        const int ne10, const int ne11, const int ne12, const int ne13, const float sf0, const float sf1, const float sf2, const float sf3) {
    int index = threadIdx.x + blockIdx.x * blockDim.x;
    if (index >= ne10 * ne11 * ne12 * ne13) return;
    int i10 = index % ne10;
    int i11 = (index / ne10) % ne11;
    int i12 = (index / (ne10 * ne11)) % ne12;
    int i13 = (index / (ne10 * ne11 * ne12)) % ne13;
    int i00 = i10 / sf0;
    int i01 = i11 / sf1;
    int i02 = i12 / sf2;
    int i03 = i13 / sf3;
    dst[index] = *(float *)((char *)x + i03 * nb03 + i02 * nb02 + i01 * nb01 + i00 * nb00);
}`;
    const k = 300, x = randoms(k, 121).map((v) => v * 5), f = Math.fround;
    const run = (
      entryPoint: string,
      threads: number | [number, number, number],
      bufs: Float32Array[],
      params: Record<string, number>,
      blockSize: [number, number, number] = [256, 1, 1],
    ) => launch(client, { source, entryPoint, blockSize }, threads, bufs, params);
    const [, s] = await run("scale_f32", k, [x, new Float32Array(k)], { scale: 0.3, k });
    assert.deepEqual(s, x.map((v) => f(f(0.3) * v)));
    const [, c] = await run("clamp_f32", k, [x, new Float32Array(k)], { min: -1.5, max: 2.25, k });
    assert.deepEqual(c, x.map((v) => Math.min(Math.max(v, -1.5), 2.25)));
    const [, g] = await run("gelu_f32", k, [x, new Float32Array(k)], { k });
    const gelu = (v: number) =>
      0.5 * v * (1 + Math.tanh(0.7978845608028654 * v * (1 + 0.044715 * v * v)));
    // tanhf: 2 ulp; 1 + tanh cancels near -1: absolute error of a few 2^-24 * |x|
    assert.equal(mismatch(g, Array.from(x, gelu), 2e-6), undefined);
    const [, si] = await run("silu_f32", k, [x, new Float32Array(k)], { k });
    assert.equal(mismatch(si, Array.from(x, (v) => v / (1 + Math.exp(-v))), 2 ** -21), undefined);

    // concat along dim 1: [ne0 = 10, 3 rows] ++ [10, 2 rows], 2 planes
    const ne0 = 10, a = randoms(ne0 * 3 * 2, 122), b = randoms(ne0 * 2 * 2, 123);
    const [, , cat] = await run("concat_f32_dim1", [32, 5, 2], [
      a,
      b,
      new Float32Array(ne0 * 5 * 2),
    ], {
      ne0,
      ne01: 3,
    }, [32, 1, 1]);
    const wantCat = new Float32Array(ne0 * 5 * 2);
    for (let z = 0; z < 2; z++) {
      for (let y = 0; y < 5; y++) {
        const from = y < 3 ? a.subarray((z * 3 + y) * ne0) : b.subarray((z * 2 + y - 3) * ne0);
        wantCat.set(from.subarray(0, ne0), (z * 5 + y) * ne0);
      }
    }
    assert.deepEqual(cat, wantCat);

    // pad [7, 3, 2] to [12, 5, 3]
    const p = randoms(7 * 3 * 2, 124);
    const [, padded] = await run(
      "pad_f32",
      [32, 5, 3],
      [p, new Float32Array(12 * 5 * 3).fill(NaN)],
      {
        ne0: 12,
        ne00: 7,
        ne01: 3,
        ne02: 2,
        ne03: 1,
      },
      [32, 1, 1],
    );
    const wantPad = Float32Array.from({ length: 12 * 5 * 3 }, (_, i) => {
      const i0 = i % 12, i1 = Math.floor(i / 12) % 5, i2 = Math.floor(i / 60);
      return i0 < 7 && i1 < 3 && i2 < 2 ? p[(i2 * 3 + i1) * 7 + i0] : 0;
    });
    assert.deepEqual(padded, wantPad);

    // upscale [5, 4, 2, 1] by [2, 1.5, 1, 1] to [10, 6, 2, 1]: i / sf truncated, as ggml's CPU op
    const u = randoms(5 * 4 * 2, 125), n = 10 * 6 * 2;
    const [, up] = await run("upscale_f32", n, [u, new Float32Array(n)], {
      nb00: 4,
      nb01: 20,
      nb02: 80,
      nb03: 160,
      ne10: 10,
      ne11: 6,
      ne12: 2,
      ne13: 1,
      sf0: 2,
      sf1: 1.5,
      sf2: 1,
      sf3: 1,
    });
    const wantUp = Float32Array.from({ length: n }, (_, i) => {
      const i0 = Math.trunc((i % 10) / 2), i1 = Math.trunc((Math.floor(i / 10) % 6) / f(1.5));
      return u[(Math.floor(i / 60) * 4 + i1) * 5 + i0];
    });
    assert.deepEqual(up, wantUp);
  },
});

Deno.test({
  name: nvrtcName(
    "ggml's mul_mat_vec<float, float, 64> (float2 loads, a shared inter-warp buffer, a local " +
      "is_same in place of <type_traits>), an ATen-style LayerNorm backward<float, float> " +
      "(BlockReduceSum, atomics into dgamma/dbeta) and a ballot/popc block radix sort, exact keys",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const mmv = `typedef long long int64_t;
template <class A, class B> struct is_same { static constexpr bool value = false; };
template <class A> struct is_same<A, A> { static constexpr bool value = true; };
template<int width = 32>
static __device__ __forceinline__ float warp_reduce_sum(float x) {
#pragma unroll
    for (int offset = width/2; offset > 0; offset >>= 1) x += __shfl_xor_sync(0xffffffff, x, offset, width);
    return x;
}
template <typename T, typename type_acc, int block_size>
static __global__ void mul_mat_vec(
        const T * __restrict__ x, const float * __restrict__ y, float * __restrict__ dst, const int64_t ncols2, const int64_t stride_row,
        const int64_t channel_ratio, const int64_t stride_channel_x, const int64_t stride_channel_y, const int64_t stride_channel_dst) {
    const int64_t row     = blockIdx.x;
    const int64_t channel = blockIdx.z;
    const int     tid     = threadIdx.x;
    constexpr int warp_size = 32;
    x   += (channel/channel_ratio)*stride_channel_x + row*stride_row;
    y   +=  channel               *stride_channel_y;
    dst +=  channel               *stride_channel_dst;
    const float2 * y2 = (const float2 *) y;
    extern __shared__ char data_mmv[];
    float * buf_iw = (float *) data_mmv;
    if (block_size > warp_size) {
        if (tid < warp_size) buf_iw[tid] = 0.0f;
        __syncthreads();
    }
    float sumf = 0.0f;
    if constexpr (is_same<T, float>::value) {
        const float2 * x2 = (const float2 *) x;
        for (int64_t col2 = tid; col2 < ncols2; col2 += block_size) {
            const float2 tmpx = x2[col2];
            const float2 tmpy = y2[col2];
            sumf += tmpx.x * tmpy.x;
            sumf += tmpx.y * tmpy.y;
        }
    }
    sumf = warp_reduce_sum<warp_size>(sumf);
    if (block_size > warp_size) {
        buf_iw[tid/warp_size] = sumf;
        __syncthreads();
        if (tid >= warp_size) return;
        sumf = buf_iw[tid];
        sumf = warp_reduce_sum<warp_size>(sumf);
    }
    if (tid != 0) return;
    dst[row] = sumf;
}`;
    const rows = 5, cols = 200, channels = 2;
    const x = randoms(rows * cols * channels, 131), y = randoms(cols * channels, 132);
    const [, , dst] = await launch(
      client,
      {
        source: mmv,
        entryPoint: "mul_mat_vec<float, float, 64>",
        blockSize: [64, 1, 1],
        sharedMemoryBytes: 128,
      },
      [rows * 64, 1, channels],
      [x, y, new Float32Array(rows * channels)],
      {
        ncols2: cols / 2,
        stride_row: cols,
        channel_ratio: 1,
        stride_channel_x: rows * cols,
        stride_channel_y: cols,
        stride_channel_dst: rows,
      },
    );
    for (let c = 0; c < channels; c++) {
      for (let r = 0; r < rows; r++) {
        let s = 0, bound = 0;
        for (let j = 0; j < cols; j++) {
          const p = x[(c * rows + r) * cols + j] * y[c * cols + j];
          s += p, bound += Math.abs(p);
        }
        // any order of 200 f32 products and sums: within 201 * 2^-24 * sum |p|
        assert.ok(Math.abs(dst[c * rows + r] - s) <= 201 * 2 ** -24 * bound, `row ${r} of ${c}`);
      }
    }

    const lnb = `typedef long long int64_t;
template <typename T>
__device__ __forceinline__ T WarpReduceSum(T val) {
  for (int offset = 16; offset > 0; offset >>= 1) val += __shfl_down_sync(0xffffffff, val, offset);
  return val;
}
template <typename T>
__device__ __forceinline__ T BlockReduceSum(T val, T* shared) {
  const int lid = threadIdx.x % 32, wid = threadIdx.x / 32;
  val = WarpReduceSum(val);
  __syncthreads();
  if (lid == 0) shared[wid] = val;
  __syncthreads();
  val = (threadIdx.x < blockDim.x / 32) ? shared[lid] : T(0);
  if (wid == 0) val = WarpReduceSum(val);
  return val;
}
template <typename T, typename T_ACC>
__global__ void layer_norm_backward_kernel(int64_t N, const T* dY, const T* X, const T_ACC* mean, const T_ACC* rstd, const T* gamma, T* dX, T* dgamma, T* dbeta) {
  __shared__ T_ACC shm[32];
  __shared__ T_ACC s_ds, s_db;
  const int64_t i = blockIdx.x;
  T_ACC ds = 0, db = 0;
  for (int64_t j = threadIdx.x; j < N; j += blockDim.x) {
    const int64_t index = i * N + j;
    const T_ACC xhat = (static_cast<T_ACC>(X[index]) - mean[i]) * rstd[i];
    ds += static_cast<T_ACC>(dY[index]) * gamma[j] * xhat;
    db += static_cast<T_ACC>(dY[index]) * gamma[j];
    atomicAdd(&dgamma[j], dY[index] * xhat);
    atomicAdd(&dbeta[j], dY[index]);
  }
  ds = BlockReduceSum<T_ACC>(ds, shm);
  if (threadIdx.x == 0) s_ds = ds;
  __syncthreads();
  db = BlockReduceSum<T_ACC>(db, shm);
  if (threadIdx.x == 0) s_db = db;
  __syncthreads();
  for (int64_t j = threadIdx.x; j < N; j += blockDim.x) {
    const int64_t index = i * N + j;
    const T_ACC xhat = (static_cast<T_ACC>(X[index]) - mean[i]) * rstd[i];
    dX[index] = rstd[i] * (static_cast<T_ACC>(dY[index]) * gamma[j] - (s_db + xhat * s_ds) / N);
  }
}`;
    const M = 4, N = 96;
    const X = randoms(M * N, 141), dY = randoms(M * N, 142), gamma = randoms(N, 143);
    const mean = new Float32Array(M), rstd = new Float32Array(M);
    for (let i = 0; i < M; i++) {
      const row = X.subarray(i * N, (i + 1) * N), m = row.reduce((a, b) => a + b) / N;
      mean[i] = m, rstd[i] = 1 / Math.sqrt(row.reduce((a, b) => a + (b - m) ** 2, 0) / N + 1e-5);
    }
    const [, , , , , dX, dgamma, dbeta] = await launch(
      client,
      {
        source: lnb,
        entryPoint: "layer_norm_backward_kernel<float, float>",
        blockSize: [64, 1, 1],
      },
      M * 64,
      [dY, X, mean, rstd, gamma, new Float32Array(M * N), new Float32Array(N), new Float32Array(N)],
      { N },
    );
    const wdX = new Float64Array(M * N), wdg = new Float64Array(N), wdb = new Float64Array(N);
    for (let i = 0; i < M; i++) {
      let ds = 0, db = 0;
      const xhat = (j: number) => (X[i * N + j] - mean[i]) * rstd[i];
      for (let j = 0; j < N; j++) {
        ds += dY[i * N + j] * gamma[j] * xhat(j), db += dY[i * N + j] * gamma[j];
        wdg[j] += dY[i * N + j] * xhat(j), wdb[j] += dY[i * N + j];
      }
      for (let j = 0; j < N; j++) {
        wdX[i * N + j] = rstd[i] * (dY[i * N + j] * gamma[j] - (db + xhat(j) * ds) / N);
      }
    }
    // f32 sums of 96 products of |v| < 4 (rstd < 2): an absolute error well under 1e-4
    assert.equal(mismatch(dX, wdX, 1e-4), undefined);
    assert.equal(mismatch(dgamma, wdg, 1e-5), undefined);
    assert.equal(mismatch(dbeta, wdb, 1e-6), undefined);

    const sort = `extern "C" __global__ void block_radix_sort(unsigned* keys, int n) {
  __shared__ unsigned s[256];
  __shared__ unsigned zeros_per_warp[8];
  const unsigned tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  unsigned key = tid < n ? keys[tid] : 0xffffffffu;
  for (int bit = 0; bit < 32; bit++) {
    unsigned b = (key >> bit) & 1;
    unsigned zmask = __ballot_sync(0xffffffffu, !b);
    unsigned zeros_before = __popc(zmask & ((1u << lane) - 1)), total = 0;
    if (lane == 0) zeros_per_warp[warp] = __popc(zmask);
    __syncthreads();
    for (unsigned w = 0; w < blockDim.x / 32; w++) {
      if (w < warp) zeros_before += zeros_per_warp[w];
      total += zeros_per_warp[w];
    }
    __syncthreads();
    s[b ? total + (tid - zeros_before) : zeros_before] = key;
    __syncthreads();
    key = s[tid];
  }
  if (tid < n) keys[tid] = key;
}`;
    let h = 7;
    const keys = Uint32Array.from(
      { length: 250 },
      () => (h = (Math.imul(h, 1664525) + 1013904223) >>> 0),
    );
    keys[3] = keys[9], keys[200] = 0, keys[201] = 0xffffffff; // duplicates and extremes
    const [sorted] = await launch(client, { source: sort, blockSize: [256, 1, 1] }, 256, [keys], {
      n: 250,
    });
    assert.deepEqual(sorted, keys.slice().sort());
  },
});
