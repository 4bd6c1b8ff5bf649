/**
 * More operations of the PTX fuzzer (tests/cuda_ptx_fuzz_test.ts): CUDA's SIMD intrinsics on
 * bytes and halfwords (`__vadd4`, `__vabsdiffu2`, `__vsadu4`, saturating and compare forms), the
 * dot products `__dp4a`/`__dp2a_*`, the exact f32/f64 functions `ilogbf`, `nextafterf`, `fmod`, and
 * the 32-bit halves of a double (`__double2hiint`, `__hiloint2double`), with CPU references.
 *
 * @module
 */
import { bitsf32, f32bits, f64bits } from "./_cuda_float_ref.ts";
import type { Op } from "./_cuda_fuzz_ops_int.ts";
import type { Ty } from "./_cuda_fuzz_values.ts";

const op = (name: string, ret: Ty, args: Ty[], c: Op["c"], ref: Op["ref"]): Op => ({ name, ret, args, c, ref });

/** `f` applied lane by lane to `w`-bit lanes of `a` and `b` (lanes as unsigned or signed). */
function lanes(a: number, b: number, w: 8 | 16, signed: boolean, f: (x: number, y: number) => number): number {
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
    op(`__v${name}${n}`, "u32", ["u32", "u32"], (a, b) => `__v${name}${n}(${a}, ${b})`, (a, b) => lanes(a, b, w, signed, f));
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
    op(`__vabsss${n}`, "u32", ["u32"], (a) => `__vabsss${n}(${a})`, (a) => lanes(a, 0, w, true, (x) => Math.min(Math.abs(x), smax))),
    op(`__vneg${n}`, "u32", ["u32"], (a) => `__vneg${n}(${a})`, (a) => lanes(a, 0, w, true, (x) => -x)),
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
 * `min.s16x2`...). Not `__vabsdiffu2`, `__vabsdiffs2`, `__vsadu2`: their `vabsdiff2` (the two-lane video
 * instructions) the simulator refuses at load.
 */
export const SIMD2_OPS: Op[] = simd(16).filter((o) => !/absdiff|sadu/.test(o.name));

/** The more operations. */
export const MORE_OPS: Op[] = [
  ...simd(8),
  op("__dp4a.s32", "i32", ["i32", "i32", "i32"], (a, b, c) => `__dp4a(${a}, ${b}, ${c})`, (a, b, c) => {
    let s = c;
    for (let i = 0; i < 4; i++) s += sbyte(a, i) * sbyte(b, i);
    return s | 0;
  }),
  op("__dp4a.u32", "u32", ["u32", "u32", "u32"], (a, b, c) => `__dp4a(${a}, ${b}, ${c})`, (a, b, c) => {
    let s = c;
    for (let i = 0; i < 4; i++) s += ubyte(a, i) * ubyte(b, i);
    return s >>> 0;
  }),
  ...(["lo", "hi"] as const).map((h) =>
    op(`__dp2a_${h}.s32`, "i32", ["i32", "i32", "i32"], (a, b, c) => `__dp2a_${h}(${a}, ${b}, ${c})`, (a, b, c) => {
      const k = h === "lo" ? 0 : 2;
      return (c + shalf(a, 0) * sbyte(b, k) + shalf(a, 1) * sbyte(b, k + 1)) | 0;
    })
  ),
  op("ilogbf", "i32", ["f32"], (a) => `ilogbf(${a})`, (a) => ilogb(a)),
  op("nextafterf", "f32", ["f32", "f32"], (a, b) => `nextafterf(${a}, ${b})`, (a, b) => nextafter(a, b)),
  op("fmod", "f64", ["f64", "f64"], (a, b) => `fmod(${a}, ${b})`, (a, b) => a % b),
  op("__double2hiint", "i32", ["f64"], (a) => `__double2hiint(${a})`, (a) => (Number.isNaN(a) ? undefined : Number(f64bits(a) >> 32n) | 0)),
  op("__double2loint", "i32", ["f64"], (a) => `__double2loint(${a})`, (a) => (Number.isNaN(a) ? undefined : Number(f64bits(a) & 0xffffffffn) | 0)),
  op("__hiloint2double", "f64", ["i32", "i32"], (a, b) => `__hiloint2double(${a}, ${b})`, (a, b) =>
    new Float64Array(new Uint32Array([b >>> 0, a >>> 0]).buffer)[0]),
];
