/**
 * The random trees of the PTX fuzzer (tests/cuda_ptx_fuzz_test.ts): every operation of the
 * operation tables by result type (as the target and `-ftz` choose), and the trees drawn from them:
 * branches (`if`/`else`), loops, warp collectives (never under a branch unless each arm's lanes are
 * the member mask), memory (loads, shared exchanges, atomics, local arrays), calls.
 *
 * @module
 */
import { type Op, selects } from "./_cuda_fuzz_ops_int.ts";
import { INT_OPS } from "./_cuda_fuzz_ops_int64.ts";
import { FLOAT_OPS, ftzOps } from "./_cuda_fuzz_ops_cvt.ts";
import { MORE_OPS, SIMD2_OPS } from "./_cuda_fuzz_ops_more.ts";
import { BF16_OPS, HALF_OPS } from "./_cuda_fuzz_ops_half.ts";
import { bitsf32 } from "./_cuda_float_ref.ts";
import { genF32, genF64, genU32, genU64, type Rng, type Ty, type V } from "./_cuda_fuzz_values.ts";
import type { AtomFn, DivergentFn, Hint, Node, WarpFn, Width } from "./_cuda_fuzz_node.ts";
import { VARS } from "./_cuda_fuzz_node.ts";

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
export const OPS_PRE80 = OPS.filter((o) =>
  !PRE_SM80_MISCOMPILED.has(o.name) && !BF16_OPS.includes(o)
);
const MAPS = new Map<string, Map<Ty, Op[]>>([
  ["ieee80", byType(OPS)],
  ["ftz80", byType(ftzOps(OPS))],
  ["ieee", byType(OPS_PRE80)],
  ["ftz", byType(ftzOps(OPS_PRE80))],
]);
let BY_TYPE = MAPS.get("ieee80")!;
/** Draws the next trees from the operations of a kernel for sm_80 and later or not, `-ftz` or not. */
export function useOps(sm80: boolean, ftz: boolean): void {
  BY_TYPE = MAPS.get(`${ftz ? "ftz" : "ieee"}${sm80 ? "80" : ""}`)!;
  FTZ = ftz;
}
/**
 * Whether the trees are for `-ftz=true`: then no f32 constant is subnormal (NVRTC folds
 * `(double)` of a constant subnormal without the flush that `cvt.ftz.f64.f32` does at run time).
 */
let FTZ = false;

function constant(r: Rng, t: Ty): Node {
  switch (t) {
    case "u32":
    case "i32": {
      const v = genU32(r);
      return { k: "const", t, v: t === "u32" ? v : v | 0, c: t === "u32" ? `${v}u` : `(int)${v}u` };
    }
    case "f32": {
      let b = genF32(r);
      while (FTZ && (b & 0x7f800000) === 0 && (b & 0x7fffff) !== 0) b = genF32(r);
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
