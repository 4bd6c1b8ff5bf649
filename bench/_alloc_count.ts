/**
 * What the hot path allocates: 100,000 launches (tiny, and with two f32 params) through the
 * client and 100,000 pool create + dispose cycles, the JS heap sampled every 100 launches.
 * Allocated bytes are the sum of the heap's rises between samples (a fall is a collection);
 * retained bytes are the heap after a full collection, after against before. Raw WebGPU encoding of the same dispatches is the baseline (what the API
 * itself allocates: command encoders, passes, command buffers).
 *
 * Run: `deno run -A --v8-flags=--expose-gc bench/_alloc_count.ts [module root]`; add
 * `--trace-gc` to the v8 flags and count `Scavenge` lines for the number of collections.
 *
 * @module
 */
import { AXPB_WGSL as AXPB, INCREMENT_WGSL, rawSetup } from "./_raw_webgpu.ts";

const LAUNCHES = 100_000;
const BATCH = 100;
const root = new URL(
  Deno.args[0] === undefined
    ? "../"
    : (Deno.args[0].endsWith("/") ? Deno.args[0] : `${Deno.args[0]}/`),
  Deno.args[0] === undefined ? import.meta.url : `file://${Deno.cwd()}/`,
).href;
const { ComputeClient, CubeCount } = await import(`${root}mod.ts`);
const { WebGpuServer } = await import(`${root}runtime/server/webgpu/mod.ts`);
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

async function measure(name: string, launch: (i: number) => void, sync: () => Promise<void>) {
  // Warm: pipelines, bind groups, pools, and the JIT (the first 100k launches of a process allocate
  // ~100 B more each while V8 optimizes them).
  for (let i = 0; i < 50_000; i++) {
    launch(i);
    if (i % 10_000 === 9_999) await sync();
  }
  await sync();
  gc();
  const start = Deno.memoryUsage().heapUsed;
  let last = start;
  let allocated = 0;
  for (let i = 0; i < LAUNCHES; i++) {
    launch(i);
    if (i % BATCH === BATCH - 1) {
      const now = Deno.memoryUsage().heapUsed;
      if (now > last) allocated += now - last;
      last = now;
      if (i % 10_000 === 9_999) await sync();
    }
  }
  await sync();
  gc();
  const retained = Deno.memoryUsage().heapUsed - start;
  console.log(
    name.padEnd(28),
    `allocated ~${(allocated / LAUNCHES).toFixed(0).padStart(5)} B/launch`,
    `retained ${(retained / 1024).toFixed(0).padStart(6)} KiB after ${LAUNCHES} launches`,
  );
}

const raw = (await rawSetup(64))!;
let encoder: GPUCommandEncoder | undefined;
let pass: GPUComputePassEncoder | undefined;
await measure("raw encoding (baseline)", (i) => {
  encoder ??= raw.device.createCommandEncoder();
  pass ??= encoder.beginComputePass();
  pass.setPipeline(raw.pipeline);
  pass.setBindGroup(0, raw.bindGroup);
  pass.dispatchWorkgroups(1);
  if (i % 128 === 127) {
    pass.end();
    raw.device.queue.submit([encoder.finish()]);
    encoder = pass = undefined;
  }
}, () => raw.device.queue.onSubmittedWorkDone());

const client = new ComputeClient(await WebGpuServer.create());
const one = CubeCount.new1d(1);
const inc = { id: "inc", source: INCREMENT_WGSL };
const h = client.createBytes(256);
await measure(
  "client tiny",
  () => client.execute(inc, { count: one, buffers: [h] }),
  () => client.sync(),
);
// The same launch with the caller's options object reused: what the runtime itself allocates.
const reused = { count: one, buffers: [h] };
await measure(
  "client tiny, options reused",
  () => client.execute(inc, reused),
  () => client.sync(),
);
const x = client.createBytes(256);
const y = client.createBytes(256);
const axpb = { id: "axpb", source: AXPB };
const params = { a: 1.5, b: 2 };
const buffers = [[x, y], [y, x]];
await measure(
  "client two f32 params",
  (i) => client.execute(axpb, { threads: 64, buffers: buffers[i & 1], params }),
  () => client.sync(),
);
await measure(
  "client pool create+dispose",
  () => client.createBytes(65536).dispose(),
  () => client.sync(),
);
