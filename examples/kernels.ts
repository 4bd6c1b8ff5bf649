/**
 * WGSL kernels of the demo. Each is only its source: the entry point, workgroup size and
 * bindings come from the WGSL. Inputs are `var<storage, read>`, scalars are named fields of a
 * `var<uniform>` struct filled by `params`. The dot product uses the library's `dot` helper.
 *
 * @module
 */

import type { WgslKernel } from "../mod.ts";

/** `v[i] = start + step * i`; params `{ start, step }`. */
export const fillLinear: WgslKernel = {
  id: "demo.fill_linear",
  source: `
struct Line { start: f32, step: f32 }
@group(0) @binding(0) var<storage, read_write> v: array<f32>;
@group(0) @binding(1) var<uniform> line: Line;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  if (gid.x >= arrayLength(&v)) { return; }
  v[gid.x] = line.start + line.step * f32(gid.x);
}`,
};

/** `v[i] = ((i * 7) % 13) / 4 - 1`: small exact values for matrices. */
export const fillPattern: WgslKernel = {
  id: "demo.fill_pattern",
  source: `
@group(0) @binding(0) var<storage, read_write> v: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  if (gid.x >= arrayLength(&v)) { return; }
  v[gid.x] = f32((gid.x * 7u) % 13u) * 0.25 - 1.0;
}`,
};

/** `v[i] *= factor`; params `{ factor }`. */
export const scale: WgslKernel = {
  id: "demo.scale",
  source: `
struct Scale { factor: f32 }
@group(0) @binding(0) var<storage, read_write> v: array<f32>;
@group(0) @binding(1) var<uniform> s: Scale;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  if (gid.x >= arrayLength(&v)) { return; }
  v[gid.x] = v[gid.x] * s.factor;
}`,
};

/**
 * Tiled matmul `c[m][n] = sum_k a[m][k] * b[k][n]` with 16x16 tiles; params `{ M, N, K }`;
 * `threads: [N, M]` covers the output.
 */
export const matmulTiled: WgslKernel = {
  id: "demo.matmul_tiled",
  source: `
struct Dims { M: u32, N: u32, K: u32 }
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> dims: Dims;
var<workgroup> tileA: array<array<f32, 16>, 16>;
var<workgroup> tileB: array<array<f32, 16>, 16>;
@compute @workgroup_size(16, 16)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(local_invocation_id) lid: vec3u) {
  let M = dims.M; let N = dims.N; let K = dims.K;
  let row = gid.y; let col = gid.x;
  var acc = 0.0;
  for (var t = 0u; t < (K + 15u) / 16u; t = t + 1u) {
    let ka = t * 16u + lid.x; let kb = t * 16u + lid.y;
    tileA[lid.y][lid.x] = select(0.0, a[row * K + ka], row < M && ka < K);
    tileB[lid.y][lid.x] = select(0.0, b[kb * N + col], kb < K && col < N);
    workgroupBarrier();
    for (var k = 0u; k < 16u; k = k + 1u) { acc = acc + tileA[lid.y][k] * tileB[k][lid.x]; }
    workgroupBarrier();
  }
  if (row < M && col < N) { c[row * N + col] = acc; }
}`,
};
