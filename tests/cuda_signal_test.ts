/**
 * The CUDA timeline signal: over fake events (ring wrap-around, eviction under a waiter, event
 * accounting) and over the simulated driver (waits really wait for the device, timeouts, abort).
 */
import assert from "node:assert/strict";
import {
  ComputeError,
  CubeCount,
  type HandleRef,
  KernelArguments,
  TimeoutError,
} from "../backend.ts";
import {
  CUDA_KERNELS,
  CUDA_SIGNAL_RING_SIZE,
  CudaServer,
  CudaTimelineSignal,
} from "../runtime/server/cuda/mod.ts";
import { SIM_LIBRARY } from "./fixtures/cuda_sim.ts";

const code = (error: unknown) => error instanceof ComputeError ? error.code : String(error);

/** Events that complete when `complete()` is called: records are pending until then. */
function fakeEvents() {
  let next = 0;
  const live = new Set<number>();
  const pending = new Set<number>();
  return {
    live,
    complete: () => pending.clear(),
    events: {
      create: () => (live.add(next), next++),
      record: (e: number) => void pending.add(e),
      query: (e: number) => !pending.has(e),
      destroy: (e: number) => {
        assert.ok(live.delete(e), `event ${e} destroyed twice`);
      },
    },
  };
}

Deno.test("ring wrap-around: a target whose slot was overwritten waits on the next slot", async () => {
  const fake = fakeEvents();
  const signal = new CudaTimelineSignal(fake.events);
  for (let v = 1; v <= 3 * CUDA_SIGNAL_RING_SIZE + 10; v++) signal.record(v);
  assert.equal(signal.recorded, 202n);
  assert.equal(signal.value, 0n, "recorded is not reached: the events are pending");
  assert.equal(signal.isReached(5), false);
  assert.equal(fake.live.size, CUDA_SIGNAL_RING_SIZE, "slots reuse their events");
  const early = signal.wait(5, { timeoutMs: 5_000 }); // slot 5 was overwritten long ago
  await assert.rejects(signal.wait(300, { timeoutMs: 30 }), (e) => {
    assert.ok(e instanceof TimeoutError, "a TimeoutError, as every TimelineSignal throws");
    assert.equal(e.limitMs, 30);
    assert.match(
      e.message,
      /30 ms waiting for CUDA timeline value 300: the signal is at 0 \(recorded 202\)/,
    );
    return true;
  });
  fake.complete();
  await early;
  assert.ok(signal.value >= 5n);
  assert.equal(signal.value, 202n);
  signal.waitSync(202, { timeoutMs: 10 });
  signal.set(1); // never goes back
  assert.equal(signal.value, 202n);
  signal.set(500);
  await signal.wait(500);
  signal.destroy();
  assert.equal(fake.live.size, 0);
});

Deno.test("a slot overwritten while awaited keeps its event until the waiter is done", async () => {
  const fake = fakeEvents();
  const signal = new CudaTimelineSignal(fake.events);
  signal.record(1);
  let done = false;
  const waiting = signal.wait(1).then(() => done = true);
  await new Promise((r) => setTimeout(r, 5)); // the waiter polls slot 1
  for (let v = 2; v <= CUDA_SIGNAL_RING_SIZE + 1; v++) signal.record(v); // overwrites slot 1
  assert.equal(done, false);
  fake.complete();
  await waiting;
  signal.destroy();
  assert.equal(fake.live.size, 0, "every event destroyed exactly once");
  assert.throws(() => signal.record(3), (e) => code(e) === "DESTROYED");
});

Deno.test("abort and bad values", async () => {
  const fake = fakeEvents();
  using signal = new CudaTimelineSignal(fake.events);
  signal.record(1);
  const controller = new AbortController();
  const waiting = signal.wait(1, { signal: controller.signal });
  controller.abort(new Error("stop"));
  await assert.rejects(waiting, /stop/);
  assert.throws(() => signal.record(-1), RangeError);
  assert.throws(() => signal.set(1.5), RangeError);
  await assert.rejects(signal.wait(1, { timeoutMs: -1 }), RangeError);
  // A misspelt option waited without limit (the target is never recorded here).
  await assert.rejects(
    signal.wait(2, { timeout: 5 } as never),
    /wait: unknown option "timeout" \(the options are timeoutMs, signal\)/,
  );
  assert.throws(() => signal.waitSync(2, { timeout: 5 } as never), /waitSync: unknown option/);
});

Deno.test("on the simulated driver, wait returns only after the device ran the work", async () => {
  using server = CudaServer.create({ library: SIM_LIBRARY });
  using signal = server.timelineSignal(0);
  using v = server.createWithData(new Uint8Array(4 * 64), 0);
  const slow = (micros: number) =>
    server.execute({
      kernel: CUDA_KERNELS.slowF32,
      count: CubeCount.new1d(1),
      args: new KernelArguments().withBuffer(v.ref())
        .withMetadata({ data: new Uint32Array([64]), staticLength: 1 }).withScalar("u32", [micros]),
    }, 0);
  slow(40_000);
  signal.record(1);
  assert.equal(signal.isReached(1), false);
  const started = performance.now();
  await signal.wait(1, { timeoutMs: 5_000 });
  assert.ok(performance.now() - started >= 20, "waited for the 40 ms kernel");
  // Wrap the ring on the device too: every value completes in order.
  for (let i = 2; i <= 2 * CUDA_SIGNAL_RING_SIZE + 2; i++) {
    if (i % 16 === 0) slow(100);
    signal.record(i);
  }
  await signal.wait(3, { timeoutMs: 5_000 });
  signal.waitSync(2 * CUDA_SIGNAL_RING_SIZE + 2, { timeoutMs: 5_000 });
  assert.equal(signal.value, BigInt(2 * CUDA_SIGNAL_RING_SIZE + 2));
  const [bytes] = await server.read([v.copyDescriptor([64], [1], 4)], 0);
  assert.equal(
    new Float32Array(bytes.buffer)[0],
    1 + Math.floor((2 * CUDA_SIGNAL_RING_SIZE + 2) / 16),
  );
  slow(200_000);
  signal.record(1000);
  assert.throws(() => signal.waitSync(1000, { timeoutMs: 20 }), (e) => code(e) === "TIMEOUT");
  await signal.wait(1000, { timeoutMs: 5_000 });
});

/** A kernel of `micros` µs on stream 0 of `server` (one thread block). */
function slowKernel(server: CudaServer, v: { ref(): HandleRef }) {
  return (micros: number) =>
    server.execute({
      kernel: CUDA_KERNELS.slowF32,
      count: CubeCount.new1d(1),
      args: new KernelArguments().withBuffer(v.ref())
        .withMetadata({ data: new Uint32Array([64]), staticLength: 1 }).withScalar("u32", [micros]),
    }, 0);
}

Deno.test("on the simulated driver, wait sleeps on a parked cuEventSynchronize instead of polling", async () => {
  using server = CudaServer.create({ library: SIM_LIBRARY });
  using signal = server.timelineSignal(0);
  using v = server.createWithData(new Uint8Array(4 * 64), 0);
  const slow = slowKernel(server, v);
  const timers = { count: 0 };
  const setTimeoutBefore = globalThis.setTimeout;
  // Counts the timers made while the wait runs: a polling wait makes one per ~1 ms turn.
  globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
    timers.count++;
    return setTimeoutBefore(...args);
  }) as typeof setTimeout;
  try {
    slow(60_000);
    signal.record(1);
    const started = performance.now();
    await signal.wait(1); // no timeout of its own
    const waited = performance.now() - started;
    assert.ok(waited >= 30, `waited for the 60 ms kernel (${waited} ms)`);
    assert.ok(signal.isReached(1));
    // The host wait's own limit timer, nothing per turn (polling made dozens here).
    assert.ok(timers.count <= 2, `${timers.count} timers for a ${waited.toFixed(0)} ms wait`);
  } finally {
    globalThis.setTimeout = setTimeoutBefore;
  }
});

Deno.test("a sleeping wait still times out, aborts, and ends with DESTROYED on destroy", async () => {
  using server = CudaServer.create({ library: SIM_LIBRARY });
  const signal = server.timelineSignal(0);
  using v = server.createWithData(new Uint8Array(4 * 64), 0);
  const slow = slowKernel(server, v);
  slow(150_000);
  signal.record(1);
  const started = performance.now();
  await assert.rejects(signal.wait(1, { timeoutMs: 30 }), (e) => code(e) === "TIMEOUT");
  const elapsed = performance.now() - started;
  assert.ok(elapsed >= 29 && elapsed < 140, `timed out after ${elapsed} ms`);
  const controller = new AbortController();
  const aborted = signal.wait(1, { signal: controller.signal });
  setTimeout(() => controller.abort(new Error("stop")), 5);
  await assert.rejects(aborted, /stop/);
  const destroyed = signal.wait(1);
  const unrecorded = signal.wait(2); // nothing recorded that far: asleep until a record
  setTimeout(() => signal.destroy(), 5);
  await assert.rejects(destroyed, (e) => code(e) === "DESTROYED");
  await assert.rejects(unrecorded, (e) => code(e) === "DESTROYED");
  await server.sync(0); // the kernel completes: the parked calls return
});

Deno.test("a wait with nothing recorded that far settles on the record that reaches it", async () => {
  using server = CudaServer.create({ library: SIM_LIBRARY });
  using signal = server.timelineSignal(0);
  const waiting = signal.wait(3, { timeoutMs: 5_000 });
  signal.record(1);
  await new Promise((resolve) => setTimeout(resolve, 5));
  signal.record(3); // the stream is idle: complete at once
  await waiting;
  assert.equal(signal.value, 3n);
  const destroyedServer = CudaServer.create({ library: SIM_LIBRARY });
  const other = destroyedServer.timelineSignal(0);
  using v = destroyedServer.createWithData(new Uint8Array(4 * 64), 0);
  slowKernel(destroyedServer, v)(40_000);
  other.record(1);
  const pending = other.wait(1, { timeoutMs: 5_000 });
  destroyedServer.destroy();
  await assert.rejects(pending, (e) => code(e) === "DESTROYED");
  await destroyedServer.drained;
});

Deno.test("waitSync without a timeout blocks once on the target's event; with one it checks between naps", () => {
  const fake = fakeEvents();
  const calls = { query: 0, synchronize: [] as number[] };
  const events = {
    ...fake.events,
    // A polling waitSync would end too (after 50 queries), and fail the count below.
    query: (e: number) => (++calls.query > 50 && fake.complete(), fake.events.query(e)),
    // The blocking synchronize returns once the event completed: the fake completes it here.
    synchronize: (e: number) => (calls.synchronize.push(e), fake.complete()),
  };
  const signal = new CudaTimelineSignal(events);
  signal.record(1);
  signal.record(2);
  signal.waitSync(2);
  assert.deepEqual(calls.synchronize, [1], "the event of the slot recorded with 2");
  assert.ok(calls.query <= 1, `${calls.query} queries: no polling loop`);
  assert.equal(signal.value, 2n);
  signal.record(3); // pending until completed
  assert.throws(() => signal.waitSync(3, { timeoutMs: 5 }), (e) => code(e) === "TIMEOUT");
  assert.equal(calls.synchronize.length, 1, "a limited wait never blocks without its limit");
  signal.destroy();
  assert.equal(fake.live.size, 0);
});

Deno.test("on the simulated driver, waitSync without a timeout returns once the kernel completed", async () => {
  using server = CudaServer.create({ library: SIM_LIBRARY });
  using signal = server.timelineSignal(0);
  using v = server.createWithData(new Uint8Array(4 * 64), 0);
  slowKernel(server, v)(40_000);
  signal.record(1);
  const started = performance.now();
  signal.waitSync(1);
  const waited = performance.now() - started;
  assert.ok(waited >= 20, `blocked for the 40 ms kernel (${waited} ms)`);
  assert.ok(signal.isReached(1));
  await server.sync(0);
});

Deno.test("waitSync refuses a target nothing has recorded, at once, with or without a timeout", () => {
  const fake = fakeEvents();
  const signal = new CudaTimelineSignal(fake.events);
  signal.record(2);
  fake.complete();
  const unsupported = (e: unknown) => {
    assert.equal(code(e), "UNSUPPORTED");
    assert.match((e as Error).message, /value 3: nothing at or above it is recorded .*recorded 2/);
    return true;
  };
  const started = performance.now();
  // Without the refusal the first would block the thread for good, the second for 10 s.
  assert.throws(() => signal.waitSync(3), unsupported);
  assert.throws(() => signal.waitSync(3, { timeoutMs: 10_000 }), unsupported);
  assert.ok(performance.now() - started < 1_000, "refused at once, not after the timeout");
  signal.waitSync(2); // recorded and complete: returns
  signal.set(5); // a value the host set is reached without a record
  signal.waitSync(5);
  signal.record(6);
  fake.complete();
  signal.waitSync(6, { timeoutMs: 1_000 });
  assert.equal(signal.value, 6n);
  signal.destroy();
  assert.throws(() => signal.waitSync(7), (e) => code(e) === "DESTROYED");
  signal.waitSync(6); // reached before the destroy
  assert.throws(() => signal.waitSync(-1), RangeError);
  assert.throws(() => signal.waitSync(1, { timeoutMs: Number.NaN }), RangeError);
});

Deno.test("a server timeoutMs past 2^31 - 1 ms is refused (its host waits timed out after 1 ms)", () => {
  for (const timeoutMs of [2 ** 31, Infinity, 0, -1, NaN]) {
    assert.throws(() => CudaServer.create({ library: SIM_LIBRARY, timeoutMs }), {
      name: "RangeError",
      message: /timeoutMs must be positive and at most 2\^31 - 1/,
    });
  }
  CudaServer.create({ library: SIM_LIBRARY, timeoutMs: 2 ** 31 - 1 }).destroy();
});

Deno.test("a value not above the last recorded one is refused (it would count as reached before its work)", () => {
  const fake = fakeEvents();
  const signal = new CudaTimelineSignal(fake.events);
  signal.record(10); // after work A
  fake.complete(); // A done
  for (const lower of [5, 10]) {
    assert.throws(() => signal.record(lower), (e) => {
      assert.ok(e instanceof RangeError);
      assert.match(e.message, /above the last value recorded \(10\), got/);
      return true;
    });
  }
  assert.equal(signal.isReached(5), true); // what A reached stays reached
  signal.record(11); // the signal stays usable
  assert.equal(signal.recorded, 11n);
});
