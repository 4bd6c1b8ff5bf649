/**
 * The CPU reference of the PTX fuzzer (tests/cuda_ptx_fuzz_test.ts): a tree's value in a
 * thread (warp collectives, shared memory and atomics read the other threads' values), and the
 * comparison of a kernel's outputs with it, bit for bit (a NaN as any NaN).
 *
 * @module
 */
import { outBits, type R, type Ty, type V } from "./_cuda_fuzz_values.ts";
import {
  type AtomFn,
  type Inputs,
  leaf,
  LOADS,
  type Node,
  THREADS,
  VARS,
  type WarpFn,
} from "./_cuda_fuzz_node.ts";
import type { FuzzKernel } from "./_cuda_fuzz_gen.ts";

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
