/**
 * README (CUDA): "a handle of another element type for a pointer (`float*` takes f32 handles) ...
 * is a `KernelArgumentError` at the call". A pointer to a CUDA vector type (`float4*`, `uchar4*`,
 * `int3*`) took any handle: an f16 one, or an f32 one ending in part of a float4, which the kernel
 * read past (as WGSL's `vec3f` arrays, a partial element is refused).
 */
import assert from "node:assert/strict";
import { createClient, KernelArgumentError } from "../mod.ts";
import { nvrtcName, nvrtcSkip } from "./_cuda_nvrtc.ts";
import { SIM_LIBRARY } from "./fixtures/cuda_sim.ts";

Deno.test({
  name: nvrtcName("cuda: a vector-type pointer takes its element type, whole vectors only"),
  ignore: nvrtcSkip !== undefined,
  async fn() {
    using k = await createClient({ backend: "cuda", library: SIM_LIBRARY });
    const sum4 = {
      source: `extern "C" __global__ void sum4(const float4* v, float* o, unsigned n) {
        unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) { float4 a = v[i]; o[i] = a.x + a.y + a.z + a.w; }
      }`,
    };
    using v = k.createWithData(new Float32Array([1, 2, 3, 4, 10, 20, 30, 40]));
    using o = k.zeros(2, "f32");
    k.execute(sum4, { threads: 2, buffers: [v, o], params: { n: 2 } });
    assert.deepEqual([...await k.read(o)], [10, 100]);
    using six = k.zeros(6, "f32"); // 1.5 float4
    using half = k.zeros(8, "f16");
    using rgba = k.zeros(2, "u32");
    for (const h of [six, half]) {
      assert.throws(
        () => k.execute(sum4, { threads: 2, buffers: [h, o], params: { n: 2 } }),
        KernelArgumentError,
      );
    }
    const px = { source: `extern "C" __global__ void px(uchar4* p) { p[0].w = 255; }` };
    assert.throws(() => k.execute(px, { threads: 1, buffers: [rgba] }), /points to u8/);
    k.execute(px, { threads: 1, buffers: [rgba.as("u8")] });
    assert.deepEqual([...await k.read(rgba.as("u8"))].slice(0, 4), [0, 0, 0, 255]);
  },
});
