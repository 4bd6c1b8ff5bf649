/**
 * User CUDA C, QA wave 6 (continued): NVIDIA cuda-samples kernels of bit operations and byte
 * counters: histogram64 (per-thread byte counters in shared memory, written as words, read as
 * bytes; NVRTC folds its __umul24 to shifts) with its merge, and sobolQRNG's gray-code generator
 * (__ffs, shared direction numbers, a [blocks, dimensions] grid), each exact against a CPU
 * reference.
 */
import assert from "node:assert/strict";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { launch } from "./_cuda_user_run.ts";
import type { CudaKernel } from "../runtime/server/cuda/kernel.ts";

const ignore = nvrtcSkip !== undefined;

// Samples/2_Concepts_and_Techniques/histogram/histogram64.cu (cg::sync(cta) as __syncthreads())
const HISTOGRAM64 = `typedef unsigned int uint;
#define HISTOGRAM64_BIN_COUNT 64
#define SHARED_MEMORY_BANKS 16
#define HISTOGRAM64_THREADBLOCK_SIZE (4 * SHARED_MEMORY_BANKS)
#define UMUL(a, b) __umul24((a), (b))
#define UMAD(a, b, c) (UMUL((a), (b)) + (c))

inline __device__ void addByte(unsigned char *s_ThreadBase, uint data) {
  s_ThreadBase[UMUL(data, HISTOGRAM64_THREADBLOCK_SIZE)]++;
}
inline __device__ void addWord(unsigned char *s_ThreadBase, uint data) {
  addByte(s_ThreadBase, (data >> 2) & 0x3FU);
  addByte(s_ThreadBase, (data >> 10) & 0x3FU);
  addByte(s_ThreadBase, (data >> 18) & 0x3FU);
  addByte(s_ThreadBase, (data >> 26) & 0x3FU);
}
extern "C" __global__ void histogram64Kernel(uint *d_PartialHistograms, uint *d_Data, uint dataCount) {
  const uint threadPos = ((threadIdx.x & ~(SHARED_MEMORY_BANKS * 4 - 1)) << 0) |
                         ((threadIdx.x & (SHARED_MEMORY_BANKS - 1)) << 2) |
                         ((threadIdx.x & (SHARED_MEMORY_BANKS * 3)) >> 4);
  __shared__ unsigned char s_Hist[HISTOGRAM64_THREADBLOCK_SIZE * HISTOGRAM64_BIN_COUNT];
  unsigned char *s_ThreadBase = s_Hist + threadPos;
#pragma unroll
  for (uint i = 0; i < (HISTOGRAM64_BIN_COUNT / 4); i++) {
    ((uint *)s_Hist)[threadIdx.x + i * HISTOGRAM64_THREADBLOCK_SIZE] = 0;
  }
  __syncthreads();
  for (uint pos = UMAD(blockIdx.x, blockDim.x, threadIdx.x); pos < dataCount;
       pos += UMUL(blockDim.x, gridDim.x)) {
    uint data = d_Data[pos];
    addWord(s_ThreadBase, data);
  }
  __syncthreads();
  if (threadIdx.x < HISTOGRAM64_BIN_COUNT) {
    unsigned char *s_HistBase = s_Hist + UMUL(threadIdx.x, HISTOGRAM64_THREADBLOCK_SIZE);
    uint sum = 0;
    uint pos = 4 * (threadIdx.x & (SHARED_MEMORY_BANKS - 1));
#pragma unroll
    for (uint i = 0; i < (HISTOGRAM64_THREADBLOCK_SIZE / 4); i++) {
      sum += s_HistBase[pos + 0] + s_HistBase[pos + 1] + s_HistBase[pos + 2] + s_HistBase[pos + 3];
      pos = (pos + 4) & (HISTOGRAM64_THREADBLOCK_SIZE - 1);
    }
    d_PartialHistograms[blockIdx.x * HISTOGRAM64_BIN_COUNT + threadIdx.x] = sum;
  }
}
#define MERGE_THREADBLOCK_SIZE 256
extern "C" __global__ void mergeHistogram64Kernel(uint *d_Histogram, uint *d_PartialHistograms,
                                                  uint histogramCount) {
  __shared__ uint data[MERGE_THREADBLOCK_SIZE];
  uint sum = 0;
  for (uint i = threadIdx.x; i < histogramCount; i += MERGE_THREADBLOCK_SIZE) {
    sum += d_PartialHistograms[blockIdx.x + i * HISTOGRAM64_BIN_COUNT];
  }
  data[threadIdx.x] = sum;
  for (uint stride = MERGE_THREADBLOCK_SIZE / 2; stride > 0; stride >>= 1) {
    __syncthreads();
    if (threadIdx.x < stride) data[threadIdx.x] += data[threadIdx.x + stride];
  }
  if (threadIdx.x == 0) d_Histogram[blockIdx.x] = data[0];
}`;

Deno.test({
  name: nvrtcName(
    "cuda-samples histogram64Kernel (byte counters in shared memory zeroed as words, read as " +
      "bytes, a bank permutation of threads) and mergeHistogram64Kernel, exact",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const blocks = 12, dataCount = 64 * blocks * 9 + 37; // a ragged tail; <= 63 words a thread
    let s = 17;
    const data = Uint32Array.from({ length: dataCount }, (_, i) => {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      return i % 13 === 0 ? 0xffffffff : s;
    });
    const histogram: CudaKernel = {
      source: HISTOGRAM64,
      entryPoint: "histogram64Kernel",
      blockSize: [64, 1, 1],
    };
    const merge: CudaKernel = {
      source: HISTOGRAM64,
      entryPoint: "mergeHistogram64Kernel",
      blockSize: [256, 1, 1],
    };
    const partial = client.createWithData(new Uint32Array(64 * blocks));
    const input = client.createWithData(data);
    const hist = client.createWithData(new Uint32Array(64));
    try {
      client.execute(histogram, {
        threads: 64 * blocks,
        buffers: [partial, input],
        params: { dataCount },
      });
      client.execute(merge, {
        threads: 256 * 64,
        buffers: [hist, partial],
        params: { histogramCount: blocks },
      });
      const [got, parts] = (await client.readMany([hist, partial])) as Uint32Array[];
      const want = new Uint32Array(64);
      for (const w of data) for (const sh of [2, 10, 18, 26]) want[(w >>> sh) & 63]++;
      assert.deepEqual(got, want);
      const perBlock = Array.from(
        { length: blocks },
        (_, b) => parts.slice(64 * b, 64 * b + 64).reduce((x, y) => x + y, 0),
      );
      const words = (b: number) => data.filter((_, i) => Math.floor(i / 64) % blocks === b).length;
      assert.deepEqual(perBlock, perBlock.map((_, b) => 4 * words(b)));
    } finally {
      partial.dispose(), input.dispose(), hist.dispose();
    }
  },
});

// Samples/5_Domain_Specific/sobolQRNG/sobol_gpu.cu (cg::sync(cta) as __syncthreads())
const SOBOL = `#define k_2powneg32 2.3283064E-10F
#define n_directions 32
extern "C" __global__ void sobolGPU_kernel(unsigned n_vectors, unsigned n_dimensions,
                                           unsigned *d_directions, float *d_output) {
  __shared__ unsigned int v[n_directions];
  d_directions = d_directions + n_directions * blockIdx.y;
  d_output = d_output + n_vectors * blockIdx.y;
  if (threadIdx.x < n_directions) {
    v[threadIdx.x] = d_directions[threadIdx.x];
  }
  __syncthreads();
  int i0 = threadIdx.x + blockIdx.x * blockDim.x;
  int stride = gridDim.x * blockDim.x;
  unsigned int g = i0 ^ (i0 >> 1);
  unsigned int X = 0;
  unsigned int mask;
  for (unsigned int k = 0; k < __ffs(stride) - 1; k++) {
    mask = -(g & 1);
    X ^= mask & v[k];
    g = g >> 1;
  }
  if (i0 < n_vectors) {
    d_output[i0] = (float)X * k_2powneg32;
  }
  unsigned int v_log2stridem1 = v[__ffs(stride) - 2];
  unsigned int v_stridemask = stride - 1;
  for (unsigned int i = i0 + stride; i < n_vectors; i += stride) {
    X ^= v_log2stridem1 ^ v[__ffs(~((i - stride) | v_stridemask)) - 1];
    d_output[i] = (float)X * k_2powneg32;
  }
}`;

Deno.test({
  name: nvrtcName(
    "cuda-samples sobolGPU_kernel (gray code, __ffs of a stride and of a complement, shared " +
      "direction numbers, a [blocks, dimensions] grid): every point bit-exact",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const nVectors = 3000, nDims = 3, blocks = 4, block = 64;
    let s = 99;
    // dimension 0: van der Corput (v_k = 2^(31-k)); the others: odd numbers shifted as Sobol's are
    const dirs = Uint32Array.from({ length: 32 * nDims }, (_, i) => {
      const d = Math.floor(i / 32), k = i % 32;
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      return d === 0 ? 2 ** (31 - k) : (((s >>> (31 - k)) | 1) << (31 - k)) >>> 0;
    });
    const [, out] = await launch(
      client,
      { source: SOBOL, entryPoint: "sobolGPU_kernel", blockSize: [block, 1, 1] },
      [blocks * block, nDims],
      [dirs, new Float32Array(nVectors * nDims)],
      { n_vectors: nVectors, n_dimensions: nDims },
    );
    const scale = Math.fround(2.3283064e-10);
    for (let d = 0; d < nDims; d++) {
      for (let i = 0; i < nVectors; i++) {
        let g = (i ^ (i >>> 1)) >>> 0, X = 0;
        for (let k = 0; g; k++, g >>>= 1) if (g & 1) X = (X ^ dirs[32 * d + k]) >>> 0;
        const want = Math.fround(Math.fround(X) * scale);
        if (out[d * nVectors + i] !== want) {
          assert.fail(`dimension ${d} point ${i}: got ${out[d * nVectors + i]}, want ${want}`);
        }
      }
    }
    assert.equal(out[1], 0.5); // van der Corput: 0, 1/2, 3/4, 1/4, ...
    assert.equal(out[2], 0.75);
  },
});

Deno.test({
  name: nvrtcName(
    "a __constant__ table and a __device__ array initialized on one PTX line of thousands of " +
      "characters (was refused: the module check lost the closing brace past 512 characters)",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const table = Array.from({ length: 300 }, (_, i) => Math.fround(Math.cos((i * Math.PI) / 300)));
    const ints = Array.from({ length: 200 }, (_, i) => (i * 2654435761) >>> 0);
    const source = `__constant__ float c_Table[300] = {${
      table.map((v) => v.toPrecision(9) + "f").join(", ")
    }};
__device__ unsigned d_Ints[200] = {${ints.map((v) => v + "u").join(", ")}};
extern "C" __global__ void k(float* out, unsigned* iout) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 300) out[i] = c_Table[i];
  if (i < 200) iout[i] = d_Ints[i];
}`;
    const [out, iout] = await launch(
      client,
      { source, entryPoint: "k", blockSize: [64, 1, 1] },
      320,
      [
        new Float32Array(300),
        new Uint32Array(200),
      ],
    );
    assert.deepEqual(out, Float32Array.from(table));
    assert.deepEqual(iout, Uint32Array.from(ints));
  },
});

/** Distance in f32 ulps of `got` from `want` (a double); exact for infinities, zeros and NaN. */
function ulps32(got: number, want: number): number {
  if (Number.isNaN(want) || Number.isNaN(got)) {
    return Number.isNaN(want) && Number.isNaN(got) ? 0 : Infinity;
  }
  const r = Math.fround(want);
  if (!Number.isFinite(r) || r === 0 || !Number.isFinite(got)) {
    return Object.is(got, r) ? 0 : Infinity;
  }
  let e = Math.max(Math.floor(Math.log2(Math.abs(r))), -126);
  if (e > -126 && 2 ** e > Math.abs(r)) e--;
  return Math.abs(got - want) / 2 ** (e - 23);
}

// [f32 call, double call, maximum ulp error of the f32 function (CUDA C Programming Guide)]
const INVERSE: [string, string, number][] = [
  ["erfinvf(x)", "erfinv(xd)", 2],
  ["erfcinvf(x)", "erfcinv(xd)", 4],
  ["normcdff(x)", "normcdf(xd)", 5],
  ["normcdfinvf(x)", "normcdfinv(xd)", 5],
  ["erfcxf(x)", "erfcx(xd)", 4],
  ["rnorm3df(x, y, 2.0f)", "rnorm3d(xd, yd, 2.0)", 2],
  ["rhypotf(x, y)", "rhypot(xd, yd)", 2],
  ["rcbrtf(x)", "rcbrt(xd)", 1],
  ["norm3df(x, y, 2.0f)", "norm3d(xd, yd, 2.0)", 3],
  ["(sincosf(x, &s, &c), s)", "sin(xd)", 2],
  ["(sincosf(x, &s, &c), c)", "cos(xd)", 2],
  ["asinhf(x)", "asinh(xd)", 3],
  ["acoshf(x)", "acosh(xd)", 4],
  ["atanhf(x)", "atanh(xd)", 3],
  ["cyl_bessel_i0f(x)", "cyl_bessel_i0(xd)", 6],
];

Deno.test({
  name: nvrtcName(
    "erfinvf, erfcinvf, normcdff, normcdfinvf, erfcxf, rnorm3df, rhypotf, rcbrtf, norm3df, " +
      "sincosf, asinhf, acoshf, atanhf, cyl_bessel_i0f within their documented ulp bounds of " +
      "the device's double versions, on edge inputs",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const k = INVERSE.length;
    const source =
      `extern "C" __global__ void p(const float* a, const float* b, float* o, double* d, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i >= n) return;
  float x = a[i], y = b[i], s, c;
  double xd = x, yd = y;
${INVERSE.map(([f, g], j) => `  o[i * ${k} + ${j}] = ${f}; d[i * ${k} + ${j}] = ${g};`).join("\n")}
}`;
    const xs = [0, -0, 1e-40, -1e-40, 1e-30, 0.5, -0.5, 0.999, -0.999, 1, -1, 1.5, 2, 1e-7, 0.3];
    xs.push(-0.3, 3, 5, -5, 9.5, 50, -9.5, 1e20, 1e38, -1e38, Infinity, -Infinity, NaN, 1.99, 80);
    const a = Float32Array.from(xs);
    const b = Float32Array.from(xs, (_, i) => [2, -0.5, 3.25, 1e-3, 1e30, -7, 0.5][i % 7]);
    const n = a.length;
    const [, , o, d] = await launch(client, { source, entryPoint: "p", blockSize: [64, 1, 1] }, n, [
      a,
      b,
      new Float32Array(k * n),
      new Float64Array(k * n),
    ], { n });
    const bad: string[] = [];
    for (let i = 0; i < n; i++) {
      INVERSE.forEach(([f, , bound], j) => {
        const u = ulps32(o[i * k + j], d[i * k + j]);
        if (!(u <= bound + 0.5)) {
          bad.push(`${f} at x=${a[i]}, y=${b[i]}: ${o[i * k + j]} vs ${d[i * k + j]} (${u} ulp)`);
        }
      });
    }
    assert.deepEqual(bad, []);
    assert.equal(d[k * xs.indexOf(0) + 2], 0.5); // normcdf(0)
    assert.equal(o[k * xs.indexOf(1) + 0], Infinity); // erfinvf(1)
  },
});
