/**
 * User CUDA C, QA wave 17 (continued from tests/cuda_user_kernels_23_test.ts, which had grown
 * long): LeetCUDA's f32 kernels (xlite-dev/LeetCUDA cb6a0497, the successor of DefTruth's
 * CUDA-Learn-Notes; their torch bindings dropped): the three SGEMV kernels (one row a warp, float4
 * loads, two rows a warp reduced over half-warp groups), the online softmax (an `__align__(8)`
 * struct through shuffles, `__expf`, `__fdividef`), the layer norms (a `static __shared__` array in
 * a device template) and two 2-D transposes (a float4 tile in padded shared memory, a diagonal
 * block order); cuda-samples' binomialOptionsKernel, whose option data a user passes in a buffer
 * (there is no cudaMemcpyToSymbol here), particles' hashing, cell finding and collision kernels (a
 * `__constant__` struct of float3 and uint3 fields initialized in the source instead, helper_math's
 * operators), HSOpticalFlow's JacobiIteration and FDTD3d's FiniteDifferencesKernel (halo tiles);
 * ggml's cross-entropy loss kernels with 128,000 bytes of dynamic shared memory on compute
 * capability 9.0; PyTorch's extension tutorial's LLTM kernels in double and float (NVRTC refuses
 * the float instance's fmax(0.0, z) as ambiguous: nvcc's CUDA headers promote such a call through
 * templates NVRTC has not; upstream later wrote fmaxf); CuPy's example SGEMM (MAGMA's) with its
 * tile sizes as `-D` options. Each against a CPU reference: bit for bit where the kernel is exact
 * (with `--fmad=false` where NVRTC's contraction to fma makes the rounding the compiler's choice),
 * within a stated bound otherwise.
 */
import assert from "node:assert/strict";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { launch, mismatch, randoms, xorWarpSum } from "./_cuda_user_run.ts";
import { withSimEnv } from "./fixtures/cuda_sim.ts";
import type { CudaKernel } from "../runtime/server/cuda/kernel.ts";

const ignore = nvrtcSkip !== undefined;
const f = Math.fround;

// LeetCUDA kernels/sgemv/sgemv.cu, the f32 kernels verbatim
const SGEMV = `#define WARP_SIZE 32
#define FLOAT4(value) (reinterpret_cast<float4 *>(&(value))[0])
template <const int kWarpSize = WARP_SIZE>
__device__ __forceinline__ float warp_reduce_sum_f32(float val) {
#pragma unroll
  for (int mask = kWarpSize >> 1; mask >= 1; mask >>= 1) {
    val += __shfl_xor_sync(0xffffffff, val, mask);
  }
  return val;
}
__global__ void sgemv_k32_f32_kernel(float *a, float *x, float *y, int M,
                                     int K) {
  int tx = threadIdx.x;         // 0~31
  int ty = threadIdx.y;         // 0~4
  int bx = blockIdx.x;          // 0~M/4
  int lane = tx % WARP_SIZE;    // 0~31
  int m = bx * blockDim.y + ty; // (0~M/4) * 4 + (0~3)
  if (m < M) {
    float sum = 0.0f;
    int NUM_WARPS = (K + WARP_SIZE - 1) / WARP_SIZE;
#pragma unroll
    for (int w = 0; w < NUM_WARPS; ++w) {
      int k = w * WARP_SIZE + lane;
      sum += a[m * K + k] * x[k];
    }
    sum = warp_reduce_sum_f32<WARP_SIZE>(sum);
    if (lane == 0)
      y[m] = sum;
  }
}
__global__ void sgemv_k128_f32x4_kernel(float *a, float *x, float *y, int M,
                                        int K) {
  int tx = threadIdx.x;         // 0~31
  int ty = threadIdx.y;         // 0~3
  int bx = blockIdx.x;          // 0~M/4
  int lane = tx % WARP_SIZE;    // 0~31
  int m = blockDim.y * bx + ty; // (0~M/4) * 4 + (0~3)

  if (m < M) {
    float sum = 0.0f;
    // process 4*WARP_SIZE elements per warp.
    int NUM_WARPS = (((K + WARP_SIZE - 1) / WARP_SIZE) + 4 - 1) / 4;
#pragma unroll
    for (int w = 0; w < NUM_WARPS; ++w) {
      int k = (w * WARP_SIZE + lane) * 4;
      float4 reg_x = FLOAT4(x[k]);
      float4 reg_a = FLOAT4(a[m * K + k]);
      sum += (reg_a.x * reg_x.x + reg_a.y * reg_x.y + reg_a.z * reg_x.z +
              reg_a.w * reg_x.w);
    }
    sum = warp_reduce_sum_f32<WARP_SIZE>(sum);
    if (lane == 0)
      y[m] = sum;
  }
}
template <const int ROW_PER_WARP = 2>
__global__ void sgemv_k16_f32_kernel(float *A, float *x, float *y, int M,
                                     int K) {
  constexpr int K_WARP_SIZE = (WARP_SIZE + ROW_PER_WARP - 1) / ROW_PER_WARP;
  int tx = threadIdx.x;      // 0~31
  int ty = threadIdx.y;      // 0~NUM_WARPS
  int bx = blockIdx.x;       // 0~M/NUM_ROWS (NUM_ROWS=NUM_WARPS * ROW_PER_WARP)
  int lane = tx % WARP_SIZE; // 0~31
  int k = lane % K_WARP_SIZE; // 0~15
  // gloabl row of a: MxK and y:Mx1, blockDim.y=NUM_WARPS
  int m = (blockDim.y * bx + ty) * ROW_PER_WARP + lane / K_WARP_SIZE;
  if (m < M) {
    float sum = A[m * K + k] * x[k];
    sum = warp_reduce_sum_f32<K_WARP_SIZE>(sum);
    // 注意是k == 0，而不是lane == 0
    if (k == 0)
      y[m] = sum;
  }
}`;

Deno.test({
  name: nvrtcName(
    "LeetCUDA sgemv_k32_f32_kernel (K 96), sgemv_k128_f32x4_kernel (K 384) and " +
      "sgemv_k16_f32_kernel<2> (K 16, two rows a warp) on blocks of [32, 4], M 50, bit for bit " +
      "with --fmad=false",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const M = 50;
    const kernel = (entryPoint: string) => ({
      source: SGEMV,
      entryPoint,
      blockSize: [32, 4, 1] as [number, number, number],
      compileOptions: ["--fmad=false"],
    });
    for (
      const [entryPoint, K, rowsPerBlock] of [
        ["sgemv_k32_f32_kernel", 96, 4],
        ["sgemv_k128_f32x4_kernel", 384, 4],
        ["sgemv_k16_f32_kernel<2>", 16, 8],
      ] as const
    ) {
      const a = randoms(M * K, 121), x = randoms(K, 122);
      const [, , y] = await launch(
        client,
        kernel(entryPoint),
        [Math.ceil(M / rowsPerBlock) * 32, 4],
        [a, x, new Float32Array(M)],
        { M, K },
      );
      const want = Float32Array.from({ length: M }, (_, m) => {
        const p = (k: number) => f(a[m * K + k] * x[k]);
        if (K === 16) return xorWarpSum(Array.from({ length: 32 }, (_, l) => p(l % 16)), 16);
        const lanes = Array.from({ length: 32 }, (_, lane) => {
          let sum = 0;
          if (K === 96) { for (let w = 0; w < K / 32; w++) sum = f(sum + p(w * 32 + lane)); }
          else {
            for (let w = 0; w < K / 128; w++) {
              const k = (w * 32 + lane) * 4;
              sum = f(sum + f(f(f(p(k) + p(k + 1)) + p(k + 2)) + p(k + 3)));
            }
          }
          return sum;
        });
        return xorWarpSum(lanes);
      });
      assert.deepEqual(y, want, entryPoint);
    }
  },
});

// LeetCUDA kernels/softmax/softmax.cu: MD, warp_reduce_md_op and
// online_safe_softmax_f32_per_token_kernel verbatim, with FLT_MAX (no <float.h> here)
const ONLINE_SOFTMAX = `#define WARP_SIZE 32
#define FLT_MAX 3.402823466e+38F
struct __align__(8) MD {
  float m;
  float d;
};
template <const int kWarpSize = WARP_SIZE>
__device__ __forceinline__ MD warp_reduce_md_op(MD value) {
  unsigned int mask = 0xffffffff;
#pragma unroll
  for (int stride = kWarpSize >> 1; stride >= 1; stride >>= 1) {
    MD other;
    other.m = __shfl_xor_sync(mask, value.m, stride);
    other.d = __shfl_xor_sync(mask, value.d, stride);

    bool value_bigger = (value.m > other.m);
    MD bigger_m = value_bigger ? value : other;
    MD smaller_m = value_bigger ? other : value;

    value.d = bigger_m.d + smaller_m.d * __expf(smaller_m.m - bigger_m.m);
    value.m = bigger_m.m;
  }
  return value;
}
template <const int NUM_THREADS = 256>
__global__ void online_safe_softmax_f32_per_token_kernel(const float *x,
                                                         float *y, int N) {
  // reference: https://arxiv.org/pdf/1805.02867 (Online normalizer calculation
  // for softmax)
  int local_tid = threadIdx.x;
  int global_tid = blockIdx.x * NUM_THREADS + threadIdx.x;
  const int WAPR_NUM = NUM_THREADS / WARP_SIZE;
  int warp_id = local_tid / WARP_SIZE;
  int lane_id = local_tid % WARP_SIZE;
  MD val;
  val.m = global_tid < N ? x[global_tid] : -FLT_MAX;
  val.d = global_tid < N ? 1.0f : 0.0f;

  __shared__ MD shared[WAPR_NUM];
  MD res = warp_reduce_md_op<WARP_SIZE>(val);

  if (lane_id == 0)
    shared[warp_id] = res;
  __syncthreads();

  if (local_tid < WARP_SIZE) {
    MD block_res = shared[local_tid];
    block_res = warp_reduce_md_op<WAPR_NUM>(block_res);
    if (local_tid == 0) {
      shared[0] = block_res;
    }
  }
  __syncthreads();

  MD final_res = shared[0];
  float d_total_inverse = __fdividef(1.0f, final_res.d);
  if (global_tid < N) {
    y[global_tid] = __expf(x[global_tid] - final_res.m) * d_total_inverse;
  }
}`;

Deno.test({
  name: nvrtcName(
    "LeetCUDA online_safe_softmax_f32_per_token_kernel<1024>: 3 tokens of 1024 (a struct of " +
      "two floats through shuffles, __expf, __fdividef), within 1e-5 relative of a double softmax",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    // (the instance of 256 threads, as LeetCUDA's binding launches for H = 256, reads its
    // 8-entry shared array at lanes 8 to 31: 1024 threads, 32 warps, read it whole)
    const H = 1024, tokens = 3;
    const x = randoms(H * tokens, 131).map((v, i) => v * 4 + (i % 3));
    const [, y] = await launch(
      client,
      {
        source: ONLINE_SOFTMAX,
        entryPoint: `online_safe_softmax_f32_per_token_kernel<${H}>`,
        blockSize: [H, 1, 1],
      },
      H * tokens,
      [x, new Float32Array(H * tokens)],
      { N: H * tokens },
    );
    // N is every token's element count in LeetCUDA's binding; each block normalizes its own row
    for (let t = 0; t < tokens; t++) {
      const row = x.subarray(t * H, (t + 1) * H);
      const m = Math.max(...row);
      let d = 0;
      for (const v of row) d += Math.exp(v - m);
      for (let i = 0; i < H; i++) {
        const want = Math.exp(row[i] - m) / d, got = y[t * H + i];
        // __expf is within 2 + floor(1.173 |x|) ulp (CUDA C Programming Guide, intrinsic
        // functions; |x| < 14 here: 18 ulp), d's 1024 terms are merged in 10 rounds, each
        // rounding and scaling by an __expf, and __fdividef is within 2 ulp: 80 ulp, 1e-5
        assert.ok(Math.abs(got - want) <= 1e-5 * want, `token ${t}, ${i}: ${got} vs ${want}`);
      }
    }
  },
});

// LeetCUDA kernels/mat-transpose/mat_transpose.cu: mat_transpose_f32_diagonal2d_kernel and
// mat_transpose_f32x4_shared_bcf_col2row2d_kernel verbatim
const TRANSPOSE = `#define WARP_SIZE_S 16
#define PAD 1
#define FLOAT4(value) (reinterpret_cast<float4 *>(&(value))[0])
__global__ void mat_transpose_f32_diagonal2d_kernel(float *x, float *y, int row,
                                                    int col) {
  const int block_y = blockIdx.x;
  const int block_x = (blockIdx.x + blockIdx.y) % gridDim.x;
  const int global_col = threadIdx.x + blockDim.x * block_x;
  const int global_row = threadIdx.y + blockDim.y * block_y;
  if (global_col < col && global_row < row) {
    y[global_row * col + global_col] = x[global_col * row + global_row];
  }
}
__global__ void mat_transpose_f32x4_shared_bcf_col2row2d_kernel(float *x,
                                                                float *y,
                                                                const int row,
                                                                const int col) {
  const int global_x = blockIdx.x * blockDim.x + threadIdx.x;
  const int global_y = blockIdx.y * blockDim.y + threadIdx.y;
  const int local_x = threadIdx.x;
  const int local_y = threadIdx.y;
  __shared__ float tile[WARP_SIZE_S][WARP_SIZE_S * 4 + PAD];
  if (global_x * 4 + 3 < col + 3 && global_y < row) {
    // load value from x to shared memory
    float4 x_val = reinterpret_cast<float4 *>(x)[global_y * col / 4 + global_x];
    tile[local_y][local_x * 4] = x_val.x;
    tile[local_y][local_x * 4 + 1] = x_val.y;
    tile[local_y][local_x * 4 + 2] = x_val.z;
    tile[local_y][local_x * 4 + 3] = x_val.w;
    __syncthreads();
    float4 smem_val;
    // load value from shared memory to y.
    // add STRIDE to satisfied different block size.
    constexpr int STRIDE = WARP_SIZE_S / 4;
    smem_val.x = tile[(local_y % STRIDE) * 4][local_x * 4 + local_y / STRIDE];
    smem_val.y =
        tile[(local_y % STRIDE) * 4 + 1][local_x * 4 + local_y / STRIDE];
    smem_val.z =
        tile[(local_y % STRIDE) * 4 + 2][local_x * 4 + local_y / STRIDE];
    smem_val.w =
        tile[(local_y % STRIDE) * 4 + 3][local_x * 4 + local_y / STRIDE];
    // map index n*n to (n/4)*(n*4)
    const int bid_y = blockIdx.y * blockDim.y;
    const int out_y = global_x * 4 + local_y / STRIDE;
    const int out_x = (local_y % STRIDE) * 4 + bid_y;
    reinterpret_cast<float4 *>(y)[(out_y * row + out_x) / 4] = FLOAT4(smem_val);
  }
}`;

Deno.test({
  name: nvrtcName(
    "LeetCUDA mat_transpose_f32x4_shared_bcf_col2row2d_kernel (48x128, float4 tiles in padded " +
      "shared memory) and mat_transpose_f32_diagonal2d_kernel (64x64, blocks in diagonal order), " +
      "on blocks of [16, 16] as its binding launches them",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const transposed = (x: Float32Array, M: number, N: number) =>
      Float32Array.from({ length: M * N }, (_, i) => x[(i % M) * N + Math.floor(i / M)]);
    const [M, N] = [48, 128];
    const x = Float32Array.from({ length: M * N }, (_, i) => i + 0.25);
    const [, y] = await launch(
      client,
      {
        source: TRANSPOSE,
        entryPoint: "mat_transpose_f32x4_shared_bcf_col2row2d_kernel",
        blockSize: [16, 16, 1],
      },
      [Math.ceil(N / 64) * 16, Math.ceil(M / 16) * 16],
      [x, new Float32Array(M * N)],
      { row: M, col: N },
    );
    assert.deepEqual(y, transposed(x, M, N));
    const S = 64, sq = Float32Array.from({ length: S * S }, (_, i) => i * 3 + 1);
    const [, y2] = await launch(
      client,
      {
        source: TRANSPOSE,
        entryPoint: "mat_transpose_f32_diagonal2d_kernel",
        blockSize: [16, 16, 1],
      },
      [S, S],
      [sq, new Float32Array(S * S)],
      { row: S, col: S },
    );
    assert.deepEqual(y2, transposed(sq, S, S));
  },
});

// cuda-samples Samples/5_Domain_Specific/binomialOptions/binomialOptions_kernel.cu, the float
// kernel as a user brings it here: d_OptionData (a __constant__ array the sample fills with
// cudaMemcpyToSymbol) and d_CallValue (a __device__ array it reads with cudaMemcpyFromSymbol) become
// pointer parameters, the one change, and NUM_STEPS is 256 (the sample's 2048 takes the
// simulator seconds); cg::sync(cta) written __syncthreads()
const BINOMIAL = `typedef float real;
#define NUM_STEPS 256
typedef struct
{
    real S;
    real X;
    real vDt;
    real puByDf;
    real pdByDf;
} __TOptionData;
__device__ inline float expiryCallValue(float S, float X, float vDt, int i)
{
    float d = S * __expf(vDt * (2.0f * i - NUM_STEPS)) - X;
    return (d > 0.0F) ? d : 0.0F;
}
#define THREADBLOCK_SIZE 128
#define ELEMS_PER_THREAD (NUM_STEPS / THREADBLOCK_SIZE)
#if NUM_STEPS % THREADBLOCK_SIZE
#error Bad constants
#endif
__global__ void binomialOptionsKernel(const __TOptionData *d_OptionData, real *d_CallValue)
{
    __shared__ real  call_exchange[THREADBLOCK_SIZE + 1];

    const int  tid    = threadIdx.x;
    const real S      = d_OptionData[blockIdx.x].S;
    const real X      = d_OptionData[blockIdx.x].X;
    const real vDt    = d_OptionData[blockIdx.x].vDt;
    const real puByDf = d_OptionData[blockIdx.x].puByDf;
    const real pdByDf = d_OptionData[blockIdx.x].pdByDf;

    real call[ELEMS_PER_THREAD + 1];
#pragma unroll
    for (int i = 0; i < ELEMS_PER_THREAD; ++i)
        call[i] = expiryCallValue(S, X, vDt, tid * ELEMS_PER_THREAD + i);

    if (tid == 0)
        call_exchange[THREADBLOCK_SIZE] = expiryCallValue(S, X, vDt, NUM_STEPS);

    int final_it = max(0, tid * ELEMS_PER_THREAD - 1);

#pragma unroll 16
    for (int i = NUM_STEPS; i > 0; --i) {
        call_exchange[tid] = call[0];
        __syncthreads();
        call[ELEMS_PER_THREAD] = call_exchange[tid + 1];
        __syncthreads();

        if (i > final_it) {
#pragma unroll
            for (int j = 0; j < ELEMS_PER_THREAD; ++j)
                call[j] = puByDf * call[j + 1] + pdByDf * call[j];
        }
    }

    if (tid == 0) {
        d_CallValue[blockIdx.x] = call[0];
    }
}`;

Deno.test({
  name: nvrtcName(
    "cuda-samples binomialOptionsKernel (256 steps, a local array exchanged through shared " +
      "memory 512 times) for 6 options, within the bound __expf leaves of the sample's double gold",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const options = [
      [30, 35, 1, 0.06, 0.1],
      [25, 20, 0.5, 0.02, 0.3],
      [10, 10, 2, 0.05, 0.25],
      [5, 25, 5, 0.03, 0.2],
      [40, 30, 0.25, 0.01, 0.15],
      [18, 19, 3, 0.04, 0.12],
    ]; // S, X, T, R, V as the sample's randomized inputs
    const data = new Float32Array(options.length * 5), gold: number[] = [];
    options.forEach(([S, X, T, R, V], o) => {
      const dt = T / 256, vDt = V * Math.sqrt(dt), rDt = R * dt;
      const If = Math.exp(rDt), Df = Math.exp(-rDt), u = Math.exp(vDt), d = Math.exp(-vDt);
      const pu = (If - d) / (u - d), pd = 1 - pu;
      data.set([S, X, vDt, pu * Df, pd * Df], o * 5);
      // binomialOptions_gold's induction in double, on the float parameters the kernel gets
      const [fS, fX, fvDt, fpu, fpd] = data.subarray(o * 5, o * 5 + 5);
      const call = Array.from(
        { length: 257 },
        (_, i) => Math.max(fS * Math.exp(fvDt * (2 * i - 256)) - fX, 0),
      );
      for (let i = 256; i > 0; i--) {
        for (let j = 0; j < i; j++) call[j] = fpu * call[j + 1] + fpd * call[j];
      }
      gold.push(call[0]);
    });
    const [, got] = await launch(
      client,
      { source: BINOMIAL, entryPoint: "binomialOptionsKernel", blockSize: [128, 1, 1] },
      options.length * 128,
      [data, new Float32Array(options.length)],
    );
    options.forEach(([S, , T, , V], o) => {
      // The induction averages (puByDf + pdByDf < 1) and its values are discounted
      // expectations: an error at a node reaches the root weighted by that node's discounted
      // probability, and those weights times S e^x sum to at most S, times the node values to at
      // most the price. __expf is within 2 + floor(1.173 |x|) ulp (CUDA C Programming Guide,
      // intrinsic functions), |x| <= V sqrt(T * 256), so the expiry values (a product and a
      // difference more) are within (4 + 1.173 |x|) 2^-24 S e^x; each of the 256 rounds of two
      // products and a sum adds 3 ulp of its value
      const xmax = V * Math.sqrt(T * 256);
      const bound = 2 ** -23 * ((4 + 1.173 * xmax) * S + 3 * 256 * gold[o]) + 1e-30;
      assert.ok(
        Math.abs(got[o] - gold[o]) <= bound,
        `option ${o}: ${got[o]} vs ${gold[o]} (${bound})`,
      );
      assert.ok(got[o] > 0, `option ${o}`);
    });
  },
});

// llama.cpp ggml/src/ggml-cuda/cross-entropy-loss.cu (c392e5094): cross_entropy_loss_f32 and
// cross_entropy_loss_back_f32 verbatim, with ggml's WARP_SIZE, warp_reduce_sum and
// warp_reduce_max, and INFINITY (no <cmath> here)
const XENT_LOSS = `#define WARP_SIZE 32
#define INFINITY __int_as_float(0x7f800000)
typedef long long int64_t;
template<int width = WARP_SIZE>
static __device__ __forceinline__ float warp_reduce_sum(float x) {
#pragma unroll
    for (int offset = width/2; offset > 0; offset >>= 1) {
        x += __shfl_xor_sync(0xffffffff, x, offset, width);
    }
    return x;
}
template<int width = WARP_SIZE>
static __device__ __forceinline__ float warp_reduce_max(float x) {
#pragma unroll
    for (int offset = width/2; offset > 0; offset >>= 1) {
        x = fmaxf(x, __shfl_xor_sync(0xffffffff, x, offset, width));
    }
    return x;
}
template <bool use_shared>
static __global__ void cross_entropy_loss_f32(
        const float * __restrict__ logits, const float * __restrict__ labels, float * __restrict__ dst, const int nclasses, const int k) {
    extern __shared__ float tmp[];

    logits += int64_t(blockIdx.x)*nclasses;
    labels += int64_t(blockIdx.x)*nclasses;

    // Find maximum for softmax:
    float max_logit = -INFINITY;
    for (int i = threadIdx.x; i < nclasses; i += WARP_SIZE) {
        const float val = logits[i];
        max_logit = fmaxf(max_logit, val);

        if (use_shared) {
            tmp[i] = val;
        }
    }
    max_logit = warp_reduce_max(max_logit);

    // Calculate log(softmax(logits)) which is just logits - max:
    float sum = 0.0f;
    for (int i = threadIdx.x; i < nclasses; i += WARP_SIZE) {
        const float logit_i = use_shared ? tmp[i] : logits[i];
        sum += expf(logit_i - max_logit);
    }
    sum = warp_reduce_sum(sum);
    sum = logf(sum);

    // log(exp(logits - max) / sum) = (logits - max) - log(sum)
    float loss = 0.0f;
    for (int i = threadIdx.x; i < nclasses; i += WARP_SIZE) {
        const float logit_i = use_shared ? tmp[i] : logits[i];
        loss += (logit_i - max_logit - sum) * labels[i];
    }
    loss = -warp_reduce_sum(loss) / (float)k;

    if (threadIdx.x != 0) {
        return;
    }

    dst[blockIdx.x] = loss;
}
template <bool use_shared>
static __global__ void cross_entropy_loss_back_f32(
        const float * __restrict__ grad, const float * __restrict__ logits, const float * __restrict__ labels,
        float * __restrict__ dst, const int nclasses) {
    extern __shared__ float tmp[];

    logits += int64_t(blockIdx.x)*nclasses;
    labels += int64_t(blockIdx.x)*nclasses;
    dst    += int64_t(blockIdx.x)*nclasses;

    float maxval = -INFINITY;
    for (int i = threadIdx.x; i < nclasses; i += WARP_SIZE) {
        const float val = logits[i];
        maxval = fmaxf(maxval, val);

        if (use_shared) {
            tmp[i] = val;
        }
    }
    maxval = warp_reduce_max(maxval);

    float sum = 0.0f;
    for (int i = threadIdx.x; i < nclasses; i += WARP_SIZE) {
        const float val = expf((use_shared ? tmp[i] : logits[i]) - maxval);
        sum += val;

        if (use_shared) {
            tmp[i] = val;
        } else {
            dst[i] = val;
        }
    }
    sum = warp_reduce_sum(sum);
    const float sm_scale = 1.0f/sum;

    const float d_by_nrows = *grad/gridDim.x;
    for (int i = threadIdx.x; i < nclasses; i += WARP_SIZE) {
        const float val = use_shared ? tmp[i] : dst[i];
        dst[i] = (val*sm_scale - labels[i])*d_by_nrows;
    }
}`;

Deno.test({
  name: nvrtcName(
    "ggml cross_entropy_loss_f32 and cross_entropy_loss_back_f32, <true> with 128,000 bytes of " +
      "dynamic shared memory on compute capability 9.0 (as ggml raises the function's limit; a " +
      "real driver: its own device, an H100 or H200 has room) " +
      "and <false>, over 3 rows of 32,000 classes, within the bounds of their float sums",
  ),
  ignore,
  async fn() {
    await withSimEnv({ CUDA_SIM_CC: "90" }, async () => {
      using client = await simulatedCudaClient();
      const [nrows, nclasses] = [3, 32000];
      const logits = randoms(nrows * nclasses, 141).map((v) => v * 6);
      // soft labels: each row sums to 1
      const labels = new Float32Array(nrows * nclasses);
      for (let r = 0; r < nrows; r++) {
        for (let j = 0; j < 4; j++) {
          labels[r * nclasses + ((r * 7919 + j * 4099) % nclasses)] = 0.25;
        }
      }
      const grad = Float32Array.of(1.5);
      const want = new Float64Array(nrows), wantBack = new Float64Array(nrows * nclasses);
      for (let r = 0; r < nrows; r++) {
        const row = logits.subarray(r * nclasses, (r + 1) * nclasses);
        const max = Math.max(...row);
        let sum = 0;
        for (const v of row) sum += Math.exp(v - max);
        for (let i = 0; i < nclasses; i++) {
          want[r] -= (row[i] - max - Math.log(sum)) * labels[r * nclasses + i] / nrows;
          wantBack[r * nclasses + i] = (Math.exp(row[i] - max) / sum - labels[r * nclasses + i]) *
            1.5 / nrows;
        }
      }
      for (const shared of [true, false]) {
        const bytes = shared ? nclasses * 4 : 0;
        const [, , loss] = await launch(
          client,
          {
            source: XENT_LOSS,
            entryPoint: `cross_entropy_loss_f32<${shared}>`,
            blockSize: [32, 1, 1],
            sharedMemoryBytes: bytes,
          },
          nrows * 32,
          [logits, labels, new Float32Array(nrows)],
          { nclasses, k: nrows },
        );
        // expf's 2 ulp and the float sum of 32,000 terms in 1,000 rounds per lane (relative
        // 1,005 * 2^-24 of the sum), logf's 1 ulp: log(sum) within 1e-4 absolute; the loss sums
        // 4 labelled terms of |logit - max - log(sum)| < 25: 4e-4 relative bounds both
        for (let r = 0; r < nrows; r++) {
          assert.ok(
            Math.abs(loss[r] - want[r]) <= 4e-4 * Math.abs(want[r]),
            `${shared}: row ${r}: ${loss[r]} vs ${want[r]}`,
          );
        }
        const [, , , back] = await launch(
          client,
          {
            source: XENT_LOSS,
            entryPoint: `cross_entropy_loss_back_f32<${shared}>`,
            blockSize: [32, 1, 1],
            sharedMemoryBytes: bytes,
          },
          nrows * 32,
          [grad, logits, labels, new Float32Array(nrows * nclasses)],
          { nclasses },
        );
        // softmax values within expf's 2 ulp and the sum's 1,005 * 2^-24 relative: 1e-4
        // relative of each softmax value, plus the label's exact term's rounding
        for (let i = 0; i < nrows * nclasses; i++) {
          const sm = Math.abs(wantBack[i] + labels[i] * 0.5);
          assert.ok(
            Math.abs(back[i] - wantBack[i]) <= 1e-4 * sm + 2 ** -24 * Math.abs(wantBack[i]),
            `${shared}: ${i}: ${back[i]} vs ${wantBack[i]}`,
          );
        }
      }
    });
  },
});

// cuda-samples Samples/2_Concepts_and_Techniques/particles: SimParams (particles_kernel.cuh),
// calcGridPos, calcGridHash, calcHashD, reorderDataAndFindCellStartD, collideSpheres,
// collideCell and collideD (particles_kernel_impl.cuh) verbatim but cg::sync(cta) written
// __syncthreads(); helper_math.h's operators they use, verbatim; and the one change a user makes
// here: `__constant__ SimParams cudaParams`, which the sample fills with cudaMemcpyToSymbol, gets
// its values from an initializer written into the source (PARAMS below)
const PARTICLES = `typedef unsigned int uint;
struct SimParams
{
    float3 colliderPos;
    float  colliderRadius;

    float3 gravity;
    float  globalDamping;
    float  particleRadius;

    uint3  gridSize;
    uint   numCells;
    float3 worldOrigin;
    float3 cellSize;

    uint numBodies;
    uint maxParticlesPerCell;

    float spring;
    float damping;
    float shear;
    float attraction;
    float boundaryDamping;
};
inline __host__ __device__ float3 make_float3(float s)
{
    return make_float3(s, s, s);
}
inline __host__ __device__ float3 make_float3(float4 a)
{
    return make_float3(a.x, a.y, a.z);
}
inline __host__ __device__ float4 make_float4(float3 a, float w)
{
    return make_float4(a.x, a.y, a.z, w);
}
inline __host__ __device__ float3 operator+(float3 a, float3 b)
{
    return make_float3(a.x + b.x, a.y + b.y, a.z + b.z);
}
inline __host__ __device__ void operator+=(float3 &a, float3 b)
{
    a.x += b.x;
    a.y += b.y;
    a.z += b.z;
}
inline __host__ __device__ int3 operator+(int3 a, int3 b)
{
    return make_int3(a.x + b.x, a.y + b.y, a.z + b.z);
}
inline __host__ __device__ float3 operator-(float3 a, float3 b)
{
    return make_float3(a.x - b.x, a.y - b.y, a.z - b.z);
}
inline __host__ __device__ float3 operator*(float3 a, float b)
{
    return make_float3(a.x * b, a.y * b, a.z * b);
}
inline __host__ __device__ float3 operator*(float b, float3 a)
{
    return make_float3(b * a.x, b * a.y, b * a.z);
}
inline __host__ __device__ float3 operator/(float3 a, float b)
{
    return make_float3(a.x / b, a.y / b, a.z / b);
}
inline __host__ __device__ float dot(float3 a, float3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
inline __host__ __device__ float length(float3 v)
{
    return sqrtf(dot(v, v));
}
__constant__ SimParams cudaParams = PARAMS;
__device__ int3 calcGridPos(float3 p)
{
    int3 gridPos;
    gridPos.x = floorf((p.x - cudaParams.worldOrigin.x) / cudaParams.cellSize.x);
    gridPos.y = floorf((p.y - cudaParams.worldOrigin.y) / cudaParams.cellSize.y);
    gridPos.z = floorf((p.z - cudaParams.worldOrigin.z) / cudaParams.cellSize.z);
    return gridPos;
}
__device__ uint calcGridHash(int3 gridPos)
{
    gridPos.x = gridPos.x & (cudaParams.gridSize.x - 1); // wrap grid, assumes size is power of 2
    gridPos.y = gridPos.y & (cudaParams.gridSize.y - 1);
    gridPos.z = gridPos.z & (cudaParams.gridSize.z - 1);
    return __umul24(__umul24(gridPos.z, cudaParams.gridSize.y), cudaParams.gridSize.x)
         + __umul24(gridPos.y, cudaParams.gridSize.x) + gridPos.x;
}
__global__ void calcHashD(uint   *gridParticleHash,  // output
                          uint   *gridParticleIndex, // output
                          float4 *pos,               // input: positions
                          uint    numParticles)
{
    uint index = __umul24(blockIdx.x, blockDim.x) + threadIdx.x;

    if (index >= numParticles)
        return;

    volatile float4 p = pos[index];

    // get address in grid
    int3 gridPos = calcGridPos(make_float3(p.x, p.y, p.z));
    uint hash    = calcGridHash(gridPos);

    // store grid hash and particle index
    gridParticleHash[index]  = hash;
    gridParticleIndex[index] = index;
}
__global__ void reorderDataAndFindCellStartD(uint   *cellStart,         // output: cell start index
                                             uint   *cellEnd,           // output: cell end index
                                             float4 *sortedPos,         // output: sorted positions
                                             float4 *sortedVel,         // output: sorted velocities
                                             uint   *gridParticleHash,  // input: sorted grid hashes
                                             uint   *gridParticleIndex, // input: sorted particle indices
                                             float4 *oldPos,            // input: sorted position array
                                             float4 *oldVel,            // input: sorted velocity array
                                             uint    numParticles)
{
    extern __shared__ uint sharedHash[]; // blockSize + 1 elements
    uint                   index = __umul24(blockIdx.x, blockDim.x) + threadIdx.x;

    uint hash;

    // handle case when no. of particles not multiple of block size
    if (index < numParticles) {
        hash = gridParticleHash[index];

        // Load hash data into shared memory so that we can look
        // at neighboring particle's hash value without loading
        // two hash values per thread
        sharedHash[threadIdx.x + 1] = hash;

        if (index > 0 && threadIdx.x == 0) {
            // first thread in block must load neighbor particle hash
            sharedHash[0] = gridParticleHash[index - 1];
        }
    }

    __syncthreads();

    if (index < numParticles) {
        // If this particle has a different cell index to the previous
        // particle then it must be the first particle in the cell,
        // so store the index of this particle in the cell.
        // As it isn't the first particle, it must also be the cell end of
        // the previous particle's cell

        if (index == 0 || hash != sharedHash[threadIdx.x]) {
            cellStart[hash] = index;

            if (index > 0)
                cellEnd[sharedHash[threadIdx.x]] = index;
        }

        if (index == numParticles - 1) {
            cellEnd[hash] = index + 1;
        }

        // Now use the sorted index to reorder the pos and vel data
        uint   sortedIndex = gridParticleIndex[index];
        float4 pos         = oldPos[sortedIndex];
        float4 vel         = oldVel[sortedIndex];

        sortedPos[index] = pos;
        sortedVel[index] = vel;
    }
}
__device__ float3
collideSpheres(float3 posA, float3 posB, float3 velA, float3 velB, float radiusA, float radiusB, float attraction)
{
    // calculate relative position
    float3 relPos = posB - posA;

    float dist        = length(relPos);
    float collideDist = radiusA + radiusB;

    float3 force = make_float3(0.0f);

    if (dist < collideDist) {
        float3 norm = relPos / dist;

        // relative velocity
        float3 relVel = velB - velA;

        // relative tangential velocity
        float3 tanVel = relVel - (dot(relVel, norm) * norm);

        // spring force
        force = -cudaParams.spring * (collideDist - dist) * norm;
        // dashpot (damping) force
        force += cudaParams.damping * relVel;
        // tangential shear force
        force += cudaParams.shear * tanVel;
        // attraction
        force += attraction * relPos;
    }

    return force;
}
__device__ float3 collideCell(int3    gridPos,
                              uint    index,
                              float3  pos,
                              float3  vel,
                              float4 *oldPos,
                              float4 *oldVel,
                              uint   *cellStart,
                              uint   *cellEnd)
{
    uint gridHash = calcGridHash(gridPos);

    // get start of bucket for this cell
    uint startIndex = cellStart[gridHash];

    float3 force = make_float3(0.0f);

    if (startIndex != 0xffffffff) // cell is not empty
    {
        // iterate over particles in this cell
        uint endIndex = cellEnd[gridHash];

        for (uint j = startIndex; j < endIndex; j++) {
            if (j != index) // check not colliding with self
            {
                float3 pos2 = make_float3(oldPos[j]);
                float3 vel2 = make_float3(oldVel[j]);

                // collide two spheres
                force += collideSpheres(
                    pos, pos2, vel, vel2, cudaParams.particleRadius, cudaParams.particleRadius, cudaParams.attraction);
            }
        }
    }

    return force;
}
__global__ void collideD(float4 *newVel,            // output: new velocity
                         float4 *oldPos,            // input: sorted positions
                         float4 *oldVel,            // input: sorted velocities
                         uint   *gridParticleIndex, // input: sorted particle indices
                         uint   *cellStart,
                         uint   *cellEnd,
                         uint    numParticles)
{
    uint index = __mul24(blockIdx.x, blockDim.x) + threadIdx.x;

    if (index >= numParticles)
        return;

    // read particle data from sorted arrays
    float3 pos = make_float3(oldPos[index]);
    float3 vel = make_float3(oldVel[index]);

    // get address in grid
    int3 gridPos = calcGridPos(pos);

    // examine neighbouring cells
    float3 force = make_float3(0.0f);

    for (int z = -1; z <= 1; z++) {
        for (int y = -1; y <= 1; y++) {
            for (int x = -1; x <= 1; x++) {
                int3 neighbourPos = gridPos + make_int3(x, y, z);
                force += collideCell(neighbourPos, index, pos, vel, oldPos, oldVel, cellStart, cellEnd);
            }
        }
    }

    // collide with cursor sphere
    force += collideSpheres(pos,
                            cudaParams.colliderPos,
                            vel,
                            make_float3(0.0f, 0.0f, 0.0f),
                            cudaParams.particleRadius,
                            cudaParams.colliderRadius,
                            0.0f);

    // write new velocity back to original unsorted location
    uint originalIndex    = gridParticleIndex[index];
    newVel[originalIndex] = make_float4(vel + force, 0.0f);
}`;

Deno.test({
  name: nvrtcName(
    "cuda-samples particles: calcHashD, a host sort by hash, reorderDataAndFindCellStartD " +
      "(dynamic shared memory of blockSize + 1 hashes) and collideD over a 16^3 grid, with " +
      "SimParams (float3, uint3 fields) initialized in the source as __constant__, 700 " +
      "particles in 3 blocks of 256, bit for bit with --fmad=false",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const n = 700, grid = 16, radius = f(1 / 64), cell = f(2 / grid);
    const p = {
      colliderPos: [-0.45, -0.4, -0.35].map(f),
      colliderRadius: f(0.05),
      gridSize: [grid, grid, grid],
      worldOrigin: [-1, -1, -1],
      cellSize: [cell, cell, cell],
      spring: f(0.5),
      damping: f(0.02),
      shear: f(0.1),
      attraction: f(0.0005),
    };
    const lit = (v: number) => (Number.isInteger(v) ? `${v}.0f` : `${v}f`),
      v3 = (v: number[]) => `{${v.map(lit).join(", ")}}`;
    const params =
      `{${v3(p.colliderPos)}, ${lit(p.colliderRadius)}, {0.0f, -0.0003f, 0.0f}, 1.0f, ` +
      `${lit(radius)}, {${grid}u, ${grid}u, ${grid}u}, ${grid ** 3}u, ${v3(p.worldOrigin)}, ` +
      `${v3(p.cellSize)}, ${n}u, 4u, ${lit(p.spring)}, ${lit(p.damping)}, ${lit(p.shear)}, ` +
      `${lit(p.attraction)}, -0.5f}`;
    const source = PARTICLES.replace("PARAMS", params);
    const kernel = (entryPoint: string, sharedMemoryBytes = 0): CudaKernel => ({
      source,
      entryPoint,
      blockSize: [256, 1, 1],
      sharedMemoryBytes,
      compileOptions: ["--fmad=false"],
    });
    // a dense cluster, so that neighbours collide
    const pos = new Float32Array(4 * n), vel = new Float32Array(4 * n);
    const r = randoms(7 * n, 151);
    for (let i = 0; i < n; i++) {
      pos.set([
        f(-0.5 + 0.15 * r[7 * i]),
        f(-0.4 + 0.15 * r[7 * i + 1]),
        f(-0.3 + 0.15 * r[7 * i + 2]),
        1,
      ], 4 * i);
      vel.set([f(0.01 * r[7 * i + 3]), f(0.01 * r[7 * i + 4]), f(0.01 * r[7 * i + 5]), 0], 4 * i);
    }
    const threads = Math.ceil(n / 256) * 256;
    const [hash, index] = (await launch(client, kernel("calcHashD"), threads, [
      new Uint32Array(n),
      new Uint32Array(n),
      pos,
    ], { numParticles: n })) as unknown as Uint32Array[];
    // calcGridPos and calcGridHash on the host
    const cellOf = (x: number, y: number, z: number) =>
      [x, y, z].map((c, k) => Math.floor(f(f(c - p.worldOrigin[k]) / p.cellSize[k])));
    const hashOf = ([x, y, z]: number[]) => ((z & 15) * grid + (y & 15)) * grid + (x & 15);
    const wantHash = Uint32Array.from(
      { length: n },
      (_, i) => hashOf(cellOf(pos[4 * i], pos[4 * i + 1], pos[4 * i + 2])),
    );
    assert.deepEqual(hash, wantHash);
    assert.deepEqual(index, Uint32Array.from({ length: n }, (_, i) => i));
    // thrust::sort_by_key (a stable radix sort of the hashes), on the host
    const order = Array.from(index).sort((a, b) => hash[a] - hash[b] || a - b);
    const sortedHash = Uint32Array.from(order, (i) => hash[i]),
      sortedIndex = Uint32Array.from(order);
    const [cellStart, cellEnd, sortedPos, sortedVel] = (await launch(
      client,
      kernel("reorderDataAndFindCellStartD", 257 * 4),
      threads,
      [
        new Uint32Array(grid ** 3).fill(0xffffffff),
        new Uint32Array(grid ** 3),
        new Float32Array(4 * n),
        new Float32Array(4 * n),
        sortedHash,
        sortedIndex,
        pos,
        vel,
      ],
      { numParticles: n },
    )) as unknown as [Uint32Array, Uint32Array, Float32Array, Float32Array];
    const wantStart = new Uint32Array(grid ** 3).fill(0xffffffff),
      wantEnd = new Uint32Array(grid ** 3);
    for (let i = 0; i < n; i++) {
      if (i === 0 || sortedHash[i] !== sortedHash[i - 1]) wantStart[sortedHash[i]] = i;
      wantEnd[sortedHash[i]] = i + 1;
    }
    assert.deepEqual(cellStart, wantStart);
    assert.deepEqual(cellEnd, wantEnd);
    for (let i = 0; i < n; i++) {
      assert.deepEqual(
        sortedPos.subarray(4 * i, 4 * i + 4),
        pos.subarray(4 * order[i], 4 * order[i] + 4),
      );
      assert.deepEqual(
        sortedVel.subarray(4 * i, 4 * i + 4),
        vel.subarray(4 * order[i], 4 * order[i] + 4),
      );
    }
    const [newVel] = await launch(client, kernel("collideD"), threads, [
      new Float32Array(4 * n),
      sortedPos,
      sortedVel,
      sortedIndex,
      cellStart,
      cellEnd,
    ], { numParticles: n });
    // collideSpheres, collideCell and collideD on the host, rounding as the C does
    type V3 = number[];
    const sub = (a: V3, b: V3) => a.map((x, k) => f(x - b[k]));
    const add = (a: V3, b: V3) => a.map((x, k) => f(x + b[k]));
    const scale = (s: number, a: V3) => a.map((x) => f(s * x));
    const dot = (a: V3, b: V3) => f(f(f(a[0] * b[0]) + f(a[1] * b[1])) + f(a[2] * b[2]));
    let collisions = 0;
    const collide = (
      posA: V3,
      posB: V3,
      velA: V3,
      velB: V3,
      rA: number,
      rB: number,
      att: number,
    ) => {
      const relPos = sub(posB, posA), dist = f(Math.sqrt(dot(relPos, relPos))), cd = f(rA + rB);
      let force = [0, 0, 0];
      if (dist < cd) {
        collisions++;
        const norm = relPos.map((x) => f(x / dist)), relVel = sub(velB, velA);
        const tanVel = sub(relVel, scale(dot(relVel, norm), norm));
        force = scale(f(-p.spring * f(cd - dist)), norm);
        force = add(force, scale(p.damping, relVel));
        force = add(force, scale(p.shear, tanVel));
        force = add(force, scale(att, relPos));
      }
      return force;
    };
    const at = (a: Float32Array, i: number) => [a[4 * i], a[4 * i + 1], a[4 * i + 2]];
    const want = new Float32Array(4 * n);
    for (let i = 0; i < n; i++) {
      const ps = at(sortedPos, i), vs = at(sortedVel, i), g = cellOf(ps[0], ps[1], ps[2]);
      let force = [0, 0, 0];
      for (let z = -1; z <= 1; z++) {
        for (let y = -1; y <= 1; y++) {
          for (let x = -1; x <= 1; x++) {
            const h = hashOf([g[0] + x, g[1] + y, g[2] + z]);
            let cellForce = [0, 0, 0];
            if (cellStart[h] !== 0xffffffff) {
              for (let j = cellStart[h]; j < cellEnd[h]; j++) {
                if (j !== i) {
                  const fc = collide(
                    ps,
                    at(sortedPos, j),
                    vs,
                    at(sortedVel, j),
                    radius,
                    radius,
                    p.attraction,
                  );
                  cellForce = add(cellForce, fc);
                }
              }
            }
            force = add(force, cellForce);
          }
        }
      }
      force = add(force, collide(ps, p.colliderPos, vs, [0, 0, 0], radius, p.colliderRadius, 0));
      want.set([...add(vs, force), 0], 4 * sortedIndex[i]);
    }
    assert.deepEqual(newVel, want);
    assert.ok(collisions > 100, `${collisions} collisions`);
  },
});

// cuda-samples Samples/5_Domain_Specific/HSOpticalFlow/solverKernel.cuh: JacobiIteration verbatim
// but cg::sync(cta) written __syncthreads()
const JACOBI = `template <int bx, int by>
__global__ void JacobiIteration(const float *du0,
                                const float *dv0,
                                const float *Ix,
                                const float *Iy,
                                const float *Iz,
                                int          w,
                                int          h,
                                int          s,
                                float        alpha,
                                float       *du1,
                                float       *dv1)
{
    volatile __shared__ float du[(bx + 2) * (by + 2)];
    volatile __shared__ float dv[(bx + 2) * (by + 2)];

    // position within global memory array
    const int ix = threadIdx.x + blockIdx.x * blockDim.x;
    const int iy = threadIdx.y + blockIdx.y * blockDim.y;

    // position within shared memory array
    const int shMemPos = threadIdx.x + 1 + (threadIdx.y + 1) * (bx + 2);

    // Load data to shared memory.
    // load tile being processed
    const int pos = min(ix, w - 1) + min(iy, h - 1) * s;
    du[shMemPos] = du0[pos];
    dv[shMemPos] = dv0[pos];

    // load necessary neighbouring elements
    // We clamp out-of-range coordinates.
    // It is equivalent to mirroring
    // because we access data only one step away from borders.
    if (threadIdx.y == 0) {
        // beginning of the tile
        const int bsx = blockIdx.x * blockDim.x;
        const int bsy = blockIdx.y * blockDim.y;
        // element position within matrix
        int x, y;
        // element position within linear array
        // gm - global memory
        // sm - shared memory
        int gmPos, smPos;

        x = min(bsx + threadIdx.x, w - 1);
        // row just below the tile
        y         = max(bsy - 1, 0);
        gmPos     = y * s + x;
        smPos     = threadIdx.x + 1;
        du[smPos] = du0[gmPos];
        dv[smPos] = dv0[gmPos];

        // row above the tile
        y = min(bsy + by, h - 1);
        smPos += (by + 1) * (bx + 2);
        gmPos     = y * s + x;
        du[smPos] = du0[gmPos];
        dv[smPos] = dv0[gmPos];
    }
    else if (threadIdx.y == 1) {
        // beginning of the tile
        const int bsx = blockIdx.x * blockDim.x;
        const int bsy = blockIdx.y * blockDim.y;
        // element position within matrix
        int x, y;
        // element position within linear array
        // gm - global memory
        // sm - shared memory
        int gmPos, smPos;

        y = min(bsy + threadIdx.x, h - 1);
        // column to the left
        x     = max(bsx - 1, 0);
        smPos = bx + 2 + threadIdx.x * (bx + 2);
        gmPos = x + y * s;

        // check if we are within tile
        if (threadIdx.x < by) {
            du[smPos] = du0[gmPos];
            dv[smPos] = dv0[gmPos];
            // column to the right
            x     = min(bsx + bx, w - 1);
            gmPos = y * s + x;
            smPos += bx + 1;
            du[smPos] = du0[gmPos];
            dv[smPos] = dv0[gmPos];
        }
    }

    __syncthreads();

    if (ix >= w || iy >= h)
        return;

    // now all necessary data are loaded to shared memory
    int left, right, up, down;
    left  = shMemPos - 1;
    right = shMemPos + 1;
    up    = shMemPos + bx + 2;
    down  = shMemPos - bx - 2;

    float sumU = (du[left] + du[right] + du[up] + du[down]) * 0.25f;
    float sumV = (dv[left] + dv[right] + dv[up] + dv[down]) * 0.25f;

    float frac = (Ix[pos] * sumU + Iy[pos] * sumV + Iz[pos]) / (Ix[pos] * Ix[pos] + Iy[pos] * Iy[pos] + alpha);

    du1[pos] = sumU - Ix[pos] * frac;
    dv1[pos] = sumV - Iy[pos] * frac;
}`;

Deno.test({
  name: nvrtcName(
    "cuda-samples HSOpticalFlow JacobiIteration<32, 6>: 3 iterations on a 45x20 image of " +
      "stride 48 (partial blocks, clamped halos in volatile shared memory), bit for bit with " +
      "--fmad=false",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const [w, h, s, alpha] = [45, 20, 48, f(0.2)];
    const Ix = randoms(s * h, 161), Iy = randoms(s * h, 162), Iz = randoms(s * h, 163);
    const kernel: CudaKernel = {
      source: JACOBI,
      entryPoint: "JacobiIteration<32, 6>",
      blockSize: [32, 6, 1],
      compileOptions: ["--fmad=false"],
    };
    using ix = client.createWithData(Ix);
    using iy = client.createWithData(Iy);
    using iz = client.createWithData(Iz);
    const bufs = [0, 1, 2, 3].map(() => client.createWithData(new Float32Array(s * h)));
    try {
      let du = new Float32Array(s * h), dv = new Float32Array(s * h);
      for (let it = 0; it < 3; it++) {
        const [du0, dv0, du1, dv1] = it % 2 ? [bufs[2], bufs[3], bufs[0], bufs[1]] : bufs;
        client.execute(kernel, {
          threads: [64, 24],
          buffers: [du0, dv0, ix, iy, iz, du1, dv1],
          params: { w, h, s, alpha },
        });
        const nu = new Float32Array(s * h), nv = new Float32Array(s * h);
        const at = (a: Float32Array, x: number, y: number) =>
          a[Math.min(Math.max(y, 0), h - 1) * s + Math.min(Math.max(x, 0), w - 1)];
        for (let y = 0; y < h; y++) {
          for (let x = 0; x < w; x++) {
            const p = y * s + x;
            const sum = (a: Float32Array) =>
              f(
                f(f(f(at(a, x - 1, y) + at(a, x + 1, y)) + at(a, x, y + 1)) + at(a, x, y - 1)) *
                  0.25,
              );
            const sumU = sum(du), sumV = sum(dv);
            const frac = f(
              f(f(f(Ix[p] * sumU) + f(Iy[p] * sumV)) + Iz[p]) /
                f(f(f(Ix[p] * Ix[p]) + f(Iy[p] * Iy[p])) + alpha),
            );
            nu[p] = f(sumU - f(Ix[p] * frac)), nv[p] = f(sumV - f(Iy[p] * frac));
          }
        }
        [du, dv] = [nu, nv];
        const [gu, gv] = await client.readMany([du1, dv1]);
        assert.deepEqual(gu, du, `iteration ${it}: du`);
        assert.deepEqual(gv, dv, `iteration ${it}: dv`);
      }
    } finally {
      for (const b of bufs) b.dispose();
    }
  },
});

// cuda-samples Samples/5_Domain_Specific/FDTD3d: FiniteDifferencesKernel (FDTD3dGPUKernel.cuh)
// verbatim but cg::sync(cta) written __syncthreads(), the block limits of FDTD3dGPU.h, and the
// stencil, which the sample sets with cudaMemcpyToSymbol, initialized in the source
const FDTD3D = `#define k_blockDimX    32
#define k_blockDimMaxY 16
#define RADIUS 4
__constant__ float stencil[RADIUS + 1] = STENCIL;
__global__ void
FiniteDifferencesKernel(float *output, const float *input, const int dimx, const int dimy, const int dimz)
{
    bool      validr = true;
    bool      validw = true;
    const int gtidx  = blockIdx.x * blockDim.x + threadIdx.x;
    const int gtidy  = blockIdx.y * blockDim.y + threadIdx.y;
    const int ltidx  = threadIdx.x;
    const int ltidy  = threadIdx.y;
    const int workx  = blockDim.x;
    const int worky  = blockDim.y;
    __shared__ float tile[k_blockDimMaxY + 2 * RADIUS][k_blockDimX + 2 * RADIUS];

    const int stride_y = dimx + 2 * RADIUS;
    const int stride_z = stride_y * (dimy + 2 * RADIUS);

    int inputIndex  = 0;
    int outputIndex = 0;

    // Advance inputIndex to start of inner volume
    inputIndex += RADIUS * stride_y + RADIUS;

    // Advance inputIndex to target element
    inputIndex += gtidy * stride_y + gtidx;

    float infront[RADIUS];
    float behind[RADIUS];
    float current;

    const int tx = ltidx + RADIUS;
    const int ty = ltidy + RADIUS;

    // Check in bounds
    if ((gtidx >= dimx + RADIUS) || (gtidy >= dimy + RADIUS))
        validr = false;
    if ((gtidx >= dimx) || (gtidy >= dimy))
        validw = false;

    // Preload the "infront" and "behind" data
    for (int i = RADIUS - 2; i >= 0; i--) {
        if (validr)
            behind[i] = input[inputIndex];
        inputIndex += stride_z;
    }

    if (validr)
        current = input[inputIndex];

    outputIndex = inputIndex;
    inputIndex += stride_z;

    for (int i = 0; i < RADIUS; i++) {
        if (validr)
            infront[i] = input[inputIndex];
        inputIndex += stride_z;
    }

// Step through the xy-planes
#pragma unroll 9

    for (int iz = 0; iz < dimz; iz++) {
        // Advance the slice (move the thread-front)
        for (int i = RADIUS - 1; i > 0; i--)
            behind[i] = behind[i - 1];

        behind[0] = current;
        current   = infront[0];
#pragma unroll 4

        for (int i = 0; i < RADIUS - 1; i++)
            infront[i] = infront[i + 1];

        if (validr)
            infront[RADIUS - 1] = input[inputIndex];

        inputIndex += stride_z;
        outputIndex += stride_z;
        __syncthreads();

        // Note that for the work items on the boundary of the problem, the
        // supplied index when reading the halo (below) may wrap to the
        // previous/next row or even the previous/next xy-plane. This is
        // acceptable since a) we disable the output write for these work
        // items and b) there is at least one xy-plane before/after the
        // current plane, so the access will be within bounds.

        // Update the data slice in the local tile
        // Halo above & below
        if (ltidy < RADIUS) {
            tile[ltidy][tx]                  = input[outputIndex - RADIUS * stride_y];
            tile[ltidy + worky + RADIUS][tx] = input[outputIndex + worky * stride_y];
        }

        // Halo left & right
        if (ltidx < RADIUS) {
            tile[ty][ltidx]                  = input[outputIndex - RADIUS];
            tile[ty][ltidx + workx + RADIUS] = input[outputIndex + workx];
        }

        tile[ty][tx] = current;
        __syncthreads();

        // Compute the output value
        float value = stencil[0] * current;
#pragma unroll 4

        for (int i = 1; i <= RADIUS; i++) {
            value += stencil[i]
                   * (infront[i - 1] + behind[i - 1] + tile[ty - i][tx] + tile[ty + i][tx] + tile[ty][tx - i]
                      + tile[ty][tx + i]);
        }

        // Store the output value
        if (validw)
            output[outputIndex] = value;
    }
}`;

Deno.test({
  name: nvrtcName(
    "cuda-samples FDTD3d FiniteDifferencesKernel: radius 4 over 64x32x6 in blocks of [32, 16] " +
      "(register queues along z, a halo tile in shared memory, a __constant__ stencil), bit for " +
      "bit with --fmad=false",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const [dimx, dimy, dimz, R] = [64, 32, 6, 4];
    const stencil = [-0.5, 0.25, -0.125, 0.0625, 0.03125].map((v, i) => f(v + i / 1000));
    const source = FDTD3D.replace("STENCIL", `{${stencil.map((v) => `${v}f`).join(", ")}}`);
    const sy = dimx + 2 * R, sz = sy * (dimy + 2 * R), volume = sz * (dimz + 2 * R);
    const input = randoms(volume, 171);
    const [out] = await launch(
      client,
      {
        source,
        entryPoint: "FiniteDifferencesKernel",
        blockSize: [32, 16, 1],
        compileOptions: ["--fmad=false"],
      },
      [dimx, dimy],
      [input.slice(), input],
      { dimx, dimy, dimz },
    );
    const want = input.slice(),
      at = (x: number, y: number, z: number) => input[(z + R) * sz + (y + R) * sy + x + R];
    for (let z = 0; z < dimz; z++) {
      for (let y = 0; y < dimy; y++) {
        for (let x = 0; x < dimx; x++) {
          let value = f(stencil[0] * at(x, y, z));
          for (let i = 1; i <= R; i++) {
            const terms = [
              at(x, y, z + i),
              at(x, y, z - i),
              at(x, y - i, z),
              at(x, y + i, z),
              at(x - i, y, z),
              at(x + i, y, z),
            ];
            value = f(value + f(stencil[i] * terms.reduce((a, b) => f(a + b))));
          }
          want[(z + R) * sz + (y + R) * sy + x + R] = value;
        }
      }
    }
    assert.deepEqual(out, want);
  },
});

// pytorch/extension-cpp cuda/lltm_cuda_kernel.cu (07b1598), the PyTorch C++/CUDA extension
// tutorial's kernels verbatim (an anonymous namespace, templates on scalar_t, double literals
// in float code); its torch host code dropped
const LLTM = `namespace {
template <typename scalar_t>
__device__ __forceinline__ scalar_t sigmoid(scalar_t z) {
  return 1.0 / (1.0 + exp(-z));
}

template <typename scalar_t>
__device__ __forceinline__ scalar_t d_sigmoid(scalar_t z) {
  const auto s = sigmoid(z);
  return (1.0 - s) * s;
}

template <typename scalar_t>
__device__ __forceinline__ scalar_t d_tanh(scalar_t z) {
  const auto t = tanh(z);
  return 1 - (t * t);
}

template <typename scalar_t>
__device__ __forceinline__ scalar_t elu(scalar_t z, scalar_t alpha = 1.0) {
  return fmax(0.0, z) + fmin(0.0, alpha * (exp(z) - 1.0));
}

template <typename scalar_t>
__device__ __forceinline__ scalar_t d_elu(scalar_t z, scalar_t alpha = 1.0) {
  const auto e = exp(z);
  const auto d_relu = z < 0.0 ? 0.0 : 1.0;
  return d_relu + (((alpha * (e - 1.0)) < 0.0) ? (alpha * e) : 0.0);
}

template <typename scalar_t>
__global__ void lltm_cuda_forward_kernel(
    const scalar_t* __restrict__ gates,
    const scalar_t* __restrict__ old_cell,
    scalar_t* __restrict__ new_h,
    scalar_t* __restrict__ new_cell,
    scalar_t* __restrict__ input_gate,
    scalar_t* __restrict__ output_gate,
    scalar_t* __restrict__ candidate_cell,
    size_t state_size) {
  const int column = blockIdx.x * blockDim.x + threadIdx.x;
  const int index = blockIdx.y * state_size + column;
  const int gates_row = blockIdx.y * (state_size * 3);
  if (column < state_size) {
    input_gate[index] = sigmoid(gates[gates_row + column]);
    output_gate[index] = sigmoid(gates[gates_row + state_size + column]);
    candidate_cell[index] = elu(gates[gates_row + 2 * state_size + column]);
    new_cell[index] =
        old_cell[index] + candidate_cell[index] * input_gate[index];
    new_h[index] = tanh(new_cell[index]) * output_gate[index];
  }
}

template <typename scalar_t>
__global__ void lltm_cuda_backward_kernel(
    scalar_t* __restrict__ d_old_cell,
    scalar_t* __restrict__ d_gates,
    const scalar_t* __restrict__ grad_h,
    const scalar_t* __restrict__ grad_cell,
    const scalar_t* __restrict__ new_cell,
    const scalar_t* __restrict__ input_gate,
    const scalar_t* __restrict__ output_gate,
    const scalar_t* __restrict__ candidate_cell,
    const scalar_t* __restrict__ gate_weights,
    size_t state_size) {
  const int column = blockIdx.x * blockDim.x + threadIdx.x;
  const int index = blockIdx.y * state_size + column;
  const int gates_row = blockIdx.y * (state_size * 3);
  if (column < state_size) {
    const auto d_output_gate = tanh(new_cell[index]) * grad_h[index];
    const auto d_tanh_new_cell = output_gate[index] * grad_h[index];
    const auto d_new_cell =
        d_tanh(new_cell[index]) * d_tanh_new_cell + grad_cell[index];


    d_old_cell[index] = d_new_cell;
    const auto d_candidate_cell = input_gate[index] * d_new_cell;
    const auto d_input_gate = candidate_cell[index] * d_new_cell;


    const auto input_gate_index = gates_row + column;
    const auto output_gate_index = gates_row + state_size + column;
    const auto candidate_cell_index = gates_row + 2 * state_size + column;

    d_gates[input_gate_index] =
        d_input_gate * d_sigmoid(gate_weights[input_gate_index]);
    d_gates[output_gate_index] =
        d_output_gate * d_sigmoid(gate_weights[output_gate_index]);
    d_gates[candidate_cell_index] =
        d_candidate_cell * d_elu(gate_weights[candidate_cell_index]);
  }
}
} // namespace`;

// The float instance as the repository's later extension_cpp/csrc/cuda/lltm_cuda.cu writes elu:
// NVRTC refuses fmax(0.0, z) for a float z (fmax(float, float) and fmax(double, double) both
// match (double, float); nvcc's CUDA headers add promoting templates NVRTC has not)
const LLTM_FMAXF = LLTM.replace(
  "return fmax(0.0, z) + fmin(0.0, alpha * (exp(z) - 1.0));",
  "return fmaxf(0.0, z) + fminf(0.0, alpha * (exp(z) - 1.0));",
);

Deno.test({
  name: nvrtcName(
    "PyTorch's extension tutorial lltm_cuda_forward_kernel and lltm_cuda_backward_kernel " +
      "<double> (double exp and tanh) and <float> (with fmaxf, as upstream later wrote it: NVRTC " +
      "refuses fmax(0.0, z) of a float as ambiguous), batch 3, state 300 in blocks of 1024 on a " +
      "[1, 3] grid, within the math library's bounds of a double reference",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const [batch, S] = [3, 300];
    assert.notEqual(LLTM_FMAXF, LLTM);
    await assert.rejects(
      launch(client, { source: LLTM, entryPoint: "lltm_cuda_forward_kernel<float>" }, 1, []),
      /more than one instance of overloaded function "fmax"[\s\S]*note: NVRTC declares fmax for float and for double only/,
    );
    const gates64 = Float64Array.from(randoms(batch * 3 * S, 181), (v) => v * 4);
    const oldCell64 = Float64Array.from(randoms(batch * S, 182), (v) => v * 2);
    const gradH64 = Float64Array.from(randoms(batch * S, 183));
    const gradCell64 = Float64Array.from(randoms(batch * S, 184));
    const sig = (z: number) => 1 / (1 + Math.exp(-z));
    const elu = (z: number) => Math.max(0, z) + Math.min(0, Math.exp(z) - 1);
    for (const type of ["double", "float"] as const) {
      const T = (a: Float64Array) => (type === "double" ? a : Float32Array.from(a));
      const [gates, oldCell, gradH, gradCell] = [gates64, oldCell64, gradH64, gradCell64].map(T);
      const z =
        () => (type === "double" ? new Float64Array(batch * S) : new Float32Array(batch * S));
      const kernel = (name: string): CudaKernel => ({
        source: type === "double" ? LLTM : LLTM_FMAXF,
        entryPoint: `${name}<${type}>`,
        blockSize: [1024, 1, 1],
      });
      const [, , newH, newCell, inGate, outGate, cand] = await launch(
        client,
        kernel("lltm_cuda_forward_kernel"),
        [1024, batch],
        [gates, oldCell, z(), z(), z(), z(), z()],
        { state_size: S },
      );
      const [dOldCell, dGates] = await launch(
        client,
        kernel("lltm_cuda_backward_kernel"),
        [1024, batch],
        [
          z(),
          new (type === "double" ? Float64Array : Float32Array)(batch * 3 * S),
          gradH,
          gradCell,
          newCell,
          inGate,
          outGate,
          cand,
          gates,
        ],
        { state_size: S },
      );
      // double: exp and tanh within 1 ulp (CUDA C Programming Guide, double precision), each
      // value a few operations on them: 1e-14 relative. float: expf's and tanhf's 2 ulp (the
      // rest in double, from the 1.0 literals): 1e-6
      const tol = type === "double" ? 1e-14 : 1e-6;
      const want = {
        inGate: new Float64Array(batch * S),
        outGate: new Float64Array(batch * S),
        cand: new Float64Array(batch * S),
        newCell: new Float64Array(batch * S),
        newH: new Float64Array(batch * S),
        dOldCell: new Float64Array(batch * S),
        dGates: new Float64Array(batch * 3 * S),
      };
      for (let b = 0; b < batch; b++) {
        for (let c = 0; c < S; c++) {
          const i = b * S + c, g = b * 3 * S + c;
          // from the device's own earlier outputs, so each check is of one step
          want.inGate[i] = sig(gates[g]), want.outGate[i] = sig(gates[g + S]);
          want.cand[i] = elu(gates[g + 2 * S]);
          want.newCell[i] = oldCell[i] + cand[i] * inGate[i];
          want.newH[i] = Math.tanh(newCell[i]) * outGate[i];
          const t = Math.tanh(newCell[i]);
          const dNewCell = (1 - t * t) * outGate[i] * gradH[i] + gradCell[i];
          want.dOldCell[i] = dNewCell;
          const ds = (x: number) => (1 - sig(x)) * sig(x);
          want.dGates[g] = cand[i] * dNewCell * ds(gates[g]);
          want.dGates[g + S] = t * gradH[i] * ds(gates[g + S]);
          const e = Math.exp(gates[g + 2 * S]);
          want.dGates[g + 2 * S] = inGate[i] * dNewCell *
            ((gates[g + 2 * S] < 0 ? 0 : 1) + (e - 1 < 0 ? e : 0));
        }
      }
      const got = { inGate, outGate, cand, newCell, newH, dOldCell, dGates };
      for (const [name, w] of Object.entries(want)) {
        assert.equal(mismatch(got[name as keyof typeof got], w, tol), undefined, `${type} ${name}`);
      }
    }
  },
});

// cupy/cupy examples/gemm/sgemm.cu (6ad9a06), MAGMA's SGEMM as CuPy's example compiles it: the
// kernel verbatim (its commented-out #define header left out), its tile sizes given as -D
// options, as the example's read_code substitutes them
const CUPY_SGEMM = `extern "C" __global__
void sgemm(
        int M, int N, int K,
        const float* A,
        const float* B,
        float * C)
{
    int idx = threadIdx.x;
    int idy = threadIdx.y;

    int idt = DIM_X * idy + idx;

    int idxA = idt % DIM_XA;
    int idyA = idt / DIM_XA;

    int idxB = idt % DIM_XB;
    int idyB = idt / DIM_XB;

    int blx = blockIdx.x;
    int bly = blockIdx.y;

    __shared__ float sA[BLK_K][BLK_M + 1];
    __shared__ float sB[BLK_N][BLK_K + 1];

    // registers for the innermost loop
    // performance was highest when type of rC was fixed to uint32
    // Note that the performance was highest when C's type was short
    float rC[THR_N][THR_M];
    float rA[THR_M];
    float rB[THR_N];

    float ra[BLK_K / DIM_YA][BLK_M / DIM_XA];
    float rb[BLK_N / DIM_YB][BLK_K / DIM_XB];

    const float* offs_dA = A + blx * BLK_M       + idyA * M + idxA;
    int boundA = (M * (K - 1) + M) - (blx * BLK_M + idyA * M + idxA) - 1;
    const float* offs_dB = B + bly * BLK_N * K + idyB * K + idxB;
    int boundB = (K * (N - 1) + K) - (bly * BLK_N * K + idyB * K + idxB) - 1;

    int m, n, k, kk;
    
    #pragma unroll
    for (n = 0; n < THR_N; n++)
        #pragma unroll
        for (m = 0 ; m < THR_M; m++)
            rC[n][m] = 0;

    // blockwise transpose to transpose load
    #pragma unroll
    for (n = 0; n < BLK_K; n += DIM_YA)
        #pragma unroll
        for (m = 0; m < BLK_M; m += DIM_XA)
            sA[n + idyA][m + idxA] = offs_dA[n * M + m];
    // blockwise transpose to transpose load
    #pragma unroll
    for (n = 0; n < BLK_N; n += DIM_YB)
        #pragma unroll
        for (m = 0; m < BLK_K; m += DIM_XB)
            sB[n + idyB][m + idxB] = offs_dB[n * K + m];
    __syncthreads();

    for (kk = 0; kk < K - BLK_K; kk += BLK_K)
    {
        offs_dA += BLK_K * M;
        boundA -= BLK_K * M;
        offs_dB += BLK_K;
        boundB -= BLK_K;
        
        #pragma unroll
        for (n = 0; n < BLK_K / DIM_YA; n++)
            #pragma unroll
            for (m = 0; m < BLK_M / DIM_XA; m++)
                ra[n][m] = offs_dA[n * DIM_YA * M + m * DIM_XA];

        #pragma unroll
        for (n = 0; n < BLK_N / DIM_YB; n++)
            #pragma unroll
            for (m = 0; m < BLK_K / DIM_XB; m++)
                rb[n][m] = offs_dB[n * DIM_YB * K + m * DIM_XB];

        // multiply
        #pragma unroll
        for (k = 0; k < BLK_K; k++)
        {
            #pragma unroll
            for (m = 0; m < THR_M; m++)
                rA[m] = sA[k][m * DIM_X + idx];
            
            #pragma unroll
            for (n = 0; n < THR_N; n++)
                rB[n] = sB[n * DIM_Y + idy][k];

            #pragma unroll
            for (n = 0; n < THR_N; n++) {
                #pragma unroll
                for (m = 0; m < THR_M; m++) {
                    rC[n][m] += rA[m] * rB[n];
                }
            }
        }
        __syncthreads();

        // store A regs->smem
        #pragma unroll
        for (n = 0; n < BLK_K / DIM_YA; n++)
            #pragma unroll
            for (m = 0; m < BLK_M / DIM_XA; m++)
                sA[n * DIM_YA + idyA][m * DIM_XA + idxA] = ra[n][m];

        #pragma unroll
        for (n = 0; n < BLK_N / DIM_YB; n++)
            #pragma unroll
            for (m = 0; m < BLK_K / DIM_XB; m++)
                sB[n * DIM_YB + idyB][m * DIM_XB + idxB] = rb[n][m];
        __syncthreads();
    }

    // Multiply last full (BLK_K) or partial block of columns of op(A) and
    // rows of op(B).
    // It's okay that m,n exceed matrix bounds as all work is in registers
    // or shared memory, and out-of-bounds rC[n][m] will not be saved later.

    kk = K - kk;
    #pragma unroll
    for (k = 0; k < kk; k++)
    {
        #pragma unroll
        for (m = 0; m < THR_M; m++)
            rA[m] = sA[k][m * DIM_X + idx];

        #pragma unroll
        for (n = 0; n < THR_N; n++)
            rB[n] = sB[n * DIM_Y + idy][k];
        
        #pragma unroll
        for (n = 0; n < THR_N; n++) {
            #pragma unroll
            for (m = 0; m < THR_M; m++){
                rC[n][m] += rA[m] * rB[n];
            }
        }
    }

    #pragma unroll
    for (n = 0; n < THR_N; n++) {
        int coord_dCn = bly * BLK_N + n * DIM_Y + idy;
        #pragma unroll
        for (m = 0; m < THR_M; m++) {
            int coord_dCm = blx * BLK_M + m * DIM_X + idx;
            if (coord_dCm < M && coord_dCn < N) {
                C[coord_dCn * M + coord_dCm] = rC[n][m];
            }
        }
    }
}`;

Deno.test({
  name: nvrtcName(
    "CuPy's example sgemm (MAGMA's, column-major, tile sizes as -D compile options, register " +
      "and shared tiles of 64x64x4 on blocks of [16, 16]): M 128, N 64, K 40, bit for bit " +
      "with --fmad=false",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const [M, N, K] = [128, 64, 40];
    // the parameters of the example's sgemm.py
    const defines = {
      DIM_X: 16,
      DIM_Y: 16,
      BLK_M: 64,
      BLK_N: 64,
      BLK_K: 4,
      DIM_XA: 64,
      DIM_YA: 4,
      DIM_XB: 4,
      DIM_YB: 64,
      THR_N: 4,
      THR_M: 4,
    };
    const A = randoms(M * K, 221), B = randoms(K * N, 222);
    const [, , C] = await launch(
      client,
      {
        source: CUPY_SGEMM,
        blockSize: [16, 16, 1],
        compileOptions: [...Object.entries(defines).map(([k, v]) => `-D${k}=${v}`), "--fmad=false"],
      },
      [(M / 64) * 16, (N / 64) * 16],
      [A, B, new Float32Array(M * N)],
      { M, N, K },
    );
    const want = new Float32Array(M * N);
    for (let n = 0; n < N; n++) {
      for (let m = 0; m < M; m++) {
        let acc = 0;
        for (let k = 0; k < K; k++) acc = f(acc + f(A[k * M + m] * B[n * K + k]));
        want[n * M + m] = acc;
      }
    }
    assert.deepEqual(C, want);
  },
});

// LeetCUDA kernels/layer-norm/layer_norm.cu: warp_reduce_sum_f32, block_reduce_sum_f32 (a
// `static __shared__` array in a device template, used twice) and the f32 kernels verbatim
const LAYER_NORM = `#define WARP_SIZE 32
#define FLOAT4(value) (reinterpret_cast<float4 *>(&(value))[0])
template <const int kWarpSize = WARP_SIZE>
__device__ __forceinline__ float warp_reduce_sum_f32(float val) {
#pragma unroll
  for (int mask = kWarpSize >> 1; mask >= 1; mask >>= 1) {
    val += __shfl_xor_sync(0xffffffff, val, mask);
  }
  return val;
}
template <const int NUM_THREADS = 256>
__device__ float block_reduce_sum_f32(float val) {
  // always <= 32 warps per block (limited by 1024 threads per block)
  constexpr int NUM_WARPS = (NUM_THREADS + WARP_SIZE - 1) / WARP_SIZE;
  int warp = threadIdx.x / WARP_SIZE;
  int lane = threadIdx.x % WARP_SIZE;
  static __shared__ float shared[NUM_WARPS];

  val = warp_reduce_sum_f32<WARP_SIZE>(val);
  if (lane == 0)
    shared[warp] = val;
  __syncthreads();
  val = (lane < NUM_WARPS) ? shared[lane] : 0.0f;
  val = warp_reduce_sum_f32<NUM_WARPS>(val);
  return val;
}
template <const int NUM_THREADS = 256>
__global__ void layer_norm_f32_kernel(float *x, float *y, float g, float b,
                                      int N, int K) {
  int tid = threadIdx.x; // 0..K-1
  int bid = blockIdx.x;  // 0..N-1
  int idx = bid * blockDim.x + threadIdx.x;
  const float epsilon = 1e-5f;

  __shared__ float s_mean;                     // shared within block
  __shared__ float s_variance;                 // shared within block
  float value = (idx < N * K) ? x[idx] : 0.0f; // load once only
  float sum = block_reduce_sum_f32<NUM_THREADS>(value);
  if (tid == 0)
    s_mean = sum / (float)K;
  // wait for s_mean in shared memory to be ready for all threads
  __syncthreads();
  float variance = (value - s_mean) * (value - s_mean);
  variance = block_reduce_sum_f32<NUM_THREADS>(variance);
  if (tid == 0)
    s_variance = rsqrtf(variance / (float)K + epsilon);
  // wait for s_variance in shared memory to be ready for all threads
  __syncthreads();
  if (idx < N * K)
    y[idx] = ((value - s_mean) * s_variance) * g + b;
}
template <const int NUM_THREADS = 256 / 4>
__global__ void layer_norm_f32x4_kernel(float *x, float *y, float g, float b,
                                        int N, int K) {
  int tid = threadIdx.x; // 0..K-1
  int bid = blockIdx.x;  // 0..N-1
  int idx = (bid * blockDim.x + threadIdx.x) * 4;
  const float epsilon = 1e-5f;

  __shared__ float s_mean;     // shared within block
  __shared__ float s_variance; // shared within block
  float4 reg_x = FLOAT4(x[idx]);
  float value = (idx < N * K) ? (reg_x.x + reg_x.y + reg_x.z + reg_x.w) : 0.0f;
  float sum = block_reduce_sum_f32<NUM_THREADS>(value);
  if (tid == 0)
    s_mean = sum / (float)K;
  // wait for s_mean in shared memory to be ready for all threads
  __syncthreads();
  float4 reg_x_hat;
  reg_x_hat.x = reg_x.x - s_mean;
  reg_x_hat.y = reg_x.y - s_mean;
  reg_x_hat.z = reg_x.z - s_mean;
  reg_x_hat.w = reg_x.w - s_mean;
  float variance = reg_x_hat.x * reg_x_hat.x + reg_x_hat.y * reg_x_hat.y +
                   reg_x_hat.z * reg_x_hat.z + reg_x_hat.w * reg_x_hat.w;
  variance = block_reduce_sum_f32<NUM_THREADS>(variance);
  if (tid == 0)
    s_variance = rsqrtf(variance / (float)K + epsilon);
  // wait for s_variance in shared memory to be ready for all threads
  __syncthreads();
  float4 reg_y;
  reg_y.x = reg_x_hat.x * s_variance * g + b;
  reg_y.y = reg_x_hat.y * s_variance * g + b;
  reg_y.z = reg_x_hat.z * s_variance * g + b;
  reg_y.w = reg_x_hat.w * s_variance * g + b;
  if (idx < N * K)
    FLOAT4(y[idx]) = reg_y;
}`;

Deno.test({
  name: nvrtcName(
    "LeetCUDA layer_norm_f32_kernel<256> (K 256) and layer_norm_f32x4_kernel<256> (K 1024), 5 " +
      "rows: the block sums bit for bit with --fmad=false, the result within rsqrtf's 2 ulp",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const [N, g, b] = [5, f(1.5), f(0.25)];
    /** block_reduce_sum_f32<256> of one value a thread, as thread 0 ends it. */
    const blockSum = (vals: number[]) =>
      xorWarpSum(
        Array.from(
          { length: 32 },
          (_, w) => (w < 8 ? xorWarpSum(vals.slice(32 * w, 32 * w + 32)) : 0),
        ),
        8,
      );
    for (
      const [entryPoint, K] of [["layer_norm_f32_kernel<256>", 256], [
        "layer_norm_f32x4_kernel<256>",
        1024,
      ]] as const
    ) {
      const x = randoms(N * K, 241).map((v, i) => v * 2 + (i % 5) * 0.5);
      const [, y] = await launch(
        client,
        {
          source: LAYER_NORM,
          entryPoint,
          blockSize: [256, 1, 1],
          compileOptions: ["--fmad=false"],
        },
        N * 256,
        [x, new Float32Array(N * K)],
        { g, b, N, K },
      );
      const lanes = K / 256;
      for (let r = 0; r < N; r++) {
        const row = x.subarray(r * K, (r + 1) * K);
        const part = (t: number, fn: (v: number) => number) => {
          let acc = fn(row[t * lanes]);
          for (let j = 1; j < lanes; j++) acc = f(acc + fn(row[t * lanes + j]));
          return acc;
        };
        const mean = f(blockSum(Array.from({ length: 256 }, (_, t) => part(t, (v) => v))) / K);
        const sq = (v: number) => f(f(v - mean) * f(v - mean));
        const variance = blockSum(Array.from({ length: 256 }, (_, t) => part(t, sq)));
        const exact = 1 / Math.sqrt(f(f(variance / K) + f(1e-5)));
        for (let i = 0; i < K; i++) {
          // rsqrtf is within 2 ulp of 1/sqrt (CUDA C Programming Guide); the products and the
          // sum after it round at most 3 times more
          const want = (row[i] - mean) * exact * g + b, got = y[r * K + i];
          const bound = 2 ** -22 * Math.abs(f(row[i] - mean) * exact * g) +
            2 ** -23 * Math.abs(want) * 2;
          assert.ok(
            Math.abs(got - want) <= bound + 1e-30,
            `${entryPoint}, row ${r}, ${i}: ${got} vs ${want}`,
          );
        }
      }
    }
  },
});
