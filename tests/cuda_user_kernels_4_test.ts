/**
 * User CUDA C, wave 4: the PTX that integer intrinsics, conversions with every rounding mode,
 * exact float operations, atomics of every kind and warp collectives of partial widths compile
 * to, each compared bit for bit with a CPU reference that follows the PTX ISA (what an H100
 * gives), on the simulated driver through `client.execute`.
 */
import assert from "node:assert/strict";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { launch } from "./_cuda_user_run.ts";
import * as ref from "./_cuda_bits_ref.ts";
import { add, div, f32bits, fma, mul, narrow, sqrt, toInt } from "./_cuda_float_ref.ts";

const ignore = nvrtcSkip !== undefined;

/** The values that find the edges: 0, 1, -1, the extremes, shifts at and past the width. */
const edges = [
  0,
  1,
  0xffffffff,
  0x80000000,
  0x7fffffff,
  0x12345678,
  0x80000001,
  0xdeadbeef,
  7,
  0xfffffff9,
  31,
  32,
  33,
  63,
  64,
  0xff00ff,
  0x1f05,
  0x2010,
  0x0820,
  0x3f00,
  0x0100,
  0xfffffffe,
  0x3210,
  0xba98,
  0x7654,
  0x8000,
  0x00ffffff,
  0xff800000,
  0x00800000,
  0xfffffc00,
  0x5,
  0x40,
];
const n = 64;
const as = Uint32Array.from({ length: n }, (_, i) => edges[i % edges.length]);
const bs = Uint32Array.from({ length: n }, (_, i) => edges[(i * 7 + 3) % edges.length]);
as[n - 1] = 0x80000000, bs[n - 1] = 0xffffffff; // INT_MIN / -1: INT_MIN, remainder 0

Deno.test({
  name: nvrtcName(
    "wave 4: integer intrinsics and PTX bit instructions (byte_perm, funnel shifts, mulhi, " +
      "mul24, sad, hadd, bfe/bfi, shifts past the width, INT_MIN / -1) bit for bit",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const source =
      `extern "C" __global__ void k(const unsigned* A, const unsigned* B, unsigned* o) {
  unsigned i = threadIdx.x, a = A[i], b = B[i];
  int s = (int)a, t = (int)b;
  unsigned* r = o + i * 32;
  r[0] = __byte_perm(a, b, b);
  r[1] = __funnelshift_l(a, b, a);
  r[2] = __funnelshift_lc(a, b, a);
  r[3] = __funnelshift_r(a, b, a);
  r[4] = __funnelshift_rc(a, b, a);
  r[5] = __umulhi(a, b);
  r[6] = (unsigned)__mulhi(s, t);
  r[7] = (unsigned)__mul24(s, t);
  r[8] = __umul24(a, b);
  r[9] = __sad(s, t, a ^ b);
  r[10] = __usad(a, b, a + b);
  r[11] = (unsigned)__hadd(s, t);
  r[12] = (unsigned)__rhadd(s, t);
  r[13] = __uhadd(a, b);
  r[14] = __urhadd(a, b);
  r[15] = (unsigned)__ffs(s);
  r[16] = __brev(a) ^ (unsigned)__clz(s) ^ ((unsigned)__popc(a) << 24);
  unsigned v;
  asm("shl.b32 %0, %1, %2;" : "=r"(v) : "r"(a), "r"(b)); r[17] = v;
  asm("shr.u32 %0, %1, %2;" : "=r"(v) : "r"(a), "r"(b)); r[18] = v;
  asm("shr.s32 %0, %1, %2;" : "=r"(v) : "r"(a), "r"(b)); r[19] = v;
  asm("bfe.u32 %0, %1, %2, %3;" : "=r"(v) : "r"(a), "r"(b), "r"(b >> 8)); r[20] = v;
  asm("bfe.s32 %0, %1, %2, %3;" : "=r"(v) : "r"(a), "r"(b), "r"(b >> 8)); r[21] = v;
  asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(v) : "r"(a), "r"(~a), "r"(b), "r"(b >> 8)); r[22] = v;
  asm("div.s32 %0, %1, %2;" : "=r"(v) : "r"(a), "r"(b)); r[23] = b == 0 ? 0 : v;
  asm("rem.s32 %0, %1, %2;" : "=r"(v) : "r"(a), "r"(b)); r[24] = b == 0 ? 0 : v;
  r[25] = b == 0 ? 0 : a / b;
  r[26] = b == 0 ? 0 : a % b;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(v) : "r"(a), "r"(b), "r"(a ^ b)); r[27] = v;
  unsigned long long x = ((unsigned long long)a << 32) | b, y = ((unsigned long long)b << 32) | (a * 2654435761u);
  unsigned long long w;
  r[28] = (unsigned)(__umul64hi(x, y) >> 7) ^ (unsigned)__mul64hi((long long)x, (long long)y);
  asm("shl.b64 %0, %1, %2;" : "=l"(w) : "l"(x), "r"(b)); r[29] = (unsigned)(w >> 17) ^ (unsigned)w;
  asm("shr.s64 %0, %1, %2;" : "=l"(w) : "l"(x), "r"(b)); r[30] = (unsigned)(w >> 17) ^ (unsigned)w;
  r[31] = (unsigned)__popcll(x) | ((unsigned)__clzll((long long)y) << 8) | ((unsigned)__ffsll((long long)x) << 16) | ((unsigned)(__brevll(x) >> 40) << 20);
}
`;
    const [, , out] = await launch(
      client,
      { source, entryPoint: "k", blockSize: [n, 1, 1] },
      n,
      [as, bs, new Uint32Array(n * 32)],
    );
    const u = (v: number) => v >>> 0, s = (v: number) => v | 0;
    for (let i = 0; i < n; i++) {
      const a = as[i], b = bs[i], sa = s(a), sb = s(b);
      const x = ref.pair(a, b), y = ref.pair(b, Math.imul(a, 2654435761));
      const hi64 = (p: bigint) => Number(BigInt.asUintN(64, p >> 64n) & 0xffffffffn);
      const umul64hi = BigInt.asUintN(64, (x * y) >> 64n);
      const mul64hi = BigInt.asUintN(64, (BigInt.asIntN(64, x) * BigInt.asIntN(64, y)) >> 64n);
      const w32 = (v: bigint) => Number(v & 0xffffffffn);
      const want = [
        ref.prmt(a, b, b & 0x7777),
        ref.shfl(a, b, a & 31),
        ref.shfl(a, b, Math.min(a, 32)),
        ref.shfr(a, b, a & 31),
        ref.shfr(a, b, Math.min(a, 32)),
        ref.mulhi(a, b, false),
        ref.mulhi(a, b, true),
        ref.mul24(a, b, true),
        ref.mul24(a, b, false),
        u(Math.abs(sa - sb) + (a ^ b)),
        u(Math.abs(a - b) + a + b),
        u(Math.floor((sa + sb) / 2)),
        u(Math.floor((sa + sb + 1) / 2)),
        u(Math.floor((a + b) / 2)),
        u(Math.floor((a + b + 1) / 2)),
        ref.ffs(BigInt(a), 32),
        u(Number(ref.brev(BigInt(a), 32)) ^ ref.clz(BigInt(a), 32) ^ (ref.popc(BigInt(a)) << 24)),
        ref.shl(a, b),
        ref.shru(a, b),
        ref.shrs(a, b),
        ref.bfe(a, b, b >>> 8, false),
        ref.bfe(a, b, b >>> 8, true),
        ref.bfi(a, u(~a), b, b >>> 8),
        b === 0 ? 0 : ref.divs(a, b),
        b === 0 ? 0 : ref.rems(a, b),
        b === 0 ? 0 : u(Math.floor(a / b)),
        b === 0 ? 0 : a % b,
        ref.prmt(a, b, u(a ^ b)),
        u(w32(umul64hi >> 7n) ^ w32(mul64hi)),
        u(w32(ref.shl64(x, b) >> 17n) ^ w32(ref.shl64(x, b))),
        u(w32(ref.shrs64(x, b) >> 17n) ^ w32(ref.shrs64(x, b))),
        u(
          ref.popc(x) | (ref.clz(y, 64) << 8) | (ref.ffs(x, 64) << 16) |
            (Number(ref.brev(x, 64) >> 40n) << 20),
        ),
      ];
      void hi64;
      for (let k = 0; k < want.length; k++) {
        assert.equal(
          out[i * 32 + k],
          want[k],
          `thread ${i} (a=0x${a.toString(16)}, b=0x${b.toString(16)}), output ${k}`,
        );
      }
    }
  },
});

const F = (v: number) => Math.fround(v);
const floats = [
  0,
  -0,
  0.5,
  -0.5,
  1.5,
  2.5,
  -2.5,
  -1.5,
  1e10,
  -1e10,
  3e9,
  -3e9,
  4294967040,
  2147483520,
  2147483648,
  NaN,
  Infinity,
  -Infinity,
  1e-40,
  -1e-40,
  3.4e38,
  -3.4e38,
  0.1,
  1 / 3,
  16777215,
  -16777217,
  8388608.5,
  0.49999997,
  -0.49999997,
  2 ** -126,
  3 * 2 ** -149,
  1 - 2 ** -24,
].map(F);
const ints = [
  0,
  1,
  -1,
  16777217,
  -16777217,
  16777219,
  2147483647,
  -2147483648,
  0x7fffffbf,
  0x7fffffc0,
  -0x7fffffc1,
  33554435,
  -33554435,
  123456789,
  -987654321,
  0x40000041,
];
const doubles = [
  1 / 3,
  1e-46,
  3.4028235677973366e38,
  1e39,
  -1e39,
  1 + 2 ** -24,
  1 + 2 ** -24 + 2 ** -50,
  -(1 + 2 ** -24),
  NaN,
  3e9,
  -3e9,
  2.5,
  -2.5,
  4294967295.5,
  2 ** -149 * 1.5,
  -0,
];

Deno.test({
  name: nvrtcName(
    "wave 4: conversions in every rounding mode (float to int saturating, int to float, double " +
      "to float; a double NaN as an H200 converts it), fminf/fmaxf with NaN and -0, correctly " +
      "rounded f32 ops in rz/ru/rd bit for bit",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const source =
      `extern "C" __global__ void k(const float* X, const float* Y, const int* I, const double* D, unsigned* o) {
  unsigned i = threadIdx.x;
  float v = X[i], w = Y[i], z = X[(i + 5) % blockDim.x];
  int n = I[i];
  double d = D[i];
  unsigned* r = o + i * 54;
  r[0] = __float2int_rn(v); r[1] = __float2int_rz(v); r[2] = __float2int_ru(v); r[3] = __float2int_rd(v);
  r[4] = __float2uint_rn(v); r[5] = __float2uint_rz(v); r[6] = __float2uint_ru(v); r[7] = __float2uint_rd(v);
  r[8] = __float_as_uint(__int2float_rn(n)); r[9] = __float_as_uint(__int2float_rz(n));
  r[10] = __float_as_uint(__int2float_ru(n)); r[11] = __float_as_uint(__int2float_rd(n));
  r[12] = __float_as_uint(__uint2float_rn((unsigned)n)); r[13] = __float_as_uint(__uint2float_rz((unsigned)n));
  r[14] = __float_as_uint(__uint2float_ru((unsigned)n)); r[15] = __float_as_uint(__uint2float_rd((unsigned)n));
  r[16] = __float_as_uint(__double2float_rn(d)); r[17] = __float_as_uint(__double2float_rz(d));
  r[18] = __float_as_uint(__double2float_ru(d)); r[19] = __float_as_uint(__double2float_rd(d));
  r[20] = (unsigned)__double2int_rn(d); r[21] = __double2uint_rz(d);
  r[22] = __float_as_uint(__saturatef(v));
  r[23] = __float_as_uint(fminf(v, w)); r[24] = __float_as_uint(fmaxf(v, w));
  r[25] = __float_as_uint(__fadd_rz(v, w)); r[26] = __float_as_uint(__fadd_ru(v, w));
  r[27] = __float_as_uint(__fadd_rd(v, w)); r[28] = __float_as_uint(__fsub_rn(v, w));
  r[29] = __float_as_uint(__fmul_rz(v, w)); r[30] = __float_as_uint(__fmul_ru(v, w));
  r[31] = __float_as_uint(__fmul_rd(v, w)); r[32] = __float_as_uint(__fmaf_rz(v, w, z));
  r[33] = __float_as_uint(__fmaf_ru(v, w, z)); r[34] = __float_as_uint(__fmaf_rd(v, w, z));
  r[35] = __float_as_uint(__fmaf_rn(v, w, z)); r[36] = __float_as_uint(__fdiv_rn(v, w));
  r[37] = __float_as_uint(__fdiv_rz(v, w)); r[38] = __float_as_uint(__fdiv_ru(v, w));
  r[39] = __float_as_uint(__fdiv_rd(v, w)); r[40] = __float_as_uint(v / w);
  r[41] = __float_as_uint(__fsqrt_rn(v)); r[42] = __float_as_uint(__fsqrt_rz(v));
  r[43] = __float_as_uint(__fsqrt_ru(v)); r[44] = __float_as_uint(__fsqrt_rd(v));
  r[45] = __float_as_uint(__frcp_rn(w)); r[46] = __float_as_uint(__frcp_rz(w));
  r[47] = __float_as_uint(sqrtf(v));
  r[48] = (unsigned)__double2int_rz(d); r[49] = (unsigned)__double2int_ru(d);
  r[50] = (unsigned)__double2int_rd(d); r[51] = __double2uint_rn(d); r[52] = __double2uint_ru(d);
  r[53] = __double2uint_rd(d);
}
`;
    const n = 64, K = 54;
    const x = Float32Array.from(
      { length: n },
      (_, i) => i < floats.length ? floats[i] : F(Math.sin(i) * 10 ** (i % 7)),
    );
    const y = Float32Array.from(
      { length: n },
      (_, i) =>
        [NaN, -0, 0, 2 ** 127, 3 * 2 ** -140, -3, 7, 0.1][i % 8] *
        (i % 16 < 8 ? 1 : Math.cos(i) + 1.25),
    );
    y[15] = NaN; // NaN with NaN
    y[1] = 0; // -0 with +0
    y[0] = -0;
    const ii = Int32Array.from(
      { length: n },
      (_, i) => i < ints.length ? ints[i] : Math.imul(i, 0x9e3779b9) >> (i % 9),
    );
    const d = Float64Array.from(
      { length: n },
      (_, i) => i < doubles.length ? doubles[i] : Math.tan(i) * 2 ** (i % 40 - 10),
    );
    const dBits = new BigUint64Array(d.buffer);
    dBits[40] = 0xfffc0000e0000000n; // a negative NaN with a payload
    const [, , , , out] = await launch(
      client,
      { source, entryPoint: "k", blockSize: [n, 1, 1] },
      n,
      [x, y, ii, d, new Uint32Array(n * K)],
    );
    const b = f32bits;
    const bad: string[] = [];
    const intOut = new Set([0, 1, 2, 3, 4, 5, 6, 7, 20, 21, 48, 49, 50, 51, 52, 53]); // integers
    // a double NaN narrowed to f32 keeps its sign and the top of its payload, quiet: an H200 gave
    // 0x7fc00000 for 0x7ff8000000000000 in each rounding (no f32 operation's 0x7fffffff)
    const narrowNaN = (bits: bigint) =>
      Number(((bits >> 32n) & 0x80000000n) | 0x7fc00000n | ((bits >> 29n) & 0x3fffffn));
    // a double NaN to a 32-bit integer, signed or unsigned: 0x80000000 on an H200 (an f32 NaN: 0)
    const nanInt = 0x80000000;
    for (let i = 0; i < n; i++) {
      const v = x[i], w = y[i], z = x[(i + 5) % n], k = ii[i], dd = d[i];
      const want: number[] = [
        toInt(v, "rn", true),
        toInt(v, "rz", true),
        toInt(v, "ru", true),
        toInt(v, "rd", true),
        toInt(v, "rn", false),
        toInt(v, "rz", false),
        toInt(v, "ru", false),
        toInt(v, "rd", false),
        ...(["rn", "rz", "ru", "rd"] as const).map((m) => b(narrow(k, m))),
        ...(["rn", "rz", "ru", "rd"] as const).map((m) => b(narrow(k >>> 0, m))),
        ...(["rn", "rz", "ru", "rd"] as const).map((m) =>
          Number.isNaN(dd) ? narrowNaN(dBits[i]) : b(narrow(dd, m))
        ),
        Number.isNaN(dd) ? nanInt : toInt(dd, "rn", true),
        Number.isNaN(dd) ? nanInt : toInt(dd, "rz", false),
        b(Number.isNaN(v) ? 0 : Math.min(Math.max(v, 0), 1)),
        b(minmax(v, w, true)),
        b(minmax(v, w, false)),
        b(add(v, w, "rz")),
        b(add(v, w, "ru")),
        b(add(v, w, "rd")),
        b(add(v, -w, "rn")),
        b(mul(v, w, "rz")),
        b(mul(v, w, "ru")),
        b(mul(v, w, "rd")),
        b(fma(v, w, z, "rz")),
        b(fma(v, w, z, "ru")),
        b(fma(v, w, z, "rd")),
        b(fma(v, w, z, "rn")),
        b(div(v, w, "rn")),
        b(div(v, w, "rz")),
        b(div(v, w, "ru")),
        b(div(v, w, "rd")),
        b(div(v, w, "rn")),
        b(sqrt(v, "rn")),
        b(sqrt(v, "rz")),
        b(sqrt(v, "ru")),
        b(sqrt(v, "rd")),
        b(div(1, w, "rn")),
        b(div(1, w, "rz")),
        b(sqrt(v, "rn")),
        ...(["rz", "ru", "rd"] as const).map((m) => Number.isNaN(dd) ? nanInt : toInt(dd, m, true)),
        ...(["rn", "ru", "rd"] as const).map((m) =>
          Number.isNaN(dd) ? nanInt : toInt(dd, m, false)
        ),
      ];
      for (let j = 0; j < K; j++) {
        const got = out[i * K + j];
        // f32 operations give the canonical NaN; the narrowed doubles (16 to 19) do not
        const expected = intOut.has(j) || (j >= 16 && j <= 19) ? want[j] : nanBits(want[j]);
        const what = `thread ${i} (v=${v}, w=${w}, z=${z}, n=${k}, d=${dd} 0x${
          dBits[i].toString(16)
        }), output ${j}: got 0x${got.toString(16)} want 0x${expected.toString(16)}`;
        if (j === 22 && want[j] === 0) assert.ok(got === 0 || got === 0x80000000, what);
        else if (got !== expected) bad.push(what);
      }
    }
    assert.deepEqual(bad, []);
  },
});

/** fminf/fmaxf: the number of a NaN and a number, canonical NaN of two NaNs, -0 below +0. */
function minmax(v: number, w: number, min: boolean): number {
  if (Number.isNaN(v) && Number.isNaN(w)) return NaN;
  if (Number.isNaN(v)) return w;
  if (Number.isNaN(w)) return v;
  if (v === w) return (Object.is(v, -0) || Object.is(w, -0)) === min ? -0 : 0;
  return min ? Math.min(v, w) : Math.max(v, w);
}
/** The bits of a NaN result of an f32 operation on the device: the canonical NaN 0x7fffffff. */
const nanBits = (bits: number) =>
  (bits & 0x7f800000) === 0x7f800000 && bits & 0x7fffff ? 0x7fffffff : bits;
