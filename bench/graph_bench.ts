/**
 * Launch graphs (issue #29) against the raw programs and the client's launches (`deno task
 * bench`), the baseline first in each group:
 *
 * - `graph host`: host time of 256 tiny dispatches (one workgroup each, one buffer): raw encoding
 *   by hand (encoder, pass, pipeline and bind group set once, 256 dispatches, end, finish) against
 *   one `replay()` + `flush()` of a graph of those 256 launches, and 256 `execute` + `flush()`.
 *   The clock stops before `queue.submit`, where llvmpipe runs the work: the submits are held
 *   back until the clock stopped, then made in order.
 * - `graph + wait`: the same 256 dispatches and a wait for the queue: the best raw program (one
 *   encoder, one submit) against a replay + `sync()` and 256 `execute` + `sync()`.
 * - `cuda graph host` (simulated driver, `tests/fixtures/cuda_sim`): host time of 1,000 launches
 *   of `fill_f32` through the client against one replay of a graph of them; each replay is
 *   checked to be one `cuGraphLaunch` (the simulator's counter). The device is synchronized
 *   outside the timing.
 *
 * @module
 */

import "./_bench_guard.ts"; // deno bench awaits only async fns: a promise from another one throws
import { ComputeClient, createClient, CubeCount, type LaunchGraph } from "../mod.ts";
import { CUDA_KERNELS } from "../runtime/server/cuda/mod.ts";
import { WebGpuServer } from "../runtime/server/webgpu/mod.ts";
import { INCREMENT_WGSL, rawOneEncoder, rawSetup } from "./_raw_webgpu.ts";

const DISPATCHES = 256;
const KERNELS = 1000;

/** Holds back `device`'s submits while `holding`, then makes them in order at `release`. */
function heldSubmits(device: GPUDevice) {
  const queue = device.queue;
  const submit = queue.submit.bind(queue);
  const held: GPUCommandBuffer[][] = [];
  const state = {
    holding: false,
    release() {
      state.holding = false;
      for (const buffers of held.splice(0)) submit(buffers);
    },
  };
  queue.submit = (buffers: GPUCommandBuffer[]) => {
    if (state.holding) held.push([...buffers]);
    else submit(buffers);
  };
  return state;
}

const raw = await rawSetup(64);
if (raw !== undefined) {
  const server = await WebGpuServer.create();
  const client = new ComputeClient(server);
  const submits = heldSubmits(server.device);
  const inc = { id: "bench.graph.increment", source: INCREMENT_WGSL };
  const one = CubeCount.new1d(1);
  const data = client.createBytes(256);
  const graph = await client.capture(() => {
    for (let i = 0; i < DISPATCHES; i++) client.execute(inc, { count: one, buffers: [data] });
  }, { label: "bench" });
  const host = async (b: Deno.BenchContext, run: () => void) => {
    submits.holding = true;
    b.start();
    run();
    client.flush();
    b.end();
    submits.release();
    await client.sync();
  };
  const executeAll = () => {
    for (let i = 0; i < DISPATCHES; i++) client.execute(inc, { count: one, buffers: [data] });
  };

  Deno.bench({
    name: `raw encoding: ${DISPATCHES} dispatches, bind group set once`,
    group: "graph host",
    baseline: true,
    async fn(b) {
      b.start();
      const encoder = raw.device.createCommandEncoder();
      const pass = encoder.beginComputePass();
      pass.setPipeline(raw.pipeline);
      pass.setBindGroup(0, raw.bindGroup);
      for (let i = 0; i < DISPATCHES; i++) pass.dispatchWorkgroups(1);
      pass.end();
      const buffer = encoder.finish();
      b.end();
      raw.device.queue.submit([buffer]);
      await raw.device.queue.onSubmittedWorkDone();
    },
  });
  Deno.bench({
    name: `replay of ${DISPATCHES} launches + flush`,
    group: "graph host",
    async fn(b) {
      await host(b, () => graph.replay());
    },
  });
  Deno.bench({
    name: `${DISPATCHES} execute + flush`,
    group: "graph host",
    async fn(b) {
      await host(b, executeAll);
    },
  });

  Deno.bench({
    name: `raw: ${DISPATCHES} dispatches, one encoder, wait`,
    group: "graph + wait",
    baseline: true,
    async fn() {
      await rawOneEncoder(raw, DISPATCHES);
    },
  });
  Deno.bench({
    name: `replay of ${DISPATCHES} launches + sync`,
    group: "graph + wait",
    async fn() {
      graph.replay();
      await client.sync();
    },
  });
  Deno.bench({
    name: `${DISPATCHES} execute + sync`,
    group: "graph + wait",
    async fn() {
      executeAll();
      await client.sync();
    },
  });
} else {
  Deno.bench({ name: "graph webgpu (skipped: no adapter)", ignore: true, fn() {} });
}

// CUDA on the simulated driver.
const library = new URL("../tests/fixtures/cuda_sim/build/libcuda_sim.so", import.meta.url)
  .pathname;
const counter = Deno.dlopen(library, {
  cuSimGraphLaunchCount: { parameters: [], result: "i64" },
});
const graphLaunches = () => Number(counter.symbols.cuSimGraphLaunchCount());
const cuda = await createClient({ backend: "cuda", library });
const n = 64;
const x = cuda.zeros(n);
const fill = () =>
  cuda.execute(CUDA_KERNELS.fillF32, {
    threads: n,
    buffers: [x],
    metadata: { data: new Uint32Array([n]), staticLength: 1 },
    scalars: { f32: [1] },
  });
const chain: LaunchGraph = await cuda.capture(() => {
  for (let i = 0; i < KERNELS; i++) fill();
}, { label: "bench chain" });

Deno.bench({
  name: `cuda: ${KERNELS} launches`,
  group: "cuda graph host",
  baseline: true,
  async fn(b) {
    b.start();
    for (let i = 0; i < KERNELS; i++) fill();
    b.end();
    await cuda.sync();
  },
});
Deno.bench({
  name: `cuda: replay of ${KERNELS} launches (one cuGraphLaunch)`,
  group: "cuda graph host",
  async fn(b) {
    const before = graphLaunches();
    b.start();
    chain.replay();
    b.end();
    const launched = graphLaunches() - before;
    if (launched !== 1) throw new Error(`a replay made ${launched} cuGraphLaunch calls, not 1`);
    await cuda.sync();
  },
});
