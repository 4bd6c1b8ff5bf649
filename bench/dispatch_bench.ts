/**
 * The dispatch hot path against raw `navigator.gpu` (`deno task bench`), the raw code the
 * baseline of each group:
 *
 * - `params`: 200 chained element-wise launches with two f32 params each + one read, against raw
 *   WebGPU with the uniform written once;
 * - `cold`: the first 200-dispatch burst of a kernel never compiled before (+ wait), against the
 *   same burst of a warm kernel;
 * - `pool`: 1,000 create + dispose of 64 KiB through the client, against `createBuffer` +
 *   `destroy`.
 *
 * `deno bench` runs each variant in a burst of its own; on the shared machine the interleaved
 * A/B script `bench/_speed_ab.ts` is the like-for-like comparison (see its module doc).
 *
 * @module
 */

import "./_bench_guard.ts"; // deno bench awaits only async fns: a promise from another one throws
import { WebGpuServer } from "../runtime/server/webgpu/mod.ts";
import { ComputeClient, CubeCount } from "../mod.ts";
import { AXPB_WGSL, INCREMENT_WGSL, rawParamsSetup, rawSetup } from "./_raw_webgpu.ts";

const N = 1024;
const raw = await rawSetup(64);

if (raw !== undefined) {
  const device = raw.device;
  const client = new ComputeClient(await WebGpuServer.create());
  const rawParams = rawParamsSetup(device, N);
  const x = client.createWithData(new Float32Array(N).fill(1));
  const y = client.createBytes(N * 4);
  const axpb = { id: "axpb", source: AXPB_WGSL };
  const params = { a: 1.0001, b: 0.5 };

  Deno.bench({
    name: "raw: 200 launches, uniform written once, one read",
    group: "params",
    baseline: true,
    async fn() {
      await rawParams.run();
    },
  });
  Deno.bench({
    name: "client: 200 launches with two f32 params, one read",
    group: "params",
    async fn() {
      for (let i = 0; i < 200; i++) {
        client.execute(axpb, { threads: N, buffers: i % 2 === 0 ? [x, y] : [y, x], params });
      }
      await client.read(y, Float32Array);
    },
  });

  const one = CubeCount.new1d(1);
  const data = client.createBytes(256);
  const warm = { id: "warm", source: INCREMENT_WGSL };
  let fresh = 0;
  const burst = async (kernel: { id: string; source: string }) => {
    for (let i = 0; i < 200; i++) client.execute(kernel, { count: one, buffers: [data] });
    await client.sync();
  };
  Deno.bench({
    name: "warm kernel: 200 dispatches + sync",
    group: "cold",
    baseline: true,
    async fn() {
      await burst(warm);
    },
  });
  Deno.bench({
    name: "new kernel: 200 dispatches + sync",
    group: "cold",
    async fn() {
      await burst({ id: "cold", source: `${INCREMENT_WGSL}\n// ${fresh++}` });
    },
  });

  Deno.bench({
    name: "raw: 1000 createBuffer + destroy (64 KiB)",
    group: "pool",
    baseline: true,
    fn() {
      for (let i = 0; i < 1000; i++) {
        device.createBuffer({ size: 65536, usage: GPUBufferUsage.STORAGE }).destroy();
      }
    },
  });
  Deno.bench({
    name: "client: 1000 create + dispose (64 KiB)",
    group: "pool",
    fn() {
      for (let i = 0; i < 1000; i++) client.createBytes(65536).dispose();
    },
  });
} else {
  Deno.bench({ name: "dispatch (skipped: no adapter)", ignore: true, fn() {} });
}
