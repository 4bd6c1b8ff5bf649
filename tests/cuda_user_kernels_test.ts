/**
 * Ordinary user kernels in CUDA C (`client.execute({ source }, ...)`), compiled by NVRTC and run on
 * the simulated driver's PTX interpreter, each against a CPU reference: the math library (exact
 * to a few ulp, the `__` intrinsics within the PTX ISA's bounds for `.approx`), the integer
 * intrinsics, doubles and 64-bit integers, vector loads, dynamic shared memory with barriers,
 * warp shuffles and votes, atomics, `__constant__` and `__device__` variables, 2-D launches.
 */
import assert from "node:assert/strict";
import type { ComputeClient } from "../mod.ts";
import type { CudaKernel } from "../runtime/server/cuda/kernel.ts";
import { nvrtcName, nvrtcSkip, onSimulator, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { hazardCount, hazardReport, resetHazards } from "./fixtures/cuda_sim.ts";

const ignore = nvrtcSkip !== undefined;
const N = 256;

type Data = Float32Array | Int32Array | Uint32Array | Float64Array;
/** Runs `kernel` over `threads` with `inputs` then zeroed outputs like `outputs`; reads them. */
async function run(
  client: ComputeClient,
  kernel: CudaKernel,
  threads: number | [number, number],
  inputs: Data[],
  outputs: Data[],
  params?: Record<string, number>,
): Promise<Data[]> {
  const buffers = [...inputs, ...outputs].map((d) => client.createWithData(d));
  try {
    client.execute(kernel, { threads, buffers, params });
    return (await client.readMany(buffers.slice(inputs.length))) as Data[];
  } finally {
    for (const b of buffers) b.dispose();
  }
}

/** The first element where `got` is off `want` by more than `tol` relative (absolute below 1). */
function mismatch(got: ArrayLike<number>, want: ArrayLike<number>, tol = 0): string | undefined {
  assert.equal(got.length, want.length);
  for (let i = 0; i < want.length; i++) {
    const err = Math.abs(got[i] - want[i]) / Math.max(1, Math.abs(want[i]));
    if (!(err <= tol) && !(Object.is(got[i], want[i]))) {
      return `element ${i}: got ${got[i]}, want ${want[i]}`;
    }
  }
  return undefined;
}

const xs = Float32Array.from({ length: N }, (_, i) => (i - 128) / 37); // -3.46 .. 3.43
const big = Float32Array.from(xs, (v) => v * 3e5); // the Payne-Hanek reduction of sinf/cosf
const pos = Float32Array.from({ length: N }, (_, i) => 0.01 + i / 19);
const ints = Int32Array.from({ length: N }, (_, i) => Math.imul(i, 2654435761) ^ (i << 3));
ints[0] = 0;
ints[1] = -1;
ints[2] = -(2 ** 31);

/** erf to double precision (series below 3, asymptotic expansion above). */
function erf(x: number): number {
  const t = Math.abs(x);
  if (t < 3) {
    let s = 0, term = t;
    for (let k = 0; Math.abs(term) > 1e-17; k++) {
      s += term / (2 * k + 1);
      term *= -t * t / (k + 1);
    }
    return Math.sign(x) * s * 2 / Math.sqrt(Math.PI);
  }
  const a = Math.exp(-t * t) / (t * Math.sqrt(Math.PI)), u = 1 / (2 * t * t);
  return Math.sign(x) * (1 - a * (1 - u + 3 * u * u - 15 * u ** 3 + 105 * u ** 4));
}
const popc = (v: number) => {
  let c = 0;
  for (let u = v >>> 0; u; u >>>= 1) c += u & 1;
  return c;
};
const brev = (v: number) => {
  let r = 0;
  for (let i = 0; i < 32; i++) r |= ((v >>> i) & 1) << (31 - i);
  return r | 0;
};
const f = Math.fround;

/** `y[i] = expr(x[i])` for the element types given, with its reference and tolerance. */
type Unary = [name: string, expr: string, input: Data, ref: (x: number) => number, tol: number];
const floatCases: Unary[] = [
  ["sinf", "sinf(v)", xs, Math.sin, 2e-7],
  ["cosf", "cosf(v)", xs, Math.cos, 2e-7],
  ["sinf of large arguments", "sinf(v)", big, Math.sin, 2e-7],
  ["cosf of large arguments", "cosf(v)", big, Math.cos, 2e-7],
  ["expf", "expf(v)", xs, Math.exp, 2e-7],
  ["logf", "logf(v)", pos, Math.log, 2e-7],
  ["powf", "powf(v, 2.5f)", pos, (v) => v ** 2.5, 2e-7],
  ["tanhf", "tanhf(v)", xs, Math.tanh, 2e-7],
  ["sqrtf", "sqrtf(v)", pos, (v) => f(Math.sqrt(v)), 0],
  ["rsqrtf", "rsqrtf(v)", pos, (v) => 1 / Math.sqrt(v), 2e-7],
  [
    "fabsf fmaxf fminf fmaf",
    "fmaxf(fminf(fabsf(v), 2.0f), 0.5f) + fmaf(v, v, 1.0f)",
    xs,
    (v) => f(Math.max(Math.min(Math.abs(v), 2), 0.5) + f(v * v + 1)),
    0,
  ],
  ["floorf", "floorf(v * 3.0f)", xs, (v) => Math.floor(f(v * 3)), 0],
  ["erff", "erff(v)", xs, erf, 2e-7],
  ["exp2f", "exp2f(v)", xs, (v) => 2 ** v, 2e-7],
  ["log2f", "log2f(v)", pos, Math.log2, 2e-7],
  // ex2.approx (relative error 2^-22) of a rounded v * log2(e): a few ulp more for |v| < 4
  ["__expf", "__expf(v)", xs, Math.exp, 2e-6],
  // sin.approx/cos.approx: absolute error at most 2^-20.5 on [-pi, pi]
  ["__sinf", "__sinf(v)", xs, Math.sin, 2 ** -20.5],
  ["__cosf", "__cosf(v)", xs, Math.cos, 2 ** -20.5],
  ["__logf", "__logf(v)", pos, Math.log, 2 ** -21],
  [
    "double",
    "(float)(sqrt((double)v * v + 1.0) / 3.0 + exp((double)v))",
    xs,
    (v) => Math.sqrt(v * v + 1) / 3 + Math.exp(v),
    1e-7,
  ],
  // the rest of the math library (CUDA's documented bounds are 1 to 4 ulp: 5e-7 is within)
  [
    "atan2f atanf asinf acosf",
    "atan2f(v, 1.5f) + atanf(v) + asinf(v / 4.0f) + acosf(v / 5.0f)",
    xs,
    (v) => Math.atan2(v, 1.5) + Math.atan(v) + Math.asin(f(v / 4)) + Math.acos(f(v / 5)),
    5e-7,
  ],
  [
    "sinhf coshf tanf",
    "sinhf(v) + coshf(v) * 0.5f + tanf(v * 0.4f)",
    xs,
    (v) => Math.sinh(v) + Math.cosh(v) * 0.5 + Math.tan(f(v * 0.4)),
    5e-7,
  ],
  ["cbrtf hypotf", "cbrtf(v) + hypotf(v, 2.0f)", xs, (v) => Math.cbrt(v) + Math.hypot(v, 2), 5e-7],
  [
    "log10f log1pf expm1f",
    "log10f(v) + log1pf(v) + expm1f(v * 0.1f)",
    pos,
    (v) => Math.log10(v) + Math.log1p(v) + Math.expm1(f(v * 0.1)),
    5e-7,
  ],
  [
    "sincosf",
    "[&] { float s, c; sincosf(v, &s, &c); return s * 2.0f + c; }()",
    xs,
    (v) => Math.sin(v) * 2 + Math.cos(v),
    5e-7,
  ],
  [
    "fmodf roundf truncf ceilf",
    "fmodf(v, 1.3f) * 100.0f + roundf(v) * 10.0f + truncf(v) + ceilf(v * 2.0f)",
    xs,
    (v) =>
      f(f(v % f(1.3)) * 100) + Math.sign(v) * Math.round(Math.abs(v)) * 10 + Math.trunc(v) +
      Math.ceil(f(v * 2)),
    1e-7,
  ],
  [
    "__fdividef __saturatef __fsqrt_rn __frcp_rn",
    "__fdividef(v, 3.0f) + __saturatef(v) + __fsqrt_rn(fabsf(v)) + __frcp_rn(v + 8.0f)",
    xs,
    (v) => v / 3 + Math.min(Math.max(v, 0), 1) + f(Math.sqrt(Math.abs(v))) + f(1 / f(v + 8)),
    3e-7,
  ],
  [
    "__float2int_rn __float2uint_rz __int_as_float",
    "(float)__float2int_rn(v * 10.0f) + (float)__float2uint_rz(fabsf(v) * 7.0f) + __int_as_float(__float_as_int(v))",
    xs,
    (v) => {
      const t = f(v * 10), r = Math.round(t);
      const even = Math.abs(t % 1) === 0.5 ? 2 * Math.round(t / 2) : r; // ties to even
      return even + Math.trunc(f(Math.abs(v) * 7)) + v;
    },
    1e-7,
  ],
];
const intCases: Unary[] = [
  ["__popc", "__popc(v)", ints, popc, 0],
  ["__clz", "__clz(v)", ints, Math.clz32, 0],
  ["__ffs", "__ffs(v)", ints, (v) => v === 0 ? 0 : 32 - Math.clz32(v & -v), 0],
  ["__ffsll", "__ffsll((long long)v << 20)", ints, (v) => v === 0 ? 0 : 52 - Math.clz32(v & -v), 0],
  [
    "__clzll",
    "__clzll((unsigned long long)(unsigned)v << 7)",
    ints,
    (v) => v === 0 ? 64 : Math.clz32(v) + 25,
    0,
  ],
  ["__brev", "(int)__brev((unsigned)v)", ints, brev, 0],
  [
    "min max abs",
    "max(min(v, 1000), -1000) + abs(v % 77)",
    ints,
    (v) => Math.max(Math.min(v, 1000), -1000) + Math.abs(v % 77),
    0,
  ],
  [
    "unsigned long long",
    "(int)(((unsigned long long)(unsigned)v * 0x9E3779B97F4A7C15ull) >> 40)",
    ints,
    (v) => Number(((BigInt(v >>> 0) * 0x9E3779B97F4A7C15n) & 0xffffffffffffffffn) >> 40n) | 0,
    0,
  ],
  [
    "long long division",
    "(int)(((long long)v * 1000003LL) / 977LL % 100000LL)",
    ints,
    (v) => Number((BigInt(v) * 1000003n / 977n) % 100000n),
    0,
  ],
];

function unaryKernel(expr: string, type: "float" | "int"): CudaKernel {
  return {
    source: `extern "C" __global__ void k(const ${type}* x, ${type}* y, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { ${type} v = x[i]; y[i] = ${expr}; }
}`,
  };
}

for (const [cases, type] of [[floatCases, "float"], [intCases, "int"]] as const) {
  Deno.test({
    name: nvrtcName(`user CUDA C on the simulator: ${type} ${cases.map((c) => c[0]).join(", ")}`),
    ignore,
    async fn() {
      using client = await simulatedCudaClient();
      const failures: string[] = [];
      for (const [name, expr, input, ref, tol] of cases) {
        const out = type === "float" ? new Float32Array(N) : new Int32Array(N);
        const [y] = await run(client, unaryKernel(expr, type), N, [input], [out], { n: N });
        const bad = mismatch(y, Array.from(input, ref), tol);
        if (bad) failures.push(`${name}: ${bad}`);
      }
      assert.deepEqual(failures, []);
    },
  });
}

const vals = Int32Array.from({ length: N }, (_, i) => ((i * 7919) % 1000) - 500);
const warpOf = (i: number, width = 32) => vals.slice(i - (i % width), i - (i % width) + width);

Deno.test({
  name: nvrtcName("user CUDA C on the simulator: warp shuffles and votes, as a warp runs them"),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    // a warp sum with __shfl_down_sync, max with __shfl_xor_sync, ballot, any, all
    const [sums, votes] = await run(
      client,
      {
        source: `extern "C" __global__ void k(const int* x, int* s, int* o) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = x[i], sum = v, m = v;
  for (int d = 16; d > 0; d >>= 1) sum += __shfl_down_sync(0xffffffff, sum, d);
  for (int d = 16; d > 0; d >>= 1) m = max(m, __shfl_xor_sync(0xffffffff, m, d));
  if ((threadIdx.x & 31) == 0) s[i / 32] = sum;
  o[i * 4] = m;
  o[i * 4 + 1] = (int)__ballot_sync(0xffffffff, v > 0);
  o[i * 4 + 2] = __any_sync(0xffffffff, v > 400);
  o[i * 4 + 3] = __all_sync(0xffffffff, v > -480);
}`,
        blockSize: [64, 1, 1],
      },
      N,
      [vals],
      [new Int32Array(N / 32), new Int32Array(N * 4)],
    );
    const wantSums = Array.from(
      { length: N / 32 },
      (_, w) => warpOf(w * 32).reduce((a, b) => a + b),
    );
    assert.equal(mismatch(sums, wantSums), undefined);
    const wantVotes = Array.from(vals, (_, i) => {
      const w = warpOf(i);
      const ballot = w.reduce((b, v, lane) => v > 0 ? b | (1 << lane) : b, 0);
      return [Math.max(...w), ballot, +w.some((v) => v > 400), +w.every((v) => v > -480)];
    }).flat();
    assert.equal(mismatch(votes, wantVotes), undefined);

    // an inclusive scan with __shfl_up_sync; __shfl_sync broadcasts in segments of 16; a
    // shuffle in half a warp only (its own membermask); 48 threads a block (a partial warp)
    const [scan, bcast, half] = await run(
      client,
      {
        source: `extern "C" __global__ void k(const int* x, int* s, int* b, int* h) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;
  int v = x[i];
  for (int d = 1; d < 32; d <<= 1) {
    int u = __shfl_up_sync(0xffffffff, v, d);
    if (lane >= d) v += u;
  }
  s[i] = v;
  b[i] = __shfl_sync(0xffffffff, x[i], 3, 16);
  h[i] = -1;
  if (lane < 16) h[i] = __shfl_down_sync(0x0000ffff, x[i], 1, 16);
}`,
        blockSize: [48, 1, 1],
      },
      N - 16, // 5 blocks of 48: the second warp of a block has 16 lanes
      [vals],
      [new Int32Array(N - 16), new Int32Array(N - 16), new Int32Array(N - 16)],
    );
    const lanes = Array.from({ length: N - 16 }, (_, i) => {
      const block = Math.floor(i / 48), t = i % 48, w0 = block * 48 + t - (t % 32);
      return { lane: t % 32, w0, size: Math.min(32, block * 48 + 48 - w0) };
    });
    const wantScan = lanes.map(({ lane, w0 }) =>
      vals.slice(w0, w0 + lane + 1).reduce((a, b) => a + b)
    );
    assert.equal(mismatch(scan, wantScan), undefined);
    const wantB = lanes.map(({ lane, w0 }) => vals[w0 + (lane & 16) + 3]);
    assert.equal(mismatch(bcast, wantB), undefined);
    // down by 1 within 16 lanes: lane 15 is past the segment and keeps its own value
    const wantH = lanes.map(({ lane, w0 }) =>
      lane >= 16 ? -1 : vals[w0 + (lane === 15 ? 15 : lane + 1)]
    );
    assert.equal(mismatch(half, wantH), undefined);
  },
});

Deno.test({
  name: nvrtcName("user CUDA C on the simulator: atomics, a shared-memory reduction, __ldg"),
  ignore,
  async fn() {
    resetHazards();
    using client = await simulatedCudaClient();
    const [ints, floats] = await run(
      client,
      {
        source: `extern "C" __global__ void k(const int* x, int* y, float* f) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = x[i];
  atomicAdd(&y[0], v); atomicMax(&y[1], v); atomicMin(&y[2], v); atomicAdd(&f[0], 0.5f);
  atomicExch(&y[3], 7);
  int old = y[4], seen;
  do { seen = old; old = atomicCAS(&y[4], seen, seen + 2); } while (old != seen);
  atomicOr(&y[5], 1 << (i % 31));
  atomicAdd((unsigned long long*)&y[6], 3ull);
  atomicInc((unsigned*)&y[8], 9u); atomicSub(&y[9], 3); atomicAnd(&y[10], ~(1 << (i % 16)));
  atomicAdd((double*)&y[12], (double)v * 0.25);
  double d = __shfl_down_sync(0xffffffff, (double)v * 1.5, 1);
  if ((i & 31) == 30) y[14] = (int)d;
}`,
      },
      N,
      [vals],
      [Int32Array.from({ length: 16 }, (_, i) => i === 10 ? 0x7fffffff : 0), new Float32Array(1)],
    );
    const sum = vals.reduce((a, b) => a + b);
    assert.deepEqual(Array.from(ints).slice(8, 12), [N % 10, -3 * N, 0x7fff0000, 0]);
    assert.equal(new Float64Array(ints.buffer, 48, 1)[0], sum * 0.25);
    // lane 30 of each warp reads lane 31 and stores: the simulator runs warps in order (the last
    // one stores last); on a device any warp may store last
    const lane31 = vals.filter((_, i) => i % 32 === 31).map((v) => Math.trunc(v * 1.5));
    if (onSimulator) assert.equal(ints[14], lane31[lane31.length - 1]);
    else assert.ok(lane31.includes(ints[14]), `${ints[14]} is no warp's lane 31 value`);
    assert.deepEqual([...Array.from(ints).slice(0, 7), floats[0]], [
      sum,
      Math.max(0, ...vals),
      Math.min(0, ...vals),
      7,
      2 * N,
      0x7fffffff,
      3 * N,
      N / 2,
    ]);
    // a grid-stride loop into dynamic shared memory, a tree reduction with __syncthreads
    const data = Float32Array.from({ length: 5000 }, (_, i) => (i % 13) - 6.25);
    const [total] = await run(
      client,
      {
        source: `extern "C" __global__ void k(const float* x, float* y, unsigned n) {
  extern __shared__ float s[];
  unsigned t = threadIdx.x;
  float acc = 0;
  for (unsigned i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) acc += __ldg(&x[i]);
  s[t] = acc;
  __syncthreads();
  for (unsigned o = blockDim.x / 2; o > 0; o >>= 1) {
    if (t < o) s[t] += s[t + o];
    __syncthreads();
  }
  if (t == 0) { atomicAdd(y, s[0]); __threadfence(); }
}`,
        blockSize: [64, 1, 1],
        sharedMemoryBytes: 64 * 4,
      },
      256,
      [data],
      [new Float32Array(1)],
      { n: data.length },
    );
    assert.equal(total[0], data.reduce((a, b) => a + b)); // exact: sums of quarters
    assert.equal(hazardCount(), 0, hazardReport());
  },
});

Deno.test({
  name: nvrtcName(
    "user CUDA C on the simulator: float4/int2, 2-D launches, __constant__, __device__",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const x4 = Float32Array.from({ length: 4 * 64 }, (_, i) => i * 1.5);
    const p2 = Int32Array.from({ length: 128 }, (_, i) => i * i);
    const [y4, q] = await run(
      client,
      {
        source: `extern "C" __global__ void k(const float4* x, const int2* p, float4* y, int* q) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 v = x[i];
  y[i] = make_float4(v.w, v.z, v.y, v.x * 2.0f);
  int2 w = p[i];
  q[i] = w.x - w.y;
}`,
        blockSize: [32, 1, 1],
      },
      64,
      [x4, p2],
      [new Float32Array(256), new Int32Array(64)],
    );
    const want4 = Array.from(x4, (_, i) => {
      const e = i % 4, base = i - e;
      return e === 3 ? x4[base] * 2 : x4[base + 3 - e];
    });
    assert.equal(mismatch(y4, want4), undefined);
    assert.equal(
      mismatch(q, Array.from({ length: 64 }, (_, i) => p2[2 * i] - p2[2 * i + 1])),
      undefined,
    );

    const w = 37, h = 21;
    const [grid] = await run(
      client,
      {
        source: `extern "C" __global__ void k(float* y, unsigned w, unsigned h) {
  unsigned c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
  if (c < w && r < h) y[r * w + c] = r * 1000.0f + c;
}`,
        blockSize: [8, 8, 1],
      },
      [40, 24],
      [],
      [new Float32Array(w * h)],
      { w, h },
    );
    assert.equal(
      mismatch(grid, Array.from({ length: w * h }, (_, i) => Math.floor(i / w) * 1000 + (i % w))),
      undefined,
    );

    // module-scope variables: a __constant__ table, a __device__ counter that lives as long as
    // the module (so it counts both launches)
    const globals: CudaKernel = {
      source: `__constant__ float c[4] = {1.5f, -2.0f, 3.25f, 0.5f};
__device__ unsigned counter;
extern "C" __global__ void k(const float* x, float* y, unsigned* seen) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = x[i] * c[i % 4];
  unsigned before = atomicAdd(&counter, 1u);
  if (before == 2 * blockDim.x * gridDim.x - 1) *seen = before + 1;
}`,
      blockSize: [32, 1, 1],
    };
    const x = Float32Array.from({ length: 64 }, (_, i) => i - 20);
    await run(client, globals, 64, [x], [new Float32Array(64), new Uint32Array(1)]);
    const [y, seen] = await run(client, globals, 64, [x], [
      new Float32Array(64),
      new Uint32Array(1),
    ]);
    assert.equal(mismatch(y, Array.from(x, (v, i) => v * [1.5, -2, 3.25, 0.5][i % 4])), undefined);
    assert.deepEqual(Array.from(seen), [128]);
  },
});

Deno.test({
  name: nvrtcName(
    "user CUDA C on the simulator: __syncthreads_count/_and/_or, __activemask, __syncwarp",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const [out] = await run(
      client,
      {
        source: `extern "C" __global__ void k(const int* x, unsigned* y) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;
  int v = x[i];
  unsigned count = __syncthreads_count(v > 0);
  unsigned any = __syncthreads_or(v > 480), all = __syncthreads_and(v > -490);
  unsigned active = 0;
  if (lane % 3 == 0) active = __activemask();
  __shared__ int s[96];
  s[threadIdx.x] = v;
  __syncwarp();
  y[i * 4] = count;
  y[i * 4 + 1] = any * 2 + all;
  y[i * 4 + 2] = active;
  y[i * 4 + 3] = s[threadIdx.x ^ 1];
  int same;
  unsigned groups = __match_any_sync(0xffffffff, (int)(lane / 4 + 7 * (lane == 31)));
  unsigned every = __match_all_sync(0xffffffff, (int)(threadIdx.x / 48), &same);
  y[192 * 4 + i * 3] = groups;
  y[192 * 4 + i * 3 + 1] = every;
  y[192 * 4 + i * 3 + 2] = same;
}`,
        blockSize: [96, 1, 1],
      },
      192,
      [vals],
      [new Uint32Array(192 * 7)],
    );
    const want = Array.from({ length: 192 }, (_, i) => {
      const block = vals.slice(i - (i % 96), i - (i % 96) + 96);
      return [
        block.filter((v) => v > 0).length,
        2 * +block.some((v) => v > 480) + +block.every((v) => v > -490),
        i % 32 % 3 === 0 ? 0x49249249 : 0,
        vals[i ^ 1],
      ];
    }).flat();
    const matches = Array.from({ length: 192 }, (_, i) => {
      const lane = i % 32, w0 = (i % 96) - lane;
      const uniform = Math.floor(w0 / 48) === Math.floor((w0 + 31) / 48); // all but warp 1
      const group = lane === 31 ? 1 << 31 : lane >= 28 ? 0x70000000 : (0xf << (lane & ~3)) >>> 0;
      return [group, uniform ? 0xffffffff : 0, +uniform];
    }).flat();
    assert.equal(
      mismatch(Array.from(out, (v) => v >>> 0), [...want, ...matches].map((v) => v >>> 0)),
      undefined,
    );
  },
});

Deno.test({
  name: nvrtcName(
    "user CUDA C on the simulator: __trap() ends the launch with CUDA_ERROR_LAUNCH_FAILED, as on an H200",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    using x = client.createWithData(new Float32Array([1, 2, 3, 1e31]));
    const trap: CudaKernel = {
      source: `extern "C" __global__ void k(float* x) {
  if (x[threadIdx.x] > 1e30f) __trap();
  x[threadIdx.x] *= 2.0f;
}`,
    };
    client.execute(trap, { threads: 4, buffers: [x] });
    // NVIDIA's driver (580, H200): "unspecified launch failure", not an illegal instruction
    await assert.rejects(
      client.read(x),
      /CUDA_ERROR_LAUNCH_FAILED \(719\): unspecified launch failure: a kernel faulted/,
    );
  },
});

Deno.test({
  name: nvrtcName(
    "user CUDA C on the simulator: a shuffle that a lane of its mask never reaches is a fault " +
      "(the simulator's diagnosis: ignored on a real driver, where it may hang)",
  ),
  ignore: ignore || !onSimulator,
  async fn() {
    using client = await simulatedCudaClient();
    using x = client.createWithData(new Int32Array(32));
    // lanes 16..31 wait at the barrier while 0..15 wait for them at the shuffle: on a device
    // this hangs or faults; never a result
    const stuck: CudaKernel = {
      source: `extern "C" __global__ void k(int* x) {
  int v = x[threadIdx.x];
  if (threadIdx.x < 16) v = __shfl_down_sync(0xffffffff, v, 1);
  __syncthreads();
  x[threadIdx.x] = v + 1;
}`,
      blockSize: [32, 1, 1],
    };
    client.execute(stuck, { threads: 32, buffers: [x] });
    await assert.rejects(client.read(x), /CUDA_ERROR_ILLEGAL_INSTRUCTION \(715\)/);
  },
});

Deno.test({
  name: nvrtcName(
    "user CUDA C on the simulator: a warp's lanes access memory in lockstep (legacy warp-synchronous " +
      "code, a lock; the simulator's schedule, ignored on a real driver)",
  ),
  ignore: ignore || !onSimulator,
  async fn() {
    using client = await simulatedCudaClient();
    const data = Float32Array.from({ length: 128 }, (_, i) => (i % 9) - 3.5);
    // the volatile warp reduction of the classic reduction samples: no __syncwarp between steps
    const [sums] = await run(
      client,
      {
        source: `extern "C" __global__ void k(const float* x, float* y) {
  __shared__ volatile float s[64];
  unsigned t = threadIdx.x;
  s[t] = x[blockIdx.x * 64 + t];
  __syncthreads();
  if (t < 32) {
    s[t] += s[t + 32]; s[t] += s[t + 16]; s[t] += s[t + 8];
    s[t] += s[t + 4]; s[t] += s[t + 2]; s[t] += s[t + 1];
  }
  if (t == 0) y[blockIdx.x] = s[0];
}`,
        blockSize: [64, 1, 1],
      },
      128,
      [data],
      [new Float32Array(2)],
    );
    assert.deepEqual(
      Array.from(sums),
      [0, 1].map((b) => data.slice(b * 64, b * 64 + 64).reduce((a, v) => a + v)),
    );
    // a lock taken by one lane at a time while the others of its warp spin
    const [counts] = await run(
      client,
      {
        source: `extern "C" __global__ void k(int* c) {
  for (bool done = false; !done;) {
    if (atomicCAS(&c[0], 0, 1) == 0) {
      c[1] += 1;
      __threadfence();
      atomicExch(&c[0], 0);
      done = true;
    }
  }
}`,
        blockSize: [32, 1, 1],
      },
      64,
      [],
      [new Int32Array(2)],
    );
    assert.deepEqual(Array.from(counts), [0, 64]);
  },
});
