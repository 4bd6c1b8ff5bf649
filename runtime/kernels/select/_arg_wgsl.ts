/**
 * The WGSL of argmax and argmin (kernel text apart from the launch in `argmax.ts`).
 *
 * Each segment (see `_grid.ts`) is cut into chunks of at most {@linkcode ARG_CHUNK} elements;
 * workgroup `g` folds chunk `g % chunks` of segment `g / chunks` to its best `(key, index)`:
 * each invocation a strided run (at most {@linkcode ARG_CHUNK} / {@linkcode ARG_WORKGROUP}
 * iterations: llvmpipe's loop limit), then a tree in workgroup memory. The best is the highest
 * key, and among equal keys the lowest index. argmax's key is the order key (NaN highest, so
 * the first NaN wins, as NumPy's); argmin's is the inverted order key with NaN still highest.
 * With several chunks a second launch folds the chunks' `(key, index)` partials.
 *
 * @module
 */

import type { ElementType } from "../elementwise.ts";
import type { GeneratedKernel } from "../_grid.ts";
import { SEGMENT_INDEX } from "../_grid.ts";
import { orderKeyFunction } from "../_order_keys.ts";

/** Invocations per workgroup. */
export const ARG_WORKGROUP = 64;
/** Elements per chunk (per workgroup): 64 iterations per invocation. */
export const ARG_CHUNK = ARG_WORKGROUP * 64;

/**
 * One pass. `from`: `"values"` reads `x` (of `type`) and makes keys; `"partials"` reads a first
 * pass's keys and indices. `to`: `"partials"` writes both, `"indices"` only the index (the
 * result). Bindings, storage in order: the inputs (x, or keys then indices), the outputs (keys
 * then indices, or out); uniform `params { count, inner, chunks }` of the layout it reads.
 */
export function argKernel(
  type: ElementType,
  largest: boolean,
  from: "values" | "partials",
  to: "partials" | "indices",
): GeneratedKernel {
  const w = ARG_WORKGROUP;
  const inputs = from === "values"
    ? `@group(0) @binding(0) var<storage, read> x: array<${type}>;`
    : `@group(0) @binding(0) var<storage, read> in_keys: array<u32>;
@group(0) @binding(1) var<storage, read> in_indices: array<u32>;`;
  const next = from === "values" ? 1 : 2;
  const outputs = to === "partials"
    ? `@group(0) @binding(${next}) var<storage, read_write> out_keys: array<u32>;
@group(0) @binding(${next + 1}) var<storage, read_write> out_indices: array<u32>;`
    : `@group(0) @binding(${next}) var<storage, read_write> out: array<u32>;`;
  const key = largest
    ? "order_key(v)"
    : "select(~order_key(v), 0xffffffffu, order_key(v) == 0xffffffffu)";
  const read = from === "values"
    ? `let v = x[base + k * params.inner]; let key = ${key}; let index = k;`
    : `let key = in_keys[base + k * params.inner]; let index = in_indices[base + k * params.inner];`;
  const write = to === "partials"
    ? "out_keys[wid.x] = best_keys[0]; out_indices[wid.x] = best_indices[0];"
    : "out[wid.x] = best_indices[0];";
  return {
    id: `arg${largest ? "max" : "min"}_${type}_${from}_to_${to}`,
    source: `${inputs}
${outputs}
struct Params { count: u32, inner: u32, chunks: u32 }
@group(0) @binding(${next + (to === "partials" ? 2 : 1)}) var<uniform> params: Params;
${SEGMENT_INDEX}
${orderKeyFunction(type)}
var<workgroup> best_keys: array<u32, ${w}>;
var<workgroup> best_indices: array<u32, ${w}>;
fn better(key: u32, index: u32, than_key: u32, than_index: u32) -> bool {
  return key > than_key || (key == than_key && index < than_index);
}
@compute @workgroup_size(${w})
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lid: u32) {
  let segment = wid.x / params.chunks;
  let base = at(segment, 0u);
  let first = (wid.x % params.chunks) * ${ARG_CHUNK}u;
  let end = min(first + ${ARG_CHUNK}u, params.count);
  var best_key = 0u;
  var best_index = 0xffffffffu;
  for (var k = first + lid; k < end; k = k + ${w}u) {
    ${read}
    if (better(key, index, best_key, best_index)) { best_key = key; best_index = index; }
  }
  best_keys[lid] = best_key;
  best_indices[lid] = best_index;
  workgroupBarrier();
  for (var stride = ${w / 2}u; stride > 0u; stride = stride / 2u) {
    if (lid < stride && better(best_keys[lid + stride], best_indices[lid + stride], best_keys[lid], best_indices[lid])) {
      best_keys[lid] = best_keys[lid + stride];
      best_indices[lid] = best_indices[lid + stride];
    }
    workgroupBarrier();
  }
  if (lid == 0u) { ${write} }
}`,
  };
}
