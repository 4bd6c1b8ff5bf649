/**
 * The WGSL of argmax and argmin (kernel text apart from the launch in `argmax.ts`).
 *
 * Each segment (see `_grid.ts`) is cut into chunks: {@linkcode VALUE_CHUNK} elements for the pass
 * over the values, {@linkcode PARTIAL_CHUNK} for the passes over partials. Workgroup `g` folds
 * chunk `g % chunks` of segment `g / chunks` to its best `(key, index)`: each invocation a
 * strided run (at most 256 iterations: llvmpipe's loop limit), then a tree in workgroup memory.
 * The best is the highest key, and among equal keys the lowest index. argmax's key is the order
 * key (NaN highest, so the first NaN wins, as NumPy's); argmin's is the inverted order key with
 * NaN still highest. Where a segment is contiguous and a whole number of vec4s (`inner` 1, a
 * count divisible by 4), the values pass loads vec4s: on llvmpipe twice as fast as scalars. An
 * invocation's run goes up in index, so there a key replaces the best only when strictly higher.
 * With several chunks further launches fold the chunks' `(key, index)` partials. Segments of at
 * most {@linkcode ARG_ROW_MAX} elements are instead folded one invocation each
 * ({@linkcode argRowsKernel}): a workgroup per short row would mostly wait at barriers.
 *
 * @module
 */

import type { ElementType } from "../elementwise.ts";
import type { GeneratedKernel } from "../_grid.ts";
import { SEGMENT_INDEX } from "../_grid.ts";
import { orderKeyFunction } from "../_order_keys.ts";

/** Invocations per workgroup. */
export const ARG_WORKGROUP = 64;
/** Values per chunk (per workgroup) of the first pass: 256 scalars or 64 vec4s an invocation. */
export const VALUE_CHUNK = ARG_WORKGROUP * 256;
/** The longest segment that {@linkcode argRowsKernel} folds in one invocation. */
export const ARG_ROW_MAX = 64;
/** Partials per chunk of the folding passes: 16 an invocation (few: they are the last passes). */
export const PARTIAL_CHUNK = ARG_WORKGROUP * 16;

/**
 * One pass. `from`: `"values"` reads `x` (of `type`) and makes keys; `"partials"` reads a first
 * pass's keys and indices. `to`: `"partials"` writes both, `"indices"` only the index (the
 * result). Bindings, storage in order: the inputs (x, or keys then indices), the outputs (keys
 * then indices, or out); uniform `params { count, inner, chunks }` of the layout it reads.
 * `vector`: the values pass reads `x` as vec4s (`inner` must be 1 and `count` divisible by 4).
 */
export function argKernel(
  type: ElementType,
  largest: boolean,
  from: "values" | "partials",
  to: "partials" | "indices",
  vector = false,
): GeneratedKernel {
  const w = ARG_WORKGROUP;
  const chunk = from === "values" ? VALUE_CHUNK : PARTIAL_CHUNK;
  const vec = from === "values" && vector;
  const inputs = from === "values"
    ? `@group(0) @binding(0) var<storage, read> x: array<${vec ? `vec4<${type}>` : type}>;`
    : `@group(0) @binding(0) var<storage, read> in_keys: array<u32>;
@group(0) @binding(1) var<storage, read> in_indices: array<u32>;`;
  const next = from === "values" ? 1 : 2;
  const outputs = to === "partials"
    ? `@group(0) @binding(${next}) var<storage, read_write> out_keys: array<u32>;
@group(0) @binding(${next + 1}) var<storage, read_write> out_indices: array<u32>;`
    : `@group(0) @binding(${next}) var<storage, read_write> out: array<u32>;`;
  const argKey = argKeyFunction(type, largest);
  const keyOf = (v: string) => `arg_key(${v})`;
  // An invocation's run goes up in index: a key takes over only when strictly higher.
  const take = (k: string, index: string) =>
    `if (${k} > best_key || best_index == 0xffffffffu) { best_key = ${k}; best_index = ${index}; }`;
  const loop = vec
    ? `let quad = base / 4u;
  for (var q = first / 4u + lid; q < end / 4u; q = q + ${w}u) {
    let v = x[quad + q];
    let k = q * 4u;
    ${["x", "y", "z", "w"].map((c, i) => `let k${i} = ${keyOf(`v.${c}`)};`).join(" ")}
    ${take("k0", "k")}
    ${take("k1", "k + 1u")}
    ${take("k2", "k + 2u")}
    ${take("k3", "k + 3u")}
  }`
    : from === "values"
    ? `for (var k = first + lid; k < end; k = k + ${w}u) {
    let key = ${keyOf(`x[base + k * params.inner]`)};
    ${take("key", "k")}
  }`
    : `for (var k = first + lid; k < end; k = k + ${w}u) {
    let key = in_keys[base + k * params.inner];
    let index = in_indices[base + k * params.inner];
    if (better(key, index, best_key, best_index)) { best_key = key; best_index = index; }
  }`;
  const write = to === "partials"
    ? "out_keys[wid.x] = best_keys[0]; out_indices[wid.x] = best_indices[0];"
    : "out[wid.x] = best_indices[0];";
  return {
    id: `arg${largest ? "max" : "min"}_${type}_${from}${vec ? "4" : ""}_to_${to}`,
    source: `${inputs}
${outputs}
struct Params { count: u32, inner: u32, chunks: u32 }
@group(0) @binding(${next + (to === "partials" ? 2 : 1)}) var<uniform> params: Params;
${SEGMENT_INDEX}
${orderKeyFunction(type)}
${from === "values" ? argKey : ""}
var<workgroup> best_keys: array<u32, ${w}>;
var<workgroup> best_indices: array<u32, ${w}>;
fn better(key: u32, index: u32, than_key: u32, than_index: u32) -> bool {
  return key > than_key || (key == than_key && index < than_index);
}
@compute @workgroup_size(${w})
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lid: u32) {
  let segment = wid.x / params.chunks;
  let base = at(segment, 0u);
  let first = (wid.x % params.chunks) * ${chunk}u;
  let end = min(first + ${chunk}u, params.count);
  var best_key = 0u;
  var best_index = 0xffffffffu;
  ${loop}
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

/**
 * Short segments (at most {@linkcode ARG_ROW_MAX} elements), one invocation each. Bindings: x
 * (of `type`), out (u32 indices), uniform `params { count, inner, segments }`.
 */
export function argRowsKernel(type: ElementType, largest: boolean): GeneratedKernel {
  return {
    id: `arg${largest ? "max" : "min"}_${type}_rows`,
    source: `@group(0) @binding(0) var<storage, read> x: array<${type}>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
struct Params { count: u32, inner: u32, segments: u32 }
@group(0) @binding(2) var<uniform> params: Params;
${SEGMENT_INDEX}
${orderKeyFunction(type)}
${argKeyFunction(type, largest)}
@compute @workgroup_size(${ARG_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let segment = gid.x;
  if (segment >= params.segments) { return; }
  let base = at(segment, 0u);
  var best_key = arg_key(x[base]);
  var best_index = 0u;
  for (var k = 1u; k < min(params.count, ${ARG_ROW_MAX}u); k = k + 1u) {
    let key = arg_key(x[base + k * params.inner]);
    if (key > best_key) { best_key = key; best_index = k; }
  }
  out[segment] = best_index;
}`,
  };
}

/**
 * WGSL of `fn arg_key(v) -> u32`: the key whose highest value wins (NaN highest either way). Only
 * f32 has NaN: an integer's order key `0xffffffff` is the type's largest value, inverted as any.
 */
function argKeyFunction(type: ElementType, largest: boolean): string {
  const smallest = type === "f32" ? "select(~o, 0xffffffffu, o == 0xffffffffu)" : "~o";
  return `fn arg_key(v: ${type}) -> u32 { let o = order_key(v); return ${
    largest ? "o" : smallest
  }; }`;
}
