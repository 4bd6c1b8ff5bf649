/**
 * Launch graphs on CUDA (simulated driver): a capture records nodes without running them, a replay
 * is one cuGraphLaunch whose kernels run in order with the hazard checks, another stream's reader
 * sees its writes, the driver refuses what a capture cannot hold, and examples/graph.ts runs.
 */
import assert from "node:assert/strict";
import { createClient, DestroyedError, KernelArgumentError } from "../mod.ts";
import { CUDA_KERNELS, type CudaServer } from "../runtime/server/cuda/mod.ts";
import { updateCuda } from "../examples/_graph_cuda.ts";
import { helperReplayCases } from "./_graph_helper_cases.ts";
import { nvrtcName, nvrtcSkip, onSimulator, simulatedCudaClient } from "./_cuda_nvrtc.ts";
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

Deno.test("a CUDA graph replayed after its server was destroyed under the client: DESTROYED", async () => {
  const client = await createClient({ backend: "cuda", library: SIM_LIBRARY });
  const x = client.createWithData(new Float32Array(n).fill(1));
  const graph = await client.capture(() => {
    client.execute(CUDA_KERNELS.scaleF32, {
      threads,
      buffers: [x],
      metadata: meta,
      scalars: { f32: [2] },
    });
  });
  const before = graphLaunches();
  client.server.destroy(); // the replay calls no server method: the graph checks
  assert.throws(() => graph.replay(), DestroyedError);
  assert.equal(graphLaunches(), before);
  client.destroy();
});

Deno.test("a CUDA graph's replay({ params }) rewrites its nodes: one cuGraphLaunch per replay", async () => {
  resetHazards();
  using client = await createClient({ backend: "cuda", library: SIM_LIBRARY });
  const start = Array.from({ length: n }, (_, i) => (i % 5) * 0.5);
  const lap = Array.from({ length: n }, (_, i) => ((i % 3) - 1) * 0.75);
  using u = client.createWithData(new Float32Array(start));
  using l = client.createWithData(new Float32Array(lap));
  // heat_update(u, lap, n, dt): u += dt * lap, its params named by the CUDA C source.
  using graph = await client.capture(() => {
    client.execute(updateCuda, { threads, buffers: [u, l], params: { n, dt: 0.5 } });
  }, { label: "update" });
  const cpu = Float32Array.from(start);
  const step = (dt: number) => {
    for (let i = 0; i < n; i++) cpu[i] = Math.fround(cpu[i] + Math.fround(dt * lap[i]));
  };
  const before = graphLaunches();
  graph.replay();
  graph.replay({ params: { dt: 0.25 } }); // after the first replay was enqueued: not it
  graph.replay();
  step(0.5), step(0.25), step(0.25);
  assert.throws(() => graph.replay({ params: { dt: "fast" as never } }), KernelArgumentError);
  assert.throws(() => graph.replay({ params: { dt: 0.1, t: 1 } }), KernelArgumentError);
  assert.throws(() => graph.replay({ params: { n: -1 } }), KernelArgumentError); // unsigned
  assert.throws(() => graph.replay({ params: [0.1] as never }), KernelArgumentError);
  graph.replay(); // nothing changed by the refused replays
  step(0.25);
  assert.equal(graphLaunches() - before, 4);
  assert.deepEqual(await client.read(u, { stream: 2 }), cpu);
  assert.equal(hazardCount(), 0, hazardReport());
  // On a loaded machine the drain may outlast destroy's grace: it ends in the background, with a
  // parked wait the leak check would see (it failed so once in a full run).
  const server = client.server as CudaServer;
  client.destroy();
  await server.drained;
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

Deno.test("a CUDA replay shows in a trace and a per-kernel profile as its kernels under its label", async () => {
  resetHazards();
  using client = await createClient({ backend: "cuda", library: SIM_LIBRARY });
  using x = client.createWithData(new Float32Array(n).fill(1));
  using y = client.createWithData(new Float32Array(n).fill(2));
  using graph = await client.capture(() => {
    client.execute(CUDA_KERNELS.scaleF32, {
      threads,
      buffers: [x],
      metadata: meta,
      scalars: { f32: [3] },
    });
    client.execute(CUDA_KERNELS.addF32, { threads, buffers: [x, y, x], metadata: meta });
  }, { label: "step" });
  const names = ["step/" + CUDA_KERNELS.scaleF32.id, "step/" + CUDA_KERNELS.addF32.id];
  const recorder = client.trace();
  graph.replay();
  graph.replay();
  await client.sync();
  const trace = await recorder.stop();
  const kernels = trace.events.flatMap((e) => e.type === "kernel" ? [e] : []);
  assert.deepEqual(kernels.map((k) => k.kernel), [...names, ...names]);
  for (const [i, k] of kernels.entries()) {
    assert.ok(k.start <= k.end, `${k.start} <= ${k.end}`);
    if (i > 0) assert.ok(kernels[i - 1].end <= k.start + 1e-6, "in order on one stream");
    assert.deepEqual(k.workgroups, [Math.ceil(n / 256), 1, 1]);
  }
  const before = graphLaunches();
  const { duration } = await client.profile(() => graph.replay({ params: {} }), {
    perKernel: true,
  });
  assert.deepEqual(duration.kernels!.map((k) => k.kernel), names);
  graph.replay(); // no trace, no per-kernel window: one cuGraphLaunch again
  assert.equal(graphLaunches() - before, 1);
  // ((1 * 3 + 2) * 3 + 2) ... four replays in all.
  let cpu = 1;
  for (let r = 0; r < 4; r++) cpu = cpu * 3 + 2;
  assert.deepEqual(await client.read(x), new Float32Array(n).fill(cpu));
  assert.equal(hazardCount(), 0, hazardReport());
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

Deno.test("the simulated cuGraphExecKernelNodeSetParams refuses what the driver refuses", () => {
  const s = simDriver.symbols;
  const ptr = (value: bigint) => Deno.UnsafePointer.create(value);
  const out = new BigUint64Array(1);
  const ctx = new BigUint64Array(1);
  simDriver.check(s.cuInit(0), "cuInit");
  simDriver.check(s.cuDevicePrimaryCtxRetain(ctx, 0), "retain");
  simDriver.check(s.cuCtxSetCurrent(ptr(ctx[0])), "set current");
  simDriver.check(s.cuStreamCreate(out, 1), "cuStreamCreate");
  const stream = ptr(out[0]);
  const ptx = new TextEncoder().encode(`${updateCuda.ptx}\0`);
  simDriver.check(s.cuModuleLoadData(out, ptx), "load");
  const module = ptr(out[0]);
  simDriver.check(
    s.cuModuleGetFunction(out, module, new TextEncoder().encode("heat_update\0")),
    "fn",
  );
  const fn = out[0];
  simDriver.check(s.cuMemAlloc_v2(out, 16n), "cuMemAlloc_v2");
  const device = out[0];
  // heat_update(u, lap, n, dt): 8-byte slots.
  const values = new BigUint64Array([device, device, 4n, 0n]);
  const base = BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(values)));
  const pointers = new BigUint64Array([0, 1, 2, 3].map((i) => base + BigInt(i * 8)));
  const captureOne = () => {
    simDriver.check(s.cuStreamBeginCapture_v2!(stream, 1), "begin");
    simDriver.check(
      s.cuLaunchKernel(ptr(fn), 1, 1, 1, 4, 1, 1, 0, stream, pointers, null),
      "captured launch",
    );
    const status = new Int32Array(1), info = new BigUint64Array(4);
    simDriver.check(
      s.cuStreamGetCaptureInfo_v2!(
        stream,
        status,
        info.subarray(0, 1),
        info.subarray(1, 2),
        info.subarray(2, 3),
        info.subarray(3, 4),
      ),
      "info",
    );
    assert.deepEqual([status[0], info[3]], [1, 1n]); // active, one dependency: the launch
    const node = new Deno.UnsafePointerView(ptr(info[2])!).getBigUint64(0);
    simDriver.check(s.cuStreamEndCapture!(stream, out), "end");
    return { graph: ptr(out[0]), node: ptr(node) };
  };
  const a = captureOne(), b = captureOne();
  const exec = new BigUint64Array(1);
  simDriver.check(s.cuGraphInstantiateWithFlags!(exec, a.graph, 0n), "instantiate");
  const params = (grid: number, kernelParams: bigint, extra: bigint) => {
    const struct = new DataView(new ArrayBuffer(56));
    struct.setBigUint64(0, fn, true);
    for (let i = 0; i < 3; i++) struct.setUint32(8 + 4 * i, grid, true);
    for (let i = 0; i < 3; i++) struct.setUint32(20 + 4 * i, i === 0 ? 4 : 1, true);
    struct.setBigUint64(40, kernelParams, true);
    struct.setBigUint64(48, extra, true);
    return new Uint8Array(struct.buffer);
  };
  const set = s.cuGraphExecKernelNodeSetParams!;
  const pointersAt = BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(pointers)));
  try {
    const e = ptr(exec[0]);
    assert.equal(set(e, a.node, params(1, pointersAt, 0n)), 0);
    assert.equal(set(e, b.node, params(1, pointersAt, 0n)), 1); // another graph's node
    assert.equal(set(e, a.node, params(1, 0n, 0n)), 1); // no kernelParams for 4 params
    assert.equal(set(e, a.node, params(1, pointersAt, pointersAt)), 1); // both
    assert.equal(set(e, a.node, params(0, pointersAt, 0n)), 1); // a zero grid
  } finally {
    s.cuGraphExecDestroy!(ptr(exec[0]));
    s.cuGraphDestroy!(a.graph);
    s.cuGraphDestroy!(b.graph);
    s.cuMemFree_v2(device);
    s.cuModuleUnload(module);
    s.cuStreamDestroy_v2(stream);
    s.cuDevicePrimaryCtxRelease_v2(0);
  }
});

Deno.test({
  name: nvrtcName("captured helpers replay with new caller params; the helpers' own are refused"),
  ignore: nvrtcSkip !== undefined,
  async fn() {
    resetHazards();
    using client = await simulatedCudaClient();
    const before = graphLaunches();
    await helperReplayCases(client);
    // replays with params are graph launches too (the simulator counts them; a real driver not)
    if (onSimulator) assert.ok(graphLaunches() - before >= 4);
    assert.equal(hazardCount(), 0, hazardReport());
  },
});
