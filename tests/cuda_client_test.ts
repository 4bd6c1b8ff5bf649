/**
 * The client API is the same on both backends: one user program, written once against
 * `ComputeClient`, runs on WebGPU (WGSL kernels) and on CUDA (PTX kernels, simulated driver) and
 * gives the same results. `createClient({ backend: "cuda" })` loads the CUDA backend on demand.
 */
import assert from "node:assert/strict";
import { type ComputeClient, createClient, CubeCount } from "../mod.ts";
import type { KernelMetadata } from "../backend.ts";
import { CUDA_KERNELS } from "../runtime/server/cuda/mod.ts";
import { CUBE_SIZE, fill, increment, scaleAdd } from "./_wgsl_kernels.ts";
import { hazardCount, hazardReport, resetHazards, SIM_LIBRARY } from "./fixtures/cuda_sim.ts";

interface Kernels<K> {
  readonly fill: K;
  readonly scaleAdd: K;
  readonly increment: K;
  readonly cube: number;
}

/** The user program: three streams, cross-stream producers and consumers, one coalesced read. */
async function program<K extends KernelMetadata>(client: ComputeClient<K>, k: Kernels<K>) {
  const n = 1000;
  const cubes = CubeCount.new1d(Math.ceil(n / k.cube));
  const metadata = { data: new Uint32Array([n]), staticLength: 1 };
  using x = client.createWithData(Float32Array.from({ length: n }, (_, i) => i * 0.5), {
    stream: 1,
  });
  using y = client.createWithData(new Float32Array(n).fill(1), { stream: 2 });
  using out = client.createBytes(n * 4, { stream: 3 });
  using counts = client.createBytes(n * 4, { stream: 2 });
  client.execute(k.fill, {
    stream: 2,
    count: cubes,
    buffers: [counts],
    metadata,
    scalars: { u32: [7] },
  });
  client.execute(k.increment, { stream: 1, count: cubes, buffers: [counts] });
  client.execute(k.scaleAdd, {
    stream: 3,
    count: cubes,
    buffers: [x, y, out],
    metadata,
    scalars: { f32: [3] },
  });
  client.execute(k.increment, { stream: 3, count: cubes, buffers: [counts] });
  const [sums] = await client.readMany([out], Float32Array, { stream: 0 });
  const [incremented] = await client.readMany([counts], Uint32Array, { stream: 0 });
  return { sums: [...sums], counts: [...incremented] };
}

const expected = {
  sums: Array.from({ length: 1000 }, (_, i) => i * 0.5 * 3 + 1),
  counts: Array(1000).fill(9),
};
const adapter = await navigator.gpu?.requestAdapter();

Deno.test("one user program gives the same results on CUDA (simulated) and on WebGPU", async (t) => {
  resetHazards();
  let onCuda;
  {
    using client = await createClient({ backend: "cuda", library: SIM_LIBRARY });
    assert.equal(client.server.properties.backend, "cuda");
    onCuda = await program(client, {
      fill: CUDA_KERNELS.fillU32,
      scaleAdd: CUDA_KERNELS.scaleAddF32,
      increment: CUDA_KERNELS.incrementU32,
      cube: CUDA_KERNELS.fillU32.blockSize[0],
    });
  }
  assert.deepEqual(onCuda, expected);
  assert.equal(hazardCount(), 0, hazardReport());
  await t.step({
    name: "on WebGPU",
    ignore: adapter === null || adapter === undefined, // no WebGPU adapter on this machine
    async fn() {
      using client = await createClient({ adapter: adapter! });
      const onWebGpu = await program(client, { fill, scaleAdd, increment, cube: CUBE_SIZE });
      assert.deepEqual(onWebGpu, onCuda);
    },
  });
});

Deno.test("createClient refuses an unknown backend", async () => {
  await assert.rejects(createClient({ backend: "metal" as "webgpu" }), RangeError);
});

Deno.test("client.profile times CUDA work with the device's timing events", async () => {
  using client = await createClient({ backend: "cuda", library: SIM_LIBRARY });
  using v = client.createBytes(4 * 256);
  const { duration } = await client.profile(() =>
    client.execute(CUDA_KERNELS.slowF32, {
      count: CubeCount.new1d(1),
      buffers: [v],
      metadata: { data: new Uint32Array([256]), staticLength: 1 },
      scalars: { u32: [20_000] }, // about 20 ms on the device
    })
  );
  assert.equal(duration.timing, "device");
  assert.ok(duration.milliseconds >= 15, `${duration.milliseconds} ms`);
});

Deno.test("client.signal on CUDA marks the stream's work with an event, not a sync", async () => {
  resetHazards();
  using client = await createClient({ backend: "cuda", library: SIM_LIBRARY });
  const server = client.server;
  assert.equal(typeof server.signal, "function");
  const sync = server.sync.bind(server);
  let syncs = 0;
  server.sync = (stream) => (syncs++, sync(stream));
  using v = client.createWithData(new Float32Array(256), { stream: 1 });
  const slow = (stream: number, micros: number) =>
    client.execute(CUDA_KERNELS.slowF32, {
      stream,
      count: CubeCount.new1d(1),
      buffers: [v],
      metadata: { data: new Uint32Array([256]), staticLength: 1 },
      scalars: { u32: [micros] },
    });
  slow(1, 5_000);
  const first = client.signal({ stream: 1 });
  slow(2, 100); // ordered after stream 1's work on v
  const second = client.signal({ stream: 2 });
  // Marks are set from the event loop, never synchronously.
  assert.equal(client.timeline.isReached(first), false);
  const order: bigint[] = [];
  await Promise.all(
    [second, first].map((v) =>
      client.timeline.wait(v, { timeoutMs: 10_000 }).then(() => order.push(v))
    ),
  );
  assert.deepEqual(order, [first, second]);
  assert.equal(syncs, 0, "signal fell back to a sync");
  const data = await client.read(v, Float32Array, { stream: 2 });
  assert.deepEqual([...new Set(data)], [2]);
  assert.equal(hazardCount(), 0, hazardReport());
});
