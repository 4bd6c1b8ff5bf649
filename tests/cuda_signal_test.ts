/**
 * The CUDA timeline signal: over fake events (ring wrap-around, eviction under a waiter, event
 * accounting) and over the simulated driver (waits really wait for the device, timeouts, abort).
 */
import assert from "node:assert/strict";
import { ComputeError, CubeCount, KernelArguments, TimeoutError } from "../backend.ts";
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
