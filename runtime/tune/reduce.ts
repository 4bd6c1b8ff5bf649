/**
 * A tunable f32 sum: each workgroup folds a contiguous chunk (every invocation a strided run,
 * then a tree in workgroup memory) into one partial, and a second launch of the same kernel folds
 * the partials with one workgroup. Variants differ in workgroup width and in how many partials
 * the first launch makes; `single_64` does it all in one launch of one workgroup.
 *
 * @module
 */

import type { ComputeClient } from "../client.ts";
import { CubeCount } from "../core/cube_count.ts";
import type { Handle } from "../core/handle.ts";
import type { KernelMetadata } from "../core/kernel.ts";
import { anchor } from "./key.ts";
import { type Tunable, TunableSet } from "./tunable_set.ts";

/**
 * Inputs of {@linkcode sumSet}: `n` f32 values in `x`.
 *
 * @example
 * ```ts ignore
 * import { createClient } from "@gpucompute/runtime";
 * import type { SumInputs } from "@gpucompute/runtime/tune";
 * using client = await createClient();
 * using x = client.createWithData(new Float32Array([1, 2, 3]));
 * const inputs: SumInputs = { x, n: 3 };
 * ```
 */
export interface SumInputs {
  /** The values. */
  readonly x: Handle;
  /** How many values to sum (at least 1). */
  readonly n: number;
}

/**
 * The key of a sum: the anchored length.
 *
 * @example
 * ```ts
 * import type { SumKey } from "@gpucompute/runtime/tune";
 * const key: SumKey = { n: 65536 };
 * ```
 */
export type SumKey = { readonly n: number };

/**
 * A sum variant: workgroup width and most partials of the first launch (1: one launch).
 *
 * @example
 * ```ts
 * import type { SumVariant } from "@gpucompute/runtime/tune";
 * const v: SumVariant = { name: "wg64_g256", workgroup: 64, maxGroups: 256 };
 * ```
 */
export interface SumVariant {
  /** Candidate name. */
  readonly name: string;
  /** Invocations per workgroup (a power of two). */
  readonly workgroup: number;
  /** Most workgroups of the first launch. */
  readonly maxGroups: number;
}

/**
 * The variants of {@linkcode sumSet}, in candidate order.
 *
 * @example
 * ```ts
 * import { SUM_VARIANTS } from "@gpucompute/runtime/tune";
 * console.log(SUM_VARIANTS.length);
 * ```
 */
export const SUM_VARIANTS: readonly SumVariant[] = [
  { name: "single_64", workgroup: 64, maxGroups: 1 },
  { name: "wg32_g256", workgroup: 32, maxGroups: 256 },
  { name: "wg64_g64", workgroup: 64, maxGroups: 64 },
  { name: "wg64_g256", workgroup: 64, maxGroups: 256 },
  { name: "wg64_g1024", workgroup: 64, maxGroups: 1024 },
  { name: "wg256_g256", workgroup: 256, maxGroups: 256 },
];

/**
 * The WGSL kernel of a sum pass for a workgroup width: u32 scalars `[n, perGroup]`; buffers
 * `x` and `partial`.
 *
 * @example
 * ```ts
 * import { sumKernel } from "@gpucompute/runtime/tune";
 * console.log(sumKernel(64).workgroupSize); // [ 64, 1, 1 ]
 * ```
 */
export function sumKernel(workgroup: number): KernelMetadata & {
  source: string;
  entryPoint: string;
  workgroupSize: [number, number, number];
} {
  return {
    id: `tune.sum.wg${workgroup}`,
    entryPoint: "main",
    workgroupSize: [workgroup, 1, 1],
    source: `
@group(0) @binding(0) var<storage, read_write> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> partial: array<f32>;
@group(0) @binding(2) var<storage, read> info: array<u32>;
var<workgroup> sums: array<f32, ${workgroup}>;
@compute @workgroup_size(${workgroup})
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3u) {
  let n = info[0]; let per_group = info[1];
  let start = wid.x * per_group;
  let end = min(start + per_group, n);
  var acc = 0.0;
  for (var i = start + lid; i < end; i = i + ${workgroup}u) { acc = acc + x[i]; }
  sums[lid] = acc;
  workgroupBarrier();
  for (var stride = ${workgroup / 2}u; stride > 0u; stride = stride / 2u) {
    if (lid < stride) { sums[lid] = sums[lid] + sums[lid + stride]; }
    workgroupBarrier();
  }
  if (lid == 0u) { partial[wid.x] = sums[0]; }
}`,
  };
}

/**
 * The sum set on a client: candidates return a new 4-byte handle holding the sum.
 *
 * @example
 * ```ts ignore
 * import { createClient } from "@gpucompute/runtime";
 * import { sumSet, Tuner } from "@gpucompute/runtime/tune";
 * using client = await createClient();
 * using x = client.createWithData(new Float32Array(10_000).fill(0.5));
 * using total = await new Tuner(client).execute(sumSet(client), { x, n: 10_000 });
 * console.log(await client.read(total, Float32Array)); // Float32Array [5000]
 * ```
 */
export function sumSet<K extends KernelMetadata>(
  client: ComputeClient<K>,
): TunableSet<SumKey, SumInputs, Handle> {
  const kernels = new Map<number, K>();
  const kernel = (workgroup: number) => {
    let found = kernels.get(workgroup);
    if (found === undefined) kernels.set(workgroup, found = sumKernel(workgroup) as unknown as K);
    return found;
  };
  /** One launch: `groups` workgroups, each folding `perGroup` values of `x` into `out`. */
  const pass = (k: K, x: Handle, out: Handle, n: number, perGroup: number) => {
    client.execute(k, {
      count: CubeCount.new1d(Math.ceil(n / perGroup)),
      buffers: [x, out],
      scalars: { u32: [n, perGroup] },
    });
  };
  const candidates = SUM_VARIANTS.map((v): Tunable<SumKey, SumInputs, Handle> => ({
    name: v.name,
    run({ x, n }) {
      if (!(n >= 1)) throw new RangeError(`Cannot sum ${n} values: need at least 1`);
      const k = kernel(v.workgroup);
      const out = client.create(4);
      // Chunks are whole multiples of the workgroup width, so every invocation has work.
      const groups = Math.min(v.maxGroups, Math.ceil(n / v.workgroup));
      const perGroup = Math.ceil(n / groups / v.workgroup) * v.workgroup;
      const partials = Math.ceil(n / perGroup);
      if (partials === 1) {
        pass(k, x, out, n, n);
        return out;
      }
      using partial = client.create(partials * 4); // freed after launch: the server pins it
      pass(k, x, partial, n, perGroup);
      pass(k, partial, out, partials, partials);
      return out;
    },
  }));
  return new TunableSet("sum", {
    candidates,
    key: ({ n }) => ({ n: anchor(n, { min: 64, max: 1 << 26 }) }),
    inputs: (key) => ({
      x: client.createWithData(Float32Array.from({ length: key.n }, () => Math.random())),
      n: key.n,
    }),
    reference: "single_64",
    fallback: "wg64_g256",
    tolerance: { absolute: 1e-3, relative: 1e-4 },
    work: ({ n }) => n,
  });
}
