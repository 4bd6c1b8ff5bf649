/**
 * The float operations of the PTX fuzzer (tests/cuda_ptx_fuzz_test.ts): CUDA's f32 and f64
 * arithmetic in every rounding mode, min/max with NaN, the rounding functions, conversions
 * between floats and integers of both widths, comparisons including the unordered ones, and
 * their CPU references (tests/_cuda_float_ref.ts for the correctly rounded f32 results). A
 * result that depends on a NaN's sign or payload is `undefined` (not compared).
 *
 * @module
 */
import { add, bitsf32, div, fma, type Mode, mul, narrow, sqrt } from "./_cuda_float_ref.ts";
import type { Op } from "./_cuda_fuzz_ops_int.ts";
import { bigToF32, bigToF64, f64op, rint, roundAway, type Ty } from "./_cuda_fuzz_values.ts";

const F = Math.fround;
/** An operation. */
export const op = (name: string, ret: Ty, args: Ty[], c: Op["c"], ref: Op["ref"]): Op => ({
  name,
  ret,
  args,
  c,
  ref,
});
/** The rounding modes. */
export const MODES: readonly Mode[] = ["rn", "rz", "ru", "rd"];
const nan = Number.isNaN;

/** fminf/fmin: the number of a NaN and a number, NaN of two, -0 below +0 (PTX `min`). */
export function minmax(v: number, w: number, min: boolean): number {
  if (nan(v) && nan(w)) return NaN;
  if (nan(v)) return w;
  if (nan(w)) return v;
  if (v === 0 && w === 0) {
    const neg = min ? Object.is(v, -0) || Object.is(w, -0) : Object.is(v, -0) && Object.is(w, -0);
    return neg ? -0 : 0;
  }
  return min ? Math.min(v, w) : Math.max(v, w);
}

const f32: Op[] = [
  op("add.f32", "f32", ["f32", "f32"], (a, b) => `${a} + ${b}`, (a, b) => F(a + b)),
  op("sub.f32", "f32", ["f32", "f32"], (a, b) => `${a} - ${b}`, (a, b) => F(a - b)),
  op("mul.f32", "f32", ["f32", "f32"], (a, b) => `${a} * ${b}`, (a, b) => F(a * b)),
  op("div.rn.f32", "f32", ["f32", "f32"], (a, b) => `${a} / ${b}`, (a, b) => F(a / b)),
  op("sqrt.rn.f32", "f32", ["f32"], (a) => `sqrtf(${a})`, (a) => F(Math.sqrt(a))),
  op(
    "fma.rn.f32",
    "f32",
    ["f32", "f32", "f32"],
    (a, b, c) => `fmaf(${a}, ${b}, ${c})`,
    (a, b, c) => fma(a, b, c, "rn"),
  ),
  op("neg.f32", "f32", ["f32"], (a) => `-${a}`, (a) => -a),
  op("abs.f32", "f32", ["f32"], (a) => `fabsf(${a})`, (a) => Math.abs(a)),
  op("min.f32", "f32", ["f32", "f32"], (a, b) => `fminf(${a}, ${b})`, (a, b) => minmax(a, b, true)),
  op(
    "max.f32",
    "f32",
    ["f32", "f32"],
    (a, b) => `fmaxf(${a}, ${b})`,
    (a, b) => minmax(a, b, false),
  ),
  op(
    "copysignf",
    "f32",
    ["f32", "f32"],
    (a, b) => `copysignf(${a}, ${b})`,
    (a, b) =>
      nan(b) ? undefined : nan(a) ? NaN : (b < 0 || Object.is(b, -0) ? -Math.abs(a) : Math.abs(a)),
  ),
  op("truncf", "f32", ["f32"], (a) => `truncf(${a})`, (a) => Math.trunc(a)),
  op("floorf", "f32", ["f32"], (a) => `floorf(${a})`, (a) => Math.floor(a)),
  op("ceilf", "f32", ["f32"], (a) => `ceilf(${a})`, (a) => Math.ceil(a)),
  op("rintf", "f32", ["f32"], (a) => `rintf(${a})`, (a) => rint(a)),
  op("roundf", "f32", ["f32"], (a) => `roundf(${a})`, (a) => roundAway(a)),
  op("fmodf", "f32", ["f32", "f32"], (a, b) => `fmodf(${a}, ${b})`, (a, b) => F(a % b)),
  op(
    "fdimf",
    "f32",
    ["f32", "f32"],
    (a, b) => `fdimf(${a}, ${b})`,
    (a, b) => (nan(a) || nan(b) ? NaN : a > b ? F(a - b) : 0),
  ),
  op(
    "__saturatef",
    "f32",
    ["f32"],
    (a) => `__saturatef(${a})`,
    (a) => (Object.is(a, -0) ? undefined : nan(a) ? 0 : Math.min(Math.max(a, 0), 1)),
  ),
  op(
    "ldexpf",
    "f32",
    ["f32", "u32"],
    (a, n) => `ldexpf(${a}, (int)(${n} & 255u) - 128)`,
    (a, n) => F(a * 2 ** ((n & 255) - 128)),
  ),
  op("cvt.rn.f32.s32", "f32", ["i32"], (a) => `(float)${a}`, (a) => F(a)),
  op("cvt.rn.f32.u32", "f32", ["u32"], (a) => `(float)${a}`, (a) => F(a)),
  op("cvt.rn.f32.f64", "f32", ["f64"], (a) => `(float)${a}`, (a) => F(a)),
  op("cvt.rn.f32.s64", "f32", ["i64"], (a) => `(float)${a}`, (a) => bigToF32(a, "rn")),
  op("cvt.rn.f32.u64", "f32", ["u64"], (a) => `(float)${a}`, (a) => bigToF32(a, "rn")),
  op("mov.b32.f32", "f32", ["u32"], (a) => `__uint_as_float(${a})`, (a) => bitsf32(a)),
  ...MODES.flatMap((m) => [
    op(
      `add.${m}.f32`,
      "f32",
      ["f32", "f32"],
      (a, b) => `__fadd_${m}(${a}, ${b})`,
      (a, b) => add(a, b, m),
    ),
    op(
      `sub.${m}.f32`,
      "f32",
      ["f32", "f32"],
      (a, b) => `__fsub_${m}(${a}, ${b})`,
      (a, b) => add(a, -b, m),
    ),
    op(
      `mul.${m}.f32`,
      "f32",
      ["f32", "f32"],
      (a, b) => `__fmul_${m}(${a}, ${b})`,
      (a, b) => mul(a, b, m),
    ),
    op(
      `div.${m}.f32`,
      "f32",
      ["f32", "f32"],
      (a, b) => `__fdiv_${m}(${a}, ${b})`,
      (a, b) => div(a, b, m),
    ),
    op(
      `fma.${m}.f32`,
      "f32",
      ["f32", "f32", "f32"],
      (a, b, c) => `__fmaf_${m}(${a}, ${b}, ${c})`,
      (a, b, c) => fma(a, b, c, m),
    ),
    op(`sqrt.${m}.f32`, "f32", ["f32"], (a) => `__fsqrt_${m}(${a})`, (a) => sqrt(a, m)),
    op(`rcp.${m}.f32`, "f32", ["f32"], (a) => `__frcp_${m}(${a})`, (a) => div(1, a, m)),
    op(`cvt.${m}.f32.s32`, "f32", ["i32"], (a) => `__int2float_${m}(${a})`, (a) => narrow(a, m)),
    op(`cvt.${m}.f32.u32`, "f32", ["u32"], (a) => `__uint2float_${m}(${a})`, (a) => narrow(a, m)),
    op(`cvt.${m}.f32.s64`, "f32", ["i64"], (a) => `__ll2float_${m}(${a})`, (a) => bigToF32(a, m)),
    op(`cvt.${m}.f32.u64`, "f32", ["u64"], (a) => `__ull2float_${m}(${a})`, (a) => bigToF32(a, m)),
    op(
      `cvt.${m}.f32.f64`,
      "f32",
      ["f64"],
      (a) => `__double2float_${m}(${a})`,
      (a) => (nan(a) ? NaN : narrow(a, m)),
    ),
  ]),
];

const f64: Op[] = [
  op("add.f64", "f64", ["f64", "f64"], (a, b) => `${a} + ${b}`, (a, b) => a + b),
  op("sub.f64", "f64", ["f64", "f64"], (a, b) => `${a} - ${b}`, (a, b) => a - b),
  op("mul.f64", "f64", ["f64", "f64"], (a, b) => `${a} * ${b}`, (a, b) => a * b),
  op("div.rn.f64", "f64", ["f64", "f64"], (a, b) => `${a} / ${b}`, (a, b) => a / b),
  op("sqrt.rn.f64", "f64", ["f64"], (a) => `sqrt(${a})`, (a) => Math.sqrt(a)),
  op(
    "fma.rn.f64",
    "f64",
    ["f64", "f64", "f64"],
    (a, b, c) => `fma(${a}, ${b}, ${c})`,
    (a, b, c) => f64op("fma", "rn", a, b, c),
  ),
  op("neg.f64", "f64", ["f64"], (a) => `-${a}`, (a) => -a),
  op("abs.f64", "f64", ["f64"], (a) => `fabs(${a})`, (a) => Math.abs(a)),
  op("min.f64", "f64", ["f64", "f64"], (a, b) => `fmin(${a}, ${b})`, (a, b) => minmax(a, b, true)),
  op("max.f64", "f64", ["f64", "f64"], (a, b) => `fmax(${a}, ${b})`, (a, b) => minmax(a, b, false)),
  op("trunc", "f64", ["f64"], (a) => `trunc(${a})`, (a) => Math.trunc(a)),
  op("floor", "f64", ["f64"], (a) => `floor(${a})`, (a) => Math.floor(a)),
  op("ceil", "f64", ["f64"], (a) => `ceil(${a})`, (a) => Math.ceil(a)),
  op("rint", "f64", ["f64"], (a) => `rint(${a})`, (a) => rint(a)),
  op("round", "f64", ["f64"], (a) => `round(${a})`, (a) => roundAway(a)),
  op("cvt.f64.f32", "f64", ["f32"], (a) => `(double)${a}`, (a) => a),
  op("cvt.f64.s32", "f64", ["i32"], (a) => `(double)${a}`, (a) => a),
  op("cvt.f64.u32", "f64", ["u32"], (a) => `(double)${a}`, (a) => a),
  op(
    "mov.b64.f64",
    "f64",
    ["u64"],
    (a) => `__longlong_as_double((long long)${a})`,
    (a) => new Float64Array(new BigUint64Array([a]).buffer)[0],
  ),
  ...MODES.flatMap((m) => [
    op(
      `add.${m}.f64`,
      "f64",
      ["f64", "f64"],
      (a, b) => `__dadd_${m}(${a}, ${b})`,
      (a, b) => f64op("add", m, a, b),
    ),
    op(
      `sub.${m}.f64`,
      "f64",
      ["f64", "f64"],
      (a, b) => `__dsub_${m}(${a}, ${b})`,
      (a, b) => f64op("add", m, a, -b),
    ),
    op(
      `mul.${m}.f64`,
      "f64",
      ["f64", "f64"],
      (a, b) => `__dmul_${m}(${a}, ${b})`,
      (a, b) => f64op("mul", m, a, b),
    ),
    op(
      `div.${m}.f64`,
      "f64",
      ["f64", "f64"],
      (a, b) => `__ddiv_${m}(${a}, ${b})`,
      (a, b) => f64op("div", m, a, b),
    ),
    op(
      `fma.${m}.f64`,
      "f64",
      ["f64", "f64", "f64"],
      (a, b, c) => `__fma_${m}(${a}, ${b}, ${c})`,
      (a, b, c) => f64op("fma", m, a, b, c),
    ),
    op(`sqrt.${m}.f64`, "f64", ["f64"], (a) => `__dsqrt_${m}(${a})`, (a) => f64op("sqrt", m, a)),
    op(`cvt.${m}.f64.s64`, "f64", ["i64"], (a) => `__ll2double_${m}(${a})`, (a) => bigToF64(a, m)),
    op(`cvt.${m}.f64.u64`, "f64", ["u64"], (a) => `__ull2double_${m}(${a})`, (a) => bigToF64(a, m)),
  ]),
];

/** Float comparisons: ordered ones false on a NaN, `!=` and the negated ones true. */
function compares(t: "f32" | "f64"): Op[] {
  const cmp = [["lt", "<"], ["le", "<="], ["gt", ">"], ["ge", ">="], ["eq", "=="], [
    "ne",
    "!=",
  ]] as const;
  const ops = cmp.map(([n, c]) =>
    op(
      `setp.${n}.${t}`,
      "bool",
      [t, t],
      (a, b) => `${a} ${c} ${b}`,
      (a: number, b: number) =>
        c === "<"
          ? a < b
          : c === "<="
          ? a <= b
          : c === ">"
          ? a > b
          : c === ">="
          ? a >= b
          : c === "=="
          ? a === b
          : a !== b,
    )
  );
  const fn = t === "f32" ? (n: string) => `${n}` : (n: string) => n;
  return [
    ...ops,
    op(
      `setp.gtu.${t}`,
      "bool",
      [t, t],
      (a, b) => `!(${a} <= ${b})`,
      (a: number, b: number) => !(a <= b),
    ),
    op(
      `setp.ltu.${t}`,
      "bool",
      [t, t],
      (a, b) => `!(${a} >= ${b})`,
      (a: number, b: number) => !(a >= b),
    ),
    op(`setp.nan.${t}`, "bool", [t], (a) => `${fn("isnan")}(${a})`, (a: number) => nan(a)),
    op(
      `setp.inf.${t}`,
      "bool",
      [t],
      (a) => `${fn("isinf")}(${a})`,
      (a: number) => Math.abs(a) === Infinity,
    ),
    op(`isfinite.${t}`, "bool", [t], (a) => `${fn("isfinite")}(${a})`, (a: number) => isFinite(a)),
    op(
      `signbit.${t}`,
      "bool",
      [t],
      (a) => `${fn("signbit")}(${a})`,
      (a: number) => (nan(a) ? undefined : a < 0 || Object.is(a, -0)),
    ),
  ];
}

/** The f32 and f64 operations, and the float comparisons. */
export const FLOAT_PARTS: { f32: Op[]; f64: Op[]; compares: Op[] } = {
  f32,
  f64,
  compares: [...compares("f32"), ...compares("f64")],
};
