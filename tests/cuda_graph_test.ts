/**
 * Launch graphs on CUDA (simulated driver): a capture records nodes without running them, a replay
 * is one cuGraphLaunch whose kernels run in order with the hazard checks, another stream's reader
 * sees its writes, the driver refuses what a capture cannot hold, and examples/graph.ts runs.
 */
import assert from "node:assert/strict";
import { createClient, DestroyedError, KernelArgumentError } from "../mod.ts";
import { CUDA_KERNELS } from "../runtime/server/cuda/mod.ts";
import {
  graphLaunches,
  hazardCount,
  hazardReport,
  resetHazards,
  SIM_LIBRARY,
  simDriver,
} from "./fixtures/cuda_sim.ts";

const n = 300;
const meta = { data: new Uint32Array([n]), staticLength: 1 };
const threads = n;

Deno.test("a CUDA graph replays its kernels in order with one cuGraphLaunch per replay", async () => {
  resetHazards();
  using client = await createClient({ backend: "cuda", library: SIM_LIBRARY });
  const start = Array.from({ length: n }, (_, i) => (i % 7) * 0.25);
  using x = client.createWithData(new Float32Array(start), { stream: 1 });
  using y = client.createWithData(new Float32Array(n).fill(1), { stream: 1 });
  using graph = await client.capture(() => {
    // x = x * 2; x = x + y: order matters ((x + y) * 2 differs).
    client.execute(CUDA_KERNELS.scaleF32, {
      threads,
      buffers: [x],
      metadata: meta,
      scalars: { f32: [2] },
      stream: 1,
    });
    client.execute(CUDA_KERNELS.addF32, { threads, buffers: [x, y, x], metadata: meta, stream: 1 });
  }, { stream: 1, label: "step" });
  assert.deepEqual([...await client.read(x, { stream: 1 })], start); // nothing ran
  const before = graphLaunches();
  for (let r = 0; r < 10; r++) graph.replay();
  assert.equal(graphLaunches() - before, 10);
  const cpu = Float32Array.from(start);
  for (let r = 0; r < 10; r++) for (let i = 0; i < n; i++) cpu[i] = cpu[i] * 2 + 1;
  // Read on another stream: ordered after the replays on stream 1.
  assert.deepEqual(await client.read(x, { stream: 2 }), cpu);
  assert.throws(() => graph.replay({ params: { s: 3 } }), KernelArgumentError);
  graph.dispose();
  assert.throws(() => graph.replay(), DestroyedError);
  assert.equal(hazardCount(), 0, hazardReport());
});

Deno.test("a CUDA graph holds its handles; a kernel error rejects the capture", async () => {
  using client = await createClient({ backend: "cuda", library: SIM_LIBRARY });
  const x = client.zeros(n);
  using graph = await client.capture(() => {
    client.execute(CUDA_KERNELS.fillF32, {
      threads,
      buffers: [x],
      metadata: meta,
      scalars: { f32: [5] },
    });
  });
  x.dispose();
  using y = client.zeros(n); // may not take x's memory: the graph holds it
  graph.replay();
  assert.deepEqual(await client.read(y), new Float32Array(n));
  await assert.rejects(
    client.capture(() => {
      client.execute(CUDA_KERNELS.fillF32, { threads, buffers: [y], metadata: meta }); // no scalar
    }),
    TypeError,
  );
  client.execute(CUDA_KERNELS.fillF32, {
    threads,
    buffers: [y],
    metadata: meta,
    scalars: { f32: [1] },
  });
  assert.deepEqual(await client.read(y), new Float32Array(n).fill(1));
});

Deno.test("examples/graph.ts on the simulated CUDA device: 1,000 replays match the CPU", async () => {
  resetHazards();
  const { heatDiffusion } = await import("../examples/graph.ts");
  const before = graphLaunches();
  await heatDiffusion({ backend: "cuda", library: SIM_LIBRARY, n: 128 }); // throws on a mismatch
  assert.equal(graphLaunches() - before, 1000); // one cuGraphLaunch per replay
  assert.equal(hazardCount(), 0, hazardReport());
});

Deno.test("the simulated driver refuses work a capture cannot hold and invalidates it", () => {
  const s = simDriver.symbols;
  simDriver.check(s.cuInit(0), "cuInit");
  const out = new BigUint64Array(1);
  const ctx = new BigUint64Array(1);
  simDriver.check(s.cuDevicePrimaryCtxRetain(ctx, 0), "retain");
  simDriver.check(s.cuCtxSetCurrent(Deno.UnsafePointer.create(ctx[0])), "set current");
  simDriver.check(s.cuStreamCreate(out, 1), "cuStreamCreate");
  const stream = Deno.UnsafePointer.create(out[0]);
  simDriver.check(s.cuMemAlloc_v2(out, 4n), "cuMemAlloc_v2");
  const device = out[0];
  try {
    simDriver.check(s.cuStreamBeginCapture_v2!(stream, 1), "begin");
    const host = new Uint8Array(4);
    assert.equal(s.cuMemcpyDtoHAsync_v2(Deno.UnsafePointer.of(host), device, 4n, stream), 900);
    assert.equal(s.cuStreamSynchronize(stream), 900); // CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
    assert.equal(s.cuStreamEndCapture!(stream, out), 901); // CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
    // A clean capture of nothing gives a graph that instantiates and launches.
    simDriver.check(s.cuStreamBeginCapture_v2!(stream, 1), "begin");
    simDriver.check(s.cuStreamEndCapture!(stream, out), "end");
    const graph = Deno.UnsafePointer.create(out[0]);
    const exec = new BigUint64Array(1);
    simDriver.check(s.cuGraphInstantiateWithFlags!(exec, graph, 0n), "instantiate");
    const before = graphLaunches();
    simDriver.check(s.cuGraphLaunch!(Deno.UnsafePointer.create(exec[0]), stream), "launch");
    assert.equal(graphLaunches() - before, 1);
    simDriver.check(s.cuStreamSynchronize(stream), "sync");
    simDriver.check(s.cuGraphExecDestroy!(Deno.UnsafePointer.create(exec[0])), "exec destroy");
    simDriver.check(s.cuGraphDestroy!(graph), "graph destroy");
  } finally {
    s.cuMemFree_v2(device);
    s.cuStreamDestroy_v2(stream);
    s.cuDevicePrimaryCtxRelease_v2(0);
  }
});
