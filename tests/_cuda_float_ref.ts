/**
 * Correctly rounded f32 results in every IEEE rounding mode, for the CPU references of
 * tests/cuda_user_kernels_4_test.ts: a result is found from a double near it and an exact
 * comparison of any double with the true value (BigInt arithmetic), so no double rounding.
 *
 * @module
 */

/** PTX's rounding modes of float results. */
export type Mode = "rn" | "rz" | "ru" | "rd";

const view = new DataView(new ArrayBuffer(8));
/** The bits of an f32. */
export const f32bits = (x: number): number => (view.setFloat32(0, x), view.getUint32(0));
/** The f32 with these bits. */
export const bitsf32 = (b: number): number => (view.setUint32(0, b >>> 0), view.getFloat32(0));
/** The next f32 up (toward +inf). */
export function nextUp(f: number): number {
  if (Object.is(f, -0) || f === 0) return bitsf32(1);
  const b = f32bits(f);
  return bitsf32(f > 0 ? b + 1 : b - 1);
}
/** The next f32 down (toward -inf). */
export const nextDown = (f: number): number => -nextUp(-f);

const S = 300n; // every value compared is a multiple of 2^-300
/** A finite double times 2^300, exactly. */
export function scaled(c: number): bigint {
  if (c === 0) return 0n;
  view.setFloat64(0, c);
  const hi = view.getUint32(0), lo = view.getUint32(4);
  const e = (hi >>> 20) & 0x7ff;
  let m = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let exp = e - 1075;
  if (e) m |= 1n << 52n;
  else exp = -1074;
  const shift = BigInt(exp) + S;
  const v = shift >= 0n ? m << shift : m >> -shift; // (never inexact for the values compared)
  return c < 0 ? -v : v;
}
const sign = (v: bigint) => (v > 0n ? 1 : v < 0n ? -1 : 0);

/**
 * The f32 that `mode` rounds the true value to, given a double `near` it and `cmp(c)`: the sign
 * of c minus the true value, exact, for any double c (f32 values and their midpoints).
 */
export function round32(near: number, cmp: (c: number) => number, mode: Mode): number {
  const MAX = bitsf32(0x7f7fffff);
  let lo = Math.fround(near);
  if (lo === Infinity) lo = MAX;
  if (lo === -Infinity) lo = -Infinity;
  while (lo !== -Infinity && cmp(lo) > 0) lo = lo === -MAX ? -Infinity : nextDown(lo);
  if (lo !== -Infinity && cmp(lo) === 0) return lo;
  const hi = lo === MAX ? Infinity : lo === -Infinity ? -MAX : nextUp(lo);
  if (mode === "rd") return lo;
  if (mode === "ru") return hi;
  const positive = cmp(0) < 0;
  if (mode === "rz") return positive ? (hi === Infinity ? MAX : lo) : lo === -Infinity ? -MAX : hi;
  const mid = lo === -Infinity
    ? -(2 ** 128) + 2 ** 103
    : hi === Infinity
    ? 2 ** 128 - 2 ** 103
    : (lo + hi) / 2;
  const c = cmp(mid);
  if (c > 0) return lo;
  if (c < 0) return hi;
  return (f32bits(lo) & 1) === 0 || hi === Infinity ? (hi === Infinity ? Infinity : lo) : hi;
}

/** `x + y` (`y` negated for a subtraction) rounded as `mode`, IEEE zeros and specials included. */
export function add(x: number, y: number, mode: Mode): number {
  if (!isFinite(x) || !isFinite(y)) return x + y;
  const exact = scaled(x) + scaled(y);
  if (exact === 0n) return x === 0 && y === 0 && Object.is(x, y) ? x : mode === "rd" ? -0 : 0;
  return round32(x + y, (c) => sign(scaled(c) - exact), mode);
}
/** `x * y` rounded as `mode`. */
export function mul(x: number, y: number, mode: Mode): number {
  if (!isFinite(x) || !isFinite(y) || x === 0 || y === 0) return Math.fround(x * y);
  const exact = (scaled(x) * scaled(y)) >> S;
  return round32(x * y, (c) => sign(scaled(c) - exact), mode);
}
/** `fma(x, y, z)` rounded once as `mode`. */
export function fma(x: number, y: number, z: number, mode: Mode): number {
  if (!isFinite(x) || !isFinite(y) || !isFinite(z)) return x * y + z;
  const exact = scaled(x) * scaled(y) + (scaled(z) << S);
  if (exact === 0n) {
    const p = x * y; // exact in double: its sign is the product's
    return p === 0 && z === 0 && Object.is(p, z) ? z : mode === "rd" ? -0 : 0;
  }
  return round32(x * y + z, (c) => sign((scaled(c) << S) - exact), mode);
}
/** `x / y` rounded as `mode`. */
export function div(x: number, y: number, mode: Mode): number {
  if (!isFinite(x) || !isFinite(y) || x === 0 || y === 0) return Math.fround(x / y);
  const sx = scaled(x), sy = scaled(y), sy0 = sign(sy);
  return round32(x / y, (c) => sign(scaled(c) * sy - (sx << S)) * sy0, mode);
}
/** `sqrt(x)` rounded as `mode`. */
export function sqrt(x: number, mode: Mode): number {
  if (!(x > 0) || x === Infinity) return Math.sqrt(x);
  const sx = scaled(x) << S;
  return round32(Math.sqrt(x), (c) => (c < 0 ? -1 : sign(scaled(c) * scaled(c) - sx)), mode);
}
/** A double (or an integer exact in one) rounded to f32 as `mode`. */
export function narrow(d: number, mode: Mode): number {
  if (!isFinite(d) || d === 0) return Math.fround(d);
  return round32(d, (c) => Math.sign(c - d), mode);
}

/** A float converted to a `bits`-bit integer as PTX's `cvt.{rni,rzi,rpi,rmi}` does: saturated, NaN 0. */
export function toInt(v: number, mode: Mode, signed: boolean): number {
  if (Number.isNaN(v)) return 0;
  const r = mode === "rz"
    ? Math.trunc(v)
    : mode === "ru"
    ? Math.ceil(v)
    : mode === "rd"
    ? Math.floor(v)
    : roundEven(v);
  const lo = signed ? -(2 ** 31) : 0, hi = signed ? 2 ** 31 - 1 : 2 ** 32 - 1;
  return Math.min(Math.max(r, lo), hi) >>> 0;
}
const roundEven = (v: number) => {
  const f = Math.floor(v), d = v - f;
  return d < 0.5 ? f : d > 0.5 ? f + 1 : f % 2 === 0 ? f : f + 1;
};

const view64 = new DataView(new ArrayBuffer(8));
/** The bits of a double. */
export const f64bits = (x: number): bigint => (view64.setFloat64(0, x), view64.getBigUint64(0));
const bitsf64 = (b: bigint) => (view64.setBigUint64(0, b), view64.getFloat64(0));
const up64 = (f: number): number =>
  f === 0
    ? bitsf64(1n)
    : f === -Infinity
    ? -Number.MAX_VALUE
    : f > 0
    ? bitsf64(f64bits(f) + 1n)
    : bitsf64(f64bits(f) - 1n);
const down64 = (f: number): number => -up64(-f);
const S64 = 1101n; // doubles and their midpoints are multiples of 2^-1101
/** A finite double times 2^1101, exactly. */
export function scaled64(c: number): bigint {
  if (c === 0) return 0n;
  const b = f64bits(Math.abs(c)), e = Number(b >> 52n);
  const m = e ? (b & (2n ** 52n - 1n)) | (1n << 52n) : b & (2n ** 52n - 1n);
  const v = m << (BigInt(e ? e - 1075 : -1074) + S64);
  return c < 0 ? -v : v;
}

/**
 * The double that `mode` rounds a true value to, given a double `near` it and `cmp(X)`: the
 * sign of X / 2^1101 minus the true value, for X an exact BigInt.
 */
export function round64(near: number, cmp: (X: bigint) => number, mode: Mode): number {
  const c = (f: number) => (f === Infinity ? 1 : f === -Infinity ? -1 : cmp(scaled64(f)));
  let lo = near;
  while (c(lo) > 0) lo = down64(lo);
  while (lo !== Number.MAX_VALUE && c(up64(lo)) <= 0) lo = up64(lo);
  if (c(lo) === 0) return lo;
  const hi = up64(lo);
  if (mode === "rd") return lo;
  if (mode === "ru") return hi;
  if (mode === "rz") return c(0) < 0 ? (hi === Infinity ? Number.MAX_VALUE : lo) : hi;
  const m = hi === Infinity ? 2n * scaled64(lo) + 2n ** (971n + S64) : scaled64(lo) + scaled64(hi);
  const t = cmp(m / 2n); // (lo + hi) / 2: a multiple of 2^-1075, exact at this scale
  return t > 0 ? lo : t < 0 ? hi : (f64bits(lo) & 1n) === 0n ? lo : hi;
}

/** f64 `op` of finite nonzero operands rounded as `mode` (fma: x * y + z). */
export function op64(
  op: "add" | "mul" | "div" | "sqrt" | "fma",
  mode: Mode,
  x: number,
  y = 0,
  z = 0,
): number {
  const sx = scaled64(x), sy = scaled64(y), sz = scaled64(z);
  const sg = (v: bigint) => (v > 0n ? 1 : v < 0n ? -1 : 0);
  switch (op) {
    case "add":
      return round64(x + y, (X) => sg(X - sx - sy), mode);
    case "mul":
      return round64(x * y, (X) => sg((X << S64) - sx * sy), mode);
    case "div":
      return round64(x / y, (X) => sg(X * sy - (sx << S64)) * sg(sy), mode);
    case "sqrt":
      return round64(Math.sqrt(x), (X) => (X < 0n ? -1 : sg(X * X - (sx << S64))), mode);
    case "fma": {
      const exact = sx * sy + (sz << S64); // at scale 2^2202: x * y + z may cancel far below it
      return round64(toNumber(exact, 2n * S64), (X) => sg((X << S64) - exact), mode);
    }
  }
}

/** A double within a few ulp of `v` / 2^`scale`. */
function toNumber(v: bigint, scale: bigint): number {
  if (v < 0n) return -toNumber(-v, scale);
  const shift = BigInt(Math.max(0, v.toString(2).length - 60));
  const e = Number(shift - scale), top = Number(v >> shift);
  return top * 2 ** Math.trunc(e / 2) * 2 ** (e - Math.trunc(e / 2));
}
