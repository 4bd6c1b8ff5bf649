/** WGSL kernels shared by the WebGPU tests (the conformance kernels and a few more). */
import type { WgslKernel } from "../runtime/server/webgpu/mod.ts";

const wg = 64;
const kernel = (id: string, source: string): WgslKernel => ({
  id,
  source,
  entryPoint: "main",
  workgroupSize: [wg, 1, 1],
});

export const CUBE_SIZE = wg;

export const fill: WgslKernel = kernel(
  "fill_u32",
  `
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<storage, read> info: array<u32>;
@compute @workgroup_size(${wg}) fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < info[0]) { out[id.x] = info[4]; }
}`,
);

export const scaleAdd: WgslKernel = kernel(
  "scale_add_f32",
  `
@group(0) @binding(0) var<storage, read_write> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<storage, read> info: array<u32>;
@compute @workgroup_size(${wg}) fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < info[0]) { out[id.x] = a[id.x] * bitcast<f32>(info[4]) + b[id.x]; }
}`,
);

export const increment: WgslKernel = kernel(
  "increment_u32",
  `
@group(0) @binding(0) var<storage, read_write> a: array<u32>;
@compute @workgroup_size(${wg}) fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < arrayLength(&a)) { a[id.x] += 1u; }
}`,
);

/** Writes `vec4f(1)` to `a[0]`: WebGPU rejects it at submit when `a` is bound with < 16 bytes. */
export const vec4Store: WgslKernel = kernel(
  "vec4_store",
  `
@group(0) @binding(0) var<storage, read_write> a: array<vec4f>;
@compute @workgroup_size(${wg}) fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x == 0u) { a[0] = vec4f(1.0); }
}`,
);

/** Buffers `[b0..b(n-1)]` u32: `b(n-1)[i] = b0[i] + ... + b(n-2)[i]`. */
export function sumBuffers(n: number): WgslKernel {
  const decls = Array.from(
    { length: n },
    (_, i) => `@group(0) @binding(${i}) var<storage, read_write> b${i}: array<u32>;`,
  ).join("\n");
  const sum = Array.from({ length: n - 1 }, (_, i) => `b${i}[i]`).join(" + ");
  return kernel(
    `sum_${n}_buffers`,
    `${decls}
@compute @workgroup_size(${wg}) fn main(@builtin(global_invocation_id) id: vec3u) {
  let i = id.x;
  if (i < arrayLength(&b${n - 1})) { b${n - 1}[i] = ${sum}; }
}`,
  );
}

/** Passes reflection but not WebGPU's compiler (a type error): it fails only asynchronously. */
export const typeMismatch: WgslKernel = kernel(
  "type_mismatch",
  `
@group(0) @binding(0) var<storage, read_write> a: array<u32>;
@compute @workgroup_size(${wg}) fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < arrayLength(&a)) { a[id.x] = 1.5; }
}`,
);
