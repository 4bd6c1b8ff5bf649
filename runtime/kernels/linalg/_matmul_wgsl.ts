/**
 * The WGSL of {@linkcode matmul}'s batched products (a batch of more than one; single products go
 * through the tuned set of `runtime/tune/matmul.ts`). Register tiles of 4 x 4 outputs per
 * invocation, 8 x 8 invocations per workgroup (no workgroup memory: on llvmpipe register tiles
 * win), product `b` of the batch on workgroup z. With `transposeA` the stored `a` is `[k, m]`,
 * with `transposeB` `b` is `[n, k]`; the strides say so, the loop is the same. Each invocation
 * loops `k` times (the launch refuses more than llvmpipe's 65,535).
 *
 * @module
 */

import type { KernelText } from "../_shape.ts";

/** Outputs per invocation along each axis, and the workgroup's side. */
export const BATCH_TILE = 4;
export const BATCH_GROUP = 8;

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** The batched kernel for the transposes. Bindings: `a`, `b`, `c`, `dims` (`M`, `N`, `K`). */
export function batchedMatmulWgsl(transposeA: boolean, transposeB: boolean): KernelText {
  const t = BATCH_TILE;
  // Element (row, kk) of product z's A and (kk, col) of its B.
  const aAt = (r: number) =>
    transposeA ? `aBase + k * M + row0 + ${r}u` : `aBase + (row0 + ${r}u) * K + k`;
  const bAt = (j: number) =>
    transposeB ? `bBase + (col0 + ${j}u) * K + k` : `bBase + k * N + col0 + ${j}u`;
  const loads = [
    ...range(t).map((r) => `    let a${r} = load_a(${aAt(r)}, row0 + ${r}u < M);`),
    ...range(t).map((j) => `    let b${j} = load_b(${bAt(j)}, col0 + ${j}u < N);`),
    ...range(t).flatMap((r) =>
      range(t).map((j) => `    acc${r}_${j} = fma(a${r}, b${j}, acc${r}_${j});`)
    ),
  ];
  const decls = range(t).flatMap((r) => range(t).map((j) => `var acc${r}_${j} = 0.0;`));
  const stores = range(t).flatMap((r) =>
    range(t).map((j) =>
      `  if (row0 + ${r}u < M && col0 + ${j}u < N) { c[cBase + (row0 + ${r}u) * N + col0 + ${j}u] = acc${r}_${j}; }`
    )
  );
  return {
    id: `matmul_batched_${transposeA ? "t" : "n"}${transposeB ? "t" : "n"}`,
    source: `
struct Dims { M: u32, N: u32, K: u32 }
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> dims: Dims;
fn load_a(i: u32, ok: bool) -> f32 { if (ok) { return a[i]; } return 0.0; }
fn load_b(i: u32, ok: bool) -> f32 { if (ok) { return b[i]; } return 0.0; }
@compute @workgroup_size(${BATCH_GROUP}, ${BATCH_GROUP})
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let M = dims.M; let N = dims.N; let K = dims.K;
  let row0 = gid.y * ${t}u; let col0 = gid.x * ${t}u;
  if (row0 >= M || col0 >= N) { return; }
  let aBase = gid.z * M * K; let bBase = gid.z * K * N; let cBase = gid.z * M * N;
  ${decls.join(" ")}
  for (var k = 0u; k < K; k = k + 1u) {
${loads.join("\n")}
  }
${stores.join("\n")}
}`,
  };
}
