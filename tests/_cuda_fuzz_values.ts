/**
 * Values of the differential fuzzer of the PTX interpreter (tests/cuda_ptx_fuzz_test.ts): the C
 * types a generated kernel computes in, a seeded PRNG, the edge values its inputs are drawn from,
 * and the exact conversions its CPU reference needs beyond tests/_cuda_float_ref.ts (64-bit
 * integers to floats in every rounding mode, floats to 64-bit integers, f64 arithmetic in every
 * rounding mode with IEEE's zeros and specials).
 *
 * @module
 */
import {
  bitsf32,
  f32bits,
  f64bits,
  type Mode,
  op64,
  round32,
  round64,
  scaled,
  scaled64,
} from "./_cuda_float_ref.ts";

/** The C types of the generated expressions. */
export type Ty = "u32" | "i32" | "f32" | "u64" | "i64" | "f64" | "bool";
/** A value in the reference: 32-bit integers and floats as numbers, 64-bit integers as bigints. */
export type V = number | bigint | boolean;
/** A result the reference cannot know (a NaN's payload or sign made visible): not compared. */
export type R = V | undefined;

/** The C spelling of each type. */
export const C_TYPE: Record<Ty, string> = {
  u32: "unsigned",
  i32: "int",
  f32: "float",
  u64: "unsigned long long",
  i64: "long long",
  f64: "double",
  bool: "bool",
};

/** A deterministic PRNG (mulberry32) from `seed`. */
export class Rng {
  #s: number;
  /** Starts the sequence at `seed`. */
  constructor(seed: number) {
    this.#s = seed >>> 0;
  }
  /** The next 32 random bits. */
  u32(): number {
    let t = (this.#s = (this.#s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor((this.u32() / 2 ** 32) * n);
  }
  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.u32() / 2 ** 32 < p;
  }
  /** One of `items`. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }
  /** 64 random bits. */
  u64(): bigint {
    return (BigInt(this.u32()) << 32n) | BigInt(this.u32());
  }
}

export const F32_EDGES: readonly number[] = [
  0,
  0x80000000,
  0x3f800000,
  0xbf800000,
  0x3f000000,
  0x3fc00000,
  0x40200000,
  0xc0200000,
  0x3effffff,
  0xbeffffff,
  0x7f800000,
  0xff800000,
  0x7fc00000,
  0xffc00001,
  0x7f800001,
  0x7fffffff,
  0x00000001,
  0x807fffff,
  0x00800000,
  0x7f7fffff,
  0xff7fffff,
  0x4f000000,
  0x4effffff,
  0xcf000000,
  0xcf000001,
  0x4f800000,
  0x4f7fffff,
  0x5f000000,
  0x5effffff,
  0xdf000000,
  0xdf000001,
  0x5f800000,
  0x4b800000,
  0x4b7fffff,
  0x4affffff,
  0x3eaaaaab,
  0x3dcccccd,
  0x00400000,
  0x0000000f,
  0x34000000,
  0xcb000001,
  0x4b000001,
  0x3f7fffff,
  0x3f800001,
  0x7e800000,
  0x00fffffe,
];
export const F64_EDGES: readonly number[] = [
  0,
  -0,
  NaN,
  Infinity,
  -Infinity,
  1,
  -1,
  0.5,
  1.5,
  2.5,
  -2.5,
  2 ** 63,
  2 ** 64,
  -(2 ** 63),
  2 ** 63 - 1024,
  2 ** 64 - 2048,
  -(2 ** 63) - 2048,
  4294967295.5,
  4294967296,
  2147483647.5,
  2147483648,
  -2147483648.5,
  -2147483649,
  2 ** -1074,
  2 ** -1022,
  Number.MAX_VALUE,
  1 / 3,
  3.4028235677973366e38,
  3.4028235677973362e38,
  1e39,
  1e-46,
  2 ** -149,
  2 ** -150,
  3 * 2 ** -151,
  1 + 2 ** -24,
  1 + 2 ** -24 + 2 ** -52,
  -(1 + 2 ** -24),
  2 ** 53 + 2,
  0.49999999999999994,
];
export const U32_EDGES: readonly number[] = [
  0,
  1,
  2,
  3,
  7,
  8,
  0x7fffffff,
  0x80000000,
  0x80000001,
  0xffffffff,
  0xfffffffe,
  31,
  32,
  33,
  63,
  64,
  0xffff,
  0x10000,
  0x00ffffff,
  0xff000000,
  0x01000001,
  0xdeadbeef,
  0x12345678,
  0x3210,
  0x7654,
  0xba98,
  0xfedc,
  0x5555,
  0x8000,
  0x1000000,
  0x2,
  0xfffffff9,
];
export const U64_EDGES: readonly bigint[] = [
  0n,
  1n,
  2n,
  0xffffffffffffffffn,
  0x8000000000000000n,
  0x7fffffffffffffffn,
  0x100000000n,
  0xffffffffn,
  0x80000000n,
  0x20000000000001n,
  0x1000001n,
  0xffffffff00000000n,
  63n,
  64n,
  65n,
  0x8000000000000001n,
  0xfffffffffffffffen,
  0xdeadbeefcafebaben,
];

/** An input u32: an edge value or random bits. */
export const genU32 = (
  r: Rng,
): number => (r.chance(0.55) ? r.pick(U32_EDGES) : r.chance(0.5) ? r.u32() : r.int(200));
/** An input f32 (as its bits): an edge, a small number, a halfway case or random bits. */
export function genF32(r: Rng): number {
  const k = r.int(10);
  if (k < 5) return r.pick(F32_EDGES);
  if (k < 7) return f32bits(Math.fround((r.int(64) - 32) / 2 ** r.int(4))); // small, halves
  if (k < 8) return f32bits(Math.fround((r.u32() / 2 ** 32 - 0.5) * 2 ** (r.int(80) - 20)));
  return r.u32();
}
/** An input f64. */
export function genF64(r: Rng): number {
  const k = r.int(10);
  if (k < 5) return r.pick(F64_EDGES);
  if (k < 7) return (r.int(64) - 32) / 2 ** r.int(4);
  if (k < 8) return bitsf32(genF32(r));
  if (k < 9) return (r.u32() / 2 ** 32 - 0.5) * 2 ** (r.int(140) - 40);
  const b = r.u64();
  const v = new Float64Array(new BigUint64Array([b]).buffer)[0];
  return v;
}
/** An input u64. */
export const genU64 = (r: Rng): bigint =>
  r.chance(0.5)
    ? r.pick(U64_EDGES)
    : r.chance(0.5)
    ? r.u64()
    : BigInt.asUintN(64, BigInt(r.int(400) - 200));

/** The 64-bit pattern a value of type `t` is stored as in the output (`undefined` unknown). */
export function outBits(t: Ty, v: R): bigint | undefined {
  if (v === undefined) return undefined;
  switch (t) {
    case "u32":
    case "i32":
      return BigInt((v as number) >>> 0);
    case "f32":
      return BigInt(f32bits(v as number));
    case "f64":
      return f64bits(v as number);
    case "bool":
      return v ? 1n : 0n;
    default:
      return BigInt.asUintN(64, v as bigint);
  }
}

const sg = (v: bigint) => (v > 0n ? 1 : v < 0n ? -1 : 0);

/** A 64-bit integer rounded to f32 as `mode`. */
export function bigToF32(b: bigint, mode: Mode): number {
  if (b === 0n) return 0;
  return round32(Number(b), (c) => sg(scaled(c) - (b << 300n)), mode);
}
/** A 64-bit integer rounded to f64 as `mode`. */
export function bigToF64(b: bigint, mode: Mode): number {
  if (b === 0n) return 0;
  return round64(Number(b), (X) => sg(X - (b << 1101n)), mode);
}

/**
 * A float to a 64-bit integer as `cvt.{rni,rzi,rpi,rmi}.{s64,u64}` does: rounded, saturated;
 * NaN `nan` (the value the reference assumes: see tests/cuda_ptx_fuzz_test.ts).
 */
export function toInt64(
  v: number,
  mode: Mode,
  signed: boolean,
  nan: bigint | undefined,
): bigint | undefined {
  if (Number.isNaN(v)) return nan;
  const lo = signed ? -(2n ** 63n) : 0n, hi = signed ? 2n ** 63n - 1n : 2n ** 64n - 1n;
  if (v === Infinity) return BigInt.asUintN(64, hi);
  if (v === -Infinity) return BigInt.asUintN(64, lo);
  const r = mode === "rz"
    ? Math.trunc(v)
    : mode === "ru"
    ? Math.ceil(v)
    : mode === "rd"
    ? Math.floor(v)
    : rint(v);
  const b = BigInt(r);
  return BigInt.asUintN(64, b < lo ? lo : b > hi ? hi : b);
}

/** Round to the nearest integer, ties to even, keeping the sign of a zero (`rint`). */
export function rint(x: number): number {
  if (!isFinite(x) || Math.abs(x) >= 2 ** 52) return x;
  const a = Math.abs(x), f = Math.floor(a), d = a - f;
  const r = d < 0.5 ? f : d > 0.5 ? f + 1 : f % 2 === 0 ? f : f + 1;
  return x < 0 || Object.is(x, -0) ? -r : r;
}
/** Round half away from zero, keeping the sign of a zero (`round`). */
export function roundAway(x: number): number {
  if (!isFinite(x) || Math.abs(x) >= 2 ** 52) return x;
  const a = Math.abs(x), t = Math.trunc(a), r = a - t >= 0.5 ? t + 1 : t;
  return x < 0 || Object.is(x, -0) ? -r : r;
}

/** f64 `op` rounded as `mode`, with IEEE's specials, zeros and exact cancellations. */
export function f64op(
  op: "add" | "mul" | "div" | "sqrt" | "fma",
  mode: Mode,
  x: number,
  y = 0,
  z = 0,
): number {
  const rn = op === "add"
    ? x + y
    : op === "mul"
    ? x * y
    : op === "div"
    ? x / y
    : op === "sqrt"
    ? Math.sqrt(x)
    : NaN;
  if (op === "fma") {
    if (!isFinite(x) || !isFinite(y) || !isFinite(z) || x === 0 || y === 0) {
      if (!isFinite(x) || !isFinite(y) || !isFinite(z)) {
        return isFinite(x) && isFinite(y) && !Number.isNaN(z) ? z : x * y + z; // x * y is finite
      }
      const p = x * y; // an exact zero
      if (z === 0) return Object.is(p, z) ? z : mode === "rd" ? -0 : 0;
      return z;
    }
    if (z === 0) return f64op("mul", mode, x, y);
    const exact = scaled64(x) * scaled64(y) + (scaled64(z) << 1101n);
    if (exact === 0n) return mode === "rd" ? -0 : 0;
    return op64("fma", mode, x, y, z);
  }
  if (mode === "rn" || Number.isNaN(rn)) return rn;
  if (op === "add") {
    if (!isFinite(x) || !isFinite(y)) return rn;
    if (x === 0 || y === 0) {
      return x === 0 && y === 0 ? (Object.is(x, y) ? x : mode === "rd" ? -0 : 0) : x === 0 ? y : x;
    }
    if (x === -y) return mode === "rd" ? -0 : 0;
    return op64("add", mode, x, y);
  }
  if (op === "sqrt") return !(x > 0) || x === Infinity ? rn : op64("sqrt", mode, x);
  if (!isFinite(x) || !isFinite(y) || x === 0 || y === 0) return rn;
  return op64(op, mode, x, y);
}
