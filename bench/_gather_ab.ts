/**
 * `gather` of 1M f32 by 1M random u32 indices (issue #30): the library's `gather` against the same
 * kernel with the sizes as constants at 64 and at 256 invocations a workgroup (jax-js's gather uses
 * 256), device-timed (`client.profile`) in 9 interleaved rounds; prints each variant's median.
 *
 * Run: `DENO_WEBGPU_BACKEND=vulkan deno run --unstable-webgpu --allow-read=bench,sync,runtime/core bench/_gather_ab.ts`
 *
 * @module
 */
import { createClient, gather, type WgslKernel } from "../mod.ts";
const client = await createClient();
const N = 1 << 20;
const x = client.createWithData(Float32Array.from({ length: N }, () => Math.random()));
const idx = client.createWithData(
  Uint32Array.from({ length: N }, () => Math.floor(Math.random() * N)),
);
const out = client.empty(N, "f32");
const k = (wg: number): WgslKernel => ({
  id: `g${wg}`,
  source: `
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> indices: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(${wg}) fn main(@builtin(global_invocation_id) g: vec3u) {
  let i = g.x;
  if (i >= ${N}u) { return; }
  let k = indices[i];
  if (k < ${N}u) { out[i] = x[k]; } else { out[i] = 0.0; }
}`,
});
const variants: [string, () => void][] = [
  ["gather()", () => gather(client, x, idx).dispose()],
  ["wg64 const", () => client.execute(k(64), { threads: N, buffers: [x, idx, out] })],
  ["wg256 const", () => client.execute(k(256), { threads: N, buffers: [x, idx, out] })],
];
for (const [, f] of variants) f();
await client.sync();
const times: number[][] = variants.map(() => []);
for (let r = 0; r < 9; r++) {
  for (let v = 0; v < variants.length; v++) {
    times[v].push((await client.profile(variants[v][1])).duration.milliseconds);
  }
}
const med = (a: number[]) => a.slice().sort((p, q) => p - q)[a.length >> 1];
for (let v = 0; v < variants.length; v++) {
  console.log(variants[v][0], med(times[v]).toFixed(2), "ms");
}
