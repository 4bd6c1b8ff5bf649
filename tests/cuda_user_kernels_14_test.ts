/**
 * User CUDA C, QA wave 6 (continued): the CUDA math library's exactly specified functions
 * (remainderf, remquof, frexpf, ldexpf, modff, nextafterf, rintf, nearbyintf, fdimf, copysignf)
 * bit-exact on edge inputs; erff/erfcf/lgammaf/tgammaf within their documented ulp bounds of the
 * device's double versions; and NVIDIA cuda-samples' BlackScholes against its double gold.
 */
import assert from "node:assert/strict";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { launch } from "./_cuda_user_run.ts";

const ignore = nvrtcSkip !== undefined;

const X = Float32Array.from([
  0,
  -0,
  1e-40,
  -1e-40,
  1.1754942e-38,
  1,
  -1,
  0.5,
  -0.75,
  2.5,
  -2.5,
  3.5,
  10,
  88.7,
  -103.5,
  1e4,
  5.5,
  -6.5,
  1e38,
  1e-20,
  7.25,
  -7.25,
  Infinity,
  -Infinity,
  NaN,
  0.1,
  123.456,
  -0.1,
]);
const Y = Float32Array.from([
  2,
  3,
  -0.5,
  1.5,
  0.25,
  -3,
  2.5,
  0,
  10.5,
  -1,
  0.75,
  -2,
  1e-3,
  1.5,
  2,
  0.5,
  3,
  -2,
  0.5,
  4,
  -1.5,
  2.5,
  2,
  3,
  1,
  -0.3,
  1.7,
  NaN,
]);

const f32 = (v: number) => Math.fround(v);
/** Round half to even. */
const rint = (v: number) => {
  if (!Number.isFinite(v)) return v;
  const r = Math.round(v);
  return (r - v === 0.5 && r % 2 !== 0 ? r - 1 : r) || v * 0;
};
/** IEEE remainder and the quotient's low 3 bits with its sign (quotients here are small). */
function remquo(x: number, y: number): [number, number] {
  if (Number.isNaN(x) || Number.isNaN(y) || !Number.isFinite(x) || y === 0) return [NaN, 0];
  if (!Number.isFinite(y)) return [x, 0];
  const n = rint(x / y); // exact enough: |x / y| < 2^24 for these inputs
  const r = x - n * y;
  return [r === 0 ? (x < 0 || Object.is(x, -0) ? -0 : 0) : r, n % 8 || 0];
}
function frexp(x: number): [number, number] {
  if (x === 0 || !Number.isFinite(x)) return [x, 0];
  let e = Math.floor(Math.log2(Math.abs(x))) + 1;
  while (Math.abs(x) / 2 ** e >= 1) e++;
  while (Math.abs(x) / 2 ** e < 0.5) e--;
  return [x / 2 ** e, e];
}
function nextafter(x: number, y: number): number {
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN;
  if (x === y) return y;
  if (x === 0) return y > 0 ? 2 ** -149 : -(2 ** -149);
  const b = new Float32Array([x]), u = new Int32Array(b.buffer);
  u[0] += (y > x) === (x > 0) ? 1 : -1;
  return b[0];
}

type Exact = [name: string, expr: string, ref: (x: number, y: number) => number];
const EXACT: Exact[] = [
  ["remainderf", "remainderf(x, y)", (x, y) => remquo(x, y)[0]],
  ["remquof", "remquof(x, y, &q)", (x, y) => remquo(x, y)[0]],
  ["remquof quo", "(float)q", (x, y) => remquo(x, y)[1]],
  ["frexpf", "frexpf(x, &q)", (x) => frexp(x)[0]],
  ["frexpf exp", "(float)q", (x) => frexp(x)[1]],
  ["ldexpf", "ldexpf(x, (int)y * 40)", (x, y) => f32(x * 2 ** ((Math.trunc(y) || 0) * 40))],
  [
    "modff",
    "modff(x, &f)",
    (
      x,
    ) => (Number.isFinite(x) ? x - Math.trunc(x) || x * 0 : Number.isNaN(x) ? NaN : x > 0 ? 0 : -0),
  ],
  ["modff int", "f", (x) => Math.trunc(x)],
  ["nextafterf", "nextafterf(x, y)", nextafter],
  ["rintf", "rintf(x)", rint],
  ["nearbyintf", "nearbyintf(x * 3.0f)", (x) => rint(f32(x * 3))],
  [
    "fdimf",
    "fdimf(x, y)",
    (x, y) => (Number.isNaN(x) || Number.isNaN(y) ? NaN : x > y ? f32(x - y) : 0),
  ],
  ["copysignf", "copysignf(x, y)", (x, y) => Math.abs(x) * (y < 0 || Object.is(y, -0) ? -1 : 1)],
  ["floorf", "floorf(x)", Math.floor],
  ["ceilf", "ceilf(x)", Math.ceil],
];

const EXACT_SRC = `extern "C" __global__ void e(const float* a, const float* b, float* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i], y = b[i], f;
  int q;
${EXACT.map(([, e], k) => `  o[i * ${EXACT.length} + ${k}] = ${e};`).join("\n")}
}`;

Deno.test({
  name: nvrtcName(
    "CUDA math library, exactly specified single-precision functions (remainderf, remquof, " +
      "frexpf, ldexpf, modff, nextafterf, rintf, nearbyintf, fdimf, copysignf, floorf, ceilf) " +
      "bit-exact on zeros, subnormals, infinities and NaN",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const n = X.length;
    const [, , o] = await launch(
      client,
      { source: EXACT_SRC, entryPoint: "e", blockSize: [32, 1, 1] },
      n,
      [
        X,
        Y,
        new Float32Array(n * EXACT.length),
      ],
      { n },
    );
    const bad: string[] = [];
    for (let i = 0; i < n; i++) {
      EXACT.forEach(([name, , ref], k) => {
        const got = o[i * EXACT.length + k], want = f32(ref(X[i], Y[i]));
        if (!Object.is(got, want)) bad.push(`${name}(${X[i]}, ${Y[i]}) = ${got}, want ${want}`);
      });
    }
    assert.deepEqual(bad, []);
  },
});

/** Distance in f32 ulps of `got` from `want` (a double); exact for infinities, zeros and NaN. */
function ulps32(got: number, want: number): number {
  if (Number.isNaN(want) || Number.isNaN(got)) {
    return Number.isNaN(want) && Number.isNaN(got) ? 0 : Infinity;
  }
  const r = f32(want);
  if (!Number.isFinite(r) || r === 0 || !Number.isFinite(got)) {
    return Object.is(got, r) ? 0 : Infinity;
  }
  let e = Math.max(Math.floor(Math.log2(Math.abs(r))), -126);
  if (e > -126 && 2 ** e > Math.abs(r)) e--;
  return Math.abs(got - want) / 2 ** (e - 23);
}

// [name, bound in ulps (CUDA C Programming Guide), outside which lgammaf's bound holds]
const SPECIAL: [string, number][] = [["erf", 2], ["erfc", 4], ["lgamma", 6], ["tgamma", 5]];
const SPECIAL_SRC = `extern "C" __global__ void s(const float* a, float* o, double* d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i];
${
  SPECIAL.map(([f], k) => `  o[i * 4 + ${k}] = ${f}f(x); d[i * 4 + ${k}] = ${f}((double)x);`).join(
    "\n",
  )
}
}`;

Deno.test({
  name: nvrtcName(
    "erff, erfcf, lgammaf, tgammaf within their documented ulp bounds of the device's double " +
      "erf, erfc, lgamma, tgamma (poles, zeros, subnormals, overflow, infinities, NaN)",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const a = Float32Array.from([
      ...X,
      -3.5,
      -2.5,
      -1.5,
      0.25,
      1.5,
      4.5,
      9.3,
      20,
      35.5,
      36,
      -1e-30,
      3.9,
      -3.9,
      171.5,
      1e-7,
      -2,
      -40.5,
    ]);
    const n = a.length;
    const [, o, d] = await launch(
      client,
      { source: SPECIAL_SRC, entryPoint: "s", blockSize: [32, 1, 1] },
      n,
      [
        a,
        new Float32Array(4 * n),
        new Float64Array(4 * n),
      ],
      { n },
    );
    const bad: string[] = [];
    for (let i = 0; i < n; i++) {
      SPECIAL.forEach(([name, bound], k) => {
        const x = a[i];
        // lgammaf's bound is stated outside [-10.001, -2.264]; erfcf's, tgammaf's are absolute
        if (name === "lgamma" && x > -10.001 && x < -2.264) return;
        const u = ulps32(o[4 * i + k], d[4 * i + k]);
        if (!(u <= bound + 0.5)) {
          bad.push(`${name}f(${x}) = ${o[4 * i + k]}, double ${d[4 * i + k]} (${u} ulp)`);
        }
      });
    }
    assert.deepEqual(bad, []);
    // the double versions themselves at points known in closed form
    const at = (x: number, k: number) => d[4 * a.indexOf(x) + k];
    assert.equal(at(0, 0), 0);
    assert.ok(Math.abs(at(1.5, 3) - Math.sqrt(Math.PI) / 2) < 1e-15);
    assert.ok(Math.abs(at(4.5, 2) - Math.log(11.631728396567448)) < 1e-14);
    assert.ok(Math.abs(at(0.5, 0) - 0.5204998778130465) < 1e-16);
    assert.equal(at(Infinity, 1), 0);
    assert.equal(at(-2, 3), NaN);
  },
});

// NVIDIA cuda-samples, Samples/5_Domain_Specific/BlackScholes/BlackScholes_kernel.cuh
const BLACK_SCHOLES = `
__device__ inline float cndGPU(float d) {
  const float A1 = 0.31938153f;
  const float A2 = -0.356563782f;
  const float A3 = 1.781477937f;
  const float A4 = -1.821255978f;
  const float A5 = 1.330274429f;
  const float RSQRT2PI = 0.39894228040143267793994605993438f;
  float K = __fdividef(1.0f, (1.0f + 0.2316419f * fabsf(d)));
  float cnd = RSQRT2PI * __expf(-0.5f * d * d) *
              (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))));
  if (d > 0) cnd = 1.0f - cnd;
  return cnd;
}
__device__ inline void BlackScholesBodyGPU(float &CallResult, float &PutResult, float S,
                                           float X, float T, float R, float V) {
  float sqrtT, expRT;
  float d1, d2, CNDD1, CNDD2;
  sqrtT = __fdividef(1.0F, rsqrtf(T));
  d1 = __fdividef(__logf(S / X) + (R + 0.5f * V * V) * T, V * sqrtT);
  d2 = d1 - V * sqrtT;
  CNDD1 = cndGPU(d1);
  CNDD2 = cndGPU(d2);
  expRT = __expf(-R * T);
  CallResult = S * CNDD1 - X * expRT * CNDD2;
  PutResult = X * expRT * (1.0f - CNDD2) - S * (1.0f - CNDD1);
}
__launch_bounds__(128)
__global__ void BlackScholesGPU(float2 *__restrict d_CallResult, float2 *__restrict d_PutResult,
    float2 *__restrict d_StockPrice, float2 *__restrict d_OptionStrike,
    float2 *__restrict d_OptionYears, float Riskfree, float Volatility, int optN) {
  const int opt = blockDim.x * blockIdx.x + threadIdx.x;
  if (opt < (optN / 2)) {
    float callResult1, callResult2;
    float putResult1, putResult2;
    BlackScholesBodyGPU(callResult1, putResult1, d_StockPrice[opt].x, d_OptionStrike[opt].x,
                        d_OptionYears[opt].x, Riskfree, Volatility);
    BlackScholesBodyGPU(callResult2, putResult2, d_StockPrice[opt].y, d_OptionStrike[opt].y,
                        d_OptionYears[opt].y, Riskfree, Volatility);
    d_CallResult[opt] = make_float2(callResult1, callResult2);
    d_PutResult[opt] = make_float2(putResult1, putResult2);
  }
}`;

// BlackScholes_gold.cpp: the same polynomial in double
function cnd(d: number): number {
  const K = 1 / (1 + 0.2316419 * Math.abs(d));
  const c = 0.3989422804014327 * Math.exp(-0.5 * d * d) *
    (K *
      (0.31938153 + K * (-0.356563782 + K * (1.781477937 + K * (-1.821255978 + K * 1.330274429)))));
  return d > 0 ? 1 - c : c;
}

Deno.test({
  name: nvrtcName(
    "cuda-samples BlackScholesGPU (float2 options, __fdividef/__logf/__expf/rsqrtf, the " +
      "cumulative normal) against BlackScholes_gold's double, L1 < 1e-6 as the sample checks",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const optN = 512, R = 0.02, V = 0.30;
    let s = 5;
    const rand = (lo: number, hi: number) => {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      return lo + (hi - lo) * (s / 2 ** 32);
    };
    // the sample's ranges: S in [5, 30], X in [1, 100], T in [0.25, 10]
    const S = Float32Array.from({ length: optN }, () => rand(5, 30));
    const X = Float32Array.from({ length: optN }, () => rand(1, 100));
    const T = Float32Array.from({ length: optN }, () => rand(0.25, 10));
    const [call, put] = await launch(
      client,
      { source: BLACK_SCHOLES, entryPoint: "BlackScholesGPU", blockSize: [128, 1, 1] },
      optN / 2,
      [new Float32Array(optN), new Float32Array(optN), S, X, T],
      { Riskfree: R, Volatility: V, optN },
    );
    let sumDelta = 0, sumRef = 0, maxDelta = 0;
    for (let i = 0; i < optN; i++) {
      const sqrtT = Math.sqrt(T[i]);
      const d1 = (Math.log(S[i] / X[i]) + (R + 0.5 * V * V) * T[i]) / (V * sqrtT);
      const d2 = d1 - V * sqrtT;
      const expRT = Math.exp(-R * T[i]);
      const c = S[i] * cnd(d1) - X[i] * expRT * cnd(d2);
      const p = X[i] * expRT * (1 - cnd(d2)) - S[i] * (1 - cnd(d1));
      for (const [got, want] of [[call[i], c], [put[i], p]]) {
        const delta = Math.abs(got - want);
        sumDelta += delta, sumRef += Math.abs(want), maxDelta = Math.max(maxDelta, delta);
      }
    }
    assert.ok(sumDelta / sumRef < 1e-6, `L1 norm ${sumDelta / sumRef}, max abs error ${maxDelta}`);
    assert.ok(maxDelta < 1e-4, `max abs error ${maxDelta}`);
  },
});
