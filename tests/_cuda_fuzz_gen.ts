/**
 * The generator of the PTX fuzzer (tests/cuda_ptx_fuzz_test.ts): random typed expression trees
 * over the operations of tests/_cuda_fuzz_ops_int.ts and tests/_cuda_fuzz_ops_float.ts, with
 * branches (`if`/`else`), loops and warp collectives (`__shfl_sync`, `__ballot_sync` with the full
 * mask, never under a branch), written as one CUDA C kernel of many expressions (one statement a
 * node) and evaluated by a CPU reference per thread, then compared bit for bit.
 *
 * @module
 */
import { INT_OPS, type Op, selects } from "./_cuda_fuzz_ops_int.ts";
import { FLOAT_OPS, ftzOps } from "./_cuda_fuzz_ops_float.ts";
import { MORE_OPS, PRELUDE, SIMD2_OPS } from "./_cuda_fuzz_ops_more.ts";
import { BF16_OPS, HALF_OPS, HALF_PRELUDE } from "./_cuda_fuzz_ops_half.ts";
import { bitsf32 } from "./_cuda_float_ref.ts";
import {
  C_TYPE,
  F32_EDGES,
  F64_EDGES,
  genF32,
  genF64,
  genU32,
  genU64,
  outBits,
  type R,
  Rng,
  type Ty,
  U32_EDGES,
  U64_EDGES,
  type V,
} from "./_cuda_fuzz_values.ts";

/** Every operation, by result type. */
export const OPS: Op[] = [
  ...INT_OPS,
  ...FLOAT_OPS,
  ...MORE_OPS,
  ...SIMD2_OPS,
  ...HALF_OPS,
  ...BF16_OPS,
  ...selects,
];
const byType = (ops: Op[]) => {
  const m = new Map<Ty, Op[]>();
  for (const o of ops) m.set(o.ret, [...(m.get(o.ret) ?? []), o]);
  return m;
};
/**
 * Left out before sm_80 (the kernels of compute capability 7.5): NVRTC 12.4 compiles
 * `__vsubus2(a, b) >> 31` for compute_75 to the constant 0 (the CUDA header's arithmetic takes the
 * high halfword's top bit to be clear: 0xffff0000 - 0 has it set), the same PTX on a GPU.
 */
const PRE_SM80_MISCOMPILED = new Set(["__vsubus2"]);
/** The operations of a kernel for compute capability 7.5 (no `.bf16`: sm_90 `add.bf16`...). */
const OPS_PRE80 = OPS.filter((o) => !PRE_SM80_MISCOMPILED.has(o.name) && !BF16_OPS.includes(o));
const MAPS = new Map<string, Map<Ty, Op[]>>([
  ["ieee80", byType(OPS)],
  ["ftz80", byType(ftzOps(OPS))],
  ["ieee", byType(OPS_PRE80)],
  ["ftz", byType(ftzOps(OPS_PRE80))],
]);
let BY_TYPE = MAPS.get("ieee80")!;

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
const VARS = 4;
const TYPES: Ty[] = ["u32", "i32", "f32", "u64", "i64", "f64", "bool"];

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
function leaf(inp: Inputs, t: Ty, i: number, th: number): V {
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
const LOADS: Record<Width, [string, number, (d: DataView, at: number) => number]> = {
  u8: ["unsigned char", 4, (d, at) => d.getUint8(at)],
  s8: ["signed char", 4, (d, at) => d.getInt8(at)],
  u16: ["unsigned short", 2, (d, at) => d.getUint16(at, true)],
  s16: ["short", 2, (d, at) => d.getInt16(at, true)],
  u32: ["unsigned", 1, (d, at) => d.getUint32(at, true)],
};
const LEAF_C: Record<Ty, (i: number) => string> = {
  u32: (i) => `U[t * ${VARS} + ${i}]`,
  i32: (i) => `(int)U[t * ${VARS} + ${(i + 2) % VARS}]`,
  f32: (i) => `__uint_as_float(Fb[t * ${VARS} + ${i}])`,
  u64: (i) => `L[t * ${VARS} + ${i}]`,
  i64: (i) => `(long long)L[t * ${VARS} + ${(i + 2) % VARS}]`,
  f64: (i) => `__longlong_as_double((long long)Db[t * ${VARS} + ${i}])`,
  bool: (i) => `((U[t * ${VARS} + ${i}] >> ${i * 3}) & 1u) != 0u`,
};

function constant(r: Rng, t: Ty): Node {
  switch (t) {
    case "u32":
    case "i32": {
      const v = genU32(r);
      return { k: "const", t, v: t === "u32" ? v : v | 0, c: t === "u32" ? `${v}u` : `(int)${v}u` };
    }
    case "f32": {
      const b = genF32(r);
      return { k: "const", t, v: bitsf32(b), c: `__uint_as_float(${b}u)` };
    }
    case "u64":
    case "i64": {
      const v = genU64(r);
      return {
        k: "const",
        t,
        v: t === "u64" ? v : BigInt.asIntN(64, v),
        c: t === "u64" ? `${v}ull` : `(long long)${v}ull`,
      };
    }
    case "f64": {
      const v = genF64(r);
      const b = new BigUint64Array(new Float64Array([v]).buffer)[0];
      return { k: "const", t, v, c: `__longlong_as_double((long long)${b}ull)` };
    }
    default: {
      const v = r.chance(0.5);
      return { k: "const", t, v, c: `${v}` };
    }
  }
}

/** A random tree of type `t`, `depth` levels at most; `warp` allows warp collectives. */
export function genTree(r: Rng, t: Ty, depth: number, warp: boolean, sm80 = true): Node {
  if (depth <= 0 || r.chance(0.15)) {
    return r.chance(0.12) ? constant(r, t) : { k: "var", t, i: r.int(VARS) };
  }
  const x = r.int(100);
  if (x < 4) {
    return {
      k: "if",
      t,
      c: genTree(r, "bool", depth - 1, false, sm80),
      a: genTree(r, t, depth - 1, false, sm80),
      b: genTree(r, t, depth - 1, false, sm80),
    };
  }
  if (x < 7 && t !== "bool") {
    const ops = BY_TYPE.get(t)!.filter((o) =>
      o.args.length === 2 && o.args[0] === t && o.args[1] === t
    );
    if (ops.length) {
      return {
        k: "loop",
        t,
        op: r.pick(ops),
        init: genTree(r, t, depth - 1, warp, sm80),
        step: genTree(r, t, depth - 1, warp, sm80),
        n: genTree(r, "u32", 0, false, sm80),
      };
    }
  }
  if (warp && x < 11 && t !== "bool" && t !== "i64") {
    const w = r.chance(0.7) ? 32 : r.pick([4, 8, 16]);
    return {
      k: "shfl",
      t,
      mode: r.pick(["idx", "up", "down", "xor"] as const),
      x: genTree(r, t, depth - 1, warp, sm80),
      lane: genTree(r, "u32", depth - 2, warp, sm80),
      w,
    };
  }
  if (warp && x < 12 && t === "u32") {
    return { k: "ballot", t, p: genTree(r, "bool", depth - 1, warp, sm80) };
  }
  if (warp && x < 15 && (t === "u32" || (t === "i32" && sm80))) {
    const fns: WarpFn[] = t === "u32"
      ? ["add", "min", "max", "and", "or", "xor", "match"]
      : ["add", "min", "max"];
    const fn = r.pick<WarpFn>(sm80 ? fns : ["match"]); // __reduce_*_sync: sm_80 and later
    return {
      k: "warp",
      t,
      fn,
      x: genTree(r, fn === "match" && r.chance(0.5) ? "u64" : t, depth - 1, warp, sm80),
    };
  }
  if (warp && x < 18 && x >= 16 && t !== "bool" && t !== "i64") {
    const fn: DivergentFn = t !== "u32" ? "shfl" : r.pick<DivergentFn>(
      sm80 ? ["shfl", "ballot", "add", "match"] : ["shfl", "ballot", "match"],
    );
    const xt: Ty = fn === "ballot" ? "bool" : fn === "match" && r.chance(0.5) ? "u64" : t;
    const bit = r.int(5);
    return {
      k: "dwarp",
      t,
      fn,
      bit,
      off: r.int(32) & ~(1 << bit),
      x: genTree(r, xt, depth - 1, warp, sm80),
      y: genTree(r, xt, depth - 1, warp, sm80),
    };
  }
  if (warp && x < 16 && t === "bool") {
    return {
      k: "warp",
      t,
      fn: r.pick<WarpFn>(["any", "all"]),
      x: genTree(r, "bool", depth - 1, warp, sm80),
    };
  }
  if (warp && x < 19 && t !== "bool") {
    return {
      k: "xchg",
      t,
      x: genTree(r, t, depth - 1, warp, sm80),
      off: genTree(r, "u32", depth - 2, false, sm80),
    };
  }
  if (warp && x < 21 && (t === "u32" || t === "i32" || t === "u64" || t === "i64")) {
    const fn = r.pick<AtomFn>(
      t === "i64" ? ["min", "max"] : ["add", "min", "max", "and", "or", "xor"],
    );
    const init = (constant(r, t) as { v: V }).v;
    return {
      k: "atom",
      t,
      fn,
      global: r.chance(0.5),
      x: genTree(r, t, depth - 1, warp, sm80),
      slot: genTree(r, "u32", depth - 2, false, sm80),
      init,
    };
  }
  if (warp && x < 22 && (t === "u32" || t === "u64")) {
    return {
      k: "pun",
      t,
      x: genTree(r, t === "u32" ? "u64" : "u32", depth - 1, warp, sm80),
      off: genTree(r, "u32", depth - 2, false, sm80),
    };
  }
  if (x < 23 && (t === "u32" || t === "u64" || t === "f64")) {
    return {
      k: "vload",
      t,
      w: t === "u32" && r.chance(0.5) ? 4 : 2,
      idx: genTree(r, "u32", depth - 1, warp, sm80),
    };
  }
  if (x < 25 && (t === "u32" || t === "i32")) {
    const w = r.pick<Width>(t === "u32" ? ["u8", "u16", "u32"] : ["s8", "s16"]);
    const hint = r.pick<Hint>(["", "", "__ldg", "__ldcg", "__ldca", "__ldcs", "__ldlu", "__ldcv"]);
    return { k: "load", t, w, idx: genTree(r, "u32", depth - 1, warp, sm80), hint };
  }
  if (x < 27 && t !== "bool") {
    return {
      k: "arr",
      t,
      items: [0, 1, 2, 3].map(() => genTree(r, t, depth - 2, warp, sm80)),
      idx: genTree(r, "u32", depth - 1, warp, sm80),
    };
  }
  const o = r.pick(BY_TYPE.get(t)!);
  return {
    k: r.chance(0.05) ? "call" : "op",
    t,
    op: o,
    a: o.args.map((a) => genTree(r, a, depth - 1, warp, sm80)),
  };
}

/** Writes the statements of `n` into `out` (temporaries `v0`, `v1`, ...); returns its name. */
export function emit(n: Node, out: string[], ids: { n: number; funcs?: string[] }): string {
  const tmp = (t: Ty, expr: string) => {
    const name = `v${ids.n++}`;
    out.push(`${C_TYPE[t]} ${name} = ${expr};`);
    return name;
  };
  switch (n.k) {
    case "var":
      return tmp(n.t, LEAF_C[n.t](n.i));
    case "const":
      return tmp(n.t, n.c);
    case "op":
      return tmp(n.t, n.op.c(...n.a.map((a) => emit(a, out, ids))));
    case "call": { // a __noinline__ function of the operation: the simulator inlines its call
      const args = n.a.map((a) => emit(a, out, ids)), f = `f${ids.n++}`;
      const params = n.op.args.map((t, i) => `${C_TYPE[t]} p${i}`).join(", ");
      (ids.funcs ??= []).push(
        `__device__ __noinline__ ${C_TYPE[n.t]} ${f}(${params}) { return ${
          n.op.c(...n.op.args.map((_, i) => `p${i}`))
        }; }`,
      );
      return tmp(n.t, `${f}(${args.join(", ")})`);
    }
    case "if": {
      const c = emit(n.c, out, ids), name = `v${ids.n++}`;
      out.push(`${C_TYPE[n.t]} ${name};`, `if (${c}) {`);
      out.push(`${name} = ${emit(n.a, out, ids)};`, "} else {");
      out.push(`${name} = ${emit(n.b, out, ids)};`, "}");
      return name;
    }
    case "loop": {
      const init = emit(n.init, out, ids), step = emit(n.step, out, ids), cnt = emit(n.n, out, ids);
      const name = tmp(n.t, init), k = `k${ids.n++}`;
      out.push(
        `for (unsigned ${k} = 0; ${k} < (${cnt} & 7u); ${k}++) ${name} = ${n.op.c(name, step)};`,
      );
      return name;
    }
    case "shfl": {
      const x = emit(n.x, out, ids), lane = emit(n.lane, out, ids);
      const arg = n.mode === "idx" || n.mode === "xor" ? `${lane} & 31u` : `${lane} & 15u`;
      const fn = n.mode === "idx" ? "__shfl_sync" : `__shfl_${n.mode}_sync`;
      return tmp(n.t, `${fn}(0xffffffffu, ${x}, ${arg}${n.w === 32 ? "" : `, ${n.w}`})`);
    }
    case "dwarp": {
      const x = emit(n.x, out, ids), y = emit(n.y, out, ids), name = `v${ids.n++}`;
      let m1 = 0;
      for (let l = 0; l < 32; l++) if ((l >> n.bit) & 1) m1 |= 1 << l;
      const call = (mask: number, v: string) =>
        n.fn === "shfl"
          ? `__shfl_xor_sync(${mask >>> 0}u, ${v}, ${n.off})`
          : n.fn === "ballot"
          ? `__ballot_sync(${mask >>> 0}u, ${v})`
          : n.fn === "add"
          ? `__reduce_add_sync(${mask >>> 0}u, ${v})`
          : `__match_any_sync(${mask >>> 0}u, ${v})`;
      out.push(
        `${C_TYPE[n.t]} ${name};`,
        `if ((t >> ${n.bit}) & 1u) {`,
        `${name} = ${call(m1, x)};`,
      );
      out.push("} else {", `${name} = ${call(~m1, y)};`, "}");
      return name;
    }
    case "warp": {
      const x = emit(n.x, out, ids);
      if (n.fn === "match") return tmp(n.t, `__match_any_sync(0xffffffffu, ${x})`);
      if (n.fn === "any" || n.fn === "all") {
        return tmp(n.t, `__${n.fn}_sync(0xffffffffu, ${x}) != 0`);
      }
      return tmp(n.t, `__reduce_${n.fn}_sync(0xffffffffu, ${x})`);
    }
    case "load": {
      const idx = emit(n.idx, out, ids);
      const [ty, per] = LOADS[n.w];
      const at = `((const ${ty}*)U)[t * ${VARS * per} + (${idx} & ${VARS * per - 1}u)]`;
      return tmp(n.t, `(${C_TYPE[n.t]})${n.hint ? `${n.hint}(&${at})` : at}`);
    }
    case "xchg": {
      const x = emit(n.x, out, ids), off = emit(n.off, out, ids);
      out.push(`sh_${n.t}[t] = ${x};`, "__syncthreads();");
      const name = tmp(n.t, `sh_${n.t}[(t + ${off}) & ${THREADS - 1}u]`);
      out.push("__syncthreads();");
      return name;
    }
    case "arr": {
      const items = n.items.map((i) => emit(i, out, ids)),
        idx = emit(n.idx, out, ids),
        a = `a${ids.n++}`;
      out.push(`${C_TYPE[n.t]} ${a}[4] = {${items.join(", ")}};`);
      return tmp(n.t, `${a}[${idx} & 3u]`);
    }
    case "ballot":
      return tmp(n.t, `__ballot_sync(0xffffffffu, ${emit(n.p, out, ids)})`);
    case "atom": {
      const x = emit(n.x, out, ids),
        slot = emit(n.slot, out, ids),
        a = `${n.global ? "ga" : "sa"}_${n.t}`;
      const init = n.t === "u64"
        ? `${n.init}ull`
        : n.t === "i64"
        ? `(long long)${BigInt.asUintN(64, n.init as bigint)}ull`
        : n.t === "u32"
        ? `${n.init}u`
        : `(int)${(n.init as number) >>> 0}u`;
      out.push(`if (t < 8) ${a}[t] = ${init};`, "__syncthreads();");
      out.push(
        `atomic${n.fn[0].toUpperCase()}${n.fn.slice(1)}(&${a}[${slot} & 7u], ${x});`,
        "__syncthreads();",
      );
      const name = tmp(n.t, `${a}[t & 7u]`);
      out.push("__syncthreads();");
      return name;
    }
    case "pun": {
      const x = emit(n.x, out, ids), off = emit(n.off, out, ids);
      const [from, read, mask] = n.t === "u32"
        ? ["u64", "unsigned", 2 * THREADS - 1]
        : ["u32", "unsigned long long", THREADS / 2 - 1];
      out.push(`sh_${from}[t] = ${x};`, "__syncthreads();");
      const scale = n.t === "u32" ? "2u * t" : "t";
      const name = tmp(n.t, `((${read}*)sh_${from})[(${scale} + ${off}) & ${mask}u]`);
      out.push("__syncthreads();");
      return name;
    }
    case "vload": {
      const idx = emit(n.idx, out, ids), q = `q${ids.n++}`;
      if (n.t === "u32" && n.w === 4) {
        out.push(`uint4 ${q} = ((const uint4*)U)[t];`);
        return tmp(n.t, `${q}.x ^ (${q}.y << 1) ^ (${q}.z << 2) ^ (${q}.w << 3) ^ ${idx}`);
      }
      const [vt, arr, comb] = n.t === "u32"
        ? ["uint2", "U", "-"]
        : n.t === "u64"
        ? ["ulonglong2", "L", "^"]
        : ["double2", "Db", "+"];
      out.push(`${vt} ${q} = ((const ${vt}*)${arr})[t * 2 + (${idx} & 1u)];`);
      return tmp(n.t, `${q}.x ${comb} ${q}.y`);
    }
  }
}

/** The reference value of `n` in thread `th` (`undefined`: not knowable). */
export function evaluate(n: Node, inp: Inputs, th: number): R {
  return norm(n.t, evaluateRaw(n, inp, th));
}

function evaluateRaw(n: Node, inp: Inputs, th: number): R {
  switch (n.k) {
    case "atom": {
      const mine = th & 7;
      let acc: R = n.init;
      for (let o = 0; o < THREADS; o++) {
        const s = evaluate(n.slot, inp, o);
        if (s === undefined) return undefined;
        if (((s as number) & 7) !== mine) continue;
        const v = evaluate(n.x, inp, o);
        if (v === undefined) return undefined;
        acc = atomRef(n.fn, n.t, acc as V, v);
      }
      return acc;
    }
    case "pun": {
      const off = evaluate(n.off, inp, th);
      if (off === undefined) return undefined;
      if (n.t === "u32") {
        const j = (2 * th + (off as number)) & (2 * THREADS - 1), v = evaluate(n.x, inp, j >> 1);
        return v === undefined ? v : Number(((v as bigint) >> BigInt(32 * (j & 1))) & 0xffffffffn);
      }
      const j = (th + (off as number)) & (THREADS / 2 - 1);
      const lo = evaluate(n.x, inp, 2 * j), hi = evaluate(n.x, inp, 2 * j + 1);
      return lo === undefined || hi === undefined
        ? undefined
        : (BigInt(hi as number) << 32n) | BigInt(lo as number);
    }
    case "vload": {
      const i = evaluate(n.idx, inp, th);
      if (i === undefined) return undefined;
      const at = th * VARS + (n.w === 4 ? 0 : 2 * ((i as number) & 1));
      if (n.t === "u32" && n.w === 4) {
        const q = inp.u.slice(at, at + 4);
        return (q[0] ^ (q[1] << 1) ^ (q[2] << 2) ^ (q[3] << 3) ^ (i as number)) >>> 0;
      }
      if (n.t === "u32") return (inp.u[at] - inp.u[at + 1]) >>> 0;
      if (n.t === "u64") return inp.l[at] ^ inp.l[at + 1];
      const d = new Float64Array(inp.d.buffer);
      return d[at] + d[at + 1];
    }
    case "var":
      return leaf(inp, n.t, n.i, th);
    case "const":
      return n.v;
    case "op":
    case "call": {
      const a = n.a.map((x) => evaluate(x, inp, th));
      return a.some((x) => x === undefined) ? undefined : norm(n.t, n.op.ref(...a));
    }
    case "if": {
      const c = evaluate(n.c, inp, th);
      return c === undefined ? undefined : evaluate(c ? n.a : n.b, inp, th);
    }
    case "loop": {
      let acc = evaluate(n.init, inp, th);
      const step = evaluate(n.step, inp, th), cnt = evaluate(n.n, inp, th) as number;
      for (let k = 0; k < (cnt & 7) && acc !== undefined && step !== undefined; k++) {
        acc = n.op.ref(acc, step);
      }
      return step === undefined ? undefined : acc;
    }
    case "shfl": {
      const lane = th % 32, base = th - lane;
      const l = evaluate(n.lane, inp, th);
      if (l === undefined) return undefined;
      const v = (l as number) >>> 0;
      const seg = lane - (lane % n.w), end = seg + n.w - 1; // the lane's segment of the warp
      const src = n.mode === "idx"
        ? seg + (v & (n.w - 1))
        : n.mode === "xor"
        ? (lane ^ (v & 31)) > end ? lane : lane ^ (v & 31)
        : n.mode === "up"
        ? (lane - (v & 15) >= seg ? lane - (v & 15) : lane)
        : (lane + (v & 15) <= end ? lane + (v & 15) : lane);
      return evaluate(n.x, inp, base + src);
    }
    case "dwarp": {
      const lane = th % 32, base = th - lane, mine = (lane >> n.bit) & 1, node = mine ? n.x : n.y;
      const group = [...Array(32).keys()].filter((l) => ((l >> n.bit) & 1) === mine);
      if (n.fn === "shfl") return evaluate(node, inp, base + (lane ^ n.off));
      const all = group.map((l) => [l, evaluate(node, inp, base + l)] as const);
      if (all.some(([, v]) => v === undefined)) return undefined;
      const own = evaluate(node, inp, th);
      if (n.fn === "ballot") return all.reduce((m, [l, v]) => (v ? m | (1 << l) : m), 0) >>> 0;
      if (n.fn === "add") return all.reduce((a, [, v]) => (a + (v as number)) >>> 0, 0);
      return all.reduce((m, [l, v]) => (v === own ? m | (1 << l) : m), 0) >>> 0;
    }
    case "warp": {
      const base = th - (th % 32), all: R[] = [];
      for (let l = 0; l < 32; l++) all.push(evaluate(n.x, inp, base + l));
      if (all.some((v) => v === undefined)) return undefined;
      return norm(n.t, warpRef(n.fn, n.t, all, th % 32));
    }
    case "load": {
      const i = evaluate(n.idx, inp, th);
      if (i === undefined) return undefined;
      const [, per, get] = LOADS[n.w];
      const bytes = new DataView(inp.u.buffer, inp.u.byteOffset + th * VARS * 4, VARS * 4);
      return get(bytes, ((i as number) & (VARS * per - 1)) * (4 / per));
    }
    case "xchg": {
      const off = evaluate(n.off, inp, th);
      return off === undefined
        ? undefined
        : evaluate(n.x, inp, (th + (off as number)) & (THREADS - 1));
    }
    case "arr": {
      const i = evaluate(n.idx, inp, th);
      if (i === undefined) return undefined;
      const items = n.items.map((x) => evaluate(x, inp, th)); // all are computed: one unknown taints
      return items.some((x) => x === undefined) ? undefined : items[(i as number) & 3];
    }
    case "ballot": {
      const base = th - (th % 32);
      let m = 0;
      for (let l = 0; l < 32; l++) {
        const p = evaluate(n.p, inp, base + l);
        if (p === undefined) return undefined;
        if (p) m |= 1 << l;
      }
      return m >>> 0;
    }
  }
}

/** One step of an atomic's fold. */
function atomRef(fn: AtomFn, t: Ty, a: V, b: V): V {
  if (t === "u64" || t === "i64") {
    const x = a as bigint, y = b as bigint;
    const r = fn === "add"
      ? x + y
      : fn === "min"
      ? (x < y ? x : y)
      : fn === "max"
      ? (x > y ? x : y)
      : fn === "and"
      ? x & y
      : fn === "or"
      ? x | y
      : x ^ y;
    return t === "u64" ? BigInt.asUintN(64, r) : BigInt.asIntN(64, r);
  }
  const x = a as number, y = b as number;
  const r = fn === "add"
    ? x + y
    : fn === "min"
    ? Math.min(x, y)
    : fn === "max"
    ? Math.max(x, y)
    : fn === "and"
    ? x & y
    : fn === "or"
    ? x | y
    : x ^ y;
  return t === "u32" ? r >>> 0 : r | 0;
}

/** A warp function's result in lane `lane` given every lane's value. */
function warpRef(fn: WarpFn, t: Ty, all: R[], lane: number): R {
  const mine = all[lane];
  switch (fn) {
    case "match":
      return all.reduce<number>((m, v, l) => (v === mine ? m | (1 << l) : m), 0) >>> 0;
    case "any":
      return all.some((v) => v);
    case "all":
      return all.every((v) => v);
    case "add":
      return t === "u32"
        ? all.reduce<number>((a, v) => (a + (v as number)) >>> 0, 0)
        : all.reduce<number>((a, v) => (a + (v as number)) | 0, 0);
    case "min":
      return Math.min(...(all as number[]));
    case "max":
      return Math.max(...(all as number[]));
    case "and":
      return all.reduce<number>((a, v) => a & (v as number), -1) >>> 0;
    case "or":
      return all.reduce<number>((a, v) => a | (v as number), 0) >>> 0;
    default:
      return all.reduce<number>((a, v) => a ^ (v as number), 0) >>> 0;
  }
}

/** A 32-bit integer result as its type holds it (no -0, no fraction). */
const norm = (
  t: Ty,
  v: R,
): R => (v === undefined
  ? v
  : t === "u32"
  ? (v as number) >>> 0
  : t === "i32"
  ? (v as number) | 0
  : v);

/** The operation names a tree uses (coverage). */
export function opsOf(n: Node, into: Set<string>): Set<string> {
  switch (n.k) {
    case "call":
      into.add("call");
      // falls through
    case "op":
      into.add(n.op.name);
      n.a.forEach((x) => opsOf(x, into));
      break;
    case "if":
      into.add("if"), opsOf(n.c, into), opsOf(n.a, into), opsOf(n.b, into);
      break;
    case "loop":
      into.add("loop"), into.add(n.op.name), opsOf(n.init, into), opsOf(n.step, into);
      break;
    case "shfl":
      into.add(`shfl.${n.mode}.${n.t}`), opsOf(n.x, into), opsOf(n.lane, into);
      break;
    case "ballot":
      into.add("ballot"), opsOf(n.p, into);
      break;
    case "warp":
      into.add(`warp.${n.fn}.${n.x.t}`), opsOf(n.x, into);
      break;
    case "dwarp":
      into.add(`divergent.${n.fn}.${n.x.t}`), opsOf(n.x, into), opsOf(n.y, into);
      break;
    case "load":
      into.add(`ld.${n.w}${n.hint ? "." + n.hint : ""}`), opsOf(n.idx, into);
      break;
    case "xchg":
      into.add(`shared.${n.t}`), opsOf(n.x, into), opsOf(n.off, into);
      break;
    case "arr":
      into.add(`local.${n.t}`), n.items.forEach((x) => opsOf(x, into)), opsOf(n.idx, into);
      break;
    case "atom":
      into.add(`atom.${n.global ? "global" : "shared"}.${n.fn}.${n.t}`),
        opsOf(n.x, into),
        opsOf(n.slot, into);
      break;
    case "pun":
      into.add(`pun.${n.t}`), opsOf(n.x, into), opsOf(n.off, into);
      break;
    case "vload":
      into.add(`ld.v${n.w}.${n.t}`), opsOf(n.idx, into);
      break;
  }
  return into;
}

/** One fuzz kernel: its trees, its CUDA C and its inputs. */
export interface FuzzKernel {
  readonly trees: Node[];
  readonly source: string;
  readonly inputs: Inputs;
  readonly lines: string[][];
}

/** The kernel of `count` random trees (`depth` levels) from `seed`. */
export function genKernel(
  seed: number,
  count: number,
  depth = 4,
  sm80 = true,
  ftz = false,
): FuzzKernel {
  BY_TYPE = MAPS.get(`${ftz ? "ftz" : "ieee"}${sm80 ? "80" : ""}`)!; // (trees keep their operations)
  const r = new Rng(seed);
  const inputs = genInputs(r);
  const trees = Array.from({ length: count }, () => genTree(r, r.pick(TYPES), depth, true, sm80));
  return assemble(trees, inputs);
}

/**
 * The edge matrix: every operation of `ops` (`ftz`: as `-ftz=true` compiles it) on its input
 * variables, in launch `part` of `parts`: thread `p` of all `parts * THREADS` takes the edge
 * values `p % n` and `p / n` (and a third) of each type's edge list, so every pair of f32 edges
 * (46) meets once over 33 launches of one kernel.
 */
export function edgeKernel(part: number, ftz = false, sm80 = true): FuzzKernel {
  const ops = ftz ? ftzOps(sm80 ? OPS : OPS_PRE80) : sm80 ? OPS : OPS_PRE80;
  const trees: Node[] = ops.map((op) => ({
    k: "op",
    t: op.ret,
    op,
    a: op.args.map((t, j) =>
      ({ k: "var", t, i: (t === "i32" || t === "i64" ? [2, 3, 1] : [0, 1, 3])[j] }) as Node
    ),
  }));
  const n = THREADS * VARS,
    u = new Uint32Array(n),
    f = new Uint32Array(n),
    l = new BigUint64Array(n),
    d = new BigUint64Array(n);
  const dv = new Float64Array(d.buffer);
  for (let th = 0; th < THREADS; th++) {
    const p = part * THREADS + th;
    const at = <T>(list: readonly T[], j: number) =>
      list[(j === 0 ? p : j === 1 ? Math.floor(p / list.length) : p * 7 + 3) % list.length];
    // argument j reads slot 0, 1, 3 (var i reads slot i; the i32 and i64 var i, slot (i + 2) % 4)
    for (const [slot, j] of [[0, 0], [1, 1], [3, 2]]) {
      f[th * VARS + slot] = at(F32_EDGES, j), dv[th * VARS + slot] = at(F64_EDGES, j);
      u[th * VARS + slot] = at(U32_EDGES, j), l[th * VARS + slot] = at(U64_EDGES, j);
    }
  }
  return assemble(trees, { u, f, l, d });
}

/** The kernel of `trees` (one output each) on `inputs`. */
export function assemble(trees: Node[], inputs: Inputs): FuzzKernel {
  const body: string[] = [], lines: string[][] = [];
  const ids: { n: number; funcs: string[] } = { n: 0, funcs: [] };
  trees.forEach((tree, e) => {
    const t = tree.t, out: string[] = [];
    const v = emit(tree, out, ids);
    const bits = t === "f32"
      ? `__float_as_uint(${v})`
      : t === "f64"
      ? `__double_as_longlong(${v})`
      : t === "bool"
      ? `${v} ? 1u : 0u`
      : t === "i32"
      ? `(unsigned)${v}`
      : v;
    out.push(`O[${e} * ${THREADS} + t] = (unsigned long long)(${bits});`);
    lines.push(out), body.push("{", ...out.map((l) => "  " + l), "}");
  });
  const source = `${PRELUDE}${HALF_PRELUDE}${ids.funcs.join("\n")}
__device__ unsigned ga_u32[8]; __device__ int ga_i32[8];
__device__ unsigned long long ga_u64[8]; __device__ long long ga_i64[8];
extern "C" __global__ void fuzz(const unsigned* U, const unsigned* Fb,
    const unsigned long long* L, const unsigned long long* Db, unsigned long long* O) {
  unsigned t = threadIdx.x;
  __shared__ __align__(8) unsigned sh_u32[${THREADS}]; __shared__ int sh_i32[${THREADS}];
  __shared__ unsigned sa_u32[8]; __shared__ int sa_i32[8];
  __shared__ unsigned long long sa_u64[8]; __shared__ long long sa_i64[8];
  __shared__ float sh_f32[${THREADS}]; __shared__ double sh_f64[${THREADS}];
  __shared__ unsigned long long sh_u64[${THREADS}]; __shared__ long long sh_i64[${THREADS}];
${body.map((l) => "  " + l).join("\n")}
}
`;
  return { trees, source, inputs, lines };
}

/** A difference between the simulator and the reference. */
export interface Difference {
  readonly expr: number;
  readonly thread: number;
  readonly type: Ty;
  readonly got: bigint;
  readonly want: bigint;
}

/** Compares the kernel's outputs `o` with the reference; `checked` counts the compared values. */
export function compare(k: FuzzKernel, o: BigUint64Array, checked = { n: 0 }): Difference[] {
  const diffs: Difference[] = [];
  k.trees.forEach((tree, e) => {
    for (let th = 0; th < THREADS; th++) {
      const want = outBits(tree.t, evaluate(tree, k.inputs, th));
      if (want === undefined) continue;
      checked.n++;
      const got = o[e * THREADS + th];
      if (got === want) continue;
      if (tree.t === "f32" && isNaN32(want) && isNaN32(got)) continue;
      if (tree.t === "f64" && isNaN64(want) && isNaN64(got)) continue;
      diffs.push({ expr: e, thread: th, type: tree.t, got, want });
    }
  });
  return diffs;
}
const isNaN32 = (b: bigint) =>
  b <= 0xffffffffn && (b & 0x7f800000n) === 0x7f800000n && (b & 0x7fffffn) !== 0n;
const isNaN64 = (b: bigint) =>
  (b & 0x7ff0000000000000n) === 0x7ff0000000000000n && (b & 0xfffffffffffffn) !== 0n;
