/**
 * User CUDA C, QA wave 17: ggml-cuda's kernels not run before (llama.cpp c392e5094,
 * ggml/src/ggml-cuda), as the files write them, minimally adapted (ggml's `WARP_SIZE`,
 * `warp_reduce_sum`, and `FLT_MAX`, `int32_t`, `int64_t` declared: NVRTC has no `<cfloat>` or
 * `<stdint.h>` here): argmax_f32, diag_mask_inf_f32, timestep_embedding_f32, opt_step_adamw_f32,
 * count_equal (its `__reduce_add_sync` path on compute capability 8.0 and its shuffles below),
 * norm_f32 and group_norm_f32, pool2d_nchw_kernel (an `enum` parameter), conv_transpose_1d_kernel,
 * rwkv_wkv_f32 and gated_linear_attn_f32 (local state arrays and shared arrays read as `float4&`)
 * and quantize_q8_1 (halves stored through a user's inline-PTX `half`, roundf), each against a CPU
 * reference: bit for bit where the kernel is exact (with `--fmad=false` where NVRTC's default
 * contraction to fma makes the rounding the compiler's choice), within a stated bound otherwise.
 *
 * Findings: pool2d's `const enum ggml_op_pool op` (C's elaborated enum) was refused as a type the
 * runtime cannot pass ('enum int'), and so was a C `typedef enum { ... } name`: both are read as
 * the enum's underlying type now. A parameter named `half` (a type name the runtime knows, which
 * NVRTC has only with <cuda_fp16.h>) was "not a scalar parameter"; it is a name after a whole type.
 * A pointer to rows (`float (*A)[N]`, the explicit form of the Programming Guide's `float A[N][N]`)
 * was read as `float**` and refused float handles. Pool2d's `<assert.h>` got NVRTC's "could not
 * open source file" with a note to find an include path; the note now says NVRTC builds assert() in
 * (and printf, the math functions) and to drop the include
 * (tests/cuda_user_kernels_refused_test.ts). `int64_t` and `FLT_MAX` are declared by the kernels'
 * sources, as the runtime's note says. No kernel of the sweep ran wrong on the simulator
 * (tests/cuda_user_kernels_23_test.ts, _24 too).
 */
import assert from "node:assert/strict";
import { nvrtcName, nvrtcSkip, onSimulator, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { launch, mismatch, randoms, xorWarpSum } from "./_cuda_user_run.ts";
import type { CudaKernel } from "../runtime/server/cuda/kernel.ts";
import { fma } from "./_cuda_float_ref.ts";
import { withSimEnv } from "./fixtures/cuda_sim.ts";

const ignore = nvrtcSkip !== undefined;
const f = Math.fround;

/** What ggml's common.cuh gives these kernels (`WARP_SIZE`, `warp_reduce_sum`), and FLT_MAX. */
const COMMON = `typedef int int32_t;
typedef long long int64_t;
#define WARP_SIZE 32
#define FLT_MAX 3.402823466e+38F
#define GGML_CUDA_CC_AMPERE 800
template<int width = WARP_SIZE>
static __device__ __forceinline__ int warp_reduce_sum(int x) {
#if __CUDA_ARCH__ >= GGML_CUDA_CC_AMPERE
    return __reduce_add_sync(0xffffffff, x);
#else
#pragma unroll
    for (int offset = width/2; offset > 0; offset >>= 1) {
        x += __shfl_xor_sync(0xffffffff, x, offset, width);
    }
    return x;
#endif
}
template<int width = WARP_SIZE>
static __device__ __forceinline__ float warp_reduce_sum(float x) {
#pragma unroll
    for (int offset = width/2; offset > 0; offset >>= 1) {
        x += __shfl_xor_sync(0xffffffff, x, offset, width);
    }
    return x;
}
template<int width = WARP_SIZE>
static __device__ __forceinline__ float2 warp_reduce_sum(float2 a) {
#pragma unroll
    for (int offset = width/2; offset > 0; offset >>= 1) {
        a.x += __shfl_xor_sync(0xffffffff, a.x, offset, width);
        a.y += __shfl_xor_sync(0xffffffff, a.y, offset, width);
    }
    return a;
}
`;

// ggml-cuda/argmax.cu, verbatim
const ARGMAX = COMMON + `
static __global__ void argmax_f32(const float * __restrict__ x, int32_t * __restrict__ dst, const int64_t ncols) {
    const int64_t row = blockIdx.x;

    float maxval = -FLT_MAX;
    int   argmax = -1;
    const float * rowx = x + row * ncols;

    for (int32_t col = threadIdx.x; col < ncols; col += blockDim.x) {
        const float val = rowx[col];
        if (val > maxval) {
            maxval = val;
            argmax = col;
        }
    }

#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        const float val = __shfl_xor_sync(0xFFFFFFFF, maxval, offset, WARP_SIZE);
        const int   col = __shfl_xor_sync(0xFFFFFFFF, argmax, offset, WARP_SIZE);
        if (val > maxval) {
            maxval = val;
            argmax = col;
        }
    }

    const int n_warps = blockDim.x / WARP_SIZE;
    const int lane_id = threadIdx.x % WARP_SIZE;
    const int warp_id = threadIdx.x / WARP_SIZE;
    if (n_warps > 1) {
        constexpr int    max_warps = 1024 / WARP_SIZE;
        __shared__ float shared_maxval[max_warps];
        __shared__ int   shared_argmax[max_warps];
        if (lane_id == 0) {
            shared_maxval[warp_id] = maxval;
            shared_argmax[warp_id] = argmax;
        }

        __syncthreads();

        if (warp_id == 0) {
            if (lane_id < n_warps) {
                maxval = shared_maxval[lane_id];
                argmax = shared_argmax[lane_id];
            }
#pragma unroll
            for (int offset = 16; offset > 0; offset >>= 1) {
                const float val = __shfl_xor_sync(0xFFFFFFFF, maxval, offset, WARP_SIZE);
                const int   col = __shfl_xor_sync(0xFFFFFFFF, argmax, offset, WARP_SIZE);
                if (val > maxval) {
                    maxval = val;
                    argmax = col;
                }
            }
        }
    }

    if (warp_id == 0 && lane_id == 0) {
        dst[row] = argmax;
    }
}`;

Deno.test({
  name: nvrtcName(
    "ggml argmax_f32: rows of 1000, 37 and 3000 columns, blocks of ggml's size (1024, 64, 1024)",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    for (const [nrows, ncols] of [[4, 1000], [3, 37], [2, 3000]]) {
      // distinct values (a permutation scaled), so the argmax is unique
      const x = new Float32Array(nrows * ncols);
      for (let r = 0; r < nrows; r++) {
        for (let c = 0; c < ncols; c++) {
          x[r * ncols + c] = ((c * 7919 + r * 31) % ncols) - ncols / 2;
        }
      }
      const block = Math.min(1024, Math.ceil(ncols / 32) * 32);
      const [, got] = await launch(
        client,
        { source: ARGMAX, entryPoint: "argmax_f32", blockSize: [block, 1, 1] },
        nrows * block,
        [x, new Int32Array(nrows)],
        { ncols },
      );
      const want = Int32Array.from({ length: nrows }, (_, r) => {
        let best = 0;
        for (let c = 1; c < ncols; c++) if (x[r * ncols + c] > x[r * ncols + best]) best = c;
        return best;
      });
      assert.deepEqual(got, want, `${nrows} x ${ncols}`);
    }
  },
});

// ggml-cuda/diagmask.cu, verbatim
const DIAG_MASK = COMMON + `
static __global__ void diag_mask_inf_f32(const float * x, float * dst, const int ncols, const int rows_per_channel, const int n_past) {
    const int col = blockDim.y*blockIdx.y + threadIdx.y;
    const int row = blockDim.x*blockIdx.x + threadIdx.x;

    if (col >= ncols) {
        return;
    }

    const int i = row*ncols + col;
    //dst[i] = col > (n_past + row % rows_per_channel) ? -INFINITY : x[i];
    //dst[i] = x[i] - (col > n_past + row % rows_per_channel) * INT_MAX; // equivalent within rounding error but slightly faster on GPU
    dst[i] = x[i] - (col > n_past + row % rows_per_channel) * FLT_MAX;
}`;

Deno.test({
  name: nvrtcName(
    "ggml diag_mask_inf_f32: blocks of [1, 32], 2 channels of 9 rows, 45 columns, n_past 3",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const [channels, rowsPerChannel, ncols, nPast] = [2, 9, 45, 3];
    const nrows = channels * rowsPerChannel;
    const x = randoms(nrows * ncols, 22);
    const [, got] = await launch(
      client,
      { source: DIAG_MASK, entryPoint: "diag_mask_inf_f32", blockSize: [1, 32, 1] },
      [nrows, Math.ceil(ncols / 32) * 32],
      [x, new Float32Array(nrows * ncols)],
      { ncols, rows_per_channel: rowsPerChannel, n_past: nPast },
    );
    const FLT_MAX = 3.4028234663852886e38;
    const want = x.map((v, i) => {
      const row = Math.floor(i / ncols), col = i % ncols;
      return col > nPast + (row % rowsPerChannel) ? Math.fround(v - FLT_MAX) : v;
    });
    assert.deepEqual(got, want);
    assert.ok(got.some((v) => v === -FLT_MAX) && got.some((v) => v > -1));
  },
});

// ggml-cuda/tsembd.cu, verbatim
const TSEMBD = `
static __global__ void timestep_embedding_f32(const float * timesteps, float * dst, const int nb1, const int dim, const int max_period) {
    // blockIDx.y: idx of timesteps->ne[0]
    // blockIDx.x: idx of ((dim + 1) / 2) / BLOCK_SIZE
    int i = blockIdx.y;
    int j = threadIdx.x + blockIdx.x * blockDim.x;
    float * embed_data = (float *)((char *)dst +  i*nb1);

    if (dim % 2 != 0 && j == ((dim + 1) / 2)) {
        embed_data[dim] = 0.f;
    }

    int half = dim / 2;
    if (j >= half) {
        return;
    }

    float timestep = timesteps[i];
    float freq = (float)expf(-logf(max_period) * j / half);
    float arg = timestep * freq;
    embed_data[j] = cosf(arg);
    embed_data[j + half] = sinf(arg);
}`;

Deno.test({
  name: nvrtcName(
    "ggml timestep_embedding_f32: dims 320 and 33 (odd: a zero column), max_period 10000, " +
      "within the math library's bounds",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const timesteps = Float32Array.of(0, 1, 2.5, 17, 50, 999);
    const maxPeriod = 10000;
    for (const dim of [320, 33]) {
      const ne0 = dim + (dim % 2), half = Math.floor(dim / 2);
      const blocks = Math.ceil((Math.floor((dim + 1) / 2)) / 256) * 256;
      const [, got] = await launch(
        client,
        { source: TSEMBD, entryPoint: "timestep_embedding_f32", blockSize: [256, 1, 1] },
        [blocks, timesteps.length],
        [timesteps, new Float32Array(timesteps.length * ne0).fill(7)],
        { nb1: 4 * ne0, dim, max_period: maxPeriod },
      );
      for (let i = 0; i < timesteps.length; i++) {
        const t = timesteps[i];
        for (let j = 0; j < half; j++) {
          // logf (1 ulp), the product and quotient (1/2 ulp each) and expf (2 ulp) leave freq
          // within 2^-23 * (|log(10000)| + 4) of its value relative (an error in expf's argument
          // is its result's relative error); t * freq (1/2 ulp more) multiplies it by t; cosf and
          // sinf add 2 ulp (CUDA C Programming Guide, single-precision functions, non-fast-math).
          const freq = Math.exp(-Math.log(maxPeriod) * j / half), arg = t * freq;
          const argErr = Math.abs(arg) * 2 ** -23 * (Math.log(maxPeriod) + 5);
          for (const [k, f] of [[j, Math.cos], [j + half, Math.sin]] as const) {
            const g = got[i * ne0 + k], w = f(arg);
            assert.ok(
              Math.abs(g - w) <= argErr + 2 * 2 ** -23 * Math.max(Math.abs(w), 2 ** -126) + 1e-30,
              `dim ${dim}, t ${t}, column ${k}: got ${g}, want ${w}`,
            );
          }
        }
        if (dim % 2) assert.equal(got[i * ne0 + dim], 0, `dim ${dim}: the odd column`);
      }
    }
  },
});

// ggml-cuda/opt-step-adamw.cu, verbatim
const ADAMW = `typedef long long int64_t;
static __global__ void opt_step_adamw_f32(
    float * __restrict__ x, const float * __restrict__ g, float * __restrict__ g_m, float * __restrict__ g_v,
    const float * __restrict__ pars, const int64_t k) {

    const int64_t i = (int64_t) blockIdx.x*blockDim.x + threadIdx.x;

    if (i >= k) {
        return;
    }

    const float alpha  = pars[0];
    const float beta1  = pars[1];
    const float beta2  = pars[2];
    const float eps    = pars[3];
    const float wd     = pars[4];
    const float beta1h = pars[5];
    const float beta2h = pars[6];

    const float gi = g[i];
    const float gmi = g_m[i]*beta1 +    gi*(1.0f - beta1);
    const float gvi = g_v[i]*beta2 + gi*gi*(1.0f - beta2);

    g_m[i] = gmi;
    g_v[i] = gvi;

    const float mh =       gmi*beta1h;
    const float vh = sqrtf(gvi*beta2h) + eps;

    x[i] = x[i]*(1.0f - alpha*wd) - alpha*mh/vh;
}`;

Deno.test({
  name: nvrtcName(
    "ggml opt_step_adamw_f32: 3 steps over 1000 parameters; bit for bit with --fmad=false, " +
      "within 1e-6 of it as NVRTC contracts by default",
  ),
  ignore,
  async fn() {
    const f = Math.fround;
    const k = 1000;
    const step = (
      x: Float32Array,
      g: Float32Array,
      m: Float32Array,
      v: Float32Array,
      p: Float32Array,
    ) => {
      const [alpha, beta1, beta2, eps, wd, beta1h, beta2h] = p;
      for (let i = 0; i < k; i++) {
        const gi = g[i];
        const gmi = f(f(m[i] * beta1) + f(gi * f(1 - beta1)));
        const gvi = f(f(v[i] * beta2) + f(f(gi * gi) * f(1 - beta2)));
        m[i] = gmi, v[i] = gvi;
        const mh = f(gmi * beta1h);
        const vh = f(f(Math.sqrt(f(gvi * beta2h))) + eps);
        x[i] = f(f(x[i] * f(1 - f(alpha * wd))) - f(f(alpha * mh) / vh));
      }
    };
    for (const fmad of [false, true]) {
      using client = await simulatedCudaClient();
      const kernel = {
        source: ADAMW,
        entryPoint: "opt_step_adamw_f32",
        blockSize: [256, 1, 1] as [number, number, number],
        compileOptions: fmad ? [] : ["--fmad=false"],
      };
      let x: Float32Array = randoms(k, 5), m: Float32Array = new Float32Array(k);
      let v: Float32Array = new Float32Array(k);
      const wx = x.slice(), wm = m.slice(), wv = v.slice();
      for (let t = 1; t <= 3; t++) {
        const g = randoms(k, 100 + t);
        const [alpha, beta1, beta2] = [1e-3, 0.9, 0.999];
        const pars = Float32Array.of(
          alpha,
          beta1,
          beta2,
          1e-8,
          0.01,
          1 / (1 - beta1 ** t),
          1 / (1 - beta2 ** t),
        );
        [x, , m, v] = (await launch(client, kernel, Math.ceil(k / 256) * 256, [x, g, m, v, pars], {
          k,
        })) as Float32Array[];
        step(wx, g, wm, wv, pars);
      }
      if (!fmad) {
        for (const [got, want, name] of [[x, wx, "x"], [m, wm, "g_m"], [v, wv, "g_v"]] as const) {
          assert.deepEqual(got, want, name);
        }
      } else {
        // a contracted a*b + c rounds once where the C order rounds twice, so a sum differs by
        // under an ulp of its larger term (2^-24 * 0.3 for g_m's, whose terms stay below 0.3),
        // and x by what that moves alpha * mh / vh; all values are below 1, so 1e-6 absolute
        // holds these and no wrong operation (the run above is the bit-exact one)
        for (const [got, want, name] of [[x, wx, "x"], [m, wm, "g_m"], [v, wv, "g_v"]] as const) {
          assert.equal(mismatch(got, want, 1e-6), undefined, name);
        }
      }
    }
  },
});

// ggml-cuda/count-equal.cu, verbatim
const COUNT_EQUAL = COMMON + `
template <typename T>
static __global__ void count_equal(const T * __restrict__ x, const T * __restrict__ y, int64_t * __restrict__ dst, const int64_t dk, const int64_t k) {
    const int64_t i0 = (int64_t) blockIdx.x*dk;
    const int64_t i1 = min(i0 + dk, k);

    int nequal = 0;

    for (int64_t i = i0 + threadIdx.x; i < i1; i += WARP_SIZE) {
        const T xi = x[i];
        const T yi = y[i];
        nequal += xi == yi;
    }

    nequal = warp_reduce_sum(nequal);

    if (threadIdx.x != 0) {
        return;
    }

    atomicAdd((int *) dst, nequal);
}`;

Deno.test({
  name: nvrtcName(
    "ggml count_equal<int>: 5000 labels in chunks of 640 per warp, on the simulator by " +
      "shuffles (7.5) and by __reduce_add_sync (redux.sync, 8.0); on a real driver (which " +
      "ignores CUDA_SIM_CC) by its own device's path, twice",
  ),
  ignore,
  async fn() {
    const k = 5000, dk = 640;
    const x = Int32Array.from({ length: k }, (_, i) => (i * 37) % 11);
    const y = Int32Array.from({ length: k }, (_, i) => (i * 53) % 11);
    let want = 0;
    for (let i = 0; i < k; i++) want += x[i] === y[i] ? 1 : 0;
    for (const cc of ["75", "80"]) {
      await withSimEnv({ CUDA_SIM_CC: cc }, async () => {
        using client = await simulatedCudaClient();
        const [, , dst] = await launch(
          client,
          { source: COUNT_EQUAL, entryPoint: "count_equal<int>", blockSize: [32, 1, 1] },
          Math.ceil(k / dk) * 32,
          [x, y, new BigInt64Array(1)],
          { dk, k },
        );
        assert.equal(
          (dst as unknown as BigInt64Array)[0],
          BigInt(want),
          `compute capability ${cc}`,
        );
      });
    }
  },
});

// ggml-cuda/norm.cu, verbatim
const NORM = COMMON + `
template <int block_size>
static __global__ void norm_f32(
        const float * x, float * dst, const int ncols, const int64_t stride_row, const int64_t stride_channel,
        const int64_t stride_sample, const float eps) {
    const int nrows     = gridDim.x;
    const int nchannels = gridDim.y;

    const int row       = blockIdx.x;
    const int channel   = blockIdx.y;
    const int sample    = blockIdx.z;
    const int tid       = threadIdx.x;

    x   += sample*stride_sample + channel*stride_channel + row*stride_row;
    dst += ((sample*nchannels + channel)*nrows + row)*ncols;

    float2 mean_var = make_float2(0.0f, 0.0f);

    for (int col = tid; col < ncols; col += block_size) {
        const float xi = x[col];
        mean_var.x += xi;
        mean_var.y += xi * xi;
    }

    // sum up partial sums
    mean_var = warp_reduce_sum(mean_var);
    if constexpr (block_size > WARP_SIZE) {
        static_assert(block_size == 1024, "unexpected block_size");
        __shared__ float2 s_sum[32];
        const int warp_id = threadIdx.x / WARP_SIZE;
        const int lane_id = threadIdx.x % WARP_SIZE;
        if (lane_id == 0) {
            s_sum[warp_id] = mean_var;
        }
        __syncthreads();
        mean_var = s_sum[lane_id];
        mean_var = warp_reduce_sum(mean_var);
    }

    const float mean = mean_var.x / ncols;
    const float var = mean_var.y / ncols - mean * mean;
    const float inv_std = rsqrtf(var + eps);

    for (int col = tid; col < ncols; col += block_size) {
        dst[col] = (x[col] - mean) * inv_std;
    }
}

template <int block_size>
static __global__ void group_norm_f32(const float * x, float * dst, const int group_size, const int ne_elements, const float eps) {
    // blockIdx.x: num_groups idx
    // threadIdx.x: block_size idx
    const int start =     blockIdx.x*group_size + threadIdx.x;
    const int end   = min(blockIdx.x*group_size + group_size,  ne_elements);

    float tmp = 0.0f; // partial sum for thread in warp

    for (int j = start; j < end; j += block_size) {
        tmp += x[j];
    }

    tmp = warp_reduce_sum(tmp);
    if constexpr (block_size > WARP_SIZE) {
        static_assert(block_size == 1024, "unexpected block_size");
        __shared__ float s_sum[32];
        const int warp_id = threadIdx.x / WARP_SIZE;
        const int lane_id = threadIdx.x % WARP_SIZE;
        if (lane_id == 0) {
            s_sum[warp_id] = tmp;
        }
        __syncthreads();
        tmp = s_sum[lane_id];
        tmp = warp_reduce_sum(tmp);
    }

    const float mean = tmp / group_size;
    tmp = 0.0f;

    for (int j = start; j < end; j += block_size) {
        const float xi = x[j] - mean;
        dst[j] = xi;
        tmp += xi * xi;
    }

    tmp = warp_reduce_sum(tmp);
    if (block_size > WARP_SIZE) {
        __shared__ float s_sum[32];
        const int warp_id = threadIdx.x / WARP_SIZE;
        const int lane_id = threadIdx.x % WARP_SIZE;
        if (lane_id == 0) {
            s_sum[warp_id] = tmp;
        }
        __syncthreads();
        tmp = s_sum[lane_id];
        tmp = warp_reduce_sum(tmp);
    }

    const float variance = tmp / group_size;
    const float scale = rsqrtf(variance + eps);
    for (int j = start; j < end; j += block_size) {
        dst[j] *= scale;
    }
}`;

/** Mean and variance of `v` in double. */
function moments(v: ArrayLike<number>): [number, number] {
  let s = 0, s2 = 0;
  for (let i = 0; i < v.length; i++) s += v[i];
  const mean = s / v.length;
  for (let i = 0; i < v.length; i++) s2 += (v[i] - mean) ** 2;
  return [mean, s2 / v.length];
}

Deno.test({
  name: nvrtcName(
    "ggml norm_f32<32> and <1024> over a strided [2, 3, 5] grid of rows of 700 (a float2 " +
      "warp_reduce_sum, shared float2 partials); group_norm_f32<32> and <1024>",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const [ncols, nrows, nchannels, nsamples] = [700, 5, 3, 2];
    // rows stored with a gap: stride_row 720 floats, channels and samples packed after them
    const strideRow = 720,
      strideChannel = strideRow * nrows,
      strideSample = strideChannel * nchannels;
    const x = randoms(strideSample * nsamples, 9).map((v, i) => v + (i % 7) * 0.25);
    const eps = 1e-5;
    for (const block of [32, 1024]) {
      const [, got] = await launch(
        client,
        { source: NORM, entryPoint: `norm_f32<${block}>`, blockSize: [block, 1, 1] },
        [nrows * block, nchannels, nsamples],
        [x, new Float32Array(ncols * nrows * nchannels * nsamples)],
        {
          ncols,
          stride_row: strideRow,
          stride_channel: strideChannel,
          stride_sample: strideSample,
          eps,
        },
      );
      const want = new Float32Array(got.length);
      for (let s = 0; s < nsamples; s++) {
        for (let c = 0; c < nchannels; c++) {
          for (let r = 0; r < nrows; r++) {
            const from = s * strideSample + c * strideChannel + r * strideRow;
            const row = x.subarray(from, from + ncols), [mean, variance] = moments(row);
            const to = ((s * nchannels + c) * nrows + r) * ncols;
            for (let i = 0; i < ncols; i++) {
              want[to + i] = (row[i] - mean) / Math.sqrt(variance + eps);
            }
          }
        }
      }
      // E[x^2] - mean^2 in float: sums of 700 terms near 1 (|x| < 2.5) lose up to 700 * 2^-24
      // relative; the variance (about 0.6) keeps that within 1e-4 relative, and so the result
      // (rsqrtf: 2 ulp)
      assert.equal(mismatch(got, want, 2e-4), undefined, `norm_f32<${block}>`);
    }
    const groupSize = 1500, ne = 4000; // the last group is short
    const gx = randoms(ne, 10).map((v, i) => v * 3 + (i % 5));
    for (const block of [32, 1024]) {
      const [, got] = await launch(
        client,
        { source: NORM, entryPoint: `group_norm_f32<${block}>`, blockSize: [block, 1, 1] },
        Math.ceil(ne / groupSize) * block,
        [gx, new Float32Array(ne)],
        { group_size: groupSize, ne_elements: ne, eps: 1e-6 },
      );
      const want = new Float32Array(ne);
      for (let g = 0; g * groupSize < ne; g++) {
        const part = gx.subarray(g * groupSize, Math.min(ne, (g + 1) * groupSize));
        // ggml divides by group_size also for the short last group, as the kernel does
        let s = 0;
        for (const v of part) s += v;
        const mean = s / groupSize;
        let s2 = 0;
        for (const v of part) s2 += (v - mean) ** 2;
        const scale = 1 / Math.sqrt(s2 / groupSize + 1e-6);
        for (let i = 0; i < part.length; i++) want[g * groupSize + i] = (part[i] - mean) * scale;
      }
      // two-pass sums of 1500 terms (the mean's error enters every x - mean): 1e-4 relative
      assert.equal(mismatch(got, want, 1e-4), undefined, `group_norm_f32<${block}>`);
    }
  },
});

// ggml-cuda/pool2d.cu, verbatim, and the enum of ggml.h it takes (no <assert.h>: NVRTC builds
// assert() in and has no host headers)
const POOL2D = COMMON + `
enum ggml_op_pool {
    GGML_OP_POOL_MAX,
    GGML_OP_POOL_AVG,
    GGML_OP_POOL_COUNT,
};
template <typename Ti, typename To>
static  __global__ void pool2d_nchw_kernel(
        const int ih, const int iw, const int oh, const int ow,
        const int kh, const int kw, const int sh, const int sw,
        const int ph, const int pw, const int parallel_elements,
        const Ti* src, To* dst, const enum ggml_op_pool op) {
    int idx = threadIdx.x + blockIdx.x * blockDim.x;
    if (idx >= parallel_elements) {
        return;
    }

    const int I_HW = ih * iw;
    const int O_HW = oh * ow;
    const int nc = idx / O_HW;
    const int cur_oh = idx % O_HW / ow;
    const int cur_ow = idx % O_HW % ow;
    const Ti* i_ptr = src + nc * I_HW;
    To* o_ptr = dst + nc * O_HW;
    const int start_h = cur_oh * sh - ph;
    const int bh = max(0, start_h);
    const int eh = min(ih, start_h + kh);
    const int start_w = cur_ow * sw - pw;
    const int bw = max(0, start_w);
    const int ew = min(iw, start_w + kw);
    const To scale = 1. / (kh * kw);
    To res = 0;

    switch (op) {
        case GGML_OP_POOL_AVG: res = 0; break;
        case GGML_OP_POOL_MAX: res = -FLT_MAX; break;
        default: assert(false);
    }

    for (int i = bh; i < eh; i += 1) {
        for (int j = bw; j < ew; j += 1) {
#if __CUDA_ARCH__ >= 350
            Ti cur = __ldg(i_ptr + i * iw + j);
#else
            Ti cur = i_ptr[i * iw + j];
#endif
            switch (op) {
                case GGML_OP_POOL_AVG: res += cur * scale; break;
                case GGML_OP_POOL_MAX: res = max(res, (To)cur); break;
                default: assert(false);
            }
        }
    }
    o_ptr[cur_oh * ow + cur_ow] = res;
}`;

Deno.test({
  name: nvrtcName(
    "ggml pool2d_nchw_kernel<float, float>: max and average pooling, 3x3 windows, stride 2, " +
      "padding 1, over 4 channels of 13x11 (an enum parameter takes its enumerator's value)",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const [nc, ih, iw, kh, kw, sh, sw, ph, pw] = [4, 13, 11, 3, 3, 2, 2, 1, 1];
    const oh = Math.floor((ih + 2 * ph - kh) / sh) + 1,
      ow = Math.floor((iw + 2 * pw - kw) / sw) + 1;
    const src = randoms(nc * ih * iw, 12);
    const n = nc * oh * ow;
    for (const [op, name] of [[0, "max"], [1, "avg"]] as const) {
      const [, got] = await launch(
        client,
        { source: POOL2D, entryPoint: "pool2d_nchw_kernel<float, float>", blockSize: [256, 1, 1] },
        Math.ceil(n / 256) * 256,
        [src, new Float32Array(n)],
        { ih, iw, oh, ow, kh, kw, sh, sw, ph, pw, parallel_elements: n, op },
      );
      const want = new Float32Array(n);
      const scale = Math.fround(1 / (kh * kw));
      for (let idx = 0; idx < n; idx++) {
        const c = Math.floor(idx / (oh * ow)), y = Math.floor((idx % (oh * ow)) / ow), x = idx % ow;
        let res = op === 0 ? -3.4028234663852886e38 : 0;
        for (let i = Math.max(0, y * sh - ph); i < Math.min(ih, y * sh - ph + kh); i++) {
          for (let j = Math.max(0, x * sw - pw); j < Math.min(iw, x * sw - pw + kw); j++) {
            const cur = src[(c * ih + i) * iw + j];
            // NVRTC 12.4 contracts res += cur * scale to one fma
            res = op === 0 ? Math.max(res, cur) : fma(cur, scale, res, "rn");
          }
        }
        want[idx] = res;
      }
      // another NVRTC may contract otherwise (the PTX ISA leaves it to the compiler): 9 terms
      // below 1 of a ninth, each rounded once more or less, stay within 1e-6
      if (onSimulator || op === 0) assert.deepEqual(got, want, name);
      else assert.equal(mismatch(got, want, 1e-6), undefined, name);
    }
  },
});

Deno.test({
  name: nvrtcName(
    "enum parameters written C's ways: `const enum E op` (ggml's pool2d), `typedef enum { ... } " +
      "name`, a typedef'd tag with an underlying type, `enum E*` (each was refused as a type " +
      "the runtime cannot pass, or its pointer took any handle)",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const source = `enum act { ACT_NONE, ACT_RELU, ACT_NEG };
typedef enum { SCALE_ONE, SCALE_TWO } scale_t;
typedef enum shift_tag : unsigned char { SHIFT_NONE, SHIFT_UP } shift_t;
extern "C" __global__ void apply(const float* x, float* y, const enum act op, scale_t s,
                                 shift_t up, const enum act* per, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    enum act a = per[i] == ACT_NONE ? op : per[i];
    float v = a == ACT_RELU ? fmaxf(x[i], 0.0f) : a == ACT_NEG ? -x[i] : x[i];
    v = s == SCALE_TWO ? 2.0f * v : v;
    y[i] = up == SHIFT_UP ? v + 10.0f : v;
}`;
    const x = Float32Array.from({ length: 9 }, (_, i) => i - 4);
    const per = Int32Array.from({ length: 9 }, (_, i) => i % 3 === 0 ? 2 : 0);
    const [, y] = await launch(client, { source }, 9, [x, new Float32Array(9), per], {
      op: 1,
      s: 1,
      up: 1,
      n: 9,
    });
    assert.deepEqual(y, x.map((v, i) => 2 * (i % 3 === 0 ? -v : Math.max(v, 0)) + 10));
    // `enum act*` is an int pointer: a float handle is refused, as for `int*`
    const kernel: CudaKernel = { source };
    using f = client.createWithData(x);
    assert.throws(
      () =>
        client.execute(kernel, {
          threads: 9,
          buffers: [f, f, f],
          params: { op: 1, s: 1, up: 1, n: 9 },
        }),
      /per|buffers\[2\]/,
    );
  },
});

// ggml-cuda/conv-transpose-1d.cu, verbatim
const CONV_T1D = `
static  __global__ void conv_transpose_1d_kernel(
        const int s0, const int p0, const int d0, const int output_size,
        const int src0_ne0, const int src0_ne1, const int src0_ne2, const int src0_ne3,
        const int src1_ne0, const int src1_ne1, const int src1_ne2, const int src1_ne3,
        const int dst_ne0, const int dst_ne1, const int dst_ne2, const int dst_ne3,
        const float * src0, const float * src1,  float * dst) {
    int global_index = threadIdx.x + blockIdx.x * blockDim.x;
    if (global_index >= output_size) {
        return;
    }

    int out_index = global_index / dst_ne0;

    float accumulator = 0;

    for (int c = 0; c < src0_ne2; c++) {
        int idx = global_index % dst_ne0;

        int kernel_offset = (src0_ne0 * src0_ne1 * c) + (out_index * src0_ne0);
        int input_offset = src1_ne0 * c;

        for (int i = 0; i < src1_ne0; i++) {
            if (!(idx >= i*s0 && idx < i*s0 + src0_ne0)) {
                continue;
            }
            int weight_idx = idx - i*s0;

            float kernel_weight = src0[kernel_offset + weight_idx];
            float input_value =  src1[input_offset+i];

            accumulator += kernel_weight * input_value;
        }
    }
    dst[global_index] = accumulator;
}`;

Deno.test({
  name: nvrtcName(
    "ggml conv_transpose_1d_kernel: kernel 5, stride 3, 6 input channels of 40 to 4 output " +
      "channels; bit for bit with --fmad=false, and with NVRTC's fma as an fma reference",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const [K, cout, cin, L, s0] = [5, 4, 6, 40, 3];
    const dne0 = (L - 1) * s0 + K, n = dne0 * cout;
    const src0 = randoms(K * cout * cin, 31), src1 = randoms(L * cin, 32);
    for (const fmad of [false, true]) {
      const [, , got] = await launch(
        client,
        {
          source: CONV_T1D,
          entryPoint: "conv_transpose_1d_kernel",
          blockSize: [256, 1, 1],
          compileOptions: fmad ? [] : ["--fmad=false"],
        },
        Math.ceil(n / 256) * 256,
        [src0, src1, new Float32Array(n)],
        {
          s0,
          p0: 0,
          d0: 1,
          output_size: n,
          src0_ne0: K,
          src0_ne1: cout,
          src0_ne2: cin,
          src0_ne3: 1,
          src1_ne0: L,
          src1_ne1: cin,
          src1_ne2: 1,
          src1_ne3: 1,
          dst_ne0: dne0,
          dst_ne1: cout,
          dst_ne2: 1,
          dst_ne3: 1,
        },
      );
      const want = new Float32Array(n);
      for (let g = 0; g < n; g++) {
        const o = Math.floor(g / dne0), idx = g % dne0;
        let acc = 0;
        for (let c = 0; c < cin; c++) {
          for (let i = 0; i < L; i++) {
            if (!(idx >= i * s0 && idx < i * s0 + K)) continue;
            const w = src0[K * cout * c + o * K + idx - i * s0], v = src1[L * c + i];
            // `accumulator += w * v` is one fma as NVRTC contracts it, two roundings without
            acc = fmad ? fma(w, v, acc, "rn") : Math.fround(acc + Math.fround(w * v));
          }
        }
        want[g] = acc;
      }
      // another NVRTC may contract otherwise than 12.4 (the PTX ISA leaves it to the compiler):
      // 40 terms below 1, each rounded once more or less, stay within 1e-5
      if (onSimulator || !fmad) assert.deepEqual(got, want, fmad ? "fma" : "--fmad=false");
      else assert.equal(mismatch(got, want, 1e-5), undefined, "fma");
    }
  },
});

// ggml-cuda/wkv6.cu, verbatim (CUDA_WKV_BLOCK_SIZE from wkv6.cuh)
const WKV6 = `#define CUDA_WKV_BLOCK_SIZE 64
static __global__ void rwkv_wkv_f32(const int B, const int T, const int C, const int H, const float * k, const float * v, const float * r, const float * tf, const float * td, const float * s, float * dst) {
    const int tid = threadIdx.x;
    const int bid = blockIdx.x;

    const int head_size = CUDA_WKV_BLOCK_SIZE;
    const int batch_i = bid / H;
    const int head_i = bid % H;
    const int state_size = C * head_size;
    const int n_seq_tokens = T / B;

    float state[head_size];
    __shared__ float _k[head_size], _r[head_size], _tf[head_size], _td[head_size];

    #pragma unroll
    for (int i = 0; i < head_size; i++) {
        state[i] = s[batch_i * state_size + head_i * head_size * head_size + i * head_size + tid];
    }

    __syncthreads();
    _tf[tid] = tf[head_i * head_size + tid];
    __syncthreads();

    for (int t = batch_i * n_seq_tokens * C + head_i * head_size + tid; t < (batch_i + 1) * n_seq_tokens * C + head_i * head_size + tid; t += C) {
        __syncthreads();
        _k[tid] = k[t];
        _r[tid] = r[t];
        _td[tid] = td[t];
        __syncthreads();

        const float _v = v[t];
        float y = 0;
        for (int j = 0; j < head_size; j += 4) {
            const float4& k = (float4&)(_k[j]);
            const float4& r = (float4&)(_r[j]);
            const float4& tf = (float4&)(_tf[j]);
            const float4& td = (float4&)(_td[j]);
            float4& s = (float4&)(state[j]);
            float4 kv;

            kv.x = k.x * _v;
            kv.y = k.y * _v;
            kv.z = k.z * _v;
            kv.w = k.w * _v;

            y += r.x * (tf.x * kv.x + s.x);
            y += r.y * (tf.y * kv.y + s.y);
            y += r.z * (tf.z * kv.z + s.z);
            y += r.w * (tf.w * kv.w + s.w);

            s.x = s.x * td.x + kv.x;
            s.y = s.y * td.y + kv.y;
            s.z = s.z * td.z + kv.z;
            s.w = s.w * td.w + kv.w;
        }
        dst[t] = y;
    }

    #pragma unroll
    for (int i = 0; i < head_size; i++) {
        dst[T * C + batch_i * state_size + head_i * head_size * head_size + i * head_size + tid] = state[i];
    }
}`;

Deno.test({
  name: nvrtcName(
    "ggml rwkv_wkv_f32: 2 sequences of 6 tokens, 2 heads of 64 (a local float[64] state and " +
      "shared arrays read as float4&), bit for bit with --fmad=false, within 1e-5 as compiled",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const [B, seq, H, hs] = [2, 6, 2, 64];
    const T = B * seq, C = H * hs, stateSize = C * hs;
    const k = randoms(T * C, 41), v = randoms(T * C, 42), r = randoms(T * C, 43);
    const tf = randoms(C, 44), td = randoms(T * C, 45).map((x) => 0.5 + 0.45 * x);
    const s = randoms(B * stateSize, 46);
    const f = Math.fround, want = new Float32Array(T * C + B * stateSize);
    for (let b = 0; b < B; b++) {
      for (let h = 0; h < H; h++) {
        for (let tid = 0; tid < hs; tid++) {
          const state = Float32Array.from(
            { length: hs },
            (_, i) => s[b * stateSize + h * hs * hs + i * hs + tid],
          );
          for (let t = b * seq * C + h * hs + tid; t < (b + 1) * seq * C + h * hs + tid; t += C) {
            const base = t - tid, vv = v[t];
            let y = 0;
            for (let j = 0; j < hs; j++) {
              const kv = f(k[base + j] * vv);
              y = f(y + f(r[base + j] * f(f(tf[h * hs + j] * kv) + state[j])));
              state[j] = f(f(state[j] * td[base + j]) + kv);
            }
            want[t] = y;
          }
          for (let i = 0; i < hs; i++) {
            want[T * C + b * stateSize + h * hs * hs + i * hs + tid] = state[i];
          }
        }
      }
    }
    for (const fmad of [false, true]) {
      const got = (await launch(
        client,
        {
          source: WKV6,
          entryPoint: "rwkv_wkv_f32",
          blockSize: [hs, 1, 1],
          compileOptions: fmad ? [] : ["--fmad=false"],
        },
        B * H * hs,
        [k, v, r, tf, td, s, new Float32Array(want.length)],
        { B, T, C, H },
      ))[6];
      if (!fmad) assert.deepEqual(got, want, "--fmad=false");
      // contracted, each of y's 64 sums and the state's 6 updates rounds once less: 1e-5
      // relative (absolute below 1; about 2^-17) bounds 64 such ulps and no wrong term
      else assert.equal(mismatch(got, want, 1e-5), undefined, "fma");
    }
  },
});

Deno.test({
  name: nvrtcName(
    "a parameter named as a type the runtime knows but NVRTC does not without its header " +
      "(`int half`, as rotary kernels name half a head) takes its value (it was 'params.half " +
      "is not a scalar parameter')",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const source =
      `extern "C" __global__ void rotate_half(const float* x, float* y, const int half, float scale) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 2 * half) return;
    y[i] = scale * (i < half ? -x[i + half] : x[i - half]);
}`;
    const x = Float32Array.from({ length: 10 }, (_, i) => i + 1);
    const [, y] = await launch(client, { source }, 10, [x, new Float32Array(10)], {
      half: 5,
      scale: 2,
    });
    assert.deepEqual(y, Float32Array.from(x, (_, i) => 2 * (i < 5 ? -x[i + 5] : x[i - 5])));
  },
});

// ggml-cuda/quantize.cu's quantize_q8_1 verbatim, with block_q8_1 of ggml-common.h; `half` is a
// user's two-byte struct whose assignment from a float is cvt.rn.f16.f32 in inline PTX (no
// <cuda_fp16.h> here), so `reinterpret_cast<half&>(y[ib].ds.x) = d` stores what __float2half does
const QUANTIZE_Q8_1 = COMMON + `
template<int width = WARP_SIZE>
static __device__ __forceinline__ float warp_reduce_max(float x) {
#pragma unroll
    for (int offset = width/2; offset > 0; offset >>= 1) {
        x = fmaxf(x, __shfl_xor_sync(0xffffffff, x, offset, width));
    }
    return x;
}
typedef signed char int8_t;
struct __align__(2) half {
    unsigned short x;
    __device__ half& operator=(float f) {
        asm("cvt.rn.f16.f32 %0, %1;" : "=h"(x) : "f"(f));
        return *this;
    }
};
struct __align__(4) half2 { half x, y; };
#define QK8_1 32
typedef struct {
    half2 ds;
    int8_t qs[QK8_1]; // quants
} block_q8_1;
static __global__ void quantize_q8_1(const float * __restrict__ x, void * __restrict__ vy, const int64_t kx, const int64_t kx0_padded) {
    const int64_t ix0 = (int64_t)blockDim.x*blockIdx.x + threadIdx.x;

    if (ix0 >= kx0_padded) {
        return;
    }

    const int64_t ix1 = blockIdx.y;

    const int64_t i_padded = ix1*kx0_padded + ix0;

    block_q8_1 * y = (block_q8_1 *) vy;

    const int64_t ib = i_padded / QK8_1; // block index
    const int64_t iqs = i_padded % QK8_1; // quant index

    const float xi = ix0 < kx ? x[ix1*kx + ix0] : 0.0f;
    float amax = fabsf(xi);
    float sum = xi;

    amax = warp_reduce_max(amax);
    sum = warp_reduce_sum(sum);

    const float d = amax / 127;
    const int8_t q = amax == 0.0f ? 0 : roundf(xi / d);

    y[ib].qs[iqs] = q;

    if (iqs > 0) {
        return;
    }

    reinterpret_cast<half&>(y[ib].ds.x) = d;
    reinterpret_cast<half&>(y[ib].ds.y) = sum;
}`;

Deno.test({
  name: nvrtcName(
    "ggml quantize_q8_1: 3 rows of 100 padded to 128 (a zero block, halves through inline " +
      "PTX, roundf's ties away from zero), bit for bit with ggml's quantize_row_q8_1_ref",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const [kx, padded, rows] = [100, 128, 3];
    const x = randoms(kx * rows, 191).map((v) => v * 3);
    // row 1's first block: halves of integers and amax 127, so xi / d is k + 0.5 exactly
    for (let i = 0; i < 32; i++) x[kx + i] = i === 0 ? 127 : ((i * 37) % 80) - 40 + 0.5;
    // row 2's second block all zeros
    x.fill(0, 2 * kx + 32, 2 * kx + 64);
    const blocks = (rows * padded) / 32;
    const [, y] = await launch(
      client,
      { source: QUANTIZE_Q8_1, entryPoint: "quantize_q8_1", blockSize: [256, 1, 1] },
      [256, rows],
      [x, new Uint8Array(blocks * 36)],
      { kx, kx0_padded: padded },
    );
    const want = new Uint8Array(blocks * 36), view = new DataView(want.buffer);
    const half = (v: number) => {
      // the f16 bits of Math.f16round(v) (finite, normal or subnormal)
      const h = Math.f16round(v), sign = h < 0 || Object.is(h, -0) ? 0x8000 : 0, a = Math.abs(h);
      if (a === 0) return sign;
      const e = Math.floor(Math.log2(a));
      return e < -14
        ? sign | Math.round(a * 2 ** 24)
        : sign | ((e + 15) << 10) | Math.round((a / 2 ** e - 1) * 1024);
    };
    for (let b = 0; b < blocks; b++) {
      const r = Math.floor((b * 32) / padded), c0 = (b * 32) % padded;
      const xs = Array.from({ length: 32 }, (_, i) => (c0 + i < kx ? x[r * kx + c0 + i] : 0));
      const amax = Math.max(...xs.map(Math.abs)), d = f(amax / 127);
      xs.forEach((xi, i) => {
        const v = f(xi / d), q = amax === 0 ? 0 : Math.sign(v) * Math.floor(Math.abs(v) + 0.5);
        view.setInt8(b * 36 + 4 + i, q);
      });
      view.setUint16(b * 36, half(d), true);
      view.setUint16(b * 36 + 2, half(xorWarpSum(xs)), true);
    }
    assert.deepEqual(y, want);
  },
});

Deno.test({
  name: nvrtcName(
    "2-D array parameters: the CUDA C++ Programming Guide's MatAdd (float A[N][N]) and the same " +
      "kernel with pointers to rows (float (*A)[N]), which was read as float** (u64 elements) " +
      "and refused f32 handles",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const N = 8;
    const a = randoms(N * N, 201), b = randoms(N * N, 202);
    const want = a.map((v, i) => f(v + b[i]));
    for (
      const params of [
        "float A[N][N], float B[N][N], float C[N][N]",
        "const float (*A)[N], const float (* __restrict__ B)[N], float (*C)[N]",
      ]
    ) {
      const source = `#define N ${N}
extern "C" __global__ void MatAdd(${params})
{
    int i = threadIdx.x;
    int j = threadIdx.y;
    C[i][j] = A[i][j] + B[i][j];
}`;
      const [, , c] = await launch(
        client,
        { source, blockSize: [N, N, 1] },
        [N, N],
        [a, b, new Float32Array(N * N)],
      );
      assert.deepEqual(c, want, params);
    }
  },
});

// ggml-cuda/gla.cu, gated_linear_attn_f32 verbatim
const GLA = `template<int HEAD_SIZE>
static __global__ void gated_linear_attn_f32(const int B, const int T, const int C, const int H, const float scale,
     const float * k, const float * v, const float * r, const float * td, const float * s, float * dst) {
    const int tid = threadIdx.x;
    const int bid = blockIdx.x;

    const int head_size = HEAD_SIZE;
    const int batch_i = bid / H;
    const int head_i = bid % H;
    const int state_size = C * head_size;
    const int n_seq_tokens = T / B;

    float state[head_size];
    __shared__ float _k[head_size], _r[head_size], _td[head_size];

    #pragma unroll
    for (int i = 0; i < head_size; i++) {
        state[i] = s[batch_i * state_size + head_i * head_size * head_size + i * head_size + tid];
    }

    for (int t = batch_i * n_seq_tokens * C + head_i * head_size + tid; t < (batch_i + 1) * n_seq_tokens * C + head_i * head_size + tid; t += C) {
        __syncthreads();
        _k[tid] = k[t];
        _r[tid] = r[t];
        _td[tid] = td[t];
        __syncthreads();

        const float _v = v[t];
        float y = 0;
        for (int j = 0; j < head_size; j += 4) {
            const float4 & k = (float4 &)(_k[j]);
            const float4 & r = (float4 &)(_r[j]);
            const float4 & td = (float4 &)(_td[j]);
            float4 & s = (float4 &)(state[j]);
            float4 kv;

            kv.x = k.x * _v;
            kv.y = k.y * _v;
            kv.z = k.z * _v;
            kv.w = k.w * _v;

            s.x = s.x * td.x + kv.x;
            s.y = s.y * td.y + kv.y;
            s.z = s.z * td.z + kv.z;
            s.w = s.w * td.w + kv.w;

            y += r.x * s.x;
            y += r.y * s.y;
            y += r.z * s.z;
            y += r.w * s.w;
        }
        dst[t] = y * scale;
    }

    #pragma unroll
    for (int i = 0; i < head_size; i++) {
        dst[T * C + batch_i * state_size + head_i * head_size * head_size + i * head_size + tid] = state[i];
    }
}`;

Deno.test({
  name: nvrtcName(
    "ggml gated_linear_attn_f32<128> and <64> (a local float[HEAD_SIZE] state read as float4&): " +
      "2 sequences of 4 tokens, 2 heads, bit for bit with --fmad=false",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    for (const hs of [128, 64]) {
      const [B, seq, H, scale] = [2, 4, 2, f(0.125)];
      const T = B * seq, C = H * hs, stateSize = C * hs;
      const k = randoms(T * C, 231), v = randoms(T * C, 232), r = randoms(T * C, 233);
      const td = randoms(T * C, 234).map((x) => 0.5 + 0.45 * x), s = randoms(B * stateSize, 235);
      const want = new Float32Array(T * C + B * stateSize);
      for (let b = 0; b < B; b++) {
        for (let h = 0; h < H; h++) {
          for (let tid = 0; tid < hs; tid++) {
            const state = Float32Array.from(
              { length: hs },
              (_, i) => s[b * stateSize + h * hs * hs + i * hs + tid],
            );
            for (let t = b * seq * C + h * hs + tid; t < (b + 1) * seq * C + h * hs + tid; t += C) {
              const base = t - tid;
              let y = 0;
              for (let j = 0; j < hs; j++) {
                const kv = f(k[base + j] * v[t]);
                state[j] = f(f(state[j] * td[base + j]) + kv);
                y = f(y + f(r[base + j] * state[j]));
              }
              want[t] = f(y * scale);
            }
            for (let i = 0; i < hs; i++) {
              want[T * C + b * stateSize + h * hs * hs + i * hs + tid] = state[i];
            }
          }
        }
      }
      const got = (await launch(
        client,
        {
          source: GLA,
          entryPoint: `gated_linear_attn_f32<${hs}>`,
          blockSize: [hs, 1, 1],
          compileOptions: ["--fmad=false"],
        },
        B * H * hs,
        [k, v, r, td, s, new Float32Array(want.length)],
        { B, T, C, H, scale },
      ))[5];
      assert.deepEqual(got, want, `HEAD_SIZE ${hs}`);
    }
  },
});
