/**
 * The WGSL of {@linkcode transpose} and {@linkcode gather}.
 *
 * Transpose: each workgroup (64 invocations) moves one 32 x 32 tile through workgroup memory, so
 * both the reads of the input's rows and the writes of the output's rows are contiguous; each
 * invocation moves 16 elements. Workgroup `g` takes tile `(g / tiles_c, g % tiles_c)`; a
 * one-dimensional launch, so any number of tiles works (the runtime folds past 65,535).
 *
 * Gather: one invocation per output element; an index past the input's end reads 0 and, in the
 * checked kernel, lowers `flag[0]` to its position with `atomicMin`.
 *
 * @module
 */

import type { ElementType } from "../elementwise.ts";
import type { KernelText } from "../_shape.ts";

/** Side of a transpose tile. */
export const TILE = 32;

/** The transpose of a `[rows, cols]` array of `type`. Bindings: `x`, `out`, `params`. */
export function transposeWgsl(type: ElementType): KernelText {
  return {
    id: `transpose_${type}`,
    source: `
struct Params { rows: u32, cols: u32, tiles_c: u32 }
@group(0) @binding(0) var<storage, read> x: array<${type}>;
@group(0) @binding(1) var<storage, read_write> out: array<${type}>;
@group(0) @binding(2) var<uniform> params: Params;
var<workgroup> tile: array<array<${type}, ${TILE + 1}>, ${TILE}>;
@compute @workgroup_size(${TILE}, 2)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_id) lid: vec3u) {
  let r0 = (wid.x / params.tiles_c) * ${TILE}u;
  let c0 = (wid.x % params.tiles_c) * ${TILE}u;
  for (var j = 0u; j < ${TILE}u; j = j + 2u) {
    let r = r0 + lid.y + j; let c = c0 + lid.x;
    if (r < params.rows && c < params.cols) { tile[lid.y + j][lid.x] = x[r * params.cols + c]; }
  }
  workgroupBarrier();
  for (var j = 0u; j < ${TILE}u; j = j + 2u) {
    let c = c0 + lid.y + j; let r = r0 + lid.x;
    if (r < params.rows && c < params.cols) { out[c * params.rows + r] = tile[lid.x][lid.y + j]; }
  }
}`,
  };
}

/**
 * The gather of `type` elements. Bindings: `x`, `indices` (u32), `out`, `params` (`n`: outputs,
 * `len`: the input's elements); with `checked`, then `flag` (atomic u32, `[0xffffffff, 0]`).
 */
export function gatherWgsl(type: ElementType, checked: boolean): KernelText {
  const zero = type === "f32" ? "0.0" : `${type}(0)`;
  return {
    id: `gather_${type}${checked ? "_checked" : ""}`,
    source: `
struct Params { n: u32, len: u32 }
@group(0) @binding(0) var<storage, read> x: array<${type}>;
@group(0) @binding(1) var<storage, read> indices: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<${type}>;
@group(0) @binding(3) var<uniform> params: Params;
${checked ? "@group(0) @binding(4) var<storage, read_write> flag: array<atomic<u32>>;" : ""}
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let i = gid.x;
  if (i >= params.n) { return; }
  let k = indices[i];
  if (k < params.len) { out[i] = x[k]; } else {
    out[i] = ${zero};
    ${checked ? "atomicMin(&flag[0], i);" : ""}
  }
}`,
  };
}

/** Copies the index at the first bad position (`flag[0]`) into `flag[1]`: one invocation. */
export const BAD_INDEX_WGSL: KernelText = {
  id: "gather_bad_index",
  source: `
@group(0) @binding(0) var<storage, read> indices: array<u32>;
@group(0) @binding(1) var<storage, read_write> flag: array<u32>;
@compute @workgroup_size(1)
fn main() {
  if (flag[0] < arrayLength(&indices)) { flag[1] = indices[flag[0]]; }
}`,
};
