/**
 * Half-precision operations of the PTX fuzzer (tests/cuda_ptx_fuzz_test.ts), as user kernels
 * write them in inline PTX (this NVRTC has no `<cuda_fp16.h>`): `add sub mul fma` on `.f16`
 * (with `.sat` and `.ftz`), `.f16x2`, `.bf16`, and `cvt` between f32 and `.f16`/`.bf16` in every
 * rounding mode. A value is a `u32` holding the bits (one half in the low 16 bits, or two). The
 * reference rounds the exact result (a BigInt) once, as the PTX ISA says; a NaN result is not
 * compared (its bits are the device's canonical NaN, not modelled here).
 *
 * @module
 */
import { f32bits, type Mode, scaled } from "./_cuda_float_ref.ts";
import type { Op } from "./_cuda_fuzz_ops_int.ts";

/** A binary16-like format: significand bits (with the implicit one), exponent bits. */
interface Fmt {
  readonly p: number;
  readonly ebits: number;
}
const F16: Fmt = { p: 11, ebits: 5 }, BF16: Fmt = { p: 8, ebits: 8 };
const bias = (f: Fmt) => (1 << (f.ebits - 1)) - 1;

/** The value of 16-bit `bits` in `f` (exact in a double). */
export function decode(bits: number, f: Fmt): number {
  const s = bits & 0x8000 ? -1 : 1,
    e = (bits >>> (f.p - 1)) & ((1 << f.ebits) - 1),
    m = bits & ((1 << (f.p - 1)) - 1);
  if (e === (1 << f.ebits) - 1) return m ? NaN : s * Infinity;
  return s *
    (e ? (m + 2 ** (f.p - 1)) * 2 ** (e - bias(f) - f.p + 1) : m * 2 ** (1 - bias(f) - f.p + 1));
}

/** `num / 2^scale` (exact, nonzero) rounded to `f` as `mode`: its 16 bits. */
export function round16(num: bigint, scale: number, f: Fmt, mode: Mode): number {
  const neg = num < 0n, m = neg ? -num : num, sign = neg ? 0x8000 : 0;
  const emin = 1 - bias(f), emax = bias(f);
  const e = m.toString(2).length - 1 - scale;
  const q = Math.max(e, emin) - (f.p - 1), k = scale + q; // the ulp is 2^q
  let units = k <= 0 ? m << BigInt(-k) : m >> BigInt(k);
  const rem = k <= 0 ? 0n : m - (units << BigInt(k)), half = k <= 0 ? 0n : 1n << BigInt(k - 1);
  const up = mode === "rn"
    ? rem > half || (rem === half && rem > 0n && (units & 1n) === 1n)
    : mode === "ru"
    ? rem > 0n && !neg
    : mode === "rd"
    ? rem > 0n && neg
    : false;
  if (up) units++;
  let qq = q;
  while (units >= 1n << BigInt(f.p)) units >>= 1n, qq++;
  const inf = sign | (((1 << f.ebits) - 1) << (f.p - 1));
  if (qq + f.p - 1 > emax) { // overflow: infinity or the largest finite value, as the mode rounds
    const toInf = mode === "rn" || (mode === "ru" && !neg) || (mode === "rd" && neg);
    return toInf ? inf : inf - 1;
  }
  if (units < 1n << BigInt(f.p - 1)) return sign | Number(units); // subnormal (or zero)
  return sign | ((qq + f.p - 1 + bias(f)) << (f.p - 1)) | Number(units - (1n << BigInt(f.p - 1)));
}

type Kind = "add" | "sub" | "mul" | "fma";
/** `kind` of 16-bit `a`, `b`, `c` in `f`: the result bits, `undefined` for a NaN. */
function arith(
  kind: Kind,
  f: Fmt,
  a: number,
  b: number,
  c: number,
  mode: Mode,
  sat: boolean,
  ftz: boolean,
): number | undefined {
  const flush = (
    v: number,
  ) => (ftz && v !== 0 && Math.abs(v) < 2 ** (1 - bias(f)) ? (v < 0 ? -0 : 0) : v);
  const x = flush(decode(a, f)), y0 = flush(decode(b, f)), z = flush(decode(c, f));
  const y = kind === "sub" ? -y0 : y0;
  let bits: number;
  const approx = kind === "mul" ? x * y : kind === "fma" ? x * y + z : x + y;
  if (Number.isNaN(approx)) return sat ? 0 : undefined; // .sat: a NaN result is +0
  if (!isFinite(x) || !isFinite(y) || (kind === "fma" && !isFinite(z))) {
    bits = approx > 0 ? round16(1n, -200, f, "rn") : round16(-1n, -200, f, "rn"); // an infinity
  } else {
    const exact = kind === "mul"
      ? scaled(x) * scaled(y)
      : kind === "fma"
      ? scaled(x) * scaled(y) + (scaled(z) << 300n)
      : (scaled(x) + scaled(y)) << 300n; // all at scale 2^600
    if (exact === 0n) {
      const neg = (v: number) => v < 0 || Object.is(v, -0);
      const pNeg = neg(x) !== neg(y), pZero = x === 0 || y === 0; // the product's sign, whether 0
      const negZero = kind === "mul"
        ? pNeg
        : kind === "fma"
        ? pZero && z === 0 && pNeg && neg(z)
        : x === 0 && y === 0 && neg(x) && neg(y);
      bits = negZero ? 0x8000 : 0;
    } else {
      bits = round16(exact, 600, f, mode);
    }
  }
  if (ftz && (bits & 0x7fff) !== 0 && ((bits >>> (f.p - 1)) & ((1 << f.ebits) - 1)) === 0) {
    bits &= 0x8000;
  }
  if (sat) {
    const v = decode(bits, f);
    if (Object.is(v, -0)) return undefined; // (the sign of a clamped -0: not modelled)
    if (v < 0) return 0;
    if (v > 1) return (bias(f) << (f.p - 1)); // 1.0
  }
  return bits;
}

const op = (name: string, args: number, c: Op["c"], ref: Op["ref"]): Op => ({
  name,
  ret: "u32",
  args: Array(args).fill("u32"),
  c,
  ref,
});
const fn = (name: string) => `h_${name.replace(/\./g, "_")}`;
const asm16 = (name: string, n: number) => {
  const params = ["a", "b", "c"].slice(0, n);
  return `__device__ unsigned ${fn(name)}(${
    params.map((p) => `unsigned ${p}`).join(", ")
  }) { unsigned short r; ` +
    `asm("${name} %0, ${params.map((_, i) => `%${i + 1}`).join(", ")};" : "=h"(r) : ${
      params.map((p) => `"h"((unsigned short)${p})`).join(", ")
    }); return r; }`;
};
const asm32 = (name: string, n: number, out = "r", inp = "r") => {
  const params = ["a", "b", "c"].slice(0, n);
  return `__device__ unsigned ${fn(name)}(${
    params.map((p) => `unsigned ${p}`).join(", ")
  }) { unsigned r; ` +
    `asm("${name} %0, ${params.map((_, i) => `%${i + 1}`).join(", ")};" : "=${out}"(r) : ${
      params.map((p) => `"${inp}"(${p})`).join(", ")
    }); return r; }`;
};
const call = (name: string) => (...a: string[]) => `${fn(name)}(${a.join(", ")})`;

/** The operations of one set (sm_53 `.f16`/`.f16x2`, or sm_90 `.bf16`), with their device functions. */
function halfOps(sm90: boolean): { ops: Op[]; prelude: string[] } {
  const ops: Op[] = [], prelude: string[] = [];
  const arity = (k: Kind) => (k === "fma" ? 3 : 2);
  const kinds: Kind[] = ["add", "sub", "mul", "fma"];
  for (const k of kinds) {
    const mods = sm90 ? [".rn"] : [".rn", ".rn.sat", ".rn.ftz", ".rn.ftz.sat"];
    for (const m of mods) {
      const fmt = sm90 ? BF16 : F16, ty = sm90 ? "bf16" : "f16", name = `${k}${m}.${ty}`;
      const sat = m.includes("sat"), ftz = m.includes("ftz");
      prelude.push(asm16(name, arity(k)));
      ops.push(
        op(
          name,
          arity(k),
          call(name),
          (a, b, c = 0) => arith(k, fmt, a & 0xffff, b & 0xffff, c & 0xffff, "rn", sat, ftz),
        ),
      );
      if (m !== ".rn") continue;
      const name2 = `${k}${m}.${ty}x2`; // two lanes, the low half first
      prelude.push(asm32(name2, arity(k)));
      ops.push(op(name2, arity(k), call(name2), (a, b, c = 0) => {
        const lo = arith(k, fmt, a & 0xffff, b & 0xffff, c & 0xffff, "rn", false, false);
        const hi = arith(k, fmt, a >>> 16, b >>> 16, c >>> 16, "rn", false, false);
        return lo === undefined || hi === undefined ? undefined : ((hi << 16) | lo) >>> 0;
      }));
    }
  }
  // conversions: f32 (bits in a u32) to the half format in each mode, and back
  const fmt = sm90 ? BF16 : F16, ty = sm90 ? "bf16" : "f16";
  for (
    const m of (sm90 ? ["rn", "rz"] : ["rn", "rz", "rm", "rp"]) as ("rn" | "rz" | "rm" | "rp")[]
  ) {
    const name = `cvt.${m}.${ty}.f32`, mode: Mode = m === "rm" ? "rd" : m === "rp" ? "ru" : m;
    prelude.push(
      asm32(name, 1, "h", "f").replace("unsigned r;", "unsigned short r;").replace(
        `"f"(a)`,
        `"f"(__uint_as_float(a))`,
      ),
    );
    ops.push(op(name, 1, call(name), (a) => {
      const v = new Float32Array(new Uint32Array([a]).buffer)[0];
      if (Number.isNaN(v)) return undefined;
      if (!isFinite(v)) {
        return v > 0
          ? (((1 << fmt.ebits) - 1) << (fmt.p - 1))
          : 0x8000 | (((1 << fmt.ebits) - 1) << (fmt.p - 1));
      }
      return v === 0 ? (Object.is(v, -0) ? 0x8000 : 0) : round16(scaled(v), 300, fmt, mode);
    }));
  }
  const back = `cvt.f32.${ty}`;
  prelude.push(
    asm32(back, 1, "f", "h").replace("unsigned r;", "float r;").replace(
      `"h"(a)`,
      `"h"((unsigned short)a)`,
    ).replace("return r;", "return __float_as_uint(r);"),
  );
  ops.push(op(back, 1, call(back), (a) => {
    const v = decode(a & 0xffff, fmt);
    return Number.isNaN(v) ? undefined : f32bits(v);
  }));
  return { ops, prelude };
}

const f16 = halfOps(false), bf16 = halfOps(true);
/** The `.f16`/`.f16x2` operations (sm_53 and later). */
export const HALF_OPS: Op[] = f16.ops;
/** The `.bf16`/`.bf16x2` operations (sm_90: `add.bf16`, `mul.bf16`). */
export const BF16_OPS: Op[] = bf16.ops;
/** Their device functions. */
export const HALF_PRELUDE: string = [...f16.prelude, ...bf16.prelude].join("\n") + "\n";
