/**
 * CUDA host waits without a timer loop, and a `destroy` that never waits for the device: a read
 * round trip starts no polling timer (its wait parks a non-blocking `cuEventSynchronize`; the waits
 * past the parked ones are woken by a post of the device, `_overflow_wake.ts`), destroy
 * with a slow kernel in flight returns before the kernel's memory is freed (the drain runs in the
 * background), and destroy returns when a stream waits on another device's event that never
 * completes (issue #26).
 */
import assert from "node:assert/strict";
import { CubeCount, type Handle, KernelArguments } from "../backend.ts";
import { CUDA_KERNELS, CudaServer } from "../runtime/server/cuda/mod.ts";
import { createClient } from "../mod.ts";
import { overflowCounts } from "../runtime/server/cuda/queue/_overflow_wake.ts";
import { hostWaitSpin } from "../runtime/server/cuda/queue/_host_wait.ts";
import { DEFAULT_WAIT_SPIN_US, hostWaitSpinUs } from "../runtime/server/cuda/options.ts";
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

/** Runs `fn` counting the timers of under 100 ms it starts (a wait's own TIMEOUT is long). */
async function countingShortTimers<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const real = globalThis.setTimeout;
  let shortTimers = 0;
  globalThis.setTimeout = ((handler: () => void, ms?: number) => {
    if ((ms ?? 0) < 100) shortTimers++;
    return real(handler, ms);
  }) as typeof setTimeout;
  try {
    return [await fn(), shortTimers];
  } finally {
    globalThis.setTimeout = real;
  }
}

/** 24 reads over 4 streams whose slow kernels finish last stream first: 8 more than park. */
async function outOfOrderReads(server: CudaServer): Promise<number[]> {
  const data = [0, 1, 2, 3].map((s) => server.createWithData(new Uint8Array(4 * n), s));
  await Promise.all([0, 1, 2, 3].map((s) => server.sync(s)));
  // Later streams finish first; 6 reads a stream: 24 waits, more than MAX_PARKED (16) park.
  for (let s = 0; s < 4; s++) slow(server, data[s], 40_000 - 10_000 * s, s);
  const reads = [];
  for (let r = 0; r < 6; r++) {
    for (let s = 0; s < 4; s++) reads.push(server.read([data[s].copyDescriptor([1], [1], 4)], s));
  }
  const values = (await Promise.all(reads)).map(([bytes]) => new Float32Array(bytes.buffer)[0]);
  for (const d of data) d.dispose();
  return values;
}

Deno.test("more concurrent reads than parked waits, completing out of order, all settle right, woken by the device", async () => {
  using server = CudaServer.create({ library: SIM_LIBRARY, maxStreams: 4 });
  const before = { ...overflowCounts };
  const [values, shortTimers] = await countingShortTimers(() => outOfOrderReads(server));
  assert.deepEqual(values, new Array(24).fill(1));
  assert.equal(overflowCounts.armed - before.armed, 8, "the 8 waits past the parked ones");
  assert.ok(overflowCounts.posts > before.posts, "woken by a post of the device");
  assert.equal(shortTimers, 0, "the queued waits were not re-queried on a timer");
});

Deno.test("where the device cannot post, queued waits are re-queried and still settle right", async () => {
  await withSimEnv({ CUDA_SIM_NO_HOST_FUNC: "1" }, async () => {
    using server = CudaServer.create({ library: SIM_LIBRARY, maxStreams: 4 });
    const armed = overflowCounts.armed;
    const [values, shortTimers] = await countingShortTimers(() => outOfOrderReads(server));
    assert.deepEqual(values, new Array(24).fill(1));
    assert.equal(overflowCounts.armed, armed, "nothing armed without cuLaunchHostFunc");
    assert.ok(shortTimers > 0, "re-queried on a timer");
  });
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

Deno.test("queued waits on work that faults reject with the driver's error; destroy ends the rest", async () => {
  await withSimEnv({ CUDA_SIM_LAUNCH_FAIL_AT: "2" }, async () => {
    const server = CudaServer.create({ library: SIM_LIBRARY, maxStreams: 4, timeoutMs: 10_000 });
    const data = server.createWithData(new Uint8Array(4 * n), 0);
    slow(server, data, 20_000);
    slow(server, data, 20_000); // the second launch: it faults
    const reads = Array.from(
      { length: 20 },
      () => server.read([data.copyDescriptor([1], [1], 4)], 0),
    );
    const started = performance.now();
    const results = await Promise.allSettled(reads);
    const waited = performance.now() - started;
    for (const result of results) {
      assert.equal(result.status, "rejected");
      assert.match(String((result as PromiseRejectedResult).reason), /LAUNCH_FAILED/);
    }
    assert.ok(waited < 5_000, `the fault ended the queued waits, not their timeout (${waited} ms)`);
    server.destroy();
    await server.drained;
  });
  // Waits queued behind the parked ones when the server is destroyed: DESTROYED, nothing left.
  const server = CudaServer.create({ library: SIM_LIBRARY, maxStreams: 4 });
  const data = server.createWithData(new Uint8Array(4 * n), 0);
  slow(server, data, 100_000);
  const reads = Array.from(
    { length: 20 },
    () => server.read([data.copyDescriptor([1], [1], 4)], 0),
  );
  await new Promise((resolve) => setTimeout(resolve, 5));
  server.destroy();
  for (const result of await Promise.allSettled(reads)) {
    assert.equal(result.status, "rejected");
    assert.equal((result as PromiseRejectedResult).reason.code, "DESTROYED");
  }
  await server.drained; // the op sanitizer: no parked call outlives the drain
  // Queued waits that time out: TIMEOUT each, their posts disarmed.
  const late = CudaServer.create({ library: SIM_LIBRARY, maxStreams: 4, timeoutMs: 50 });
  const more = late.createWithData(new Uint8Array(4 * n), 0);
  slow(late, more, 150_000);
  const timedOut = await Promise.allSettled(
    Array.from({ length: 20 }, () => late.read([more.copyDescriptor([1], [1], 4)], 0)),
  );
  assert.deepEqual(
    timedOut.map((result) => (result as PromiseRejectedResult).reason?.code),
    new Array(20).fill("TIMEOUT"),
  );
  late.device.driver.symbols.cuCtxSynchronize(); // a drain past the timeout ends in the background
  late.destroy();
  await late.drained;
});

Deno.test("waitSpinUs: a wait done within the spin parks no synchronize; 0 parks at once", async () => {
  assert.equal(hostWaitSpinUs({}), DEFAULT_WAIT_SPIN_US);
  assert.equal(DEFAULT_WAIT_SPIN_US, 30);
  // How many of `rounds` reads after a kernel of `us` microseconds settled while spinning.
  const caughtOf = async (waitSpinUs: number | undefined, us: number, rounds: number) => {
    using server = CudaServer.create({ library: SIM_LIBRARY, waitSpinUs });
    using data = server.createWithData(new Uint8Array(4 * n), 0);
    await server.sync(0);
    const caught = hostWaitSpin.caught;
    for (let i = 1; i <= rounds; i++) {
      slow(server, data, us);
      const [bytes] = await server.read([data.copyDescriptor([1], [1], 4)], 0);
      assert.equal(new Float32Array(bytes.buffer)[0], i);
    }
    return hostWaitSpin.caught - caught;
  };
  // not complete at the first query: parked at once, no spin
  assert.equal(await caughtOf(0, 200, 2), 0);
  // a spin far longer than the kernel: complete while spinning
  assert.equal(await caughtOf(100_000, 200, 4), 4, "each wait settled while spinning");
  // the default 30 µs, shorter than the kernel: parks after spinning, same result
  assert.equal(await caughtOf(undefined, 30_000, 1), 0);
  for (const waitSpinUs of [-1, 100_001, NaN]) {
    assert.throws(
      () => CudaServer.create({ library: SIM_LIBRARY, waitSpinUs }),
      (error: unknown) => error instanceof RangeError && /waitSpinUs/.test(error.message),
    );
  }
  // createClient passes it on (a misspelt option is refused there)
  await assert.rejects(
    createClient({ backend: "cuda", library: SIM_LIBRARY, waitSpinUs: -1 }),
    RangeError,
  );
  await using client = await createClient({ backend: "cuda", library: SIM_LIBRARY, waitSpinUs: 0 });
  using one = client.createWithData(new Float32Array([7]));
  assert.deepEqual(Array.from(await client.read(one)), [7]);
});
