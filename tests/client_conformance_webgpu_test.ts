/**
 * The client conformance table (tests/client_conformance.ts) on WebGPU: every mistake gets its
 * typed error at the call, on an idle and on a held stream, and an exact computation follows.
 */
import { createClient, type WgslKernel } from "../mod.ts";
import { clientConformance } from "./client_conformance.ts";

const adapter = await navigator.gpu?.requestAdapter();

/** `v[i] *= s` for `i < n`, with `n` and `s` in CubeCL's info buffer (word 0, then word 4). */
export const scaleWgsl: WgslKernel = {
  id: "conformance.scale",
  source: `
@group(0) @binding(0) var<storage, read_write> v: array<f32>;
@group(0) @binding(1) var<storage, read> info: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < info[0]) { v[id.x] = v[id.x] * bitcast<f32>(info[4]); }
}`,
};

Deno.test({
  name: "client conformance on WebGPU",
  ignore: adapter === null || adapter === undefined, // no WebGPU adapter on this machine
  fn: (t) =>
    clientConformance(t, {
      createClient: () => createClient({ adapter: adapter! }),
      scale: scaleWgsl,
      typedKernels: true,
    }),
});
