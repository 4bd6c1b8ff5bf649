/**
 * One-invocation-per-element kernels around the radix sort: encoding keys (and payloads) before
 * it, decoding or gathering after it. Kernel text only; the launches are in `sort.ts` and
 * `select/topk.ts`.
 *
 * @module
 */

import type { ElementType } from "../elementwise.ts";
import type { GeneratedKernel } from "../_grid.ts";

/** A storage binding of a map kernel: name, element type, and whether it is written. */
export type MapBinding = readonly [name: string, type: ElementType, written: boolean];

/**
 * A kernel whose invocation `i < params.n` runs `body`, with the bindings in order and uniform
 * `params { n, cols, k, flags }` (unused fields are 0), plus `functions`.
 */
export function mapKernel(
  id: string,
  bindings: readonly MapBinding[],
  body: string,
  functions = "",
): GeneratedKernel {
  const declarations = bindings.map(([name, type, written], b) =>
    `@group(0) @binding(${b}) var<storage, ${
      written ? "read_write" : "read"
    }> ${name}: array<${type}>;`
  ).join("\n");
  return {
    id,
    source: `${declarations}
struct Params { n: u32, cols: u32, k: u32, flags: u32 }
@group(0) @binding(${bindings.length}) var<uniform> params: Params;
${functions}
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let i = gid.x;
  if (i >= params.n) { return; }
  ${body}
}`,
  };
}
