/**
 * The 64-bit and the narrow (8- and 16-bit) integer operations of the PTX fuzzer
 * (tests/cuda_ptx_fuzz_test.ts), and every integer operation in one list.
 *
 * @module
 */
import * as bits from "./_cuda_bits_ref.ts";
import { I64, INT32_OPS, type Op, op, u, U64 } from "./_cuda_fuzz_ops_int.ts";

const u64: Op[] = [
  op("cvt.u64.u32", "u64", ["u32"], (a) => `(unsigned long long)${a}`, (a: bigint) => BigInt(a)),
  op(
    "cvt.u64.s32",
    "u64",
    ["i32"],
    (a) => `(unsigned long long)(long long)${a}`,
    (a: bigint) => U64(BigInt(a)),
  ),
  op("cvt.u64.i64", "u64", ["i64"], (a) => `(unsigned long long)${a}`, (a: bigint) => U64(a)),
  op(
    "add.u64",
    "u64",
    ["u64", "u64"],
    (a, b) => `${a} + ${b}`,
    (a: bigint, b: bigint) => U64(a + b),
  ),
  op(
    "sub.u64",
    "u64",
    ["u64", "u64"],
    (a, b) => `${a} - ${b}`,
    (a: bigint, b: bigint) => U64(a - b),
  ),
  op(
    "mul.lo.u64",
    "u64",
    ["u64", "u64"],
    (a, b) => `${a} * ${b}`,
    (a: bigint, b: bigint) => U64(a * b),
  ),
  op("and.b64", "u64", ["u64", "u64"], (a, b) => `${a} & ${b}`, (a: bigint, b: bigint) => a & b),
  op("or.b64", "u64", ["u64", "u64"], (a, b) => `${a} | ${b}`, (a: bigint, b: bigint) => a | b),
  op("xor.b64", "u64", ["u64", "u64"], (a, b) => `${a} ^ ${b}`, (a: bigint, b: bigint) => a ^ b),
  op("not.b64", "u64", ["u64"], (a) => `~${a}`, (a: bigint) => U64(~a)),
  op(
    "shl.b64",
    "u64",
    ["u64", "u32"],
    (a, b) => `${a} << (${b} & 63u)`,
    (a: bigint, b: number) => U64(a << BigInt(b & 63)),
  ),
  op(
    "shr.u64",
    "u64",
    ["u64", "u32"],
    (a, b) => `${a} >> (${b} & 63u)`,
    (a: bigint, b: number) => a >> BigInt(b & 63),
  ),
  op(
    "div.u64",
    "u64",
    ["u64", "u64"],
    (a, b) => `${b} != 0ull ? ${a} / ${b} : ${a}`,
    (a: bigint, b: bigint) => (b ? a / b : a),
  ),
  op(
    "rem.u64",
    "u64",
    ["u64", "u64"],
    (a, b) => `${b} != 0ull ? ${a} % ${b} : ${a}`,
    (a: bigint, b: bigint) => (b ? a % b : a),
  ),
  op(
    "min.u64",
    "u64",
    ["u64", "u64"],
    (a, b) => `min(${a}, ${b})`,
    (a: bigint, b: bigint) => (a < b ? a : b),
  ),
  op(
    "max.u64",
    "u64",
    ["u64", "u64"],
    (a, b) => `max(${a}, ${b})`,
    (a: bigint, b: bigint) => (a > b ? a : b),
  ),
  op(
    "__umul64hi",
    "u64",
    ["u64", "u64"],
    (a, b) => `__umul64hi(${a}, ${b})`,
    (a: bigint, b: bigint) => (a * b) >> 64n,
  ),
  op("__brevll", "u64", ["u64"], (a) => `__brevll(${a})`, (a: bigint) => bits.brev(a, 64)),
  op(
    "mul.wide.u32",
    "u64",
    ["u32", "u32"],
    (a, b) => `(unsigned long long)${a} * ${b}`,
    (a: number, b: number) => BigInt(a) * BigInt(b),
  ),
];

const i64: Op[] = [
  op("cvt.s64.s32", "i64", ["i32"], (a) => `(long long)${a}`, (a: bigint) => BigInt(a)),
  op("cvt.i64.u64", "i64", ["u64"], (a) => `(long long)${a}`, (a: bigint) => I64(a)),
  op(
    "add.s64",
    "i64",
    ["i64", "i64"],
    (a, b) => `(long long)((unsigned long long)${a} + (unsigned long long)${b})`,
    (a: bigint, b: bigint) => I64(a + b),
  ),
  op(
    "mul.lo.s64",
    "i64",
    ["i64", "i64"],
    (a, b) => `(long long)((unsigned long long)${a} * (unsigned long long)${b})`,
    (a: bigint, b: bigint) => I64(a * b),
  ),
  op(
    "div.s64",
    "i64",
    ["i64", "i64"],
    (a, b) => `(${b} == 0 || ${b} == -1) ? ${a} : ${a} / ${b}`,
    (a: bigint, b: bigint) => (b === 0n || b === -1n ? a : a / b),
  ),
  op(
    "rem.s64",
    "i64",
    ["i64", "i64"],
    (a, b) => `(${b} == 0 || ${b} == -1) ? ${a} : ${a} % ${b}`,
    (a: bigint, b: bigint) => (b === 0n || b === -1n ? a : a % b),
  ),
  op(
    "shr.s64",
    "i64",
    ["i64", "u32"],
    (a, b) => `${a} >> (${b} & 63u)`,
    (a: bigint, b: number) => a >> BigInt(b & 63),
  ),
  op(
    "min.s64",
    "i64",
    ["i64", "i64"],
    (a, b) => `min(${a}, ${b})`,
    (a: bigint, b: bigint) => (a < b ? a : b),
  ),
  op(
    "max.s64",
    "i64",
    ["i64", "i64"],
    (a, b) => `max(${a}, ${b})`,
    (a: bigint, b: bigint) => (a > b ? a : b),
  ),
  op(
    "__mul64hi",
    "i64",
    ["i64", "i64"],
    (a, b) => `__mul64hi(${a}, ${b})`,
    (a: bigint, b: bigint) => I64((a * b) >> 64n),
  ),
  op(
    "llabs",
    "i64",
    ["i64"],
    (a) => `llabs(${a} == (-9223372036854775807ll - 1) ? 3ll : ${a})`,
    (a: bigint) => (a === -(2n ** 63n) ? 3n : a < 0n ? -a : a),
  ),
  op(
    "mul.wide.s32",
    "i64",
    ["i32", "i32"],
    (a, b) => `(long long)${a} * ${b}`,
    (a: number, b: number) => BigInt(a) * BigInt(b),
  ),
];

const sx16 = (v: number) => (v << 16) >> 16, sx8 = (v: number) => (v << 24) >> 24;
/** Narrow (8- and 16-bit) arithmetic, rotates and bit fields as C writes them. */
const narrow: Op[] = [
  op(
    "add.u16",
    "u32",
    ["u32", "u32"],
    (a, b) => `(unsigned)(unsigned short)(${a} + ${b})`,
    (a, b) => (a + b) & 0xffff,
  ),
  op(
    "mul.lo.u16",
    "u32",
    ["u32", "u32"],
    (a, b) => `(unsigned)(unsigned short)((unsigned)(unsigned short)${a} * (unsigned short)${b})`,
    (a, b) => Math.imul(a & 0xffff, b & 0xffff) & 0xffff,
  ),
  op(
    "shr.s16",
    "i32",
    ["i32", "u32"],
    (a, b) => `(int)(short)((short)${a} >> (${b} & 15u))`,
    (a, b) => sx16(a) >> (b & 15),
  ),
  op(
    "div.s16",
    "i32",
    ["i32", "i32"],
    (a, b) => `(int)((short)${a} / ((short)${b} == 0 ? (short)1 : (short)${b}))`,
    (a, b) => Math.trunc(sx16(a) / (sx16(b) || 1)),
  ),
  op(
    "rem.u8",
    "u32",
    ["u32", "u32"],
    (a, b) => `(unsigned)((unsigned char)${a} % ((unsigned char)${b} | 1u))`,
    (a, b) => (a & 0xff) % ((b & 0xff) | 1),
  ),
  op(
    "setp.lt.s8",
    "bool",
    ["u32", "u32"],
    (a, b) => `(signed char)${a} < (signed char)${b}`,
    (a, b) => sx8(a) < sx8(b),
  ),
  op(
    "max.s16",
    "i32",
    ["i32", "i32"],
    (a, b) => `(int)((short)${a} > (short)${b} ? (short)${a} : (short)${b})`,
    (a, b) => Math.max(sx16(a), sx16(b)),
  ),
  op(
    "mul.s8",
    "i32",
    ["i32", "i32"],
    (a, b) => `(int)(signed char)((signed char)${a} * (signed char)${b})`,
    (a, b) => sx8(Math.imul(sx8(a), sx8(b))),
  ),
  op(
    "rotl.b32",
    "u32",
    ["u32", "u32"],
    (a, b) => `(${a} << (${b} & 31u)) | (${a} >> ((32u - (${b} & 31u)) & 31u))`,
    (a, b) => u((a << (b & 31)) | (a >>> ((32 - (b & 31)) & 31))),
  ),
  op(
    "rotr.b64",
    "u64",
    ["u64", "u32"],
    (a, b) => `(${a} >> (${b} & 63u)) | (${a} << ((64u - (${b} & 63u)) & 63u))`,
    (a: bigint, b: number) => (a >> BigInt(b & 63)) | U64(a << BigInt((64 - (b & 63)) & 63)),
  ),
  op(
    "bfx",
    "u32",
    ["u32", "u32", "u32"],
    (a, b, c) => `(${a} >> (${b} & 31u)) & ((1u << (${c} & 31u)) - 1u)`,
    (a, b, c) => u((a >>> (b & 31)) & ((1 << (c & 31)) - 1)),
  ),
  op(
    "byte.insert",
    "u32",
    ["u32", "u32", "u32"],
    (a, b, c) => `(${a} & ~(0xffu << (${b} & 24u))) | ((${c} & 0xffu) << (${b} & 24u))`,
    (a, b, c) => u((a & ~(0xff << (b & 24))) | ((c & 0xff) << (b & 24))),
  ),
  op(
    "sext.field",
    "i32",
    ["u32", "u32"],
    (a, b) => `(int)(${a} << (${b} & 31u)) >> (${b} & 31u)`,
    (a, b) => (a << (b & 31)) >> (b & 31),
  ),
  op("bfx.const", "u32", ["u32"], (a) => `(${a} >> 7) & 0x3ffu`, (a) => (a >>> 7) & 0x3ff),
  op("div.u32.const", "u32", ["u32"], (a) => `${a} / 7u`, (a) => Math.floor(a / 7)),
  op("div.s32.const", "i32", ["i32"], (a) => `${a} / -9`, (a) => Math.trunc(a / -9)),
  op("rem.s64.const", "i64", ["i64"], (a) => `${a} % 1000003ll`, (a: bigint) => a % 1000003n),
];

/** The integer operations. */
export const INT_OPS: Op[] = [
  ...INT32_OPS.u32,
  ...INT32_OPS.i32,
  ...u64,
  ...i64,
  ...INT32_OPS.bool,
  ...narrow,
];
