/**
 * User CUDA C, QA wave 5: kernels as public projects write them (ggml-cuda, llm.c, Caffe), whose
 * signatures the runtime reads from the source: `static` and namespaced kernels, templates with
 * `__launch_bounds__` of a template parameter, a `__launch_bounds__` macro, default arguments,
 * `typedef`'d parameter types (llm.c's `floatX`), attributes, and kernels a `#define` declares.
 * Each runs through `client.execute` on the simulated driver against a CPU reference.
 */
import assert from "node:assert/strict";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { launch, mismatch, randoms } from "./_cuda_user_run.ts";
import type { CudaKernel } from "../runtime/server/cuda/kernel.ts";
import { KernelArgumentError } from "../runtime/core/errors.ts";

const ignore = nvrtcSkip !== undefined;

/** ggml-cuda's warp reduction (common.cuh), shared by the kernels below. */
const WARP = `#define WARP_SIZE 32
static __device__ __forceinline__ float warp_reduce_sum(float x) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) x += __shfl_xor_sync(0xffffffff, x, offset, 32);
  return x;
}
static __device__ __forceinline__ float warp_reduce_max(float x) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) x = fmaxf(x, __shfl_xor_sync(0xffffffff, x, offset, 32));
  return x;
}
`;

/** Row sums in f64, rounded once: within n ulps of any f32 summation order (Higham 4.2). */
function rowSums(x: Float32Array, cols: number, f = (v: number) => v): number[] {
  return Array.from({ length: x.length / cols }, (_, r) => {
    let s = 0;
    for (let c = 0; c < cols; c++) s += f(x[r * cols + c]);
    return s;
  });
}

Deno.test({
  name: nvrtcName(
    "ggml: a static sum_rows kernel in a namespace and a static template rms_norm<block_size> " +
      "with __launch_bounds__(block_size): the bound is read from the PTX, not the default 256",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const rows = 6, cols = 100;
    const x = randoms(rows * cols, 7);
    const sumRows = {
      source: `${WARP}namespace ggml_cuda {
static __global__ void k_sum_rows_f32(const float * x, float * dst, const int ncols) {
    const int row = blockIdx.x;
    const int col = threadIdx.x;
    float sum = 0.0f;
    for (int i = col; i < ncols; i += blockDim.x) sum += x[row * ncols + i];
    sum = warp_reduce_sum(sum);
    if (col == 0) dst[row] = sum;
}
}`,
      blockSize: [32, 1, 1] as const,
    };
    const [, sums] = await launch(client, sumRows, 32 * rows, [x, new Float32Array(rows)], {
      ncols: cols,
    });
    // f32 sums of 100 terms of |v| < 1: within 100 * 2^-24 * sum|v| of the exact sum
    const bound = rowSums(x, cols, Math.abs).map((s) => cols * 2 ** -24 * s);
    rowSums(x, cols).forEach((s, r) => assert.ok(Math.abs(sums[r] - s) <= bound[r], `row ${r}`));

    // ggml's rms_norm (norm.cu), its launch bound a template parameter: NVRTC's .maxntid 64
    const rms = {
      source: `${WARP}template <int block_size>
static __global__ void __launch_bounds__(block_size) rms_norm_f32(const float * x, float * dst, const int ncols, const float eps) {
    const int row = blockIdx.x*blockDim.y + threadIdx.y;
    const int tid = threadIdx.x;
    float tmp = 0.0f;
    for (int col = tid; col < ncols; col += block_size) {
        const float xi = x[row*ncols + col];
        tmp += xi * xi;
    }
    tmp = warp_reduce_sum(tmp);
    if (block_size > WARP_SIZE) {
        __shared__ float s_sum[32];
        int warp_id = threadIdx.x / WARP_SIZE;
        int lane_id = threadIdx.x % WARP_SIZE;
        if (lane_id == 0) s_sum[warp_id] = tmp;
        __syncthreads();
        tmp = lane_id < block_size / WARP_SIZE ? s_sum[lane_id] : 0.0f;
        tmp = warp_reduce_sum(tmp);
    }
    const float mean = tmp / ncols;
    const float scale = rsqrtf(mean + eps);
    for (int col = tid; col < ncols; col += block_size) dst[row*ncols + col] = scale * x[row*ncols + col];
}`,
      entryPoint: "rms_norm_f32<64>",
    };
    // no blockSize: the launch takes the instance's bound (64), as nvcc's launch would need
    const [, out] = await launch(client, rms, 64 * rows, [x, new Float32Array(rows * cols)], {
      ncols: cols,
      eps: 1e-6,
    });
    const squares = rowSums(x, cols, (v) => v * v);
    const want = x.map((v, i) => v / Math.sqrt(squares[Math.floor(i / cols)] / cols + 1e-6));
    // rsqrt.approx.f32: 2^-22.9 relative (PTX ISA); the sum of squares: 100 * 2^-24
    assert.equal(mismatch(out, want, 2e-5), undefined);
  },
});

Deno.test({
  name: nvrtcName(
    "Caffe: __launch_bounds__(CAFFE_CUDA_NUM_THREADS) of a #define bounds the default block " +
      "(was 256 threads: CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES); the error names the kernel, not " +
      "'__launch_bounds__'",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    // caffe/util/device_alternate.hpp and relu_layer.cu
    const source = `#define CAFFE_CUDA_NUM_THREADS 128
#define CUDA_KERNEL_LOOP(i, n) \\
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; \\
       i < (n); \\
       i += blockDim.x * gridDim.x)
extern "C" __global__ void __launch_bounds__(CAFFE_CUDA_NUM_THREADS) ReLUForward(const int n,
    const float* in, float* out, float negative_slope) {
  CUDA_KERNEL_LOOP(index, n) {
    out[index] = in[index] > 0 ? in[index] : in[index] * negative_slope;
  }
}`;
    const n = 300, x = randoms(n, 3);
    const [, y] = await launch(client, { source }, n, [x, new Float32Array(n)], {
      n,
      negative_slope: 0.125,
    });
    assert.deepEqual(y, x.map((v) => (v > 0 ? v : v * 0.125)));
    // a block past the bound: refused before the driver, naming the kernel and the bound
    const big = client.createWithData(new Float32Array(n));
    assert.throws(
      () =>
        client.execute({ source, blockSize: [256, 1, 1] } as CudaKernel, {
          threads: n,
          buffers: [big, big],
          params: { n, negative_slope: 1 },
        }),
      (e: Error) =>
        e instanceof RangeError && /Kernel 'ReLUForward'/.test(e.message) &&
        /allows 128/.test(e.message),
    );
    big.dispose();
  },
});

Deno.test({
  name: nvrtcName(
    "llm.c: layernorm_forward over typedef float floatX, with a default argument " +
      "(float eps = 1e-5f) and a [[maybe_unused]] parameter: each scalar is named as declared",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    // llm.c's dev/cuda/layernorm_forward.cu kernel 1 (one thread per row), floatX as train_gpt2.cu
    const source = `typedef float floatX;
using index_t = int;
extern "C" __global__ void layernorm_forward_kernel1(floatX* out, floatX* mean, floatX* rstd,
                                 const floatX* inp, const floatX* weight, const floatX* bias,
                                 index_t N, const index_t C, [[maybe_unused]] int unused = 0,
                                 float eps = 1e-5f) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < N) {
        const floatX* x = inp + idx * C;
        float m = 0.0f;
        for (int i = 0; i < C; i++) m += x[i];
        m = m / C;
        float v = 0.0f;
        for (int i = 0; i < C; i++) { float xshift = x[i] - m; v += xshift * xshift; }
        v = v / C;
        float s = 1.0f / sqrtf(v + eps);
        floatX* out_idx = out + idx * C;
        for (int i = 0; i < C; i++) out_idx[i] = s * (x[i] - m) * weight[i] + bias[i];
        mean[idx] = m;
        rstd[idx] = s;
    }
}`;
    const N = 5, C = 24;
    const inp = randoms(N * C, 11), w = randoms(C, 12), b = randoms(C, 13);
    const [out, mean, rstd] = await launch(
      client,
      { source },
      N,
      [new Float32Array(N * C), new Float32Array(N), new Float32Array(N), inp, w, b],
      { N, C, unused: 7, eps: 0.5 }, // eps named: it was read as 'f' (from 1e-5f)
    );
    const m = rowSums(inp, C).map((s) => s / C);
    const v = rowSums(inp.map((x, i) => (x - m[Math.floor(i / C)]) ** 2), C).map((s) => s / C);
    const s = v.map((x) => 1 / Math.sqrt(x + 0.5));
    assert.equal(mismatch(mean, m, 1e-5), undefined);
    assert.equal(mismatch(rstd, s, 1e-5), undefined);
    const want = inp.map((x, i) =>
      s[Math.floor(i / C)] * (x - m[Math.floor(i / C)]) * w[i % C] + b[i % C]
    );
    assert.equal(mismatch(out, want, 1e-5), undefined);
  },
});

Deno.test({
  name: nvrtcName(
    "kernels a #define declares run by entryPoint with their buffers; params and a missing " +
      "entryPoint are refused naming the macro, not its parameter 'name'",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    // the unary-op pattern of ggml's unary.cu, as a macro (as PyTorch's and Caffe's do)
    const source = `#define UNARY_OP(name, expr) \\
extern "C" __global__ void name(const float * x, float * dst) { \\
    const int i = blockDim.x*blockIdx.x + threadIdx.x; \\
    if (i >= 64) return; \\
    const float v = x[i]; \\
    dst[i] = expr; \\
}
UNARY_OP(relu_f32, fmaxf(v, 0.0f))
UNARY_OP(sqr_f32, v * v)
UNARY_OP(neg_f32, -v)`;
    const x = randoms(64, 21);
    const [, sqr] = await launch(client, { source, entryPoint: "sqr_f32" }, 64, [
      x,
      new Float32Array(64),
    ]);
    assert.deepEqual(sqr, x.map((v) => Math.fround(v * v)));
    const [, relu] = await launch(client, { source, entryPoint: "relu_f32" }, 64, [
      x,
      new Float32Array(64),
    ]);
    assert.deepEqual(relu, x.map((v) => Math.max(v, 0)));
    const a = client.createWithData(x);
    try {
      assert.throws(
        () => client.execute({ source } as CudaKernel, { threads: 64, buffers: [a, a] }),
        (e: Error) =>
          e instanceof KernelArgumentError && /entryPoint/.test(e.message) &&
          /#define/.test(e.message) && !/'name'/.test(e.message),
      );
      assert.throws(
        () =>
          client.execute({ source, entryPoint: "neg_f32" } as CudaKernel, {
            threads: 64,
            buffers: [a, a],
            params: { n: 64 },
          }),
        (e: Error) => e instanceof KernelArgumentError && /#define/.test(e.message),
      );
      client.execute({ source, entryPoint: "neg_f32" } as CudaKernel, {
        threads: 64,
        buffers: [a, a],
      });
      assert.deepEqual(
        await client.read(a).then((b) => new Float32Array(b.buffer)),
        x.map((v) => -v),
      );
    } finally {
      a.dispose();
    }
  },
});

Deno.test({
  name: nvrtcName(
    "PyTorch-style templates: a scalar of the template's type (scalar_t alpha) takes the " +
      "instance's type (float, double, a default argument), namespaced kernels are named " +
      "at::native::k<float> or a1::k, and a default argument with parentheses is read",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    // the shape of ATen's hand-written kernels (a templated scalar_t in nested namespaces)
    const source = `typedef long long int64_t;
namespace at { namespace native {
template <typename scalar_t, typename acc_t = scalar_t>
__global__ void axpby_kernel(const scalar_t* __restrict__ x, scalar_t* __restrict__ y,
                             scalar_t alpha, acc_t beta, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) y[i] = static_cast<scalar_t>(static_cast<acc_t>(alpha * x[i]) + beta * static_cast<acc_t>(y[i]));
}
} }
namespace a1 { __global__ void k(const float* x, float* y, float a, int n) { int i = threadIdx.x; if (i < n) y[i] = x[i] + a; } }
namespace b1 { __global__ void k(float* y, int n, float a = float(0.5) + (1.0f * 2)) { int i = threadIdx.x; if (i < n) y[i] = a; } }`;
    const n = 50, x = randoms(n, 71), y = randoms(n, 72);
    // alpha 0.1 is a float in the float instance and a double in the double one
    const [, yf] = await launch(
      client,
      { source, entryPoint: "at::native::axpby_kernel<float>" },
      n,
      [x, y],
      { alpha: 0.1, beta: 3, n },
    );
    const a32 = Math.fround(0.1);
    // NVRTC contracts a * x + b * y to an fma (--fmad=true): within an ulp of the f64 value
    const want = y.map((v, i) => a32 * x[i] + 3 * v);
    assert.equal(mismatch(yf, want, 2 ** -22), undefined);
    const x64 = Float64Array.from(x), y64 = Float64Array.from(y);
    const [, yd] = await launch(
      client,
      { source, entryPoint: "at::native::axpby_kernel<double, double>" },
      n,
      [x64, y64],
      { alpha: 0.1, beta: 3, n },
    );
    assert.equal(mismatch(yd, y64.map((v, i) => 0.1 * x64[i] + 3 * v), 2 ** -51), undefined);
    assert.equal(mismatch(yd, want, 1e-9)?.startsWith("element"), true); // alpha was a double
    const [, ya] = await launch(client, { source, entryPoint: "a1::k" }, n, [x, y], { a: 2, n });
    assert.deepEqual(ya, x.map((v) => Math.fround(v + 2)));
    const [yb] = await launch(client, { source, entryPoint: "b1::k" }, n, [y], { n, a: 4 });
    assert.deepEqual(yb, new Float32Array(n).fill(4));
    // without a name: the error lists the qualified names
    const a = client.createWithData(x);
    try {
      assert.throws(
        () => client.execute({ source } as CudaKernel, { threads: n, buffers: [a] }),
        (e: Error) => e instanceof KernelArgumentError && /a1::k, b1::k/.test(e.message),
      );
    } finally {
      a.dispose();
    }
  },
});

Deno.test({
  name: nvrtcName(
    "a kernel defined twice under #ifdef/#else with other parameters takes params by the " +
      "names of the one NVRTC compiled (its PTX .entry's list, or -DFAST); a typedef defined " +
      "twice is refused, naming why (was: the first definition's order packed, a silent wrong " +
      "result when NVRTC compiled the other)",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const body =
      "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = x[i] * 2.0f + a; }";
    const variants = `#ifdef FAST
extern "C" __global__ void k(const float* x, float* y, float a, int n) ${body}
#else
extern "C" __global__ void k(const float* x, float* y, int n, float a) ${body}
#endif`;
    const typedefs = `#ifdef WIDE
typedef float scalar;
#else
typedef int scalar;
#endif
extern "C" __global__ void k(const float* x, float* y, scalar a, int n) ${body}`;
    const x = client.createWithData(randoms(8, 3)), y = client.createWithData(new Float32Array(8));
    try {
      // the PTX's (.u64, .u64, .u32, .f32) is the #else definition's; -DFAST: the first one's
      for (
        const kernel of [
          { source: variants, entryPoint: "k" },
          { source: variants },
          { source: variants, compileOptions: ["-DFAST"] },
        ] as CudaKernel[]
      ) {
        client.execute(kernel, { threads: 8, buffers: [x, y], params: { a: 1.5, n: 8 } });
        const [got, want] = await client.readMany([y, x]);
        assert.deepEqual(
          new Float32Array(got.buffer),
          new Float32Array(want.buffer).map((v) => v * 2 + 1.5),
        );
      }
      assert.throws(
        () =>
          client.execute({ source: typedefs, compileOptions: ["-DWIDE"] } as CudaKernel, {
            threads: 8,
            buffers: [x, y],
            params: { a: 1, n: 8 },
          }),
        (e: Error) =>
          e instanceof KernelArgumentError &&
          /'scalar a', a type the runtime cannot pass/.test(e.message),
      );
      // without params the entry is still found: a kernel of pointers only runs
      const copy = `#ifdef FAST
extern "C" __global__ void k(const float* x, float* y) { y[threadIdx.x] = x[threadIdx.x]; }
#else
extern "C" __global__ void k(const float* src, float* dst) { dst[threadIdx.x] = 2.0f * src[threadIdx.x]; }
#endif`;
      client.execute({ source: copy, blockSize: [8, 1, 1] } as CudaKernel, {
        threads: 8,
        buffers: [x, y],
      });
      const [got, want] = await client.readMany([y, x]);
      assert.deepEqual(
        new Float32Array(got.buffer),
        new Float32Array(want.buffer).map((v) => 2 * v),
      );
    } finally {
      x.dispose(), y.dispose();
    }
  },
});
