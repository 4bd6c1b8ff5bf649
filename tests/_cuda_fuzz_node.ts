/**
 * The expression trees of the PTX fuzzer (tests/cuda_ptx_fuzz_test.ts): their nodes, the
 * threads and inputs of a fuzz kernel, and the input variables in C and in the reference.
 *
 * @module
 */
import { bitsf32 } from "./_cuda_float_ref.ts";
import { genF32, genF64, genU32, genU64, type Rng, type Ty, type V } from "./_cuda_fuzz_values.ts";
import type { Op } from "./_cuda_fuzz_ops_int.ts";

/** A node of an expression tree. */
export type Node =
  | { k: "var"; t: Ty; i: number }
  | { k: "const"; t: Ty; v: V; c: string }
  | { k: "op"; t: Ty; op: Op; a: Node[] }
  | { k: "if"; t: Ty; c: Node; a: Node; b: Node }
  | { k: "loop"; t: Ty; op: Op; init: Node; step: Node; n: Node }
  | { k: "shfl"; t: Ty; mode: "idx" | "up" | "down" | "xor"; x: Node; lane: Node; w: number }
  | { k: "ballot"; t: Ty; p: Node }
  | { k: "warp"; t: Ty; fn: WarpFn; x: Node }
  | { k: "dwarp"; t: Ty; fn: DivergentFn; bit: number; off: number; x: Node; y: Node }
  | { k: "load"; t: Ty; w: Width; idx: Node; hint: Hint }
  | { k: "call"; t: Ty; op: Op; a: Node[] }
  | { k: "xchg"; t: Ty; x: Node; off: Node }
  | { k: "arr"; t: Ty; items: Node[]; idx: Node }
  | { k: "atom"; t: Ty; fn: AtomFn; global: boolean; x: Node; slot: Node; init: V }
  | { k: "pun"; t: Ty; x: Node; off: Node }
  | { k: "vload"; t: Ty; w: 2 | 4; idx: Node };
/** The atomic functions whose final value does not depend on the threads' order. */
export type AtomFn = "add" | "min" | "max" | "and" | "or" | "xor";
/** A warp-wide function of one value per lane (full mask). */
/**
 * A collective in both arms of a branch on a lane bit, each arm's lanes its member mask
 * (`__shfl_xor_sync` within the arm, `__ballot_sync`, `__reduce_add_sync`, `__match_any_sync`).
 */
export type DivergentFn = "shfl" | "ballot" | "add" | "match";
/** A warp-wide function of one value per lane (full mask). */
export type WarpFn = "add" | "min" | "max" | "and" | "or" | "xor" | "match" | "any" | "all";
/** A load's cache operator intrinsic (`ld.global.nc`, `.cg`, `.ca`, `.cs`, `.lu`, `.cv`), or none. */
export type Hint = "" | "__ldg" | "__ldcg" | "__ldca" | "__ldcs" | "__ldlu" | "__ldcv";
/** The loads of inputs at a computed index. */
export type Width = "u8" | "s8" | "u16" | "s16" | "u32";

/** The threads of a fuzz kernel (two warps, one block) and the inputs of each type a thread reads. */
export const THREADS = 64;
/** The input variables of each stored type a thread reads. */
export const VARS = 4;
/** The types of the expressions. */
export const TYPES: Ty[] = ["u32", "i32", "f32", "u64", "i64", "f64", "bool"];

/** The inputs of one kernel: per thread VARS of each stored type, as bits. */
export interface Inputs {
  readonly u: Uint32Array;
  readonly f: Uint32Array;
  readonly l: BigUint64Array;
  readonly d: BigUint64Array;
}

/** Inputs for every thread. */
export function genInputs(r: Rng): Inputs {
  const n = THREADS * VARS;
  const d = new BigUint64Array(n);
  const dv = new Float64Array(d.buffer);
  for (let i = 0; i < n; i++) dv[i] = genF64(r);
  // a few NaNs with payloads and signs that a number cannot carry
  for (let i = 0; i < n; i += 37) {
    d[i] = [0x7ff0000000000001n, 0xfff8000000000123n, 0x7ff4000000000000n][i % 3];
  }
  const u = Uint32Array.from({ length: n }, () => genU32(r)),
    f = Uint32Array.from({ length: n }, () => genF32(r));
  const l = BigUint64Array.from({ length: n }, () => genU64(r));
  // related pairs in some threads: x and -x (+0 and -0 for min/max), equal values (compares)
  for (let th = 0; th < THREADS; th++) {
    const k = th * VARS;
    if (th % 8 === 5) f[k] = 0x80000000, d[k] = 1n << 63n; // -0 and (next) +0
    if (th % 4 === 1) f[k + 1] = f[k] ^ 0x80000000, d[k + 1] = d[k] ^ (1n << 63n), u[k + 1] = u[k];
    if (th % 4 === 2) f[k + 3] = f[k + 2], d[k + 3] = d[k + 2], l[k + 3] = l[k + 2];
  }
  return { u, f, l, d };
}

/** The value of input variable `i` of type `t` in thread `th`. */
export function leaf(inp: Inputs, t: Ty, i: number, th: number): V {
  const k = th * VARS + i, k2 = th * VARS + ((i + 2) % VARS);
  switch (t) {
    case "u32":
      return inp.u[k];
    case "i32":
      return inp.u[k2] | 0;
    case "f32":
      return bitsf32(inp.f[k]);
    case "u64":
      return inp.l[k];
    case "i64":
      return BigInt.asIntN(64, inp.l[k2]);
    case "f64":
      return new Float64Array(inp.d.buffer)[k];
    default:
      return ((inp.u[k] >>> (i * 3)) & 1) === 1;
  }
}
/** Each load: its C element type, elements per u32, its reference read of a thread's bytes. */
export const LOADS: Record<Width, [string, number, (d: DataView, at: number) => number]> = {
  u8: ["unsigned char", 4, (d, at) => d.getUint8(at)],
  s8: ["signed char", 4, (d, at) => d.getInt8(at)],
  u16: ["unsigned short", 2, (d, at) => d.getUint16(at, true)],
  s16: ["short", 2, (d, at) => d.getInt16(at, true)],
  u32: ["unsigned", 1, (d, at) => d.getUint32(at, true)],
};
/** The C of input variable `i` of each type. */
export const LEAF_C: Record<Ty, (i: number) => string> = {
  u32: (i) => `U[t * ${VARS} + ${i}]`,
  i32: (i) => `(int)U[t * ${VARS} + ${(i + 2) % VARS}]`,
  f32: (i) => `__uint_as_float(Fb[t * ${VARS} + ${i}])`,
  u64: (i) => `L[t * ${VARS} + ${i}]`,
  i64: (i) => `(long long)L[t * ${VARS} + ${(i + 2) % VARS}]`,
  f64: (i) => `__longlong_as_double((long long)Db[t * ${VARS} + ${i}])`,
  bool: (i) => `((U[t * ${VARS} + ${i}] >> ${i * 3}) & 1u) != 0u`,
};
