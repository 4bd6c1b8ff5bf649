/**
 * The constant folder of the CUDA translation (`_wgsl_expression.ts`): every constant
 * sub-expression of a helper's WGSL expression (literals, operators and built-in calls on them)
 * is evaluated here with the rules of Deno's WebGPU compiler (naga) and emitted as one C literal
 * of its concrete type, so CUDA computes what WebGPU computes:
 *
 * - Abstract ints in 64 bits (`1 << 40` is 2^40; an overflow is a refusal), abstract floats in
 *   f64 (`(1.0 + 1e-8) - 1.0` is 1e-8, not f32's 0), converted once to the concrete type.
 * - i32 and u32 `+ - *` wrap; a division by zero, a shift by 32 or more and a `<<` that shifts
 *   out bits unlike the result's sign are refusals (`1u << 32u`, `1i << 31u`), as naga's.
 * - f32 operations are rounded to f32 after each step; an infinite or NaN result is a refusal
 *   (`3e38f * 10.0f`, `1.0 / 0.0`), as is an abstract float no f32 holds (`x * 1e39`).
 * - `i32(...)`/`u32(...)` of an abstract float saturate to the type's range, of an f32 to its
 *   largest f32 below it (naga's).
 * - f32 results are written as exact hex floats (`0xc00001p-22f`, 24 bits and an exponent), or
 *   `3.0f` for a small integer: C never rounds them again.
 *
 * @module
 */

import { type Node, type Type, WgslExpressionError } from "./_wgsl_expression_checks.ts";

/** A constant's type: `int` and `float` are WGSL's abstract ones. */
export type ConstKind = "int" | "float" | "i32" | "u32" | "f32" | "bool";

/** A constant's value: a bigint for an abstract int, a boolean for a bool, else a number. */
export interface Const {
  readonly kind: ConstKind;
  readonly value: bigint | number | boolean;
}

const I64 = [-(2n ** 63n), 2n ** 63n - 1n] as const;
/** A constant that has no f32 (its code, refused by the translation when it is emitted). */
export const UNREPRESENTABLE = "wgsl_no_f32_";

function fail(why: string): never {
  throw new WgslExpressionError(why);
}

/** An exact C literal of an f32 value (a hex float), or the marker of one no f32 holds. */
export function f32Code(value: number): string {
  if (!Number.isFinite(value)) return UNREPRESENTABLE;
  if (value === 0) return Object.is(value, -0) ? "(-0.0f)" : "0.0f";
  const magnitude = Math.abs(value);
  if (Number.isInteger(magnitude) && magnitude < 2 ** 24) {
    return value < 0 ? `(-${magnitude}.0f)` : `${magnitude}.0f`;
  }
  let exponent = Math.max(Math.floor(Math.log2(magnitude)) - 23, -149);
  while (magnitude >= 2 ** (exponent + 24)) exponent++;
  while (exponent > -149 && magnitude < 2 ** (exponent + 23)) exponent--;
  const text = `0x${(magnitude / 2 ** exponent).toString(16)}p${exponent}f`;
  return value < 0 ? `(-${text})` : text;
}

/** The node of a constant: its C literal, its type, its value. */
export function constNode(c: Const): Node {
  const type: Type = c.kind === "int" ? "int" : c.kind === "float" ? "f32" : c.kind;
  if (c.kind === "int") {
    const v = c.value as bigint;
    const text = v >= -(2n ** 31n) && v < 2n ** 31n
      ? String(v)
      : v === I64[0]
      ? "-9223372036854775807LL - 1" // C has no literal of -2^63
      : `${v}LL`;
    return { code: v < 0n ? `(${text})` : text, type, literal: String(v), value: c };
  }
  if (c.kind === "bool") return { code: String(c.value), type, value: c };
  if (c.kind === "u32") return { code: `${c.value}u`, type, value: c };
  if (c.kind === "i32") {
    const v = c.value as number;
    return {
      code: v === -(2 ** 31) ? "(int)0x80000000" : v < 0 ? `(${v})` : `${v}`,
      type,
      value: c,
    };
  }
  return { code: f32Code(Math.fround(c.value as number)), type, value: c };
}

/** A WGSL numeric literal's constant (its suffix its type), or a refusal of one out of range. */
export function literalConst(text: string): Const {
  const hex = /^0[xX]/.test(text);
  const hexFloat = /^0[xX]([\da-fA-F]*)(?:\.([\da-fA-F]*))?(?:[pP]([+-]?\d+)([fh]?))?$/.exec(text);
  if (hex && hexFloat !== null && /[.pP]/.test(text)) {
    const [, whole, fraction = "", exponent = "0", last] = hexFloat;
    if (last === "h") fail(`${text}: f16 is not enabled`);
    const mantissa = BigInt(`0x${whole}${fraction}` === "0x" ? "0" : `0x${whole}${fraction}`);
    const scale = 2 ** (Number(exponent) - 4 * fraction.length);
    if (last !== "f") return { kind: "float", value: Number(mantissa) * scale };
    const value = Math.fround(intF32(mantissa) * scale);
    if (!Number.isFinite(value)) fail(`${text} is not an f32 (WGSL refuses it)`);
    return { kind: "f32", value };
  }
  const suffix = /[iufh]$/.test(text) && !(hex && text.endsWith("f")) ? text.slice(-1) : "";
  const body = suffix ? text.slice(0, -1) : text;
  if (suffix === "h") fail(`${text}: f16 is not enabled`);
  if (!hex && (suffix === "f" || /[.eE]/.test(body))) {
    const value = Number(body);
    if (suffix !== "f") return { kind: "float", value };
    const f32 = decimalF32(body);
    if (!Number.isFinite(f32)) fail(`${text} is not an f32 (WGSL refuses it)`);
    return { kind: "f32", value: f32 };
  }
  const value = BigInt(body);
  if (suffix === "") return { kind: "int", value: fits(value, "int", text) };
  return {
    kind: suffix === "i" ? "i32" : "u32",
    value: Number(fits(value, suffix === "i" ? "i32" : "u32", text)),
  };
}

/**
 * A decimal's f32, rounded once (as C's and naga's): rounding it to f64 first, then to f32, is
 * wrong where the f64 lands on the midpoint of two f32s (`1.0000000596046447753906251f` is
 * 1 + 2^-23, not 1), so there the exact decimal decides.
 */
function decimalF32(text: string): number {
  const d = Number(text);
  const f = Math.fround(d);
  if (f === d || !Number.isFinite(f)) return f;
  const step = (x: number, by: number) => {
    const bits = new Uint32Array(Float32Array.of(x).buffer);
    bits[0] += by;
    return new Float32Array(bits.buffer)[0];
  };
  const [low, high] = d > f ? [f, step(f, 1)] : [step(f, -1), f];
  const middle = (low + high) / 2; // exact in f64
  if (d !== middle) return f;
  const m = /^(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text)!;
  let exact = BigInt(`${m[1]}${m[2] ?? ""}` || "0");
  const tens = Number(m[3] ?? 0) - (m[2]?.length ?? 0);
  let k = Math.floor(Math.log2(middle)) - 52;
  while (!Number.isInteger(middle / 2 ** k)) k--;
  let mid = BigInt(middle / 2 ** k);
  if (tens >= 0) exact *= 10n ** BigInt(tens);
  else mid *= 10n ** BigInt(-tens);
  if (k >= 0) mid *= 2n ** BigInt(k);
  else exact *= 2n ** BigInt(-k);
  return exact > mid ? high : exact < mid ? low : f; // a tie: to even, as fround
}

/** An abstract int's f32, rounded once (through f64, 2^53 + 2^29 + 1 went to 2^53). */
export function intF32(value: bigint): number {
  const magnitude = value < 0n ? -value : value;
  const drop = BigInt(Math.max(magnitude.toString(2).length - 24, 0));
  if (drop === 0n) return Number(value);
  const kept = magnitude >> drop, rest = magnitude - (kept << drop), half = 1n << (drop - 1n);
  const rounded = rest > half || (rest === half && (kept & 1n) === 1n) ? kept + 1n : kept;
  const f = Math.fround(Number(rounded << drop)); // exact: 25 bits at most
  return value < 0n ? -f : f;
}

const RANGE: Readonly<Record<string, readonly [bigint, bigint]>> = {
  int: I64,
  i32: [-(2n ** 31n), 2n ** 31n - 1n],
  u32: [0n, 2n ** 32n - 1n],
};

function fits(value: bigint, kind: "int" | "i32" | "u32", what: string): bigint {
  const [low, high] = RANGE[kind];
  if (value < low || value > high) {
    fail(
      `${what}: ${value} is not ${
        kind === "int" ? "a 64-bit abstract int" : `a ${kind}`
      } (refused by WGSL)`,
    );
  }
  return value;
}

/** `c` converted (as WGSL's abstract conversions do) to `kind`; a refusal where it does not fit. */
export function convert(c: Const, kind: ConstKind): Const {
  if (c.kind === kind) return c;
  if (c.kind === "int" && (kind === "i32" || kind === "u32")) {
    return { kind, value: Number(fits(c.value as bigint, kind, String(c.value))) };
  }
  if (c.kind === "int" && kind === "float") return { kind, value: Number(c.value) };
  if ((c.kind === "int" || c.kind === "float") && kind === "f32") {
    const value = c.kind === "int" ? intF32(c.value as bigint) : Math.fround(c.value as number);
    if (!Number.isFinite(value)) fail(`${c.value} is not an f32 (refused by WGSL)`);
    return { kind, value };
  }
  return fail(`${c.kind} ${c.value} is not a ${kind}`);
}

/** The kind two or more constants share: the concrete one, else float, else int. */
export function unify(kinds: readonly ConstKind[]): ConstKind {
  return kinds.find((k) => k !== "int" && k !== "float") ??
    (kinds.includes("float") ? "float" : "int");
}

/** A float result in its kind: f32 rounded; an infinite or NaN one refused (naga's). */
function float(value: number, kind: ConstKind, what: string): Const {
  const v = kind === "f32" ? Math.fround(value) : value;
  if (!Number.isFinite(v)) fail(`${what}: the constant is not finite (refused by WGSL)`);
  return { kind, value: v };
}

/** A wrapped i32 or u32. */
function wrapInt(value: bigint, kind: ConstKind): Const {
  return {
    kind,
    value: Number(kind === "u32" ? BigInt.asUintN(32, value) : BigInt.asIntN(32, value)),
  };
}

function shift(op: string, a: Const, b: Const, what: string): Const {
  const amount = BigInt(b.value as number | bigint);
  const x = BigInt(a.value as number | bigint);
  if (a.kind === "int") {
    if (amount < 0n || amount > 63n) fail(`${what}: a shift past 63 bits (refused by WGSL)`);
    const value = op === "<<" ? x << amount : x >> amount;
    if (value < I64[0] || value > I64[1]) fail(`${what}: overflows WGSL's 64-bit abstract int`);
    return { kind: "int", value };
  }
  if (amount >= 32n) {
    fail(`${what}: a shift by the constant ${amount} (32 or more) is refused by WGSL`);
  }
  if (op === ">>") return wrapInt(x >> amount, a.kind);
  const result = wrapInt(x << amount, a.kind);
  if (BigInt(result.value as number) >> amount !== x) {
    fail(`${what}: the << overflows (refused by WGSL)`);
  }
  return result;
}

const COMPARE: Readonly<Record<string, (a: number | bigint, b: number | bigint) => boolean>> = {
  "==": (a, b) => a === b,
  "!=": (a, b) => a !== b,
  "<": (a, b) => a < b,
  ">": (a, b) => a > b,
  "<=": (a, b) => a <= b,
  ">=": (a, b) => a >= b,
};

/** `a op b` of two constants (their types already checked), or `undefined` for another op. */
export function foldBinary(op: string, a: Const, b: Const): Const | undefined {
  const what = `${a.value} ${op} ${b.value}`;
  // naga folds no `&&`, `||`, nor a bool `&` or `|`: their result is not a constant there.
  if (op === "&&" || op === "||" || a.kind === "bool") {
    return a.kind === "bool" && (op === "==" || op === "!=")
      ? { kind: "bool", value: (a.value === b.value) === (op === "==") }
      : undefined;
  }
  if (op === "<<" || op === ">>") {
    return shift(op, a, b.kind === "int" ? convert(b, "u32") : b, what);
  }
  const kind = unify([a.kind, b.kind]);
  const [x, y] = [convert(a, kind).value, convert(b, kind).value];
  if (op in COMPARE) return { kind: "bool", value: COMPARE[op](x as number, y as number) };
  if (kind === "float" || kind === "f32") {
    const [p, q] = [x as number, y as number];
    const r = op === "+"
      ? p + q
      : op === "-"
      ? p - q
      : op === "*"
      ? p * q
      : op === "/"
      ? p / q
      : op === "%"
      ? p % q
      : undefined;
    return r === undefined ? undefined : float(r, kind, what);
  }
  const [p, q] = [BigInt(x as number | bigint), BigInt(y as number | bigint)];
  if ((op === "/" || op === "%") && q === 0n) fail(`${what}: a division by zero (refused by WGSL)`);
  const r = op === "+"
    ? p + q
    : op === "-"
    ? p - q
    : op === "*"
    ? p * q
    : op === "/"
    ? p / q
    : op === "%"
    ? p % q
    : op === "&"
    ? p & q
    : op === "|"
    ? p | q
    : op === "^"
    ? p ^ q
    : undefined;
  if (r === undefined) return undefined;
  if (kind === "int") {
    if (r < I64[0] || r > I64[1]) fail(`${what}: overflows WGSL's 64-bit abstract int`);
    return { kind, value: r };
  }
  return wrapInt(r, kind); // naga wraps i32 and u32 + - * (and MIN / -1)
}

/** `op a` of a constant, or `undefined`. */
export function foldUnary(op: string, a: Const): Const | undefined {
  if (op === "!") return a.kind === "bool" ? { kind: "bool", value: !a.value } : undefined;
  if (a.kind === "int") { // naga wraps -(-2^63) (its + - * / overflows are refusals)
    const v = op === "-" ? -(a.value as bigint) : ~(a.value as bigint);
    return { kind: "int", value: BigInt.asIntN(64, v) };
  }
  if (a.kind === "float" || a.kind === "f32") {
    return op === "-" ? { kind: a.kind, value: -(a.value as number) } : undefined;
  }
  if (a.kind === "i32" || a.kind === "u32") {
    const v = BigInt(a.value as number);
    return wrapInt(op === "-" ? -v : ~v, a.kind);
  }
  return undefined;
}
