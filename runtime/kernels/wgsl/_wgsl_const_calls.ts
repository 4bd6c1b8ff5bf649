/**
 * The built-in calls the constant folder (`_wgsl_const.ts`) evaluates when every argument is a
 * constant, as Deno's WebGPU compiler (naga) does: the conversions `f32 i32 u32`, `abs min max
 * clamp select sign`, the float built-ins (abstract ones in f64) and the bit built-ins.
 * `length`, `distance`, `mix` and `smoothstep` are not folded (naga computes them at run time).
 *
 * @module
 */

import { type Const, type ConstKind, convert, intF32, unify } from "./_wgsl_const.ts";
import { WgslExpressionError } from "./_wgsl_expression_checks.ts";

function fail(why: string): never {
  throw new WgslExpressionError(why);
}

/** WGSL's `round`: halfway cases to the even integer. */
function roundEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** The float built-ins naga folds: the f64 value (rounded to f32 after, for an f32). */
const FLOAT: Readonly<Record<string, (...x: number[]) => number>> = {
  sqrt: Math.sqrt,
  inverseSqrt: (x) => 1 / Math.sqrt(x),
  exp: Math.exp,
  exp2: (x) => 2 ** x,
  log: Math.log,
  log2: Math.log2,
  pow: Math.pow,
  sin: Math.sin,
  cos: Math.cos,
  tan: Math.tan,
  asin: Math.asin,
  acos: Math.acos,
  atan: Math.atan,
  atan2: Math.atan2,
  sinh: Math.sinh,
  cosh: Math.cosh,
  tanh: Math.tanh,
  floor: Math.floor,
  ceil: Math.ceil,
  round: roundEven,
  trunc: Math.trunc,
  fract: (x) => x - Math.floor(x),
  saturate: (x) => Math.min(Math.max(x, 0), 1),
  step: (edge, x) => edge <= x ? 1 : 0,
  fma: (a, b, c) => a * b + c,
};

/** Rust's `to_degrees` / `to_radians` (naga's): one multiplication by a constant of the type. */
const SCALE: Readonly<Record<string, number>> = { degrees: 180 / Math.PI, radians: Math.PI / 180 };

function bits(c: Const): number {
  return Number(BigInt.asUintN(32, BigInt(c.value as number)));
}

/** The bit built-ins of one i32 or u32 (`x` its 32 bits unsigned): the result's bits. */
const BIT: Readonly<Record<string, (signed: boolean, x: number, ...rest: number[]) => number>> = {
  countOneBits: (_, x) => [...x.toString(2)].filter((b) => b === "1").length,
  countLeadingZeros: (_, x) => Math.clz32(x),
  countTrailingZeros: (_, x) => x === 0 ? 32 : 31 - Math.clz32(x & -x),
  firstTrailingBit: (_, x) => x === 0 ? -1 : 31 - Math.clz32(x & -x),
  firstLeadingBit: (signed, x) => {
    const b = signed && x >= 0x80000000 ? ~x >>> 0 : x;
    return b === 0 ? -1 : 31 - Math.clz32(b);
  },
  reverseBits: (_, x) => {
    let r = 0;
    for (let b = 0; b < 32; b++) r = r * 2 + ((x >>> b) & 1);
    return r;
  },
  extractBits: (signed, x, offset, count) => {
    const o = Math.min(offset, 32), c = Math.min(count, 32 - o);
    if (c === 0) return 0;
    const field = c === 32 ? x : (x >>> o) & ((1 << c) - 1) >>> 0;
    return signed && c < 32 && field & (1 << (c - 1)) ? field - 2 ** c : field;
  },
  insertBits: (_, x, newbits, offset, count) => {
    const o = Math.min(offset, 32), c = Math.min(count, 32 - o);
    if (c === 0) return x;
    const mask = c === 32 ? 0xffffffff : (((1 << c) - 1) << o) >>> 0;
    return ((x & ~mask) | ((newbits << o) & mask)) >>> 0;
  },
};

/** A conversion `f32(c)`, `i32(c)` or `u32(c)` of a constant (naga's). */
function cast(kind: "f32" | "i32" | "u32", c: Const): Const {
  const v = c.kind === "bool" ? (c.value ? 1 : 0) : Number(c.value);
  if (kind === "f32") {
    const value = c.kind === "int" ? intF32(c.value as bigint) : Math.fround(v);
    if (!Number.isFinite(value)) fail(`f32(${c.value}): no f32 holds it (refused by WGSL)`);
    return { kind, value };
  }
  if (c.kind === "int") return convert(c, kind);
  if (c.kind === "i32" || c.kind === "u32") {
    const x = BigInt(c.value as number);
    return { kind, value: Number(kind === "u32" ? BigInt.asUintN(32, x) : BigInt.asIntN(32, x)) };
  }
  if (c.kind === "bool") return { kind, value: v };
  // A float: truncated, NaN to 0, saturated (an abstract float to the type's range, an f32 to
  // the largest f32 in it).
  const [low, high] = kind === "i32"
    ? [-(2 ** 31), c.kind === "f32" ? 2147483520 : 2 ** 31 - 1]
    : [0, c.kind === "f32" ? 4294967040 : 2 ** 32 - 1];
  return { kind, value: Number.isNaN(v) ? 0 : Math.min(Math.max(Math.trunc(v), low), high) };
}

/** `name(args)` of constants, or `undefined` where it is not folded. */
export function foldCall(name: string, args: readonly Const[]): Const | undefined {
  if (name === "f32" || name === "i32" || name === "u32") {
    return args.length === 1 ? cast(name, args[0]) : undefined;
  }
  if (name === "select") {
    if (args.length !== 3) return undefined;
    const kind = unify([args[0].kind, args[1].kind]);
    const [f, t] = [convert(args[0], kind), convert(args[1], kind)]; // both must fit
    return args[2].value ? t : f;
  }
  if (args.some((a) => a.kind === "bool")) return undefined;
  const what = `${name}(${args.map((a) => a.value).join(", ")})`;
  if (name in BIT) {
    const kind: ConstKind = unify(args.slice(0, name === "insertBits" ? 2 : 1).map((a) => a.kind));
    const k = kind === "u32" ? "u32" : "i32";
    const [x, ...rest] = args.map((a, i) =>
      i < (name === "insertBits" ? 2 : 1) ? bits(convert(a, k)) : Number(convert(a, "u32").value)
    );
    const r = BIT[name](k === "i32", x, ...rest);
    return {
      kind: k,
      value: Number(k === "u32" ? BigInt.asUintN(32, BigInt(r)) : BigInt.asIntN(32, BigInt(r))),
    };
  }
  const kind = unify(args.map((a) => a.kind));
  const values = args.map((a) => convert(a, kind).value);
  if (name === "min" || name === "max" || name === "clamp") {
    const pick = (f: "min" | "max", a: number | bigint, b: number | bigint) =>
      (f === "min" ? b < a : b > a) ? b : a;
    if (name === "clamp" && values[1] > values[2]) {
      fail(`${what}: its low is above its high (refused by WGSL)`);
    }
    const value = name === "clamp"
      ? pick("min", pick("max", values[0] as number, values[1] as number), values[2] as number)
      : pick(name, values[0] as number, values[1] as number);
    return args.length === (name === "clamp" ? 3 : 2) ? { kind, value } : undefined;
  }
  if (name === "abs" || name === "sign") {
    if (args.length !== 1) return undefined;
    const v = values[0];
    if (kind === "int") {
      const b = v as bigint;
      const r = name === "abs" ? (b < 0n ? -b : b) : b > 0n ? 1n : b < 0n ? -1n : 0n;
      return { kind, value: BigInt.asIntN(64, r) }; // naga's abs(-2^63) wraps
    }
    const n = v as number;
    const r = name === "abs" ? Math.abs(n) : Math.sign(n);
    return { kind, value: kind === "i32" ? r | 0 : r };
  }
  const f = FLOAT[name];
  const scale = SCALE[name];
  if (f === undefined && scale === undefined) return undefined;
  if (kind === "i32" || kind === "u32") return undefined; // refused by the type checks
  const k: ConstKind = kind === "int" ? "float" : kind;
  const xs = args.map((a) => Number(convert(a, k).value));
  const r = f !== undefined ? f(...xs) : xs[0] * (k === "f32" ? Math.fround(scale) : scale);
  const value = k === "f32" ? Math.fround(r) : r;
  if (!Number.isFinite(value)) fail(`${what}: the constant is not finite (refused by WGSL)`);
  return { kind: k, value };
}
