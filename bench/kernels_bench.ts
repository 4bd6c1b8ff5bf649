/**
 * The reduction helpers on the default adapter: workgroup sizes 32, 64, 128 and 256 for the same
 * two-pass sum (each iteration: 8 sums of 1M f32 and one read, so device work dominates the
 * ~11 ms read round trip), against the same WGSL run through raw `navigator.gpu` (64 wide).
 * `reduce()` ships with the size measured fastest here.
 *
 * @module
 */

import "./_bench_guard.ts"; // deno bench awaits only async fns: a promise from another one throws
import { createClient, type Handle, reduce } from "../mod.ts";
import { operatorProgram, reductionKernel } from "../runtime/kernels/_reduce_kernels.ts";

/** The helpers' first-pass kernel (chunks of one row); with one chunk it also folds the partials. */
const sumKernel = (workgroup: number) =>
  reductionKernel(operatorProgram("sum", "f32", false), "rows", false, workgroup);

const N = 1 << 20;
const SUMS = 8;
const GROUPS = 256;
const adapter = await navigator.gpu?.requestAdapter();

if (adapter) {
  const client = await createClient({ adapter });
  const input = client.createWithData(Float32Array.from({ length: N }, (_, i) => i % 3));
  const partial = client.createBytes(GROUPS * 4);
  const out = client.createBytes(4);
  const sums = (workgroup: number) => {
    const first = sumKernel(workgroup);
    const perGroup = Math.ceil(N / GROUPS / workgroup) * workgroup;
    const chunks = Math.ceil(N / perGroup);
    return async () => {
      for (let i = 0; i < SUMS; i++) {
        client.execute(first, {
          count: { kind: "static", x: chunks, y: 1, z: 1 },
          buffers: [input, partial],
          params: { n: N, per_group: perGroup, cols: N, rows: 1, count: N, chunks },
        });
        client.execute(first, {
          count: { kind: "static", x: 1, y: 1, z: 1 },
          buffers: [partial, out],
          params: { n: chunks, per_group: chunks, cols: chunks, rows: 1, count: N, chunks: 1 },
        });
      }
      await client.read(out);
    };
  };
  const raw = await rawSums(adapter);
  Deno.bench({ name: "raw navigator.gpu, 64 wide", group: "sum", baseline: true, fn: raw });
  for (const workgroup of [32, 64, 128, 256]) {
    Deno.bench({ name: `client, ${workgroup} wide`, group: "sum", fn: sums(workgroup) });
  }
  Deno.bench({
    name: "reduce() as shipped",
    group: "sum",
    async fn() {
      const results: Handle[] = [];
      for (let i = 0; i < SUMS; i++) results.push(reduce(client, input));
      await client.readMany(results);
      for (const handle of results) handle.dispose();
    },
  });
}

/** The same two passes on raw WebGPU: one encoder per sum, one read at the end. */
async function rawSums(adapter: GPUAdapter): Promise<() => Promise<void>> {
  const device = await adapter.requestDevice();
  const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
  const input = device.createBuffer({ size: N * 4, usage });
  const partial = device.createBuffer({ size: GROUPS * 4, usage });
  const out = device.createBuffer({ size: 4, usage });
  const staging = device.createBuffer({ size: 4, usage: GPUBufferUsage.MAP_READ | 0x8 });
  const uniform = (values: number[]) => {
    const buffer = device.createBuffer({ size: 32, usage: GPUBufferUsage.UNIFORM | 0x8 });
    device.queue.writeBuffer(buffer, 0, new Uint32Array([...values, 0, 0]));
    return buffer;
  };
  const source = sumKernel(64).source.replaceAll(
    "var<storage, read>",
    "var<storage, read_write>",
  );
  const pipeline = device.createComputePipeline({
    layout: "auto",
    compute: { module: device.createShaderModule({ code: source }) },
  });
  const group = (from: GPUBuffer, to: GPUBuffer, params: GPUBuffer) =>
    device.createBindGroup({
      layout: pipeline.getBindGroupLayout(0),
      entries: [from, to, params].map((buffer, binding) => ({ binding, resource: { buffer } })),
    });
  const perGroup = Math.ceil(N / GROUPS / 64) * 64;
  const chunks = Math.ceil(N / perGroup);
  const first = group(input, partial, uniform([N, perGroup, N, 1, N, chunks]));
  const second = group(partial, out, uniform([chunks, chunks, chunks, 1, N, 1]));
  return async () => {
    for (let i = 0; i < SUMS; i++) {
      const encoder = device.createCommandEncoder();
      const pass = encoder.beginComputePass();
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, first);
      pass.dispatchWorkgroups(chunks);
      pass.setBindGroup(0, second);
      pass.dispatchWorkgroups(1);
      pass.end();
      if (i === SUMS - 1) encoder.copyBufferToBuffer(out, 0, staging, 0, 4);
      device.queue.submit([encoder.finish()]);
    }
    await staging.mapAsync(GPUMapMode.READ);
    staging.unmap();
  };
}
