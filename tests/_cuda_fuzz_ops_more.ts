/**
 * More operations of the PTX fuzzer (tests/cuda_ptx_fuzz_test.ts): CUDA's SIMD intrinsics on
 * bytes and halfwords (`__vadd4`, `__vabsdiffu2`, `__vsadu4`, saturating and compare forms), the
 * dot products `__dp4a`/`__dp2a_*`, the exact f32/f64 functions `ilogbf`, `nextafterf`, `fmod`, and
 * the 32-bit halves of a double (`__double2hiint`, `__hiloint2double`), with CPU references.
 *
 * @module
 */
import { bitsf32, f32bits, f64bits, nextDown, nextUp, scaled } from "./_cuda_float_ref.ts";
import { f64op, rint, roundAway } from "./_cuda_fuzz_values.ts";
import type { Op } from "./_cuda_fuzz_ops_int.ts";
import type { Ty } from "./_cuda_fuzz_values.ts";

const op = (name: string, ret: Ty, args: Ty[], c: Op["c"], ref: Op["ref"]): Op => ({
  name,
  ret,
  args,
  c,
  ref,
});

/** `f` applied lane by lane to `w`-bit lanes of `a` and `b` (lanes as unsigned or signed). */
function lanes(
  a: number,
  b: number,
  w: 8 | 16,
  signed: boolean,
  f: (x: number, y: number) => number,
): number {
  let r = 0;
  const m = (1 << w) - 1;
  for (let i = 0; i < 32; i += w) {
    let x = (a >>> i) & m, y = (b >>> i) & m;
    if (signed) x = (x << (32 - w)) >> (32 - w), y = (y << (32 - w)) >> (32 - w);
    r |= (f(x, y) & m) << i;
  }
  return r >>> 0;
}
const clamp = (v: number, lo: number, hi: number) => Math.min(Math.max(v, lo), hi);

/** The SIMD intrinsics of one lane width. */
function simd(w: 8 | 16): Op[] {
  const n = w === 8 ? 4 : 2, max = (1 << w) - 1, smax = (1 << (w - 1)) - 1, smin = -(1 << (w - 1));
  const v = (name: string, signed: boolean, f: (x: number, y: number) => number): Op =>
    op(
      `__v${name}${n}`,
      "u32",
      ["u32", "u32"],
      (a, b) => `__v${name}${n}(${a}, ${b})`,
      (a, b) => lanes(a, b, w, signed, f),
    );
  const ones = max; // a compare's true lane
  return [
    v("add", false, (x, y) => x + y),
    v("sub", false, (x, y) => x - y),
    v("absdiffu", false, (x, y) => Math.abs(x - y)),
    v("absdiffs", true, (x, y) => Math.abs(x - y)),
    v("avgu", false, (x, y) => (x + y + 1) >> 1),
    v("avgs", true, (x, y) => Math.floor((x + y + (x + y >= 0 ? 1 : 0)) / 2) + 0),
    v("hadd" + "u", false, (x, y) => (x + y) >> 1),
    v("maxu", false, Math.max),
    v("minu", false, Math.min),
    v("maxs", true, Math.max),
    v("mins", true, Math.min),
    v("addus", false, (x, y) => Math.min(x + y, max)),
    v("addss", true, (x, y) => clamp(x + y, smin, smax)),
    v("subus", false, (x, y) => Math.max(x - y, 0)),
    v("subss", true, (x, y) => clamp(x - y, smin, smax)),
    v("cmpeq", false, (x, y) => (x === y ? ones : 0)),
    v("cmpne", false, (x, y) => (x !== y ? ones : 0)),
    v("cmpgtu", false, (x, y) => (x > y ? ones : 0)),
    v("cmples", true, (x, y) => (x <= y ? ones : 0)),
    v("setgeu", false, (x, y) => (x >= y ? 1 : 0)),
    v("setlts", true, (x, y) => (x < y ? 1 : 0)),
    op(`__vsadu${n}`, "u32", ["u32", "u32"], (a, b) => `__vsadu${n}(${a}, ${b})`, (a, b) => {
      let s = 0;
      lanes(a, b, w, false, (x, y) => (s += Math.abs(x - y), 0));
      return s;
    }),
    op(
      `__vabsss${n}`,
      "u32",
      ["u32"],
      (a) => `__vabsss${n}(${a})`,
      (a) => lanes(a, 0, w, true, (x) => Math.min(Math.abs(x), smax)),
    ),
    op(
      `__vneg${n}`,
      "u32",
      ["u32"],
      (a) => `__vneg${n}(${a})`,
      (a) => lanes(a, 0, w, true, (x) => -x),
    ),
  ];
}

const sbyte = (v: number, i: number) => (v << (24 - 8 * i)) >> 24;
const ubyte = (v: number, i: number) => (v >>> (8 * i)) & 0xff;
const shalf = (v: number, i: number) => (v << (16 - 16 * i)) >> 16;

/** floor(log2 |x|) of a finite nonzero f32, exact (subnormals included). */
function ilogb(x: number): number {
  if (Number.isNaN(x) || x === 0) return -(2 ** 31);
  if (!isFinite(x)) return 2 ** 31 - 1;
  const e = (f32bits(x) >>> 23) & 0xff;
  if (e) return e - 127;
  return 31 - Math.clz32(f32bits(x) & 0x7fffff) - 149;
}

/** `nextafterf(x, y)`. */
function nextafter(x: number, y: number): number {
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN;
  if (x === y) return y;
  if (x === 0) return y > 0 ? bitsf32(1) : bitsf32(0x80000001);
  const b = f32bits(x);
  return bitsf32((x < y) === (x > 0) ? b + 1 : b - 1);
}

/**
 * The SIMD intrinsics on halfwords (`__vadd2`...; on sm_90 NVRTC writes `add.u16x2`,
 * `min.s16x2`..., and for `__vsadu2` the two-lane video `vabsdiff2.u32.u32.u32.add`).
 */
export const SIMD2_OPS: Op[] = simd(16);

/** Device functions the operations below call (at the top of each kernel). */
export const PRELUDE = `__device__ int frexp_e(float a) { int e; frexpf(a, &e); return e; }
__device__ float frexp_m(float a) { int e; return frexpf(a, &e); }
__device__ float modf_i(float a) { float i; modff(a, &i); return i; }
__device__ float modf_f(float a) { float i; return modff(a, &i); }
`;

const sgn = (v: bigint) => (v > 0n ? 1 : v < 0n ? -1 : 0);
/** remainderf: x - n * y, n the integer nearest x / y (ties to even), exact. */
function remainder(x: number, y: number): number {
  if (Number.isNaN(x) || Number.isNaN(y) || !isFinite(x) || y === 0) return NaN;
  if (!isFinite(y) || x === 0) return x;
  const X = scaled(x), Y = scaled(y);
  let n = X / Y; // truncated
  const r2 = 2n * (X - n * Y), a = r2 < 0n ? -r2 : r2, b = Y < 0n ? -Y : Y;
  const dir = BigInt(sgn(X) * sgn(Y));
  if (a > b || (a === b && (n & 1n) !== 0n)) n += dir;
  const r = X - n * Y;
  if (r === 0n) return x < 0 || Object.is(x, -0) ? -0 : 0;
  return Number(r) * 2 ** -300;
}
/** The f32 nearest 1 / sqrt(x) (no ties: a midpoint's square is never 1 / x). */
function rsqrt(x: number): number {
  if (Number.isNaN(x) || x < 0) return NaN;
  if (x === 0) return Object.is(x, -0) ? -Infinity : Infinity;
  if (x === Infinity) return 0;
  const X = scaled(x);
  // m below the true value when m^2 x < 1: compare m^2 * x with 1 at scale 2^900
  const below = (m: number) => scaled(m) * scaled(m) * X < 1n << 900n;
  let c = Math.fround(1 / Math.sqrt(x));
  for (;;) {
    const lo = (nextDown(c) + c) / 2, hi = (c + nextUp(c)) / 2;
    if (!below(lo)) c = nextDown(c);
    else if (below(hi)) c = nextUp(c);
    else return c;
  }
}
/** `__fns(mask, base, offset)` (PTX ISA `fns` pseudocode), base below 32. */
function fns(mask: number, base: number, offset: number): number {
  if (offset === 0) return (mask >>> base) & 1 ? base : 0xffffffff;
  let count = Math.abs(offset) - 1;
  for (let pos = base; pos >= 0 && pos < 32; pos += offset > 0 ? 1 : -1) {
    if ((mask >>> pos) & 1) {
      if (count === 0) return pos;
      count--;
    }
  }
  return 0xffffffff;
}
const finite = (f: (a: number) => number) => (a: number) => (isFinite(a) ? f(a) : undefined);
const i64 = (v: number) => (Math.abs(v) < 2 ** 63 ? BigInt(v) : undefined);

/** The exact functions of CUDA's math library (0 ulp in its tables) and `__fns`. */
export const EXACT_OPS: Op[] = [
  op("remainderf", "f32", ["f32", "f32"], (a, b) => `remainderf(${a}, ${b})`, remainder),
  op("nearbyintf", "f32", ["f32"], (a) => `nearbyintf(${a})`, rint),
  op(
    "scalbnf",
    "f32",
    ["f32", "u32"],
    (a, n) => `scalbnf(${a}, (int)(${n} & 511u) - 256)`,
    (a, n) => Math.fround(a * 2 ** ((n & 511) - 256)),
  ),
  op(
    "logbf",
    "f32",
    ["f32"],
    (a) => `logbf(${a})`,
    (a) =>
      Number.isNaN(a)
        ? NaN
        : a === 0
        ? -Infinity
        : !isFinite(a)
        ? Infinity
        : Math.floor(Math.log2(Math.abs(a))),
  ),
  op(
    "frexpf.e",
    "i32",
    ["f32"],
    (a) => `frexp_e(${a})`,
    finite((a) => (a === 0 ? 0 : Math.floor(Math.log2(Math.abs(a))) + 1)),
  ),
  op(
    "frexpf.m",
    "f32",
    ["f32"],
    (a) => `frexp_m(${a})`,
    finite((a) => (a === 0 ? a : a / 2 ** (Math.floor(Math.log2(Math.abs(a))) + 1))),
  ),
  op("modff.i", "f32", ["f32"], (a) => `modf_i(${a})`, (a) => Math.trunc(a)),
  op(
    "modff.f",
    "f32",
    ["f32"],
    (a) => `modf_f(${a})`,
    (a) =>
      Number.isNaN(a)
        ? NaN
        : !isFinite(a) || a === Math.trunc(a)
        ? (a < 0 || Object.is(a, -0) ? -0 : 0)
        : a - Math.trunc(a),
  ),
  op("llrintf", "i64", ["f32"], (a) => `llrintf(${a})`, (a) => i64(rint(a))),
  op("llroundf", "i64", ["f32"], (a) => `llroundf(${a})`, (a) => i64(roundAway(a))),
  op("__frsqrt_rn", "f32", ["f32"], (a) => `__frsqrt_rn(${a})`, rsqrt),
  ...(["rn", "rz", "ru", "rd"] as const).map((m) =>
    op(`rcp.${m}.f64`, "f64", ["f64"], (a) => `__drcp_${m}(${a})`, (a) => f64op("div", m, 1, a))
  ),
  op(
    "__fns",
    "u32",
    ["u32", "u32", "i32"],
    (a, b, c) => `__fns(${a}, ${b} & 31u, ${c} % 40)`,
    (a, b, c) => fns(a, b & 31, c % 40),
  ),
];

/** The more operations. */
export const MORE_OPS: Op[] = [
  ...EXACT_OPS,
  ...simd(8),
  op(
    "__dp4a.s32",
    "i32",
    ["i32", "i32", "i32"],
    (a, b, c) => `__dp4a(${a}, ${b}, ${c})`,
    (a, b, c) => {
      let s = c;
      for (let i = 0; i < 4; i++) s += sbyte(a, i) * sbyte(b, i);
      return s | 0;
    },
  ),
  op(
    "__dp4a.u32",
    "u32",
    ["u32", "u32", "u32"],
    (a, b, c) => `__dp4a(${a}, ${b}, ${c})`,
    (a, b, c) => {
      let s = c;
      for (let i = 0; i < 4; i++) s += ubyte(a, i) * ubyte(b, i);
      return s >>> 0;
    },
  ),
  ...(["lo", "hi"] as const).map((h) =>
    op(
      `__dp2a_${h}.s32`,
      "i32",
      ["i32", "i32", "i32"],
      (a, b, c) => `__dp2a_${h}(${a}, ${b}, ${c})`,
      (a, b, c) => {
        const k = h === "lo" ? 0 : 2;
        return (c + shalf(a, 0) * sbyte(b, k) + shalf(a, 1) * sbyte(b, k + 1)) | 0;
      },
    )
  ),
  op("ilogbf", "i32", ["f32"], (a) => `ilogbf(${a})`, (a) => ilogb(a)),
  op(
    "nextafterf",
    "f32",
    ["f32", "f32"],
    (a, b) => `nextafterf(${a}, ${b})`,
    (a, b) => nextafter(a, b),
  ),
  op("fmod", "f64", ["f64", "f64"], (a, b) => `fmod(${a}, ${b})`, (a, b) => a % b),
  op(
    "__double2hiint",
    "i32",
    ["f64"],
    (a) => `__double2hiint(${a})`,
    (a) => (Number.isNaN(a) ? undefined : Number(f64bits(a) >> 32n) | 0),
  ),
  op(
    "__double2loint",
    "i32",
    ["f64"],
    (a) => `__double2loint(${a})`,
    (a) => (Number.isNaN(a) ? undefined : Number(f64bits(a) & 0xffffffffn) | 0),
  ),
  op(
    "__hiloint2double",
    "f64",
    ["i32", "i32"],
    (a, b) => `__hiloint2double(${a}, ${b})`,
    (a, b) => new Float64Array(new Uint32Array([b >>> 0, a >>> 0]).buffer)[0],
  ),
];
