/**
 * The WGSL of the reductions: each workgroup folds a contiguous chunk of the input (each
 * invocation a strided run, then a tree in workgroup memory) into one partial; a second launch of
 * the same kernel folds the partials with one workgroup.
 *
 * On llvmpipe, workgroup barriers and workgroup memory are slow: 32- and 64-wide groups beat
 * 256-wide ones several times on reductions (bench/kernels_bench.ts measures the sizes).
 *
 * @module
 */

/** A generated WGSL kernel (the WebGPU backend's kernel shape). */
export interface GeneratedKernel {
  readonly id: string;
  readonly source: string;
}

/**
 * A reduction operator.
 *
 * @example
 * ```ts
 * import type { ReduceOp } from "@gpucompute/runtime";
 * const op: ReduceOp = "max";
 * ```
 */
export type ReduceOp = "sum" | "max" | "min";

const COMBINE: Record<ReduceOp, (a: string, b: string) => string> = {
  sum: (a, b) => `${a} + ${b}`,
  max: (a, b) => `max(${a}, ${b})`,
  min: (a, b) => `min(${a}, ${b})`,
};

// The identity of each op (max starts at -inf, min at +inf). Quirk: an infinite constant
// expression is a shader-creation error in WGSL (Chrome's Tint refuses
// `bitcast<f32>(0xff800000u)`, naga lets it through), so the infinities are bitcast from a
// variable, at run time.
const IDENTITY: Record<ReduceOp, string> = {
  sum: "var acc = 0.0;",
  max: "var bits = 0xff800000u;\n  var acc = bitcast<f32>(bits);",
  min: "var bits = 0x7f800000u;\n  var acc = bitcast<f32>(bits);",
};

/** The kernel folding `a` (or `a * b` element-wise with `product`) into `partial[group]`. */
export function reduceKernel(op: ReduceOp, product: boolean, workgroup: number): GeneratedKernel {
  const combine = COMBINE[op];
  const load = product ? "a[i] * b[i]" : "a[i]";
  const source = `
struct Params { n: u32, per_group: u32 }
@group(0) @binding(0) var<storage, read> a: array<f32>;
${product ? "@group(0) @binding(1) var<storage, read> b: array<f32>;" : ""}
@group(0) @binding(${product ? 2 : 1}) var<storage, read_write> partial: array<f32>;
@group(0) @binding(${product ? 3 : 2}) var<uniform> params: Params;
var<workgroup> folded: array<f32, ${workgroup}>;
@compute @workgroup_size(${workgroup})
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let group = wid.x + nwg.x * (wid.y + nwg.y * wid.z);
  let start = group * params.per_group;
  let end = min(start + params.per_group, params.n);
  ${IDENTITY[op]}
  for (var i = start + lid; i < end; i = i + ${workgroup}u) { acc = ${combine("acc", load)}; }
  folded[lid] = acc;
  workgroupBarrier();
  for (var stride = ${workgroup / 2}u; stride > 0u; stride = stride / 2u) {
    if (lid < stride) { folded[lid] = ${combine("folded[lid]", "folded[lid + stride]")}; }
    workgroupBarrier();
  }
  if (lid == 0u) { partial[group] = folded[0]; }
}`;
  return { id: `reduce_${product ? "dot" : op}_${workgroup}`, source };
}
