import { CUDA_KERNELS, CudaServer } from "../runtime/server/cuda/mod.ts";
import { serverConformance } from "./server_conformance.ts";
import { checkShippedKernels } from "./_cuda_programs.ts";
import { hazardCount, hazardReport, resetHazards, SIM_LIBRARY } from "./fixtures/cuda_sim.ts";
import assert from "node:assert/strict";
import { AllocationDescriptor, ComputeError, CubeCount, KernelArguments } from "../backend.ts";
import { CudaStreamBackend, EventPool } from "../runtime/server/cuda/queue/streams.ts";

Deno.test("CudaServer on the simulated driver conforms to the ComputeServer contract", async (t) => {
  resetHazards();
  await serverConformance(t, {
    createServer: () => Promise.resolve(CudaServer.create({ library: SIM_LIBRARY })),
    kernels: {
      fill: CUDA_KERNELS.fillU32,
      scaleAdd: CUDA_KERNELS.scaleAddF32,
      increment: CUDA_KERNELS.incrementU32,
    },
    cubeSize: 256,
  });
  assert.equal(hazardCount(), 0, hazardReport());
});

const u32 = (values: number[]) => new Uint8Array(new Uint32Array(values).buffer);
const asU32 = (bytes: Uint8Array) => [...new Uint32Array(bytes.slice().buffer)];

Deno.test("optimized allocations pad rows; strided writes and reads use 2D copies", async () => {
  resetHazards();
  using server = CudaServer.create({ library: SIM_LIBRARY });
  const [allocation] = server.create([AllocationDescriptor.optimized([3, 5], 4)], 0);
  using handle = allocation.handle;
  assert.deepEqual(allocation.strides, [8, 1]); // 20-byte rows padded to 32
  assert.equal(handle.size(), (2 * 8 + 5) * 4); // the last row is not padded
  const rows = [...Array(15).keys()].map((i) => i + 1);
  server.write([{ descriptor: handle.copyDescriptor([3, 5], [8, 1], 4), data: u32(rows) }], 0);
  const [packed, raw, column] = await server.read([
    handle.copyDescriptor([3, 5], [8, 1], 4),
    handle.copyDescriptor([21], [1], 4),
    handle.copyDescriptor([3, 1], [8, 1], 4),
  ], 0);
  assert.deepEqual(asU32(packed), rows);
  const words = asU32(raw);
  assert.deepEqual([words.slice(0, 5), words.slice(8, 13), words.slice(16, 21)], [
    [1, 2, 3, 4, 5],
    [6, 7, 8, 9, 10],
    [11, 12, 13, 14, 15],
  ]);
  assert.deepEqual(asU32(column), [1, 6, 11]);
  await assert.rejects(
    server.read([handle.copyDescriptor([5, 3], [1, 8], 4)], 0), // transposed: not rows
    (e) => e instanceof ComputeError && e.code === "UNSUPPORTED_STRIDES",
  );
  await assert.rejects(
    server.read([handle.copyDescriptor([3, 8], [8, 1], 4)], 0),
    RangeError, // 96 bytes > 84
  );
  assert.equal(hazardCount(), 0, hazardReport());
});

Deno.test("staging buffers are pinned and written from directly, kept until the copy ran", async () => {
  resetHazards();
  using server = CudaServer.create({ library: SIM_LIBRARY });
  const [staging] = server.staging([16], 0);
  staging.set(u32([4, 3, 2, 1]));
  const allocationsBefore = server.stats().pinnedAllocations;
  using handle = server.createWithData(staging, 0);
  assert.equal(server.stats().pinnedAllocations, allocationsBefore, "no extra staging copy");
  const [bytes] = await server.read([handle.copyDescriptor([4], [1], 4)], 0);
  assert.deepEqual(asU32(bytes), [4, 3, 2, 1]);
  assert.equal(hazardCount(), 0, hazardReport());
});

Deno.test("without memory pools: cuMemAlloc pages, frees deferred behind events", async () => {
  resetHazards();
  using server = CudaServer.create({ library: SIM_LIBRARY, memoryPools: false });
  for (let round = 0; round < 3; round++) {
    const handles = [0, 1, 2].map((s) => server.createWithData(u32([round, s]), s));
    for (const handle of handles) {
      server.execute({
        kernel: CUDA_KERNELS.incrementU32,
        count: CubeCount.new1d(1),
        args: new KernelArguments().withBuffer(handle.ref()),
      }, 1);
    }
    const read = await server.read(handles.map((h) => h.copyDescriptor([2], [1], 4)), 2);
    assert.deepEqual(read.map(asU32), [[round + 1, 1], [round + 1, 2], [round + 1, 3]]);
    for (const h of handles) h.dispose();
    await server.sync(0);
    server.memoryCleanup(0); // frees pages still used by queued work only after their event
  }
  await server.sync(0);
  assert.equal(hazardCount(), 0, hazardReport());
});

Deno.test("a launch whose parameters do not match the PTX signature is refused before the device", () => {
  using server = CudaServer.create({ library: SIM_LIBRARY });
  using a = server.createWithData(new Uint8Array(16), 0);
  using b = server.createWithData(new Uint8Array(16), 0);
  assert.throws(
    () =>
      server.execute({
        kernel: CUDA_KERNELS.incrementU32, // (u32* a, u32 bytes): one buffer only
        count: CubeCount.new1d(1),
        args: new KernelArguments().withBuffers([a.ref(), b.ref()]),
      }, 0),
    /Kernel 'cuda.increment_u32' takes 2 parameters of \[8,4\] bytes, but the launch gives 4 of \[8,8,4,4\]/,
  );
  assert.equal(server.stats().streams, 1, "nothing reached a stream but the creation's copies");
});

Deno.test("the shipped reduction and matmul kernels match a CPU reference", async () => {
  resetHazards();
  using server = CudaServer.create({ library: SIM_LIBRARY });
  await checkShippedKernels(server);
  assert.equal(hazardCount(), 0, hazardReport());
});

Deno.test("a threads count launches enough blocks to cover the threads", async () => {
  using server = CudaServer.create({ library: SIM_LIBRARY });
  using out = server.createWithData(new Uint8Array(4 * 1000), 0);
  server.execute({
    kernel: CUDA_KERNELS.fillU32,
    count: CubeCount.threads(1000), // 4 blocks of 256
    args: new KernelArguments().withBuffer(out.ref())
      .withMetadata({ data: new Uint32Array([1000]), staticLength: 1 }).withScalar("u32", [5]),
  }, 0);
  const [bytes] = await server.read([out.copyDescriptor([1000], [1], 4)], 0);
  assert.deepEqual(asU32(bytes), Array(1000).fill(5));
});

Deno.test("copyTo between servers of one device stays on the device, ordered and pinned", async () => {
  resetHazards();
  using source = CudaServer.create({ library: SIM_LIBRARY });
  using target = CudaServer.create({ library: SIM_LIBRARY });
  const [allocation] = source.create([AllocationDescriptor.optimized([3, 5], 4)], 2);
  const rows = [...Array(15).keys()];
  source.write([{
    descriptor: allocation.handle.copyDescriptor([3, 5], [8, 1], 4),
    data: u32(rows),
  }], 2);
  source.execute({ // written by a kernel on another stream of the source: must be ordered
    kernel: CUDA_KERNELS.incrementU32,
    count: CubeCount.new1d(1),
    args: new KernelArguments().withBuffer(allocation.handle.ref()),
  }, 3);
  const pinnedBefore = source.stats().pinnedAllocations;
  const copying = source.copyTo(
    target,
    allocation.handle.copyDescriptor([3, 5], [8, 1], 4),
    { source: 1, destination: 0 },
  );
  allocation.handle.dispose(); // safe: the copy pins the source
  const { handle, strides } = await copying;
  using copied = handle;
  assert.deepEqual(strides, [5, 1]);
  assert.equal(source.stats().pinnedAllocations, pinnedBefore, "no staging through the host");
  const [bytes] = await target.read([copied.copyDescriptor([3, 5], [5, 1], 4)], 0);
  assert.deepEqual(asU32(bytes), rows.map((v) => v + 1));
  assert.equal(hazardCount(), 0, hazardReport());
});

Deno.test("the GC's poll on CUDA is one cuEventQuery; a complete event returns to the pool", async () => {
  using server = CudaServer.create({ library: SIM_LIBRARY });
  const driver = server.device.driver;
  let destroyed = false;
  const events = new EventPool(driver);
  const backend = new CudaStreamBackend(driver, events, {
    timeoutMs: 50,
    owner: {
      get destroyed() {
        return destroyed;
      },
      bind() {},
    },
  });
  try {
    const stream = backend.createStream();
    const event = backend.flush(stream);
    while (!backend.isEventComplete(event, 0)) await new Promise((r) => setTimeout(r, 1));
    assert.equal(event.handle, null, "returned to the pool");
    assert.equal(backend.isEventComplete(event, 0), true); // idempotent once complete
    const again = backend.flush(stream); // reuses the pooled event
    assert.equal(events.size, 1);
    // Complete before anything is destroyed: nothing is left running on the simulator's threads.
    while (!backend.isEventComplete(again, 0)) await new Promise((r) => setTimeout(r, 1));
    destroyed = true;
    assert.throws(
      () => backend.isEventComplete(again, 0),
      (e) => (e as ComputeError).code === "DESTROYED",
    );
  } finally {
    backend.destroy();
    events.destroy();
  }
});

Deno.test("destroy with GC tasks pending leaves no GC poll behind (the sanitizer checks)", () => {
  const server = CudaServer.create({ library: SIM_LIBRARY });
  const a = server.createWithData(u32([1, 2]), 0);
  server.execute({
    kernel: CUDA_KERNELS.incrementU32,
    count: CubeCount.new1d(1),
    args: new KernelArguments().withBuffer(a.ref()),
  }, 1); // cross-stream: a GC task pins `a` until the GC stream passed the launch
  a.dispose();
  // The device work is done (the simulator's streams are threads; work in flight at destroy is
  // another test's subject); the GC has not polled yet: its tasks are pending.
  server.device.driver.symbols.cuCtxSynchronize();
  server.destroy();
});
