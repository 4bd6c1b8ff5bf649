/**
 * The PTX fuzzer's kernels (tests/cuda_ptx_fuzz_test.ts): random typed expression trees
 * (tests/_cuda_fuzz_tree.ts) over the operation tables (tests/_cuda_fuzz_ops_*.ts), written as one
 * CUDA C kernel of many expressions (tests/_cuda_fuzz_emit.ts: one statement a node), and the edge
 * matrix (every operation on every pair of edge values); the CPU reference and the comparison bit
 * for bit are tests/_cuda_fuzz_eval.ts.
 *
 * @module
 */
import { PRELUDE } from "./_cuda_fuzz_ops_more.ts";
import { HALF_PRELUDE } from "./_cuda_fuzz_ops_half.ts";
import { ftzOps } from "./_cuda_fuzz_ops_cvt.ts";
import { F32_EDGES, F64_EDGES, Rng, U32_EDGES, U64_EDGES } from "./_cuda_fuzz_values.ts";
import { genInputs, type Inputs, type Node, THREADS, TYPES, VARS } from "./_cuda_fuzz_node.ts";
import { genTree, OPS, OPS_PRE80, useOps } from "./_cuda_fuzz_tree.ts";
import { emit } from "./_cuda_fuzz_emit.ts";

export { type Inputs, type Node, THREADS } from "./_cuda_fuzz_node.ts";
export { compare, type Difference, evaluate, opsOf } from "./_cuda_fuzz_eval.ts";
export { OPS } from "./_cuda_fuzz_tree.ts";

/** One fuzz kernel: its trees, its CUDA C and its inputs. */
export interface FuzzKernel {
  readonly trees: Node[];
  readonly source: string;
  readonly inputs: Inputs;
  readonly lines: string[][];
  /** The block (of THREADS threads) it is launched with; `t` is the linear thread index. */
  readonly block: [number, number, number];
}

/**
 * The block shapes of the random kernels, by seed: the warps are the linear index's runs of 32
 * (x fastest, then y, then z), whatever the shape.
 */
export const SHAPES: readonly [number, number, number][] = [[64, 1, 1], [8, 8, 1], [4, 4, 4], [
  16,
  2,
  2,
]];

/** The kernel of `count` random trees (`depth` levels) from `seed`. */
export function genKernel(
  seed: number,
  count: number,
  depth = 4,
  sm80 = true,
  ftz = false,
): FuzzKernel {
  useOps(sm80, ftz); // (the trees keep their operations)
  const r = new Rng(seed);
  const inputs = genInputs(r);
  const trees = Array.from({ length: count }, () => genTree(r, r.pick(TYPES), depth, true, sm80));
  return assemble(trees, inputs, [...SHAPES[seed % SHAPES.length]]);
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
export function assemble(
  trees: Node[],
  inputs: Inputs,
  block: [number, number, number] = [THREADS, 1, 1],
): FuzzKernel {
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
  unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  __shared__ __align__(8) unsigned sh_u32[${THREADS}]; __shared__ int sh_i32[${THREADS}];
  __shared__ unsigned sa_u32[8]; __shared__ int sa_i32[8];
  __shared__ unsigned long long sa_u64[8]; __shared__ long long sa_i64[8];
  __shared__ float sh_f32[${THREADS}]; __shared__ double sh_f64[${THREADS}];
  __shared__ unsigned long long sh_u64[${THREADS}]; __shared__ long long sh_i64[${THREADS}];
${body.map((l) => "  " + l).join("\n")}
}
`;
  return { trees, source, inputs, lines, block };
}
