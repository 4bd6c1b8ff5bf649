/**
 * WGSL kernels of the demo (and the WebGPU benchmarks). Buffers are bound `read_write`: slices of
 * one page share a GPUBuffer, and WebGPU forbids read-only and writable uses of one buffer in one
 * dispatch. Scalars arrive in the info buffer bound after the buffers (see
 * `runtime/server/webgpu/info_layout.ts`): with no metadata the f32 group starts at word 0.
 * Workgroups of reductions are 64 wide: llvmpipe runs barriers of wider groups far slower.
 *
 * @module
 */

import type { WgslKernel } from "../mod.ts";

/** `v[i] = start + step * i`; f32 scalars `[start, step]`. */
export const fillLinear: WgslKernel = {
  id: "demo.fill_linear",
  entryPoint: "main",
  workgroupSize: [64, 1, 1],
  source: `
@group(0) @binding(0) var<storage, read_write> v: array<f32>;
@group(0) @binding(1) var<storage, read> info: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  if (gid.x >= arrayLength(&v)) { return; }
  v[gid.x] = bitcast<f32>(info[0]) + bitcast<f32>(info[1]) * f32(gid.x);
}`,
};

/** `v[i] = ((i * 7) % 13) / 4 - 1`: small exact values for matrices. */
export const fillPattern: WgslKernel = {
  id: "demo.fill_pattern",
  entryPoint: "main",
  workgroupSize: [64, 1, 1],
  source: `
@group(0) @binding(0) var<storage, read_write> v: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  if (gid.x >= arrayLength(&v)) { return; }
  v[gid.x] = f32((gid.x * 7u) % 13u) * 0.25 - 1.0;
}`,
};

/** `v[i] *= s`; f32 scalar `[s]`. */
export const scale: WgslKernel = {
  id: "demo.scale",
  entryPoint: "main",
  workgroupSize: [64, 1, 1],
  source: `
@group(0) @binding(0) var<storage, read_write> v: array<f32>;
@group(0) @binding(1) var<storage, read> info: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  if (gid.x >= arrayLength(&v)) { return; }
  v[gid.x] = v[gid.x] * bitcast<f32>(info[0]);
}`,
};

/**
 * WGSL shared by the reductions: `reduce_workgroup(lid, value)` returns the sum of `value` over
 * the 64 invocations of the workgroup (a tree in workgroup memory) to invocation 0.
 */
const REDUCE_WORKGROUP = `
var<workgroup> sums: array<f32, 64>;
fn reduce_workgroup(lid: u32, value: f32) -> f32 {
  sums[lid] = value;
  workgroupBarrier();
  for (var stride = 32u; stride > 0u; stride = stride / 2u) {
    if (lid < stride) { sums[lid] = sums[lid] + sums[lid + stride]; }
    workgroupBarrier();
  }
  return sums[0];
}`;

/** Workgroup tree reduction: `partial[w] = sum(a[i] * b[i])` over the 64 elements of group w. */
export const dotPartial: WgslKernel = {
  id: "demo.dot_partial",
  entryPoint: "main",
  workgroupSize: [64, 1, 1],
  source: `
@group(0) @binding(0) var<storage, read_write> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> partial: array<f32>;
${REDUCE_WORKGROUP}
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(local_invocation_index) lid: u32,
        @builtin(workgroup_id) wid: vec3u) {
  var value = 0.0;
  if (gid.x < arrayLength(&a)) { value = a[gid.x] * b[gid.x]; }
  let sum = reduce_workgroup(lid, value);
  if (lid == 0u) { partial[wid.x] = sum; }
}`,
};

/** One workgroup sums `partial` into `total[0]`. */
export const sumAll: WgslKernel = {
  id: "demo.sum_all",
  entryPoint: "main",
  workgroupSize: [64, 1, 1],
  source: `
@group(0) @binding(0) var<storage, read_write> partial: array<f32>;
@group(0) @binding(1) var<storage, read_write> total: array<f32>;
${REDUCE_WORKGROUP}
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
  var value = 0.0;
  for (var i = lid; i < arrayLength(&partial); i = i + 64u) { value = value + partial[i]; }
  let sum = reduce_workgroup(lid, value);
  if (lid == 0u) { total[0] = sum; }
}`,
};

/** Tiled matmul `c[m][n] = sum_k a[m][k] * b[k][n]` with 16x16 tiles; u32 scalars `[M, N, K]`. */
export const matmulTiled: WgslKernel = {
  id: "demo.matmul_tiled",
  entryPoint: "main",
  workgroupSize: [16, 16, 1],
  source: `
@group(0) @binding(0) var<storage, read_write> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<storage, read> info: array<u32>;
var<workgroup> tileA: array<array<f32, 16>, 16>;
var<workgroup> tileB: array<array<f32, 16>, 16>;
@compute @workgroup_size(16, 16)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(local_invocation_id) lid: vec3u) {
  let M = info[0]; let N = info[1]; let K = info[2];
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
