import assert from "node:assert/strict";
import { ManagedMemoryId } from "../runtime/core/managed_memory.ts";
import { SliceHandle } from "../runtime/core/slice.ts";
import {
  ComputeError,
  InvalidHandleError,
  RuntimeError,
  StreamUnhealthyError,
} from "../runtime/core/errors.ts";
import { type Binding, Handle } from "../runtime/core/handle.ts";
import {
  type EventStreamBackend,
  MultiStream,
  SharedBindingAnalysis,
} from "../runtime/stream/event.ts";
import { type SimStream, SimulatedEventBackend } from "./fixtures/simulated_event_backend.ts";

const MAX_STREAMS = 4;

/** The seed's TestBackend: every handle has cursor 0, events complete at once. */
const testBackend: EventStreamBackend<object, null> = {
  createStream: () => ({}),
  handleCursor: () => 0,
  isHealthy: () => true,
  flush: () => null,
  waitEvent: () => {},
  waitEventHost: () => Promise.resolve(),
};

function handle(stream: number, cursor = 0): Handle {
  return new Handle(new SliceHandle(new ManagedMemoryId()), { stream, cursor, size: 10 });
}

function expected(...entries: [Binding, number][]): Map<number, ManagedMemoryId[]> {
  const analysis = new SharedBindingAnalysis();
  for (const [binding, index] of entries) analysis.shared(binding.memory.id, index);
  return analysis.slices;
}

function seeded(): MultiStream<object, null> {
  const ms = new MultiStream(testBackend, { maxStreams: MAX_STREAMS });
  ms.resolve(1, []).finish();
  ms.resolve(2, []).finish();
  return ms;
}

Deno.test("seed tests of the event multi-stream", async (t) => {
  await t.step("test_analysis_shared_bindings_1", () => {
    using h1 = handle(1), h2 = handle(2);
    const [b1, b2] = [h1.binding(), h2.binding()];
    const analysis = seeded().updateSharedBindings(1, [b1, b2]);
    assert.deepEqual(analysis.slices, expected([b2, 2]));
  });
  await t.step("test_analysis_shared_bindings_2", () => {
    using h1 = handle(1), h2 = handle(2), h3 = handle(1);
    const [b1, b2, b3] = [h1.binding(), h2.binding(), h3.binding()];
    const analysis = seeded().updateSharedBindings(1, [b1, b2, b3]);
    assert.deepEqual(analysis.slices, expected([b2, 2]));
  });
  await t.step("test_analysis_no_shared", () => {
    using h1 = handle(1), h2 = handle(1), h3 = handle(1);
    const analysis = seeded().updateSharedBindings(1, [h1.binding(), h2.binding(), h3.binding()]);
    assert.equal(analysis.isEmpty, true);
  });
  await t.step("test_state", async () => {
    using h1 = handle(1), h2 = handle(2), h3 = handle(1);
    const ms = seeded();
    ms.resolve(1, [h1.binding(), h2.binding(), h3.binding()]).finish();
    assert.equal(ms.state(1).lastSynced.get(2), 1);
    assert.equal(ms.state(1).cursor, 2);
    assert.equal(ms.state(2).lastSynced.size, 0);
    assert.equal(ms.state(2).cursor, 1);
    await ms.drain();
    assert.equal(h2.memory.id.pins, 0);
  });
});

/** A simulated setup where S = stream 0 created `value` and wrote 1 into it. */
function hazardSetup() {
  const backend = new SimulatedEventBackend({ seed: 7 });
  const ms = new MultiStream(backend, { maxStreams: MAX_STREAMS });
  const box = { value: 0 };
  const created = ms.resolve(0, []);
  const h = handle(0, created.cursor);
  created.finish();
  const write = ms.resolve(0, [h.binding()]);
  backend.enqueue(write.currentStream(), () => box.value = 1);
  write.finish();
  return { backend, ms, box, h, s: ms.state(0).stream as SimStream };
}

/** Runs S first as far as it can go, then everything: the worst schedule for a missing wait. */
function runSFirst(backend: SimulatedEventBackend, s: SimStream): void {
  while (backend.stepStream(s));
  backend.runAll();
}

Deno.test("correction 1: every stream that used a binding is synchronized", async (t) => {
  await t.step("written on T, then read on S: S waits on T (no stale read)", async () => {
    const { backend, ms, box, h, s } = hazardSetup();
    using onT = ms.resolve(1, [h.binding()]);
    backend.enqueue(onT.currentStream(), () => box.value += 5);
    onT.finish();
    const analysis = ms.updateSharedBindings(0, [h.binding()]);
    assert.deepEqual(analysis.slices, expected([h.binding(), 1]));
    let read = -1;
    using onS = ms.resolve(0, [h.binding()]);
    backend.enqueue(onS.currentStream(), () => read = box.value);
    runSFirst(backend, s);
    assert.equal(read, 6);
    h.dispose();
    await ms.drain();
  });
  await t.step("read on T, then overwritten on S: S waits on T (no write-after-read)", async () => {
    const { backend, ms, box, h, s } = hazardSetup();
    let read = -1;
    using onT = ms.resolve(1, [h.binding()]);
    backend.enqueue(onT.currentStream(), () => read = box.value);
    onT.finish();
    using onS = ms.resolve(0, [h.binding()]);
    backend.enqueue(onS.currentStream(), () => box.value = 99);
    runSFirst(backend, s);
    assert.equal(read, 1);
    assert.equal(box.value, 99);
    h.dispose();
    await ms.drain();
  });
  await t.step("a use already synchronized is not shared again", () => {
    const { ms, h } = hazardSetup();
    ms.resolve(1, [h.binding()]).finish();
    ms.resolve(0, [h.binding()]).finish(); // S waited on T
    assert.equal(ms.updateSharedBindings(0, [h.binding()]).isEmpty, true);
    h.dispose();
    return ms.drain();
  });
});

/** A backend whose host waits resolve only when the test says so. */
function manualBackend() {
  const gates: (() => void)[] = [];
  const backend: EventStreamBackend<object, number> = {
    ...testBackend,
    handleCursor: (_s, b) => b.cursor,
    waitEvent: () => {},
    flush: () => gates.length,
    waitEventHost: () => new Promise<void>((resolve) => gates.push(resolve)),
  };
  return { backend, gates };
}

Deno.test("correction 2: cross-stream pins live until the GC event completes", async (t) => {
  await t.step("pins every cross-stream binding, not only those that needed a sync", async () => {
    const { backend, gates } = manualBackend();
    const ms = new MultiStream(backend, { maxStreams: MAX_STREAMS });
    using a = handle(0, 0), b = handle(1, 0);
    ms.resolve(1, [a.binding()]).finish(); // syncs with 0
    assert.equal(ms.updateSharedBindings(1, [a.binding()]).isEmpty, true);
    const second = ms.resolve(1, [a.binding(), b.binding()]);
    assert.equal(a.memory.id.pins, 2, "both resolves pin the stream-0 binding");
    assert.equal(b.memory.id.pins, 0, "same-stream bindings are not pinned");
    second.finish();
    second.finish(); // idempotent: one GC task only
    for (let i = 0; i < 5; i++) await Promise.resolve();
    assert.equal(gates.length, 1, "the GC waits for one event at a time, in order");
    assert.equal(a.memory.id.pins, 2, "nothing released before the event completes");
    gates[0]();
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.equal(a.memory.id.pins, 1);
    gates[1]();
    await ms.drain();
    assert.equal(a.memory.id.pins, 0);
  });
  await t.step("on the simulated backend the pin outlives the consumer's work", async () => {
    const backend = new SimulatedEventBackend({ seed: 3 });
    const ms = new MultiStream(backend, { maxStreams: MAX_STREAMS });
    const h = handle(0, 0);
    const seen: number[] = [];
    const onT = ms.resolve(1, [h.binding()]);
    backend.enqueue(onT.currentStream(), () => seen.push(h.memory.id.pins, h.memory.id.owners));
    onT.finish();
    h.dispose();
    assert.equal(h.memory.id.released, false, "the pin keeps the disposed memory alive");
    await ms.drain();
    assert.deepEqual(seen, [1, 0]);
    assert.equal(h.memory.id.released, true);
    assert.ok(backend.hostWaitLog.length > 0 && backend.hostWaitLog.every((w) => w.complete));
  });
  await t.step("a failed host wait still releases the pins and is reported by drain", async () => {
    const failing = {
      ...testBackend,
      waitEventHost: () => Promise.reject(new RuntimeError("DEVICE_LOST", "lost")),
    };
    const ms = new MultiStream(failing, { maxStreams: MAX_STREAMS });
    using h = handle(0);
    ms.resolve(1, [h.binding()]).finish();
    await assert.rejects(ms.drain(), (e) => e instanceof ComputeError && e.code === "DEVICE_LOST");
    assert.equal(h.memory.id.pins, 0);
    await ms.drain(); // the error was reported once
  });
});

Deno.test("refused resolves leave the multi-stream unchanged and usable", async (t) => {
  await t.step("unhealthy stream: STREAM_UNHEALTHY, then recovery", () => {
    const backend = new SimulatedEventBackend();
    const ms = new MultiStream(backend, { maxStreams: MAX_STREAMS });
    ms.resolve(2, []).finish();
    (ms.state(2).stream as SimStream).healthy = false;
    assert.throws(
      () => ms.resolve(2, [], { enforceHealthy: true }),
      (e) => e instanceof StreamUnhealthyError && e.code === "STREAM_UNHEALTHY" && e.stream === 2,
    );
    assert.equal(ms.state(2).cursor, 1);
    assert.equal(ms.resolve(2, []).cursor, 2, "without enforceHealthy it proceeds");
    (ms.state(2).stream as SimStream).healthy = true;
    assert.equal(ms.resolve(2, [], { enforceHealthy: true }).cursor, 3);
  });
  await t.step("bad stream ids throw TypeError or RangeError", () => {
    const ms = seeded();
    using h = handle(2);
    for (const bad of [-1, 1.5, NaN, 2 ** 53, Infinity]) {
      assert.throws(() => ms.resolve(bad, [h.binding()]), RangeError, String(bad));
      assert.throws(() => ms.updateSharedBindings(bad, []), RangeError);
    }
    for (const bad of ["1", undefined, 1n]) {
      assert.throws(() => ms.resolve(bad as unknown as number, []), TypeError);
    }
    assert.deepEqual([ms.state(1).cursor, ms.state(2).cursor], [1, 1]);
    assert.equal(h.memory.id.pins, 0);
    assert.equal(ms.resolve(1, []).cursor, 2, "still usable");
  });
  await t.step("a binding with a bad stream id is refused before any change", () => {
    const ms = seeded();
    using good = handle(2);
    const forged = { ...good.binding(), stream: -3 } as unknown as Binding;
    assert.throws(() => ms.resolve(1, [good.binding(), forged]), RangeError);
    assert.equal(good.memory.id.pins, 0);
  });
  await t.step("disposed handle: INVALID_HANDLE and state unchanged", async () => {
    const ms = seeded();
    using good = handle(2);
    const gone = handle(3);
    const stale = gone.binding();
    gone.dispose();
    assert.throws(
      () => ms.resolve(1, [good.binding(), stale]),
      (e) => e instanceof InvalidHandleError && e.code === "INVALID_HANDLE",
    );
    assert.equal(ms.state(1).cursor, 1);
    assert.equal(ms.state(1).lastSynced.size, 0);
    assert.equal(good.memory.id.pins, 0);
    ms.resolve(1, [good.binding()]).finish();
    assert.equal(ms.state(1).lastSynced.get(2), 1);
    await ms.drain();
  });
});
