/**
 * The differential fuzzer of the simulator's PTX interpreter, fixed seeds: random CUDA C kernels
 * (tests/_cuda_fuzz_gen.ts: integer and f32/f64 arithmetic in every rounding mode, conversions with
 * saturation and NaN, unordered compares, CUDA's exact math functions, SIMD and dot-product
 * intrinsics, half precision in inline PTX, branches, loops, `__noinline__` calls, local arrays,
 * loads with cache operators, shared memory, atomics, warp shuffles, votes, reductions and matches,
 * also in divergent arms, in four block shapes) compiled by NVIDIA's NVRTC with `--fmad=false` and
 * run on the simulated driver, every value compared bit for bit with a CPU reference (a NaN as any
 * NaN); on compute capability 9.0 and 7.5 (NVRTC writes other PTX for each), and with `-ftz=true`.
 * The edge matrix runs every operation on every pair of edge values. The scratch loop that ran
 * thousands of such kernels is described in tests/fixtures/cuda_sim/README.md.
 *
 * What the reference takes from the PTX ISA and CUDA's documentation, and a GPU run should confirm
 * (`GPUCOMPUTE_TEST_CUDA_LIBRARY` runs this file on a real driver, the same comparisons): f32 and
 * f64 `+ - * / sqrt fma rcp` correctly rounded in the mode named; an f32 NaN converted to a 32-bit
 * integer is 0, an f64 NaN `0x80000000` (an H200, tests/cuda_user_kernels_4_test.ts); float to
 * integer conversions saturate; `fminf(-0, +0)` is -0, of two NaNs NaN; `.ftz` flushes a result
 * whose exact value is below 2^-126, before rounding (an H100 flushed 2^-126 - 2^-150, which rounds
 * to 2^-126: tests/cuda_ftz_tininess_test.ts); `roundf`, `rintf`, `fmodf`, `remainderf`, `ldexpf`,
 * `nextafterf`, `ilogbf`, `__frsqrt_rn` are exact. A NaN converted to a 64-bit integer, a NaN's payload or sign
 * and a half-precision NaN's bits are not compared (the reference marks them unknown).
 */
import assert from "node:assert/strict";
import { nvrtcName, nvrtcSkip, onSimulator, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { launch } from "./_cuda_user_run.ts";
import { withSimEnv } from "./fixtures/cuda_sim.ts";
import {
  compare,
  edgeKernel,
  type FuzzKernel,
  genKernel,
  opsOf,
  THREADS,
} from "./_cuda_fuzz_gen.ts";
import type { ComputeClient } from "../mod.ts";

const ignore = nvrtcSkip !== undefined;

/** Runs `k` and returns its differences from the reference, described. */
async function differences(
  client: ComputeClient,
  k: FuzzKernel,
  checked: { n: number },
  ftz = false,
): Promise<string[]> {
  const exprs = k.trees.length;
  const compileOptions = ["--fmad=false", ...(ftz ? ["-ftz=true"] : [])];
  const out = await launch(
    client,
    { source: k.source, entryPoint: "fuzz", blockSize: k.block, compileOptions },
    THREADS,
    [k.inputs.u, k.inputs.f, k.inputs.l, k.inputs.d, new BigUint64Array(exprs * THREADS)],
  );
  return compare(k, out[4] as unknown as BigUint64Array, checked).map((d) =>
    `expression ${d.expr} (${
      [...opsOf(k.trees[d.expr], new Set())].join(" ")
    }), thread ${d.thread}: ` +
    `got 0x${d.got.toString(16)}, want 0x${d.want.toString(16)}\n${k.lines[d.expr].join("\n")}`
  );
}

for (const [cc, ftz] of [["90", false], ["75", false], ["90", true]] as const) {
  Deno.test({
    name: nvrtcName(
      `PTX fuzz: 2 random kernels of 48 expressions (fixed seeds) on compute capability ${cc}${
        ftz ? " with -ftz=true" : ""
      } ` +
        "agree with the CPU reference bit for bit",
    ),
    ignore,
    async fn() {
      await withSimEnv({ CUDA_SIM_CC: cc }, async () => {
        using client = await simulatedCudaClient();
        const checked = { n: 0 }, ops = new Set<string>(), bad: string[] = [];
        for (const seed of [7001, 7002].map((s) => s + Number(cc) + (ftz ? 10 : 0))) {
          const k = genKernel(seed, 48, 4, cc >= "80", ftz);
          k.trees.forEach((t) => opsOf(t, ops));
          bad.push(
            ...(await differences(client, k, checked, ftz)).map((d) => `seed ${seed}: ${d}`),
          );
        }
        assert.deepEqual(bad.slice(0, 5), []);
        assert.ok(checked.n > 2 * 48 * THREADS * 0.8, `${checked.n} values compared`);
        assert.ok(ops.size > 120, `${ops.size} operations covered`);
      });
    },
  });
}

for (const ftz of [false, true]) {
  Deno.test({
    name: nvrtcName(
      `PTX fuzz: the edge matrix${
        ftz ? " with -ftz=true" : ""
      }: every operation on every pair of edge values ` +
        "(0, -0, ±inf, NaNs, subnormals, the integer limits, halfway cases) agrees with the CPU reference",
    ),
    ignore,
    async fn() {
      await withSimEnv({ CUDA_SIM_CC: "90" }, async () => {
        using client = await simulatedCudaClient();
        const checked = { n: 0 }, bad: string[] = [];
        // 33 launches of one kernel meet every pair of the 46 f32 edges; with -ftz, every third
        for (let part = 0; part < 33; part += ftz ? 3 : 1) {
          bad.push(
            ...(await differences(client, edgeKernel(part, ftz), checked, ftz)).map((d) =>
              `part ${part}: ${d}`
            ),
          );
        }
        assert.deepEqual(bad.slice(0, 5), []);
        assert.ok(checked.n > (ftz ? 200_000 : 700_000), `${checked.n} values compared`);
      });
    },
  });
}

Deno.test({
  name: nvrtcName(
    "PTX fuzz regression: on compute capability 9.0 __vadd2 __vsub2 __vmaxu2 __vmins2... compile to " +
      "add/sub/min/max .u16x2/.s16x2, which run (the simulator refused them at load), halfword by halfword",
  ),
  ignore,
  async fn() {
    await withSimEnv({ CUDA_SIM_CC: "90" }, async () => {
      using client = await simulatedCudaClient();
      const source =
        `extern "C" __global__ void k(const unsigned* A, const unsigned* B, unsigned* o) {
  unsigned i = threadIdx.x, a = A[i], b = B[i];
  o[i * 6] = __vadd2(a, b); o[i * 6 + 1] = __vsub2(a, b); o[i * 6 + 2] = __vmaxu2(a, b);
  o[i * 6 + 3] = __vminu2(a, b); o[i * 6 + 4] = __vmaxs2(a, b); o[i * 6 + 5] = __vmins2(a, b);
}`;
      const a = Uint32Array.from([0xffff0001, 0x80007fff, 0x12345678, 0, 0x7fff8000, 0xfffe0002]);
      const b = Uint32Array.from([
        0x0001ffff,
        0x7fff8000,
        0x87654321,
        0xffffffff,
        0x80007fff,
        0x0003fffd,
      ]);
      const [, , out] = await launch(client, { source, entryPoint: "k", blockSize: [6, 1, 1] }, 6, [
        a,
        b,
        new Uint32Array(36),
      ]);
      const lane = (x: number, y: number, f: (p: number, q: number) => number, signed: boolean) => {
        let r = 0;
        for (const s of [0, 16]) {
          let p = (x >>> s) & 0xffff, q = (y >>> s) & 0xffff;
          if (signed) p = (p << 16) >> 16, q = (q << 16) >> 16;
          r |= (f(p, q) & 0xffff) << s;
        }
        return r >>> 0;
      };
      const want = [...a].flatMap((x, i) => [
        lane(x, b[i], (p, q) => p + q, false),
        lane(x, b[i], (p, q) => p - q, false),
        lane(x, b[i], Math.max, false),
        lane(x, b[i], Math.min, false),
        lane(x, b[i], Math.max, true),
        lane(x, b[i], Math.min, true),
      ]);
      assert.deepEqual([...out], want);
    });
  },
});

/** `f` on the two halfwords of `a` and `b` (signed or not), each result's low 16 bits. */
function halves(
  a: number,
  b: number,
  signed: boolean,
  f: (p: number, q: number) => number,
): number[] {
  return [0, 16].map((s) => {
    let p = (a >>> s) & 0xffff, q = (b >>> s) & 0xffff;
    if (signed) p = (p << 16) >> 16, q = (q << 16) >> 16;
    return f(p, q);
  });
}

Deno.test({
  name: nvrtcName(
    "PTX fuzz regression: __vsadu2 (vabsdiff2.u32.u32.u32.add) and the two-lane video instructions " +
      "(vadd2 vsub2 vavrg2 vabsdiff2 vmin2 vmax2: .sat, the .h mask merging c, .h selectors) run " +
      "(the simulator refused them at load), halfword by halfword",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const source =
      `extern "C" __global__ void k(const unsigned* A, const unsigned* B, unsigned* o) {
  unsigned i = threadIdx.x, a = A[i], b = B[i], c = a ^ b, r;
  o[i * 6] = __vsadu2(a, b);
  asm("vadd2.s32.s32.s32.sat %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); o[i * 6 + 1] = r;
  asm("vsub2.u32.u32.u32.sat %0.h1, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); o[i * 6 + 2] = r;
  asm("vavrg2.u32.u32.u32 %0, %1.h01, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); o[i * 6 + 3] = r;
  asm("vmin2.s32.s32.s32.add %0, %1, %2.h23, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); o[i * 6 + 4] = r;
  asm("vmax2.u32.u32.u32 %0.h0, %1, %2.h33, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); o[i * 6 + 5] = r;
}`;
    const a = Uint32Array.from([
      0x7fff8000,
      0x12345678,
      0xffff0001,
      0x00010002,
      0x80008000,
      0xfffefffd,
    ]);
    const b = Uint32Array.from([
      0x00018000,
      0x87654321,
      0x0002ffff,
      0xfffffffe,
      0x80017fff,
      0x00020003,
    ]);
    const [, , out] = await launch(client, { source, entryPoint: "k", blockSize: [6, 1, 1] }, 6, [
      a,
      b,
      new Uint32Array(36),
    ]);
    const pack = ([lo, hi]: number[]) => (((hi & 0xffff) << 16) | (lo & 0xffff)) >>> 0;
    const clamp = (v: number, lo: number, hi: number) => Math.min(Math.max(v, lo), hi);
    const want = [...a].flatMap((x, i) => {
      const y = b[i], c = (x ^ y) >>> 0, hw = (v: number, k: number) => (v >>> (16 * k)) & 0xffff;
      const sx = (v: number) => (v << 16) >> 16;
      return [
        halves(x, y, false, (p, q) => Math.abs(p - q)).reduce((s, v) => s + v, 0),
        pack(halves(x, y, true, (p, q) => clamp(p + q, -32768, 32767))),
        pack([hw(c, 0), clamp(hw(x, 1) - hw(y, 1), 0, 65535)]), // mask .h1: lane 0 keeps c's
        pack([(hw(x, 1) + hw(y, 0) + 1) >> 1, (hw(x, 0) + hw(y, 1) + 1) >> 1]), // a.h01: a swapped
        // b.h23: lane 1 takes b's low half (2), lane 0 its high half (3); .add sums the lanes into c
        (c + Math.min(sx(hw(x, 0)), sx(hw(y, 1))) + Math.min(sx(hw(x, 1)), sx(hw(y, 0)))) >>> 0,
        pack([Math.max(hw(x, 0), hw(y, 1)), hw(c, 1)]), // b.h33, mask .h0
      ];
    });
    assert.deepEqual([...out], want);
  },
});

/**
 * What the simulator gives where the fuzzer compares nothing, and a GPU run should confirm (a list:
 * what devices gave where the driver's JIT decides, the simulator's first).
 */
const GPU_CHECKS: [string, string, bigint | bigint[]][] = [
  ["__float2ll_rz(NaN)", "(unsigned long long)__float2ll_rz(qnan)", 0n],
  ["__float2ull_rz(NaN)", "__float2ull_rz(qnan)", 0n],
  ["__float2ll_rn(-NaN)", "(unsigned long long)__float2ll_rn(nnan)", 0n],
  ["__double2ll_rz(NaN)", "(unsigned long long)__double2ll_rz(dnan)", 0n],
  ["__double2ull_rz(NaN)", "__double2ull_rz(dnan)", 0n],
  ["__double2ll_rn(-NaN)", "(unsigned long long)__double2ll_rn(-dnan)", 0n],
  ["__float2int_rz(NaN)", "(unsigned)__float2int_rz(qnan)", 0n],
  ["__double2int_rz(NaN)", "(unsigned)__double2int_rz(dnan)", 0x80000000n],
  ["__double2uint_rz(NaN)", "__double2uint_rz(dnan)", 0x80000000n],
  ["NaN + 1.0f (payload 0x7fc00123)", "__float_as_uint(qnan + one)", 0x7fffffffn],
  ["-NaN * 2.0f", "__float_as_uint(nnan * (one + one))", 0x7fffffffn],
  ["fminf(NaN, NaN)", "__float_as_uint(fminf(qnan, nnan))", 0x7fffffffn],
  // abs.f32, neg.f32 of a NaN: an unspecified NaN (PTX ISA); an H200 changed the sign bit, an H100
  // (driver 580.159.04) gave 0x7fffffff (tests/cuda_user_kernels_5_test.ts)
  ["fabsf(-NaN)", "__float_as_uint(fabsf(nnan))", [0x7fc00456n, 0x7fffffffn]],
  ["-(NaN)", "__float_as_uint(-qnan)", [0xffc00123n, 0x7fffffffn]],
  ["copysignf(1, -NaN)", "__float_as_uint(copysignf(one, nnan))", 0xbf800000n],
  ["__saturatef(-0.0f)", "__float_as_uint(__saturatef(-zero))", 0x80000000n],
  ["sqrtf(-1)", "__float_as_uint(sqrtf(-one))", 0x7fffffffn],
  [
    "NaN + 1.0 (f64, payload)",
    "(unsigned long long)__double_as_longlong(dnan + 1.0)",
    0x7ff8000000000123n,
  ],
  [
    "fmin(NaN, NaN) f64",
    "(unsigned long long)__double_as_longlong(fmin(dnan, -dnan))",
    0x7ff8000000000123n,
  ],
  ["(float)NaN (f64)", "__float_as_uint((float)dnan)", 0x7fc00000n],
  [
    "(double)NaN (f32)",
    "(unsigned long long)__double_as_longlong((double)qnan)",
    0x7ff8002460000000n,
  ],
  ["fminf(-0, +0)", "__float_as_uint(fminf(-zero, zero))", 0x80000000n],
  ["fmaxf(-0, +0)", "__float_as_uint(fmaxf(-zero, zero))", 0n],
  // .ftz flushes by the exact result (tests/cuda_ftz_tininess_test.ts): 2^-126 - 2^-150 rounds to
  // 2^-126, and was +0 on an H100 (driver 580.159.04) as mul.ftz.f32 in the edge matrix
  [
    "mul.rn.ftz to 2^-126 - 2^-150 (rounds to 2^-126)",
    "__float_as_uint(ftzmul(__uint_as_float(0x3f7fffffu), __uint_as_float(0x00800000u)))",
    0n,
  ],
  // tiny before rounding only: with IEEE 754's tininess after rounding (an unbounded exponent),
  // 2^-126 (1 - 2^-46) rounds to 2^-126 and is kept; the simulator flushes it (not yet seen)
  [
    "mul.rn.ftz to 2^-126 (1 - 2^-46)",
    "__float_as_uint(ftzmul(__uint_as_float(0x3f7ffffeu), __uint_as_float(0x00800001u)))",
    0n,
  ],
  [
    "cvt.rn.ftz.f32.f64 of 2^-126 (1 - 2^-31) (tiny before rounding only)",
    "__float_as_uint(ftzcvt(__longlong_as_double(0x380fffffffc00000ll)))",
    0n,
  ],
  [
    "mul.rz.ftz to just below 2^-126",
    "__float_as_uint(ftzmulrz(__uint_as_float(0x3f7fffffu), __uint_as_float(0x00800000u)))",
    0n,
  ],
  ["cvt.rn.f16.f32(NaN)", "(unsigned)f16(qnan)", 0x7fffn],
  ["add.f16(NaN, 1)", "(unsigned)hadd(0x7e01u, 0x3c00u)", 0x7fffn],
  ["cvt.f32.f16(NaN 0x7e01)", "__float_as_uint(h2f(0x7e01u))", 0x7fc02000n],
];

Deno.test({
  name: nvrtcName(
    "PTX fuzz, on a GPU only (GPUCOMPUTE_TEST_CUDA_LIBRARY): the simulator's choices where the " +
      "fuzzer compares nothing (a NaN to a 64-bit integer, NaN bits, -0 clamped, .ftz at 2^-126) " +
      "are the device's",
  ),
  ignore: ignore || onSimulator,
  async fn() {
    using client = await simulatedCudaClient();
    const source =
      `__device__ float ftzmul(float a, float b) { float r; asm("mul.rn.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b)); return r; }
__device__ float ftzmulrz(float a, float b) { float r; asm("mul.rz.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b)); return r; }
__device__ float ftzcvt(double a) { float r; asm("cvt.rn.ftz.f32.f64 %0, %1;" : "=f"(r) : "d"(a)); return r; }
__device__ unsigned short f16(float a) { unsigned short r; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r) : "f"(a)); return r; }
__device__ unsigned short hadd(unsigned a, unsigned b) { unsigned short r; asm("add.f16 %0, %1, %2;" : "=h"(r) : "h"((unsigned short)a), "h"((unsigned short)b)); return r; }
__device__ float h2f(unsigned a) { float r; asm("cvt.f32.f16 %0, %1;" : "=f"(r) : "h"((unsigned short)a)); return r; }
extern "C" __global__ void k(const unsigned* F, const unsigned long long* D, unsigned long long* o) {
  float qnan = __uint_as_float(F[0]), nnan = __uint_as_float(F[1]), one = __uint_as_float(F[2]), zero = __uint_as_float(F[3]);
  double dnan = __longlong_as_double((long long)D[0]);
${GPU_CHECKS.map(([, e], i) => `  o[${i}] = (unsigned long long)(${e});`).join("\n")}
}`;
    const [, , o] = await launch(client, { source, entryPoint: "k", blockSize: [1, 1, 1] }, 1, [
      Uint32Array.from([0x7fc00123, 0xffc00456, 0x3f800000, 0]),
      BigUint64Array.from([0x7ff8000000000123n]),
      new BigUint64Array(GPU_CHECKS.length),
    ]);
    const got = [...(o as unknown as BigUint64Array)];
    const bad = GPU_CHECKS.flatMap(([name, , want], i) =>
      [want].flat().includes(got[i])
        ? []
        : [`${name}: device 0x${got[i].toString(16)}, simulator 0x${[want].flat()[0].toString(16)}`]
    );
    assert.deepEqual(bad, []);
  },
});
