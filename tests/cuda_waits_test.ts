/**
 * CUDA host waits without a timer loop, and a `destroy` that never waits for the device: a read
 * round trip starts no polling timer (its wait parks a non-blocking `cuEventSynchronize`), destroy
 * with a slow kernel in flight returns before the kernel's memory is freed (the drain runs in the
 * background), and destroy returns when a stream waits on another device's event that never
 * completes (issue #26).
 */
import assert from "node:assert/strict";
import { CubeCount, type Handle, KernelArguments } from "../backend.ts";
import { CUDA_KERNELS, CudaServer } from "../runtime/server/cuda/mod.ts";
import { asU32, u32 } from "./_bytes.ts";
import {
  hazardCount,
  hazardReport,
  liveAllocations,
  resetHazards,
  SIM_LIBRARY,
  withSimEnv,
} from "./fixtures/cuda_sim.ts";

const n = 32;
const meta = { data: new Uint32Array([n]), staticLength: 1 };

function slow(server: CudaServer, data: Handle, us: number, stream = 0) {
  server.execute({
    kernel: CUDA_KERNELS.slowF32,
    count: CubeCount.threads(n),
    args: new KernelArguments().withBuffer(data.ref()).withMetadata(meta).withScalar("u32", [us]),
  }, stream);
}

Deno.test("a read round trip waits without a polling timer", async () => {
  using server = CudaServer.create({ library: SIM_LIBRARY });
  using data = server.createWithData(new Uint8Array(4 * n), 0);
  await server.sync(0);
  const real = globalThis.setTimeout;
  let shortTimers = 0;
  // Counts the timers a wait loop would start (0 or 1 ms); the wait's own TIMEOUT timer is long.
  globalThis.setTimeout = ((fn: () => void, ms?: number) => {
    if ((ms ?? 0) < 100) shortTimers++;
    return real(fn, ms);
  }) as typeof setTimeout;
  try {
    for (let i = 1; i <= 20; i++) {
      slow(server, data, 200); // ~0.2 ms: not complete at the read's first query
      const [bytes] = await server.read([data.copyDescriptor([1], [1], 4)], 0);
      assert.equal(new Float32Array(bytes.buffer)[0], i);
    }
  } finally {
    globalThis.setTimeout = real;
  }
  assert.equal(shortTimers, 0, "no read polled with a timer");
});

Deno.test("more concurrent reads than parked waits, completing out of order, all settle right", async () => {
  using server = CudaServer.create({ library: SIM_LIBRARY, maxStreams: 4 });
  const data = [0, 1, 2, 3].map((s) => server.createWithData(new Uint8Array(4 * n), s));
  await Promise.all([0, 1, 2, 3].map((s) => server.sync(s)));
  // Later streams finish first; 6 reads a stream: 24 waits, more than MAX_PARKED (16) park.
  for (let s = 0; s < 4; s++) slow(server, data[s], 40_000 - 10_000 * s, s);
  const reads = [];
  for (let r = 0; r < 6; r++) {
    for (let s = 0; s < 4; s++) reads.push(server.read([data[s].copyDescriptor([1], [1], 4)], s));
  }
  const values = (await Promise.all(reads)).map(([bytes]) => new Float32Array(bytes.buffer)[0]);
  assert.deepEqual(values, new Array(24).fill(1));
  for (const d of data) d.dispose();
});

Deno.test("destroy with a slow kernel in flight returns at once; its memory is freed after", async () => {
  resetHazards();
  const before = liveAllocations("device");
  const server = CudaServer.create({ library: SIM_LIBRARY });
  const data = server.createWithData(new Uint8Array(4 * n), 0);
  slow(server, data, 300_000); // ~0.3 s on the device
  data.dispose();
  server.destroy();
  // Returned while the kernel runs: its page is freed in stream order, after the kernel.
  assert.ok(liveAllocations("device") > before, "the kernel's memory is still allocated");
  assert.ok(server.drained instanceof Promise);
  await server.drained;
  assert.equal(liveAllocations("device"), before, "freed once the drain completed");
  assert.equal(hazardCount(), 0, hazardReport());
  // A server created on the device afterwards works on a fresh context.
  using again = CudaServer.create({ library: SIM_LIBRARY });
  using x = again.createWithData(u32([7]), 0);
  assert.deepEqual(asU32((await again.read([x.copyDescriptor([1], [1], 4)], 0))[0]), [7]);
});

Deno.test({
  name: "destroy returns while a stream waits on another device's event that never completes",
  // The consumer's drain and release are parked on Deno's FFI pool (unref'd, never holding the
  // process) until the producer's stream ends the hung record; under load they may return only
  // after the test ends, which the op sanitizer would count as a leak.
  sanitizeOps: false,
  fn: async () => {
    // The producer's third event record never completes until its stream is destroyed.
    await withSimEnv({ CUDA_SIM_DEVICES: "2", CUDA_SIM_HANG_RECORD_AT: "3" }, async () => {
      const producer = CudaServer.create({ library: SIM_LIBRARY, ordinal: 0 });
      const consumer = CudaServer.create({ library: SIM_LIBRARY, ordinal: 1, timeoutMs: 200 });
      const signal = producer.timelineSignal(0);
      signal.record(1);
      signal.record(2);
      signal.record(3); // hangs
      assert.equal(consumer.waitSignal(signal, 3n, 0), true, "a device-side wait");
      using y = consumer.createWithData(u32([1]), 0);
      const read = consumer.read([y.copyDescriptor([1], [1], 4)], 0);
      consumer.destroy(); // used to hang in cuDevicePrimaryCtxRelease
      await assert.rejects(read, { code: "DESTROYED" });
      await consumer.drained; // its wait timed out: the release went to a background thread
      producer.destroy(); // destroying the producer's stream ends the hung record
      await producer.drained;
    });
  },
});
