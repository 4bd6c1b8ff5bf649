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
 * A kernel that runs `body` for each element `i < params.n`, with the bindings in order and
 * uniform `params { n, cols, k, flags }` (unused fields are 0), plus `functions`: invocation `g`
 * takes elements `g * run` to `g * run + run - 1` in order (launch `ceil(n / run)` invocations).
 */
export function mapKernel(
  id: string,
  bindings: readonly MapBinding[],
  body: string,
  functions = "",
  run = 1,
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
${
      run === 1
        ? `  let i = gid.x;
  if (i >= params.n) { return; }
  ${body}`
        : `  for (var r = 0u; r < ${run}u; r = r + 1u) {
    let i = gid.x * ${run}u + r;
    if (i >= params.n) { return; }
    ${body}
  }`
    }
}`,
  };
}
