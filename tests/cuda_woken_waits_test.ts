/**
 * Blocking CUDA host waits with a limit (`runtime/server/cuda/queue/_wake.ts`): a timeline
 * signal's `waitSync` with a timeout, the GC's back-pressure and a dynamic cube count block until
 * the device wakes them (a `cuLaunchHostFunc` of `sem_post` after the event), not in a loop of
 * naps. Told by how the waits ended (`wakeCounts`: a post of the device, a periodic check for
 * faults, a nap) and the `cuEventQuery` calls they made: a wait that polls every 50 µs makes
 * hundreds over a 60 ms kernel, a woken one one per 10 ms check and one after its wake. The
 * GC's asynchronous path sleeps the same way, on a parked `cuEventSynchronize`.
 */
import assert from "node:assert/strict";
import { ComputeError, CubeCount, type Handle, KernelArguments, TimeoutError } from "../backend.ts";
import { CUDA_KERNELS, CudaServer } from "../runtime/server/cuda/mod.ts";
import { CHECK_MS, wakeCounts } from "../runtime/server/cuda/queue/_wake.ts";
import { SIM_LIBRARY, withSimEnv } from "./fixtures/cuda_sim.ts";

const code = (error: unknown) => error instanceof ComputeError ? error.code : String(error);

function slow(server: CudaServer, data: Handle, micros: number, stream = 0): void {
  server.execute({
    kernel: CUDA_KERNELS.slowF32,
    count: CubeCount.new1d(1),
    args: new KernelArguments().withBuffer(data.ref())
      .withMetadata({ data: new Uint32Array([64]), staticLength: 1 }).withScalar("u32", [micros]),
  }, stream);
}

/** Runs `fn` counting the driver's `cuEventQuery` calls (every server of the library). */
function countingQueries(server: CudaServer, fn: () => void) {
  const symbols = server.device.driver.symbols as {
    cuEventQuery: (e: Deno.PointerValue) => number;
  };
  const real = symbols.cuEventQuery;
  let queries = 0;
  const before = { ...wakeCounts };
  symbols.cuEventQuery = (e) => (queries++, real(e));
  try {
    fn();
  } finally {
    symbols.cuEventQuery = real;
  }
  return {
    queries,
    posts: wakeCounts.posts - before.posts,
    naps: wakeCounts.naps - before.naps,
  };
}

Deno.test("waitSync with a timeout returns when the device wakes it, not polling", async () => {
  using server = CudaServer.create({ library: SIM_LIBRARY });
  using signal = server.timelineSignal(0);
  using data = server.createWithData(new Uint8Array(4 * 64), 0);
  let woken = 0;
  for (let i = 1; i <= 3; i++) {
    slow(server, data, 30_000);
    signal.record(i);
    const started = performance.now();
    const { queries, posts, naps } = countingQueries(
      server,
      () => signal.waitSync(i, { timeoutMs: 10_000 }),
    );
    const waited = performance.now() - started;
    assert.ok(waited >= 10, `blocked for the 30 ms kernel (${waited.toFixed(1)} ms)`);
    assert.ok(signal.isReached(i));
    assert.equal(naps, 0, "no nap loop");
    // Polling every 50 µs would make hundreds; the checks for faults make one per CHECK_MS.
    const bound = 3 + Math.ceil(waited / CHECK_MS);
    assert.ok(queries <= bound, `${queries} queries in ${waited.toFixed(1)} ms (at most ${bound})`);
    woken += posts;
  }
  // A check may see the completion just before the device's post arrives (a loaded machine).
  assert.ok(woken >= 2, `${woken} of 3 waits woken by the device`);
  const [bytes] = await server.read([data.copyDescriptor([1], [1], 4)], 0);
  assert.equal(new Float32Array(bytes.buffer)[0], 3);
});

Deno.test("without cuLaunchHostFunc, waitSync with a timeout polls and still returns the result", async () => {
  await withSimEnv({ CUDA_SIM_NO_HOST_FUNC: "1" }, async () => {
    using server = CudaServer.create({ library: SIM_LIBRARY });
    using signal = server.timelineSignal(0);
    using data = server.createWithData(new Uint8Array(4 * 64), 0);
    slow(server, data, 30_000);
    signal.record(1);
    const { queries, posts } = countingQueries(
      server,
      () => signal.waitSync(1, { timeoutMs: 10_000 }),
    );
    assert.ok(signal.isReached(1));
    assert.equal(posts, 0);
    assert.ok(queries > 20, `${queries} queries: the fallback polls`);
    await server.sync(0);
  });
});

Deno.test("a timed-out woken wait leaves no clogged waiter behind: the next wait is woken at once", async () => {
  using server = CudaServer.create({ library: SIM_LIBRARY, maxStreams: 2 });
  using first = server.timelineSignal(0);
  using second = server.timelineSignal(1);
  using a = server.createWithData(new Uint8Array(4 * 64), 0);
  using b = server.createWithData(new Uint8Array(4 * 64), 1);
  await server.sync(0);
  await server.sync(1);
  slow(server, a, 400_000, 0);
  first.record(1);
  assert.throws(() => first.waitSync(1, { timeoutMs: 20 }), (e) => e instanceof TimeoutError);
  // The first wait's host function waits behind the 400 ms kernel: were it still ahead on the
  // waiter stream, this wait would end by a 10 ms check once its kernel completed, not woken.
  let woken = 0;
  for (let i = 1; i <= 2; i++) {
    slow(server, b, 20_000, 1);
    second.record(i);
    const { posts } = countingQueries(server, () => second.waitSync(i, { timeoutMs: 10_000 }));
    assert.ok(second.isReached(i));
    woken += posts;
  }
  assert.ok(!first.isReached(1), "the first kernel still runs: the wakes were the second's");
  // A check may see a completion just before the device's post arrives (a loaded machine).
  assert.ok(woken >= 1, "woken by the device");
  await server.sync(0);
});

Deno.test("a woken wait on work that faults ends with the driver's error, not the timeout", async () => {
  await withSimEnv({ CUDA_SIM_LAUNCH_FAIL_AT: "2" }, async () => {
    const server = CudaServer.create({ library: SIM_LIBRARY });
    const signal = server.timelineSignal(0);
    const data = server.createWithData(new Uint8Array(4 * 64), 0);
    slow(server, data, 20_000);
    slow(server, data, 20_000); // faults: the driver calls no host function after it
    signal.record(1);
    const started = performance.now();
    assert.throws(
      () => signal.waitSync(1, { timeoutMs: 10_000 }),
      (e) => code(e) !== "TIMEOUT" && /LAUNCH_FAILED/.test(String(e)),
    );
    const waited = performance.now() - started;
    assert.ok(waited < 2_000, `the fault was seen by a check, not the timeout (${waited} ms)`);
    signal.destroy();
    server.destroy();
    await server.drained;
  });
});

Deno.test("the GC sleeps on a parked wait for a cross-stream launch, not on a polling timer", async () => {
  const server = CudaServer.create({ library: SIM_LIBRARY });
  const symbols = server.device.driver.symbols as {
    cuEventQuery: (e: Deno.PointerValue) => number;
  };
  const real = symbols.cuEventQuery;
  let queries = 0;
  symbols.cuEventQuery = (e) => (queries++, real(e));
  try {
    const data = server.createWithData(new Uint8Array(4 * 64), 0);
    slow(server, data, 60_000, 1); // cross-stream: a GC task pins `data` until the launch is done
    data.dispose();
    const stream = 0;
    assert.equal(server.memoryUsage(stream).bytesInUse, 256, "pinned by the GC task");
    const started = performance.now();
    // The test sleeps on timers (no driver call); the GC alone queries the driver.
    while (server.memoryUsage(stream).bytesInUse > 0) {
      assert.ok(performance.now() - started < 10_000, "the GC released the page");
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const waited = performance.now() - started;
    // A 1 ms polling timer made ~90 queries over the launch; the parked wait makes 1-3.
    assert.ok(queries <= 5, `${queries} cuEventQuery calls over ${waited.toFixed(0)} ms`);
  } finally {
    symbols.cuEventQuery = real;
    server.destroy();
    await server.drained;
  }
});
