/**
 * A texture launch against a buffer launch (issue #27: "a texture launch costs no more than a
 * buffer launch"), `deno task bench bench/texture_bench.ts`: the same tiny kernel reading a 16x16
 * r32uint storage texture or a storage buffer of the same 1 KiB, writing a storage buffer, with
 * `@workgroup_size(8, 8)` and 2x2 workgroups. Each iteration is 200 launches:
 *
 * - `texture launch (host)`: the host time only (`b.start()`/`b.end()` around the launches and
 *   the submission; the wait for the device is outside): 200 `client.execute` + `flush()`, and
 *   raw WebGPU encoding the same 200 dispatches in one pass with the pipeline and bind group made
 *   once (the baseline: raw, buffer);
 * - `texture launch (+ wait)`: the same with the wait for the device included.
 *
 * @module
 */

import "./_bench_guard.ts"; // deno bench awaits only async fns: a promise from another one throws
import { WebGpuServer } from "../runtime/server/webgpu/mod.ts";
import { ComputeClient, type Handle, type Texture } from "../mod.ts";
import { READ_BUFFER_WGSL, READ_SIDE as SIDE, READ_TEXTURE_WGSL } from "./_raw_webgpu.ts";

const LAUNCHES = 200;

/** Raw WebGPU: a pipeline and a bind group made once; `run` encodes `LAUNCHES` dispatches. */
function rawKernel(device: GPUDevice, code: string, source: GPUBindingResource) {
  const pipeline = device.createComputePipeline({
    layout: "auto",
    compute: { module: device.createShaderModule({ code }), entryPoint: "main" },
  });
  const dst = device.createBuffer({ size: SIDE * SIDE * 4, usage: GPUBufferUsage.STORAGE });
  const bindGroup = device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: [{ binding: 0, resource: source }, { binding: 1, resource: { buffer: dst } }],
  });
  return () => {
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, bindGroup);
    for (let i = 0; i < LAUNCHES; i++) pass.dispatchWorkgroups(SIDE / 8, SIDE / 8);
    pass.end();
    device.queue.submit([encoder.finish()]);
  };
}

const adapter = await navigator.gpu?.requestAdapter();
if (adapter) {
  const device = await adapter.requestDevice();
  const cells = Uint32Array.from({ length: SIDE * SIDE }, (_, i) => i);
  const rawTexture = device.createTexture({
    size: { width: SIDE, height: SIDE },
    format: "r32uint",
    usage: GPUTextureUsage.STORAGE_BINDING | GPUTextureUsage.COPY_DST,
  });
  device.queue.writeTexture({ texture: rawTexture }, cells, { bytesPerRow: SIDE * 4 }, {
    width: SIDE,
    height: SIDE,
  });
  const rawBuffer = device.createBuffer({
    size: cells.byteLength,
    usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST,
  });
  device.queue.writeBuffer(rawBuffer, 0, cells);
  const raw = {
    buffer: rawKernel(device, READ_BUFFER_WGSL, { buffer: rawBuffer }),
    texture: rawKernel(device, READ_TEXTURE_WGSL, rawTexture.createView()),
  };
  const wait = () => device.queue.onSubmittedWorkDone();

  const client = new ComputeClient(await WebGpuServer.create());
  const texture = client.createTexture({
    width: SIDE,
    height: SIDE,
    format: "r32uint",
    data: cells,
  });
  const buffer = client.createWithData(cells);
  const out = client.zeros(SIDE * SIDE, "u32");
  const launch = (name: string, source: string, src: Handle | Texture) => {
    const kernel = { id: `bench.read_${name}`, source };
    const options = { threads: [SIDE, SIDE] as [number, number], buffers: [src, out] };
    return () => {
      for (let i = 0; i < LAUNCHES; i++) client.execute(kernel, options);
      client.flush();
    };
  };
  const ours = {
    buffer: launch("buffer", READ_BUFFER_WGSL, buffer),
    texture: launch("texture", READ_TEXTURE_WGSL, texture),
  };
  // Both kernels compiled, their bind groups made, before any measurement.
  ours.buffer();
  ours.texture();
  await client.read(out);

  const cases = [
    ["raw, buffer", raw.buffer, wait],
    ["raw, texture", raw.texture, wait],
    ["client, buffer", ours.buffer, () => client.sync()],
    ["client, texture", ours.texture, () => client.sync()],
  ] as const;
  for (const [name, run, settle] of cases) {
    Deno.bench({
      name: `${name}: ${LAUNCHES} launches, host time`,
      group: "texture launch (host)",
      baseline: name === "raw, buffer",
      async fn(b) {
        b.start();
        run();
        b.end();
        await settle();
      },
    });
  }
  for (const [name, run, settle] of cases) {
    Deno.bench({
      name: `${name}: ${LAUNCHES} launches + wait`,
      group: "texture launch (+ wait)",
      baseline: name === "raw, buffer",
      async fn() {
        run();
        await settle();
      },
    });
  }
} else {
  Deno.bench({ name: "texture launch (skipped: no adapter)", ignore: true, fn() {} });
}
