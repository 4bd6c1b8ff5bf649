/**
 * The conversions of floats to integers in the PTX fuzzer (tests/cuda_ptx_fuzz_test.ts), every
 * float operation in one list, and what `-ftz=true` makes of them.
 *
 * @module
 */
import { div, f32bits, f64bits, fma, type Mode, mul, narrow, toInt } from "./_cuda_float_ref.ts";
import type { Op } from "./_cuda_fuzz_ops_int.ts";
import { FLOAT_PARTS, MODES, op } from "./_cuda_fuzz_ops_float.ts";
import { toInt64 } from "./_cuda_fuzz_values.ts";

const nan = Number.isNaN;
/**
 * What the reference takes a NaN converted to an integer to be: from an f32, 0 (the PTX ISA's
 * cvt: "NaN inputs convert to 0"? see the test's notes); from an f64 to 32 bits 0x80000000 (an
 * H200, as the simulator notes); to 64 bits, not known (not compared: a GPU run should say).
 */
export const NAN_TO_INT = { f32: 0, f64: 0x80000000, f32to64: undefined, f64to64: undefined };

const asI64 = (v: bigint | undefined) => (v === undefined ? v : BigInt.asIntN(64, v));
const f2i = (v: number, m: Mode, signed: boolean, from: "f32" | "f64") =>
  nan(v) ? NAN_TO_INT[from] : toInt(v, m, signed);

const ints: Op[] = [
  op(
    "mov.b32.u32",
    "u32",
    ["f32"],
    (a) => `__float_as_uint(${a})`,
    (a) => (nan(a) ? undefined : f32bits(a)),
  ),
  op(
    "mov.b64.u64",
    "u64",
    ["f64"],
    (a) => `(unsigned long long)__double_as_longlong(${a})`,
    (a) => (nan(a) ? undefined : f64bits(a)),
  ),
  op("cvt.rzi.s32.f32", "i32", ["f32"], (a) => `(int)${a}`, (a) => f2i(a, "rz", true, "f32") | 0),
  op("cvt.rzi.u32.f32", "u32", ["f32"], (a) => `(unsigned)${a}`, (a) => f2i(a, "rz", false, "f32")),
  op("cvt.rzi.s32.f64", "i32", ["f64"], (a) => `(int)${a}`, (a) => f2i(a, "rz", true, "f64") | 0),
  op(
    "cvt.rzi.s64.f32",
    "i64",
    ["f32"],
    (a) => `(long long)${a}`,
    (a) => asI64(toInt64(a, "rz", true, NAN_TO_INT.f32to64)),
  ),
  op(
    "cvt.rzi.u64.f64",
    "u64",
    ["f64"],
    (a) => `(unsigned long long)${a}`,
    (a) => toInt64(a, "rz", false, NAN_TO_INT.f64to64),
  ),
  ...MODES.flatMap((m) => [
    op(
      `cvt.r${m[1]}i.s32.f32`,
      "i32",
      ["f32"],
      (a) => `__float2int_${m}(${a})`,
      (a) => f2i(a, m, true, "f32") | 0,
    ),
    op(
      `cvt.r${m[1]}i.u32.f32`,
      "u32",
      ["f32"],
      (a) => `__float2uint_${m}(${a})`,
      (a) => f2i(a, m, false, "f32"),
    ),
    op(
      `cvt.r${m[1]}i.s32.f64`,
      "i32",
      ["f64"],
      (a) => `__double2int_${m}(${a})`,
      (a) => f2i(a, m, true, "f64") | 0,
    ),
    op(
      `cvt.r${m[1]}i.u32.f64`,
      "u32",
      ["f64"],
      (a) => `__double2uint_${m}(${a})`,
      (a) => f2i(a, m, false, "f64"),
    ),
    op(
      `cvt.r${m[1]}i.s64.f32`,
      "i64",
      ["f32"],
      (a) => `__float2ll_${m}(${a})`,
      (a) => asI64(toInt64(a, m, true, NAN_TO_INT.f32to64)),
    ),
    op(
      `cvt.r${m[1]}i.u64.f32`,
      "u64",
      ["f32"],
      (a) => `__float2ull_${m}(${a})`,
      (a) => toInt64(a, m, false, NAN_TO_INT.f32to64),
    ),
    op(
      `cvt.r${m[1]}i.s64.f64`,
      "i64",
      ["f64"],
      (a) => `__double2ll_${m}(${a})`,
      (a) => asI64(toInt64(a, m, true, NAN_TO_INT.f64to64)),
    ),
    op(
      `cvt.r${m[1]}i.u64.f64`,
      "u64",
      ["f64"],
      (a) => `__double2ull_${m}(${a})`,
      (a) => toInt64(a, m, false, NAN_TO_INT.f64to64),
    ),
  ]),
];

/** The float operations and the conversions of floats to integers. */
export const FLOAT_OPS: Op[] = [
  ...FLOAT_PARTS.f32,
  ...FLOAT_PARTS.f64,
  ...ints,
  ...FLOAT_PARTS.compares,
];

/** An f32 flushed as `.ftz` flushes a subnormal: to the zero of its sign. */
export const flush = (v: number): number =>
  v !== 0 && Math.abs(v) < 2 ** -126 ? (v < 0 ? -0 : 0) : v;

/**
 * The operations whose exact result can lie below 2^-126 and round to ±2^-126 (a sum of f32s below
 * 2^-126 is exact, a square root never that small), each rounded toward zero: below 2^-126 in
 * magnitude exactly when the exact result is.
 */
const TOWARD_ZERO: Record<string, (a: number[]) => number> = {
  mul: ([x, y]) => mul(x, y, "rz"),
  div: ([x, y]) => div(x, y, "rz"),
  rcp: ([x]) => div(1, x, "rz"),
  fma: ([x, y, z]) => fma(x, y, z, "rz"),
  cvt: ([x]) => narrow(x, "rz"),
};
/**
 * The f32 result `r` of operation `name` on `args` as `.ftz` flushes it: by the exact result, before
 * rounding. An H100 (driver 580.159.04) gave +0 for `mul.ftz.f32`, `mul.rn/ru.ftz.f32` and
 * `fma.rn.ftz.f32` of 2^-126 and 1 - 2^-24, whose exact 2^-126 - 2^-150 rounds (to nearest, and up)
 * to 2^-126; `div`, `rcp` and `cvt.f32.f64` are assumed alike.
 */
export function flushResult(name: string, args: readonly unknown[], r: number): number {
  const rz = TOWARD_ZERO[name.split(".")[0]];
  if (Math.abs(r) === 2 ** -126 && rz && Math.abs(rz(args as number[])) < 2 ** -126) {
    return r < 0 ? -0 : 0;
  }
  return flush(r);
}

const IN_OUT = /^((add|sub|mul|div|fma|sqrt|rcp)(\.(rn|rz|ru|rd))?\.f32|fdimf)$/;
const IN =
  /^((min|max|neg|abs)\.f32|floorf|ceilf|__saturatef|setp\.\w+\.f32|isfinite\.f32|cvt\.f64\.f32|cvt\.r[nzud]i\.[su](32|64)\.f32)$/;
const OUT = /^cvt\.r[nzud]\.f32\.f64$/;
/** What `-ftz=true` makes of the f32 functions NVRTC writes as library code (not modelled). */
const LIBRARY =
  /^(fmodf|ldexpf|nextafterf|ilogbf|remainderf|scalbnf|logbf|frexpf\.[em]|modff\.[if]|llrintf|llroundf|nearbyintf|__frsqrt_rn)$/;

/**
 * The operations as NVRTC compiles them with `-ftz=true` (the PTX it writes, read for each):
 * f32 arithmetic, `fdimf` flush inputs and results (a result by its exact value, `flushResult`);
 * min/max, neg, abs, compares, `floorf`, `ceilf`, `__saturatef`, conversions from f32 flush
 * inputs; f64 to f32 flushes results;
 * `truncf`, `rintf` (`cvt.rzi/rni.f32.f32` without `.ftz`), `roundf`, `copysignf`, moves and
 * bit casts do not flush; the library functions are left out.
 */
export function ftzOps(ops: readonly Op[]): Op[] {
  return ops.filter((o) => !LIBRARY.test(o.name)).map((o) => {
    const flushIn = IN_OUT.test(o.name) || IN.test(o.name),
      flushOut = IN_OUT.test(o.name) || OUT.test(o.name);
    if (!flushIn && !flushOut) return o;
    const minmax = /^(min|max)\.f32$/.test(o.name);
    const ref = (...a: unknown[]) => {
      // fminf(x, x) is x to NVRTC (no min.ftz): a subnormal x is then not flushed
      if (minmax && Object.is(a[0], a[1]) && flush(a[0] as number) !== a[0]) return undefined;
      const args = a.map((v, i) => (flushIn && o.args[i] === "f32" ? flush(v as number) : v));
      const r = o.ref(...args);
      return flushOut && typeof r === "number" ? flushResult(o.name, args, r) : r;
    };
    return { ...o, ref };
  });
}
