/**
 * CPU references of the PTX ISA's integer instructions and CUDA's integer intrinsics, bit for bit
 * (tests/cuda_user_kernels_4_test.ts compares the simulator's results with them).
 *
 * @module
 */

const M32 = 0xffffffffn;
const u = (v: number) => v >>> 0;
const s = (v: number) => v | 0;
const big = (v: number) => BigInt(u(v));

/** The 64-bit value `hi:lo`. */
export const pair = (hi: number, lo: number): bigint => (big(hi) << 32n) | big(lo);

/** `prmt.b32` in its default mode (`sel` bit 3 copies the byte's sign bit to all its bits). */
export function prmt(a: number, b: number, c: number): number {
  const bytes = pair(b, a);
  let r = 0;
  for (let i = 0; i < 4; i++) {
    const sel = (c >>> (4 * i)) & 0xf;
    let byte = Number((bytes >> BigInt(8 * (sel & 7))) & 0xffn);
    if (sel & 8) byte = byte & 0x80 ? 0xff : 0;
    r |= byte << (8 * i);
  }
  return u(r);
}

/** `shf.l`/`shf.r` of `hi:lo` by `n` (already wrapped or clamped). */
export const shfl = (lo: number, hi: number, n: number): number =>
  Number(((pair(hi, lo) << BigInt(n)) >> 32n) & M32);
/** The right funnel shift. */
export const shfr = (lo: number, hi: number, n: number): number =>
  Number((pair(hi, lo) >> BigInt(n)) & M32);

/** The high 32 bits of the 64-bit product, unsigned or signed. */
export const mulhi = (a: number, b: number, signed: boolean): number =>
  signed
    ? Number(BigInt.asUintN(32, (BigInt(s(a)) * BigInt(s(b))) >> 32n))
    : Number((big(a) * big(b)) >> 32n);

/** `mul24.lo`: the low 32 bits of the product of the low 24 bits (sign-extended when signed). */
export function mul24(a: number, b: number, signed: boolean): number {
  const ext = (v: number) => signed ? BigInt((v << 8) >> 8) : BigInt(v & 0xffffff);
  return Number(BigInt.asUintN(32, ext(a) * ext(b)));
}

/** `bfe.u32`/`bfe.s32` (PTX ISA pseudocode). */
export function bfe(a: number, b: number, c: number, signed: boolean): number {
  const pos = b & 0xff, len = c & 0xff;
  const bit = (i: number) => (a >>> i) & 1;
  const sbit = !signed || len === 0 ? 0 : bit(Math.min(pos + len - 1, 31));
  let d = 0;
  for (let i = 0; i <= 31; i++) {
    const v = i < len && pos + i <= 31 ? bit(pos + i) : sbit;
    d |= v << i;
  }
  return u(d);
}

/** `bfi.b32` (PTX ISA pseudocode). */
export function bfi(a: number, b: number, c: number, d: number): number {
  const pos = c & 0xff, len = d & 0xff;
  let f = u(b);
  for (let i = 0; i < len && pos + i <= 31; i++) {
    f = u((f & ~(1 << (pos + i))) | (((a >>> i) & 1) << (pos + i)));
  }
  return f;
}

/** Shifts clamped as PTX clamps them: `shl`, `shr.u32`, `shr.s32` by `n` (unsigned). */
export const shl = (a: number, n: number): number => (u(n) >= 32 ? 0 : u(a << n));
/** The logical right shift. */
export const shru = (a: number, n: number): number => (u(n) >= 32 ? 0 : a >>> n);
/** The arithmetic right shift. */
export const shrs = (a: number, n: number): number => u(s(a) >> Math.min(u(n), 31));

/** `div.s32`/`rem.s32`, truncating, INT_MIN / -1 wrapping to INT_MIN with remainder 0. */
export const divs = (a: number, b: number): number =>
  Number(BigInt.asUintN(32, BigInt(s(a)) / BigInt(s(b))));
/** The signed remainder (the sign of the dividend). */
export const rems = (a: number, b: number): number =>
  Number(BigInt.asUintN(32, BigInt(s(a)) % BigInt(s(b))));

/** The 64-bit shifts of PTX (clamped at 64). */
export const shl64 = (x: bigint, n: number): bigint =>
  u(n) >= 64 ? 0n : BigInt.asUintN(64, x << BigInt(n));
/** The arithmetic 64-bit right shift. */
export const shrs64 = (x: bigint, n: number): bigint =>
  BigInt.asUintN(64, BigInt.asIntN(64, x) >> BigInt(Math.min(u(n), 63)));

/** Counts: popc, clz, ffs (1 + the lowest set bit, 0 for none), brev, of `bits`-bit `x`. */
export function popc(x: bigint): number {
  let n = 0;
  for (; x; x &= x - 1n) n++;
  return n;
}
/** Leading zeros of a `bits`-bit value. */
export function clz(x: bigint, bits: number): number {
  let n = 0;
  for (let i = bits - 1; i >= 0 && !((x >> BigInt(i)) & 1n); i--) n++;
  return n;
}
/** 1 + the index of the lowest set bit; 0 for none. */
export function ffs(x: bigint, bits: number): number {
  for (let i = 0; i < bits; i++) if ((x >> BigInt(i)) & 1n) return i + 1;
  return 0;
}
/** The bits of a `bits`-bit value reversed. */
export function brev(x: bigint, bits: number): bigint {
  let r = 0n;
  for (let i = 0; i < bits; i++) if ((x >> BigInt(i)) & 1n) r |= 1n << BigInt(bits - 1 - i);
  return r;
}
