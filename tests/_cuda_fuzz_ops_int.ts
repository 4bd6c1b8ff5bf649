/**
 * The integer operations of the PTX fuzzer (tests/cuda_ptx_fuzz_test.ts): each as CUDA C with
 * defined behaviour (unsigned wraparound, signed arithmetic through unsigned, masked shift counts,
 * guarded division) and its CPU reference (tests/_cuda_bits_ref.ts).
 *
 * @module
 */
import * as bits from "./_cuda_bits_ref.ts";
import type { R, Ty } from "./_cuda_fuzz_values.ts";

/** One operation: its result and argument types, its C, its reference. */
export interface Op {
  /** The name counted in the coverage report. */
  readonly name: string;
  /** The result type. */
  readonly ret: Ty;
  /** The argument types. */
  readonly args: readonly Ty[];
  /** The C expression of the argument expressions (already of their types, parenthesized). */
  readonly c: (...a: string[]) => string;
  // deno-lint-ignore no-explicit-any
  readonly ref: (...a: any[]) => R;
}

/** A u32 value. */
export const u = (v: number): number => v >>> 0;
const s = (v: number) => v | 0;
/** A u64 value. */
export const U64 = (v: bigint): bigint => BigInt.asUintN(64, v);
/** An i64 value. */
export const I64 = (v: bigint): bigint => BigInt.asIntN(64, v);
/** `__mul24`: NVRTC takes its product not to overflow (`abs(__mul24(x, x))` loses its `abs`). */
function mul24s(a: number, b: number): number | undefined {
  const p = ((a << 8) >> 8) * ((b << 8) >> 8);
  return p === (p | 0) ? p : undefined;
}
/** An operation. */
export const op = (name: string, ret: Ty, args: Ty[], c: Op["c"], ref: Op["ref"]): Op => ({
  name,
  ret,
  args,
  c,
  ref,
});

const u32: Op[] = [
  op("add.u32", "u32", ["u32", "u32"], (a, b) => `${a} + ${b}`, (a, b) => u(a + b)),
  op("sub.u32", "u32", ["u32", "u32"], (a, b) => `${a} - ${b}`, (a, b) => u(a - b)),
  op("mul.lo.u32", "u32", ["u32", "u32"], (a, b) => `${a} * ${b}`, (a, b) => u(Math.imul(a, b))),
  op("and", "u32", ["u32", "u32"], (a, b) => `${a} & ${b}`, (a, b) => u(a & b)),
  op("or", "u32", ["u32", "u32"], (a, b) => `${a} | ${b}`, (a, b) => u(a | b)),
  op("xor", "u32", ["u32", "u32"], (a, b) => `${a} ^ ${b}`, (a, b) => u(a ^ b)),
  op("not", "u32", ["u32"], (a) => `~${a}`, (a) => u(~a)),
  op(
    "shl.u32",
    "u32",
    ["u32", "u32"],
    (a, b) => `${a} << (${b} & 31u)`,
    (a, b) => u(a << (b & 31)),
  ),
  op("shr.u32", "u32", ["u32", "u32"], (a, b) => `${a} >> (${b} & 31u)`, (a, b) => a >>> (b & 31)),
  op(
    "div.u32",
    "u32",
    ["u32", "u32"],
    (a, b) => `${b} != 0u ? ${a} / ${b} : ${a}`,
    (a, b) => (b ? Math.floor(a / b) : a),
  ),
  op(
    "rem.u32",
    "u32",
    ["u32", "u32"],
    (a, b) => `${b} != 0u ? ${a} % ${b} : ${a}`,
    (a, b) => (b ? a % b : a),
  ),
  op("min.u32", "u32", ["u32", "u32"], (a, b) => `min(${a}, ${b})`, (a, b) => Math.min(a, b)),
  op("max.u32", "u32", ["u32", "u32"], (a, b) => `max(${a}, ${b})`, (a, b) => Math.max(a, b)),
  op("__popc", "u32", ["u32"], (a) => `(unsigned)__popc(${a})`, (a) => bits.popc(BigInt(a))),
  op("__clz", "u32", ["i32"], (a) => `(unsigned)__clz(${a})`, (a) => bits.clz(BigInt(u(a)), 32)),
  op("__ffs", "u32", ["i32"], (a) => `(unsigned)__ffs(${a})`, (a) => bits.ffs(BigInt(u(a)), 32)),
  op("__brev", "u32", ["u32"], (a) => `__brev(${a})`, (a) => Number(bits.brev(BigInt(a), 32))),
  op(
    "__byte_perm",
    "u32",
    ["u32", "u32", "u32"],
    (a, b, c) => `__byte_perm(${a}, ${b}, ${c})`,
    (a, b, c) => bits.prmt(a, b, c & 0x7777),
  ),
  op(
    "__funnelshift_l",
    "u32",
    ["u32", "u32", "u32"],
    (a, b, c) => `__funnelshift_l(${a}, ${b}, ${c})`,
    (a, b, c) => bits.shfl(a, b, c & 31),
  ),
  op(
    "__funnelshift_lc",
    "u32",
    ["u32", "u32", "u32"],
    (a, b, c) => `__funnelshift_lc(${a}, ${b}, ${c})`,
    (a, b, c) => bits.shfl(a, b, Math.min(c, 32)),
  ),
  op(
    "__funnelshift_r",
    "u32",
    ["u32", "u32", "u32"],
    (a, b, c) => `__funnelshift_r(${a}, ${b}, ${c})`,
    (a, b, c) => bits.shfr(a, b, c & 31),
  ),
  op(
    "__funnelshift_rc",
    "u32",
    ["u32", "u32", "u32"],
    (a, b, c) => `__funnelshift_rc(${a}, ${b}, ${c})`,
    (a, b, c) => bits.shfr(a, b, Math.min(c, 32)),
  ),
  op(
    "__umulhi",
    "u32",
    ["u32", "u32"],
    (a, b) => `__umulhi(${a}, ${b})`,
    (a, b) => bits.mulhi(a, b, false),
  ),
  op(
    "__usad",
    "u32",
    ["u32", "u32", "u32"],
    (a, b, c) => `__usad(${a}, ${b}, ${c})`,
    (a, b, c) => u(Math.abs(a - b) + c),
  ),
  op(
    "__sad",
    "u32",
    ["i32", "i32", "u32"],
    (a, b, c) => `__sad(${a}, ${b}, ${c})`,
    (a, b, c) => u(Math.abs(a - b) + c),
  ),
  op(
    "__uhadd",
    "u32",
    ["u32", "u32"],
    (a, b) => `__uhadd(${a}, ${b})`,
    (a, b) => Math.floor((a + b) / 2),
  ),
  op(
    "__urhadd",
    "u32",
    ["u32", "u32"],
    (a, b) => `__urhadd(${a}, ${b})`,
    (a, b) => Math.floor((a + b + 1) / 2),
  ),
  op(
    "__umul24",
    "u32",
    ["u32", "u32"],
    (a, b) => `__umul24(${a}, ${b})`,
    (a, b) => bits.mul24(a, b, false),
  ),
  op("cvt.u32.u64", "u32", ["u64"], (a) => `(unsigned)${a}`, (a) => Number(a & 0xffffffffn)),
  op("cvt.u32.i32", "u32", ["i32"], (a) => `(unsigned)${a}`, (a) => u(a)),
  op("cvt.u32.bool", "u32", ["bool"], (a) => `(unsigned)${a}`, (a) => (a ? 1 : 0)),
  op("__popcll", "u32", ["u64"], (a) => `(unsigned)__popcll(${a})`, (a) => bits.popc(a)),
  op("__clzll", "u32", ["i64"], (a) => `(unsigned)__clzll(${a})`, (a) => bits.clz(U64(a), 64)),
  op("__ffsll", "u32", ["i64"], (a) => `(unsigned)__ffsll(${a})`, (a) => bits.ffs(U64(a), 64)),
  op("u16.narrow", "u32", ["u32"], (a) => `(unsigned)(unsigned short)${a}`, (a) => a & 0xffff),
  op(
    "s8.narrow",
    "u32",
    ["u32"],
    (a) => `(unsigned)(int)(signed char)${a}`,
    (a) => u((a << 24) >> 24),
  ),
  op("s16.narrow", "u32", ["i32"], (a) => `(unsigned)(int)(short)${a}`, (a) => u((a << 16) >> 16)),
];

const i32: Op[] = [
  op("cvt.i32.u32", "i32", ["u32"], (a) => `(int)${a}`, (a) => s(a)),
  op(
    "add.s32",
    "i32",
    ["i32", "i32"],
    (a, b) => `(int)((unsigned)${a} + (unsigned)${b})`,
    (a, b) => s(a + b),
  ),
  op(
    "sub.s32",
    "i32",
    ["i32", "i32"],
    (a, b) => `(int)((unsigned)${a} - (unsigned)${b})`,
    (a, b) => s(a - b),
  ),
  op(
    "mul.lo.s32",
    "i32",
    ["i32", "i32"],
    (a, b) => `(int)((unsigned)${a} * (unsigned)${b})`,
    (a, b) => Math.imul(a, b),
  ),
  op(
    "div.s32",
    "i32",
    ["i32", "i32"],
    (a, b) => `(${b} == 0 || (${a} == (-2147483647 - 1) && ${b} == -1)) ? ${a} : ${a} / ${b}`,
    (a, b) => (b === 0 || (a === -(2 ** 31) && b === -1) ? a : s(bits.divs(a, b))),
  ),
  op(
    "rem.s32",
    "i32",
    ["i32", "i32"],
    (a, b) => `(${b} == 0 || ${b} == -1) ? ${a} : ${a} % ${b}`,
    (a, b) => (b === 0 || b === -1 ? a : s(bits.rems(a, b))),
  ),
  op("shr.s32", "i32", ["i32", "u32"], (a, b) => `${a} >> (${b} & 31u)`, (a, b) => a >> (b & 31)),
  op("neg.s32", "i32", ["i32"], (a) => `(int)(0u - (unsigned)${a})`, (a) => s(-a)),
  op("min.s32", "i32", ["i32", "i32"], (a, b) => `min(${a}, ${b})`, (a, b) => Math.min(a, b)),
  op("max.s32", "i32", ["i32", "i32"], (a, b) => `max(${a}, ${b})`, (a, b) => Math.max(a, b)),
  op(
    "abs.s32",
    "i32",
    ["i32"],
    (a) => `abs(${a} == (-2147483647 - 1) ? 5 : ${a})`,
    (a) => (a === -(2 ** 31) ? 5 : Math.abs(a)),
  ),
  op(
    "__mulhi",
    "i32",
    ["i32", "i32"],
    (a, b) => `__mulhi(${a}, ${b})`,
    (a, b) => s(bits.mulhi(a, b, true)),
  ),
  op("__mul24", "i32", ["i32", "i32"], (a, b) => `__mul24(${a}, ${b})`, (a, b) => mul24s(a, b)),
  op(
    "__hadd",
    "i32",
    ["i32", "i32"],
    (a, b) => `__hadd(${a}, ${b})`,
    (a, b) => Math.floor((a + b) / 2),
  ),
  op(
    "__rhadd",
    "i32",
    ["i32", "i32"],
    (a, b) => `__rhadd(${a}, ${b})`,
    (a, b) => Math.floor((a + b + 1) / 2),
  ),
  op("cvt.s32.s64", "i32", ["i64"], (a) => `(int)${a}`, (a) => s(Number(a & 0xffffffffn))),
];

/** Comparisons (setp) of the integer types. */
function compares(t: Ty, big: boolean): Op[] {
  const cmp = [["lt", "<"], ["le", "<="], ["gt", ">"], ["ge", ">="], ["eq", "=="], [
    "ne",
    "!=",
  ]] as const;
  return cmp.map(([n, c]) =>
    op(`setp.${n}.${t}`, "bool", [t, t], (a, b) => `${a} ${c} ${b}`, (a, b) => {
      const [x, y] = big ? [a as bigint, b as bigint] : [a as number, b as number];
      return c === "<"
        ? x < y
        : c === "<="
        ? x <= y
        : c === ">"
        ? x > y
        : c === ">="
        ? x >= y
        : c === "=="
        ? x === y
        : x !== y;
    })
  );
}

const bool: Op[] = [
  ...compares("u32", false),
  ...compares("i32", false),
  ...compares("u64", true),
  ...compares("i64", true),
  op("not.pred", "bool", ["bool"], (a) => `!${a}`, (a) => !a),
  op("and.pred", "bool", ["bool", "bool"], (a, b) => `${a} && ${b}`, (a, b) => a && b),
  op("or.pred", "bool", ["bool", "bool"], (a, b) => `${a} || ${b}`, (a, b) => a || b),
  op("xor.pred", "bool", ["bool", "bool"], (a, b) => `${a} != ${b}`, (a, b) => a !== b),
];

/** `c ? a : b` of every type. */
export const selects: Op[] = (["u32", "i32", "f32", "u64", "i64", "f64"] as const).map((t) =>
  op(`selp.${t}`, t, ["bool", t, t], (c, a, b) => `${c} ? ${a} : ${b}`, (c, a, b) => (c ? a : b))
);

/** The 32-bit operations and the predicates (the comparisons of every integer type). */
export const INT32_OPS: { u32: Op[]; i32: Op[]; bool: Op[] } = { u32, i32, bool };
