/**
 * User CUDA C, QA wave 6: the CUDA math library as NVRTC inlines it (PTX sequences of ex2/lg2
 * approximations, fma, cvt, testp, copysign), each function over edge inputs (zeros, subnormals,
 * huge trig arguments, negatives, infinities, NaN) against a double-precision CPU reference within
 * the maximum ulp error the CUDA C Programming Guide states for it.
 */
import assert from "node:assert/strict";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { launch } from "./_cuda_user_run.ts";

const ignore = nvrtcSkip !== undefined;

/** Distance in ulps of `got` from the exact `want`, at `want`'s precision (f32 or f64). */
function ulps(got: number, want: number, f32: boolean): number {
  if (Number.isNaN(want) || Number.isNaN(got)) {
    return Number.isNaN(want) && Number.isNaN(got) ? 0 : Infinity;
  }
  const r = f32 ? Math.fround(want) : want;
  if (!Number.isFinite(r) || r === 0 || !Number.isFinite(got)) {
    return Object.is(got, r) ? 0 : Infinity;
  }
  const a = Math.abs(r);
  const min = f32 ? -126 : -1022;
  let e = Math.max(Math.floor(Math.log2(a)), min);
  if (e > min && 2 ** e > a) e--; // log2 rounding near powers of two
  const ulp = 2 ** (e - (f32 ? 23 : 52));
  return Math.abs(got - want) / ulp;
}

const F32_IN = [
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
  3.1415927,
  10,
  88.7,
  -103.5,
  1e4,
  1e30,
  -1e30,
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
];
const F32_Y = [
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
  7.9,
];

/** sin(pi x), exact at integers (a signed zero) and for huge x (x mod 2 is exact). */
function sinpi(x: number): number {
  if (!Number.isFinite(x)) return NaN;
  const r = x % 2;
  return Number.isInteger(r) ? (x < 0 || Object.is(x, -0) ? -0 : 0) : Math.sin(Math.PI * r);
}

/** cos(pi x), +0 at half-integers. */
function cospi(x: number): number {
  if (!Number.isFinite(x)) return NaN;
  const r = Math.abs(x) % 2;
  return r === 0.5 || r === 1.5 ? 0 : Math.cos(Math.PI * r);
}

type Fn = [name: string, expr: string, ref: (x: number, y: number) => number, ulp: number];
const FNS: Fn[] = [
  ["sinf", "sinf(x)", Math.sin, 2],
  ["cosf", "cosf(x)", Math.cos, 2],
  ["tanf", "tanf(x)", Math.tan, 4],
  ["expf", "expf(x)", Math.exp, 2],
  ["exp2f", "exp2f(x)", (x) => 2 ** x, 2],
  ["exp10f", "exp10f(x)", (x) => 10 ** x, 2],
  ["expm1f", "expm1f(x)", Math.expm1, 1],
  ["logf", "logf(x)", Math.log, 1],
  ["log2f", "log2f(x)", Math.log2, 1],
  ["log10f", "log10f(x)", Math.log10, 2],
  ["log1pf", "log1pf(x)", Math.log1p, 1],
  ["powf", "powf(x, y)", Math.pow, 4],
  ["atan2f", "atan2f(x, y)", Math.atan2, 3],
  ["acosf", "acosf(x)", Math.acos, 2],
  ["asinf", "asinf(x)", Math.asin, 2],
  ["atanf", "atanf(x)", Math.atan, 2],
  ["sinhf", "sinhf(x)", Math.sinh, 3],
  ["coshf", "coshf(x)", Math.cosh, 2],
  ["tanhf", "tanhf(x)", Math.tanh, 2],
  ["cbrtf", "cbrtf(x)", Math.cbrt, 1],
  ["hypotf", "hypotf(x, y)", Math.hypot, 3],
  ["sqrtf", "sqrtf(x)", Math.sqrt, 0],
  ["rsqrtf", "rsqrtf(x)", (x) => 1 / Math.sqrt(x), 2],
  ["fmodf", "fmodf(x, y)", (x, y) => x % y, 0],
  ["truncf", "truncf(x)", Math.trunc, 0],
  ["roundf", "roundf(x)", (x) => Math.sign(x) * Math.round(Math.abs(x)) || x * 0, 0],
  ["fdimf", "fdimf(x, y)", (x, y) => (x > y ? x - y : Number.isNaN(x - y) ? NaN : 0), 0],
  ["sinpif", "sinpif(x)", sinpi, 1],
  ["cospif", "cospif(x)", cospi, 1],
];

const body = FNS.map(([, e], k) => `  o[i * ${FNS.length} + ${k}] = ${e};`).join("\n");
const SRC = `extern "C" __global__ void m(const float* a, const float* b, float* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i], y = b[i];
${body}
}`;

Deno.test({
  name: nvrtcName("CUDA math library, single precision, within the documented ulp bounds"),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const a = Float32Array.from(F32_IN), b = Float32Array.from(F32_Y);
    const n = a.length;
    const [, , o] = await launch(
      client,
      { source: SRC, entryPoint: "m", blockSize: [32, 1, 1] },
      n,
      [
        a,
        b,
        new Float32Array(n * FNS.length),
      ],
      { n },
    );
    const bad: string[] = [];
    for (let i = 0; i < n; i++) {
      FNS.forEach(([name, , ref, bound], k) => {
        const got = o[i * FNS.length + k];
        const want = ref(a[i], b[i]);
        const u = ulps(got, want, true);
        if (!(u <= bound + 0.5)) {
          bad.push(`${name}(${a[i]}, ${b[i]}) = ${got}, want ${want} (${u} ulp)`);
        }
      });
    }
    assert.deepEqual(bad, []);
  },
});

const F64_IN = [
  0,
  -0,
  5e-324,
  -2.5e-310,
  2.2250738585072014e-308,
  1,
  -1,
  0.5,
  -0.75,
  2.5,
  -2.5,
  Math.PI,
  10,
  709.5,
  -745.1,
  1e4,
  1e300,
  -1e22,
  1.7e308,
  1e-200,
  7.25,
  -7.25,
  Infinity,
  -Infinity,
  NaN,
  0.1,
  123.456,
  -0.1,
];

const FNS64: Fn[] = [
  ["sin", "sin(x)", Math.sin, 2],
  ["cos", "cos(x)", Math.cos, 2],
  ["tan", "tan(x)", Math.tan, 2],
  ["exp", "exp(x)", Math.exp, 1],
  ["exp2", "exp2(x)", (x) => 2 ** x, 1],
  ["log", "log(x)", Math.log, 1],
  ["log2", "log2(x)", Math.log2, 1],
  ["log10", "log10(x)", Math.log10, 1],
  ["pow", "pow(x, y)", Math.pow, 2],
  ["atan2", "atan2(x, y)", Math.atan2, 2],
  ["acos", "acos(x)", Math.acos, 2],
  ["sinh", "sinh(x)", Math.sinh, 2],
  ["cbrt", "cbrt(x)", Math.cbrt, 1],
  ["hypot", "hypot(x, y)", Math.hypot, 2],
  ["sqrt", "sqrt(x)", Math.sqrt, 0],
  ["fmod", "fmod(x, y)", (x, y) => x % y, 0],
  ["trunc", "trunc(x)", Math.trunc, 0],
  ["sinpi", "sinpi(x)", sinpi, 2],
];

const body64 = FNS64.map(([, e], k) => `  o[i * ${FNS64.length} + ${k}] = ${e};`).join("\n");
const SRC64 = `extern "C" __global__ void m(const double* a, const double* b, double* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double x = a[i], y = b[i];
${body64}
}`;

Deno.test({
  name: nvrtcName("CUDA math library, double precision, within the documented ulp bounds"),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const a = Float64Array.from(F64_IN), b = Float64Array.from(F32_Y);
    const n = a.length;
    const [, , o] = await launch(
      client,
      { source: SRC64, entryPoint: "m", blockSize: [32, 1, 1] },
      n,
      [
        a,
        b,
        new Float64Array(n * FNS64.length),
      ],
      { n },
    );
    const bad: string[] = [];
    for (let i = 0; i < n; i++) {
      FNS64.forEach(([name, , ref, bound], k) => {
        const got = o[i * FNS64.length + k];
        const want = ref(a[i], b[i]);
        const u = ulps(got, want, false);
        if (!(u <= bound + 0.5)) {
          bad.push(`${name}(${a[i]}, ${b[i]}) = ${got}, want ${want} (${u} ulp)`);
        }
      });
    }
    assert.deepEqual(bad, []);
  },
});

const CARRY =
  `extern "C" __global__ void k(const unsigned* a, const unsigned* b, unsigned* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned* x = a + 4 * i; const unsigned* y = b + 4 * i; unsigned* r = o + 16 * i;
  // 128-bit add, 128-bit subtract (borrow chain), and the low 128 bits of x * y
  asm("add.cc.u32 %0, %4, %8;\\n\\taddc.cc.u32 %1, %5, %9;\\n\\taddc.cc.u32 %2, %6, %10;\\n\\taddc.u32 %3, %7, %11;"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
      : "r"(x[0]), "r"(x[1]), "r"(x[2]), "r"(x[3]), "r"(y[0]), "r"(y[1]), "r"(y[2]), "r"(y[3]));
  asm("sub.cc.u32 %0, %4, %8;\\n\\tsubc.cc.u32 %1, %5, %9;\\n\\tsubc.cc.u32 %2, %6, %10;\\n\\tsubc.u32 %3, %7, %11;"
      : "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7])
      : "r"(x[0]), "r"(x[1]), "r"(x[2]), "r"(x[3]), "r"(y[0]), "r"(y[1]), "r"(y[2]), "r"(y[3]));
  unsigned long long x0 = ((unsigned long long)x[1] << 32) | x[0], x1 = ((unsigned long long)x[3] << 32) | x[2];
  unsigned long long y0 = ((unsigned long long)y[1] << 32) | y[0], y1 = ((unsigned long long)y[3] << 32) | y[2];
  unsigned long long lo, hi, c = 0;
  asm("mad.lo.cc.u64 %0, %2, %3, 0;\\n\\tmadc.hi.u64 %1, %2, %3, %4;" : "=l"(lo), "=l"(hi) : "l"(x0), "l"(y0), "l"(c));
  asm("mad.lo.u64 %0, %1, %2, %0;" : "+l"(hi) : "l"(x0), "l"(y1));
  asm("mad.lo.u64 %0, %1, %2, %0;" : "+l"(hi) : "l"(x1), "l"(y0));
  r[8] = (unsigned)lo; r[9] = (unsigned)(lo >> 32); r[10] = (unsigned)hi; r[11] = (unsigned)(hi >> 32);
  // carry out read back: addc of zeros after a .cc
  unsigned cy, bw;
  asm("{\\n\\t.reg .u32 t;\\n\\tadd.cc.u32 t, %1, %2;\\n\\taddc.u32 %0, 0, 0;\\n\\t}" : "=r"(cy) : "r"(x[3]), "r"(y[3]));
  asm("{\\n\\t.reg .u32 t;\\n\\tsub.cc.u32 t, %1, %2;\\n\\tsubc.u32 %0, 0, 0;\\n\\t}" : "=r"(bw) : "r"(x[3]), "r"(y[3]));
  r[12] = cy; r[13] = bw;
  // madc.lo.cc.s32 / madc.hi.s32 of signed operands, carrying from the add above
  int s0, s1;
  asm("add.cc.u32 %0, %2, %3;\\n\\tmadc.hi.cc.s32 %0, %2, %3, %0;\\n\\tmadc.lo.s32 %1, %2, %3, 7;"
      : "=r"(s0), "=r"(s1) : "r"(x[0]), "r"(y[0]));
  r[14] = (unsigned)s0; r[15] = (unsigned)s1;
}`;

Deno.test({
  name: nvrtcName(
    "extended-precision PTX (add.cc/addc, sub.cc/subc, mad.lo.cc/madc.hi in .u32/.u64/.s32, as " +
      "the double trig's argument reduction uses): 128-bit add, subtract, multiply bit-exact",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const n = 40;
    const words = (seed: number) => {
      let s = seed;
      return Uint32Array.from({ length: 4 * n }, (_, i) => {
        s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
        return i % 7 === 3 ? 0xffffffff : i % 11 === 5 ? 0 : s;
      });
    };
    const a = words(3), b = words(8);
    const [, , o] = await launch(
      client,
      { source: CARRY, entryPoint: "k", blockSize: [32, 1, 1] },
      n,
      [
        a,
        b,
        new Uint32Array(16 * n),
      ],
      { n },
    );
    const big = (w: ArrayLike<number>, at: number, k: number) => {
      let v = 0n;
      for (let j = k - 1; j >= 0; j--) v = (v << 32n) | BigInt(w[at + j]);
      return v;
    };
    const M = (1n << 128n) - 1n;
    for (let i = 0; i < n; i++) {
      const x = big(a, 4 * i, 4), y = big(b, 4 * i, 4);
      const x0 = a[4 * i] >> 0, y0 = b[4 * i] >> 0;
      const t = (a[4 * i] + b[4 * i]) >>> 0, cin = a[4 * i] + b[4 * i] > 0xffffffff ? 1n : 0n;
      const hi = BigInt.asUintN(32, (BigInt(x0) * BigInt(y0)) >> 32n);
      const s0 = BigInt.asUintN(32, hi + BigInt(t) + cin);
      const c2 = hi + BigInt(t) + cin > 0xffffffffn ? 1n : 0n;
      const s1 = BigInt.asUintN(32, BigInt(x0) * BigInt(y0) + 7n + c2);
      const want = [
        (x + y) & M,
        (x - y) & M,
        (x * y) & M,
        BigInt(a[4 * i + 3] + b[4 * i + 3] > 0xffffffff),
        BigInt.asUintN(32, -BigInt(a[4 * i + 3] < b[4 * i + 3])),
        s0,
        s1,
      ];
      const got = [
        big(o, 16 * i, 4),
        big(o, 16 * i + 4, 4),
        big(o, 16 * i + 8, 4),
        BigInt(o[16 * i + 12]),
        BigInt(o[16 * i + 13]),
        BigInt(o[16 * i + 14]),
        BigInt(o[16 * i + 15]),
      ];
      assert.deepEqual(got, want, `thread ${i}`);
    }
  },
});
