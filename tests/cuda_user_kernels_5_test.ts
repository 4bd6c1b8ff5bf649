/**
 * User CUDA C, wave 4 (continued from cuda_user_kernels_4_test.ts): fast-math code
 * (`--use_fast_math`: the .ftz forms, div.approx), atomics of every kind on global and shared
 * memory, each against a CPU reference that follows the PTX ISA, on the simulated driver.
 */
import assert from "node:assert/strict";
import { nvrtcName, nvrtcSkip, onSimulator, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { launch } from "./_cuda_user_run.ts";
import {
  bitsf32,
  f32bits,
  f64bits,
  type Mode,
  op64,
  round32,
  round64,
  scaled,
} from "./_cuda_float_ref.ts";

const ignore = nvrtcSkip !== undefined;

Deno.test({
  name: nvrtcName(
    "wave 4: --use_fast_math (.ftz) flushes subnormal inputs of setp, abs, neg, max, add, mul " +
      "(abs and neg of a NaN: any NaN on a device, PTX ISA; the simulator's own on it); " +
      "__fdividef gives 0 for 2^126 < |y| < 2^128 (PTX ISA: div.approx), NaN for an infinite x",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const source = `extern "C" __global__ void k(const float* X, const float* Y, unsigned* o) {
  unsigned i = threadIdx.x;
  float v = X[i], w = Y[i];
  unsigned* r = o + i * 12;
  r[0] = __float_as_uint(__fdividef(v, w));
  r[1] = __float_as_uint(v / w);
  r[2] = v < w;
  r[3] = __float_as_uint(fabsf(v));
  r[4] = __float_as_uint(-v);
  r[5] = v == 0.0f;
  r[6] = __float_as_uint(sqrtf(fabsf(v)));
  r[7] = __float_as_uint(fmaxf(v, w));
  r[8] = __float_as_uint(v * w);
  r[9] = (unsigned)(int)v;
  r[10] = __float_as_uint((float)(double)v);
  r[11] = __float_as_uint(v + w);
}
`;
    const t = 2 ** -130; // subnormal
    const vs = [
      t,
      -t,
      0,
      -0,
      1,
      -2,
      2 ** 100,
      Infinity,
      NaN,
      1.5e-38,
      3,
      -5e-39,
      2 ** 100,
      -7,
      1,
      t,
    ];
    const ws = [
      0,
      t,
      -t,
      2 ** 127,
      -(2 ** 127),
      3 * 2 ** 126,
      2 ** 126,
      3,
      2 ** 127,
      -t,
      t,
      0,
      -3 * 2 ** 126,
      2 ** 127,
      1e-20,
      2 ** -149,
    ];
    const n = vs.length * 4;
    const x = Float32Array.from(
      { length: n },
      (_, i) => vs[i % vs.length] * (i < 16 ? 1 : i < 32 ? -1 : 1 + i / 64),
    );
    const y = Float32Array.from({ length: n }, (_, i) => ws[(i + (i >> 4)) % ws.length]);
    const xBits = new Uint32Array(x.buffer); // as the device reads them
    for (const fast of [true, false]) {
      const [, , out] = await launch(
        client,
        {
          source,
          entryPoint: "k",
          blockSize: [n, 1, 1],
          compileOptions: fast ? ["--use_fast_math"] : [],
        },
        n,
        [x, y, new Uint32Array(n * 12)],
      );
      const fz = (f: number) => fast && f !== 0 && Math.abs(f) < 2 ** -126 ? (f < 0 ? -0 : 0) : f;
      const b = f32bits, bad: string[] = [];
      for (let i = 0; i < n; i++) {
        const v = fz(x[i]), w = fz(y[i]), r = (k: number) => out[i * 12 + k];
        const what = (k: number, want: unknown) =>
          `${fast ? "fast" : "default"} thread ${i} (v=${x[i]}, w=${y[i]}) output ${k}: got 0x${
            r(k).toString(16)
          } want ${want}`;
        const check = (k: number, want: number) => {
          if (r(k) !== want) bad.push(what(k, "0x" + want.toString(16)));
        };
        // __fdividef: 0 (or NaN for an infinite or NaN v) where 2^126 < |w| < 2^128, else within 2 ulp
        const big = Math.abs(w) > 2 ** 126 && Math.abs(w) < Infinity;
        const q = big ? (Number.isFinite(v) ? 0 : NaN) : fz(Math.fround(v / w));
        const got = bitsf32(r(0));
        const near = Number.isNaN(q)
          ? Number.isNaN(got)
          : q === 0 || !Number.isFinite(q)
          ? got === q
          : Math.abs(got - q) <= 2 * 2 ** -23 * Math.abs(q);
        if (!near) bad.push(what(0, q));
        if (fast) check(1, r(0)); // v / w is the same div.approx.ftz
        check(2, v < w ? 1 : 0);
        // abs and neg of a NaN: "an unspecified NaN" (PTX ISA), the driver's JIT decides. With
        // .ftz an H200 and an H100 (driver 580.159.04) gave the canonical 0x7fffffff, as the
        // simulator does; without it an H200 kept the bits but the sign (the simulator's choice,
        // checked on the simulator), the H100 gave 0x7fffffff
        const anyNaN = !fast && Number.isNaN(v) && !onSimulator;
        const nanCheck = (k: number, want: number) =>
          anyNaN ? Number.isNaN(bitsf32(r(k))) || bad.push(what(k, "a NaN")) : check(k, want);
        nanCheck(3, fast ? nan32(b(Math.abs(v))) : xBits[i] & 0x7fffffff);
        nanCheck(4, fast ? nan32(b(-v)) : (xBits[i] ^ 0x80000000) >>> 0);
        check(5, v === 0 ? 1 : 0);
        check(
          7,
          b(
            Number.isNaN(v)
              ? w
              : Number.isNaN(w)
              ? v
              : v === w
              ? (Object.is(v, 0) || Object.is(w, 0) ? 0 : v)
              : Math.max(v, w),
          ),
        );
        if (fast) check(8, nan32(b(fz(Math.fround(v * w)))));
        if (fast) check(11, nan32(b(fz(Math.fround(v + w)))));
      }
      assert.deepEqual(bad, []);
    }
  },
});
/** The device's canonical NaN for the bits of any NaN. */
const nan32 = (bits: number) =>
  (bits & 0x7f800000) === 0x7f800000 && bits & 0x7fffff ? 0x7fffffff : bits;

Deno.test({
  name: nvrtcName(
    "f64 negation and fabs pass a NaN through with its sign and payload, a signalling one " +
      "quieted on the simulator and possibly on a device (the driver's JIT decides; an H100 " +
      "quieted it); other doubles change only the sign bit",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const source = `extern "C" __global__ void k(const double* x, double* y) {
  unsigned i = threadIdx.x;
  y[2 * i] = -x[i];
  y[2 * i + 1] = fabs(x[i]);
}`;
    const bits = [
      0x7ff8000000000000n, // the default NaN
      0xfff8000000000000n, // negative
      0x7ff0000000000001n, // signaling, the lowest payload
      0xfffc0000e0000000n, // negative, a payload
      0x3ff0000000000000n, // 1
      0x8000000000000000n, // -0
      0xfff0000000000000n, // -Infinity
      0x0000000000000001n, // the least subnormal
    ];
    const x = new Float64Array(new BigUint64Array(bits).buffer); // the bytes as they are
    const [, y] = await launch(
      client,
      { source, entryPoint: "k", blockSize: [bits.length, 1, 1] },
      bits.length,
      [x, new Float64Array(2 * bits.length)],
    );
    // PTX ISA neg/abs: NaN inputs yield "an unspecified NaN". An H100 (driver 580.159.04) kept
    // the sign and the payload of each NaN and quieted 0x7ff0000000000001 (0x7ff8000000000001),
    // as the simulator does; a device may also keep a signalling NaN's bits as they are
    const got = Array.from(new BigUint64Array(y.buffer));
    const sign = 1n << 63n, quiet = 1n << 51n;
    const nan = (b: bigint) => (b & ~sign) > 0x7ff0000000000000n;
    const want = bits.flatMap((b) => nan(b) ? [b | quiet, b | quiet] : [b ^ sign, b & ~sign]);
    const kept = bits.flatMap((b) => [b, b]); // a NaN as it came, on a device
    const hex = (v: bigint[]) => v.map((b) => "0x" + b.toString(16));
    const seen = got.map((g, i) => (!onSimulator && nan(kept[i]) && g === kept[i] ? want[i] : g));
    assert.deepEqual(hex(seen), hex(want));
  },
});

Deno.test({
  name: nvrtcName(
    "wave 4: atomics of every kind: min/max signed and unsigned, inc/dec wrapping, and/or/xor, " +
      "exch, 64-bit CAS loop, atomicAdd of double and float, on global and shared memory",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const source =
      `extern "C" __global__ void k(int* g, unsigned long long* g64, double* gd, float* gf, unsigned* ret) {
  __shared__ int s[8];
  __shared__ float sf;
  __shared__ unsigned long long s64;
  unsigned i = threadIdx.x;
  int v = ((int)(i * 2654435761u) >> 8) - (int)i;
  if (i < 8) s[i] = i == 2 ? 0x7fffffff : i == 4 ? 9 : 0;
  if (i == 0) sf = 0.0f, s64 = 100;
  __syncthreads();
  atomicMin(&g[0], v);
  atomicMax(&g[1], v);
  atomicMin((unsigned*)&g[2], (unsigned)v);
  atomicMax((unsigned*)&g[3], (unsigned)v);
  ret[i] = atomicInc((unsigned*)&g[4], 17u);
  ret[128 + i] = atomicDec((unsigned*)&g[5], 13u);
  atomicAnd(&g[6], ~(1 << (i % 31)));
  atomicOr(&g[7], 1 << (i % 29));
  atomicXor(&g[8], (int)(i * 0x01010101u));
  atomicAdd((unsigned*)&g[9], 0x7fffffffu);
  ret[256 + i] = (unsigned)atomicExch(&g[10], (int)i + 1);
  atomicAdd(&g64[0], (1ull << 40) + i);
  unsigned long long want = ((unsigned long long)(unsigned)v << 20) ^ i, old = g64[1], assumed;
  do { assumed = old; old = atomicCAS(&g64[1], assumed, assumed > want ? assumed : want); } while (old != assumed);
  atomicMin((long long*)&g64[2], (long long)v * 1000003);
  atomicMax(&g64[3], (unsigned long long)(long long)v);
  atomicAnd(&g64[4], ~(1ull << (i % 61)));
  atomicOr(&g64[5], 1ull << (63 - i % 64));
  atomicXor(&g64[6], 0x0101010101010101ull * i);
  atomicAdd(&gd[0], i * 0.5 - 20.25);
  atomicAdd(&gf[0], i * 0.25f);
  ret[384 + i] = atomicAdd(&s[0], 1);
  atomicMin(&s[1], v);
  atomicMin((unsigned*)&s[2], (unsigned)v);
  atomicInc((unsigned*)&s[3], 9u);
  atomicDec((unsigned*)&s[4], 6u);
  atomicCAS(&s[5], (int)i, (int)i + 1);
  atomicXor(&s[6], v);
  atomicMax(&s[7], v);
  atomicAdd(&sf, 0.5f);
  atomicAdd(&s64, 3ull << 33);
  __syncthreads();
  if (i < 8) ret[512 + i] = (unsigned)s[i];
  if (i == 0) ret[520] = __float_as_uint(sf), ret[521] = (unsigned)(s64 >> 32), ret[522] = (unsigned)s64;
}
`;
    const N = 128;
    const g = Int32Array.of(0x7fffffff, -(2 ** 31), -1, 0, 3, 5, -1, 0, 0x5a5a5a5a, 7, -9);
    const g64 = BigUint64Array.of(5n, 0n, 2n ** 63n - 1n, 0n, 2n ** 64n - 1n, 0n, 0n);
    const [go, g64o, gdo, gfo, ret] = await launch(
      client,
      { source, entryPoint: "k", blockSize: [N, 1, 1] },
      N,
      [
        g,
        g64 as unknown as BigInt64Array,
        Float64Array.of(1),
        Float32Array.of(0.5),
        new Uint32Array(523),
      ],
    ) as unknown as [Int32Array, BigUint64Array, Float64Array, Float32Array, Uint32Array];
    const ids = Array.from({ length: N }, (_, i) => i);
    const v = ids.map((i) => (Math.imul(i, 2654435761) >> 8) - i);
    const xor = (a: number[]) => a.reduce((p, q) => p ^ q, 0);
    const sorted = (a: ArrayLike<number>) => Array.from(a).sort((p, q) => p - q);
    /** The old values `count` wrapping increments (PTX atom.inc/dec) return, and the final value. */
    const chain = (start: number, step: (o: number) => number) => {
      const olds = [];
      let o = start;
      for (let k = 0; k < N; k++) olds.push(o), o = step(o);
      return { olds: sorted(olds), last: o };
    };
    const inc = (lim: number) => (o: number) => (o >= lim ? 0 : o + 1);
    const dec = (lim: number) => (o: number) => (o === 0 || o > lim ? lim : o - 1);
    const incs = chain(3, inc(17)), decs = chain(5, dec(13));
    assert.deepEqual(Array.from(go.slice(0, 10)), [
      Math.min(0x7fffffff, ...v),
      Math.max(-(2 ** 31), ...v),
      Math.min(0xffffffff, ...v.map((x) => x >>> 0)) | 0,
      Math.max(0, ...v.map((x) => x >>> 0)) | 0,
      incs.last,
      decs.last,
      -(2 ** 31),
      0x1fffffff,
      0x5a5a5a5a ^ xor(ids.map((i) => Math.imul(i, 0x01010101))),
      (7 + N * 0x7fffffff) % 2 ** 32 | 0,
    ]);
    assert.deepEqual(sorted(ret.slice(0, N)), incs.olds, "atomicInc's old values");
    assert.deepEqual(sorted(ret.slice(N, 2 * N)), decs.olds, "atomicDec's old values");
    assert.deepEqual(
      sorted([...ret.slice(2 * N, 3 * N)].map((x) => x | 0).concat(go[10])),
      sorted([-9, ...ids.map((i) => i + 1)]),
      "atomicExch hands each value on once",
    );
    const U = (x: bigint) => BigInt.asUintN(64, x);
    const big = ids.map(BigInt), bv = v.map(BigInt);
    assert.deepEqual(Array.from(g64o, U), [
      5n + big.reduce((p, i) => p + (1n << 40n) + i, 0n),
      big.reduce((p, i) => {
        const w = (BigInt(v[Number(i)] >>> 0) << 20n) ^ i;
        return w > p ? w : p;
      }, 0n),
      U(bv.reduce((p, x) => (x * 1000003n < p ? x * 1000003n : p), 2n ** 63n - 1n)),
      bv.reduce((p, x) => (U(x) > p ? U(x) : p), 0n),
      0xe000000000000000n,
      2n ** 64n - 1n,
      U(big.reduce((p, i) => p ^ U(0x0101010101010101n * i), 0n)),
    ]);
    assert.equal(gdo[0], 1 + ids.reduce((p, i) => p + i * 0.5 - 20.25, 0));
    assert.equal(gfo[0], 0.5 + ids.reduce((p, i) => p + i * 0.25, 0));
    assert.deepEqual(sorted(ret.slice(3 * N, 4 * N)), ids, "shared atomicAdd's old values");
    const s = ret.slice(512, 520);
    assert.equal(s[1] | 0, Math.min(0, ...v));
    assert.equal(s[2], Math.min(0x7fffffff, ...v.map((x) => x >>> 0)));
    assert.equal(s[3], N % 10);
    assert.equal(s[4], chain(9, dec(6)).last);
    assert.ok(s[5] >= 1 && s[5] <= N, `atomicCAS chain ${s[5]}`);
    assert.equal(s[6] | 0, xor(v));
    assert.equal(s[7] | 0, Math.max(0, ...v));
    assert.equal(s[0], N);
    assert.equal(bitsf32(ret[520]), N * 0.5);
    assert.equal((BigInt(ret[521]) << 32n) | BigInt(ret[522]), 100n + BigInt(N) * (3n << 33n));
  },
});

Deno.test({
  name: nvrtcName(
    "wave 4: f64 add/mul/div/sqrt/fma in rz/ru/rd, 64-bit integer conversions in every mode, " +
      "bit for bit against exact references",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const source = `
extern "C" __global__ void k(const double* X, const double* Y, const double* Z, const long long* L,
                             long long* o) {
  unsigned i = threadIdx.x;
  double x = X[i], y = Y[i], z = Z[i];
  long long l = L[i];
  long long* r = o + i * 20;
#define B(v) __double_as_longlong(v)
  r[0] = B(__dadd_rz(x, y)); r[1] = B(__dadd_ru(x, y)); r[2] = B(__dadd_rd(x, y));
  r[3] = B(__dmul_rz(x, y)); r[4] = B(__dmul_ru(x, y)); r[5] = B(__dmul_rd(x, y));
  r[6] = B(__ddiv_rz(x, y)); r[7] = B(__ddiv_ru(x, y)); r[8] = B(__ddiv_rd(x, y));
  r[9] = B(__dsqrt_rz(fabs(x))); r[10] = B(__dsqrt_ru(fabs(x))); r[11] = B(__dsqrt_rd(fabs(x)));
  r[12] = B(__fma_rz(x, y, z)); r[13] = B(__fma_ru(x, y, z)); r[14] = B(__fma_rd(x, y, z));
  r[15] = B(__fma_rn(x, y, z));
  r[16] = B(__ll2double_rd(l)); r[17] = B(__ll2double_ru(l));
  r[18] = __float_as_uint(__ll2float_rz(l)) | ((unsigned long long)__float_as_uint(__ull2float_ru((unsigned long long)l)) << 32);
  r[19] = (unsigned long long)__double2ll_rn(x * 1e10) ^ (unsigned long long)__double2ull_rd(y * 1e12);
}`;
    const n = 48;
    const pick = (i: number, k: number) => Math.sin(i * 7 + k) * 2 ** (((i * (k + 3)) % 90) - 45);
    const x = Float64Array.from(
      { length: n },
      (_, i) => [1 / 3, 1.7e308, 5e-324, 2][i] ?? pick(i, 0),
    );
    const y = Float64Array.from({ length: n }, (_, i) => [3, 1.5, 1e-300, -1e-17][i] ?? pick(i, 1));
    const z = Float64Array.from(
      { length: n },
      (_, i) => [-1, -1e308, 3e-310, 0.5][i] ?? pick(i, 2),
    );
    const l = BigInt64Array.from(
      { length: n },
      (_, i) =>
        [
          2n ** 53n + 1n,
          -(2n ** 53n) - 1n,
          2n ** 63n - 1n,
          -(2n ** 63n),
          2n ** 62n + 12345n,
          16777217n,
        ][i] ??
          BigInt.asIntN(64, BigInt(Math.round(pick(i, 3) * 2 ** 40)) * 1000003n),
    );
    const [, , , , out] = await launch(
      client,
      { source, entryPoint: "k", blockSize: [n, 1, 1] },
      n,
      [x, y, z, l, new BigInt64Array(n * 20)],
    );
    const o = out as unknown as BigInt64Array;
    const m = ["rz", "ru", "rd"] as const;
    const sg = (v: bigint) => (v > 0n ? 1 : v < 0n ? -1 : 0);
    const bad: string[] = [];
    for (let i = 0; i < n; i++) {
      const [a, b, c, li] = [x[i], y[i], z[i], l[i]];
      const ul = BigInt.asUintN(64, li);
      const f32 = (v: bigint, mode: Mode) =>
        BigInt(f32bits(round32(Number(v), (q) => sg(scaled(q) - (v << 300n)), mode)));
      const d64 = (v: bigint, mode: Mode) =>
        f64bits(round64(Number(v), (X) => sg(X - (v << 1101n)), mode));
      const sat = (v: number, lo: bigint, hi: bigint) => {
        if (!(Math.abs(v) < 2 ** 64)) return v > 0 ? hi : lo;
        const r = BigInt(
          Math.round(v) === v + 0.5 && Math.round(v) % 2 ? Math.round(v) - 1 : Math.round(v),
        );
        return r < lo ? lo : r > hi ? hi : r;
      };
      const want = [
        ...m.map((md) => f64bits(op64("add", md, a, b))),
        ...m.map((md) => f64bits(op64("mul", md, a, b))),
        ...m.map((md) => f64bits(op64("div", md, a, b))),
        ...m.map((md) => f64bits(op64("sqrt", md, Math.abs(a)))),
        ...m.map((md) => f64bits(op64("fma", md, a, b, c))),
        f64bits(op64("fma", "rn", a, b, c)),
        d64(li, "rd"),
        d64(li, "ru"),
        f32(li, "rz") | (f32(ul, "ru") << 32n),
        BigInt.asUintN(64, sat(a * 1e10, -(2n ** 63n), 2n ** 63n - 1n)) ^
        sat(Math.floor(b * 1e12), 0n, 2n ** 64n - 1n),
      ];
      for (let k = 0; k < 20; k++) {
        const got = BigInt.asUintN(64, o[i * 20 + k]);
        if (got !== want[k]) {
          bad.push(
            `thread ${i} (${a}, ${b}, ${c}, ${li}) output ${k}: got 0x${got.toString(16)}, want 0x${
              want[k].toString(16)
            }`,
          );
        }
      }
    }
    assert.deepEqual(bad, []);
  },
});
