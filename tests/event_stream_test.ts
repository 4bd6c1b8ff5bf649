import assert from "node:assert/strict";
import { SliceRecord } from "../runtime/core/handles/slice_record.ts";
import { SliceHandle } from "../runtime/core/handles/slice.ts";
import {
  ComputeError,
  DeviceLostError,
  DriverError,
  InvalidHandleError,
  OrderInProgressError,
  StreamUnhealthyError,
  TimeoutError,
} from "../runtime/core/errors.ts";
import { Handle, type HandleRef } from "../runtime/core/handles/handle.ts";
import { type EventStreamBackend, MultiStream } from "../runtime/stream/event.ts";
import {
  type SimEvent,
  type SimStream,
  SimulatedEventBackend,
} from "./fixtures/simulated_event_backend.ts";

const MAX_STREAMS = 4;

/** Every handle has cursor 0 and events complete at once. */
const instantBackend: EventStreamBackend<object, null> = {
  createStream: () => ({}),
  handleCursor: () => 0,
  isHealthy: () => true,
  flush: () => null,
  waitEvent: () => {},
  waitEventHost: () => Promise.resolve(),
  waitEventHostSync: () => {},
};

function handle(stream: number, cursor = 0): Handle {
  return new Handle(new SliceHandle(new SliceRecord()), { stream, cursor, size: 10 });
}

function syncs(...entries: [HandleRef, number][]): Map<number, SliceRecord[]> {
  const map = new Map<number, SliceRecord[]>();
  for (const [binding, index] of entries) {
    map.set(index, [...(map.get(index) ?? []), binding.slice.record]);
  }
  return map;
}

/** Streams 1 and 2 resolved once each (cursor 1), nothing synchronized yet. */
function twoStreamsStarted(): MultiStream<object, null> {
  const ms = new MultiStream(instantBackend, { maxStreams: MAX_STREAMS });
  ms.order(1, []).finish();
  ms.order(2, []).finish();
  return ms;
}

Deno.test("requiredSyncs: which streams to wait on before using bindings", async (t) => {
  await t.step("a binding created on another, never synchronized stream needs a wait", () => {
    using h1 = handle(1), h2 = handle(2);
    const [b1, b2] = [h1.ref(), h2.ref()];
    assert.deepEqual(twoStreamsStarted().requiredWaits(1, [b1, b2]), syncs([b2, 2]));
  });
  await t.step("bindings of the current stream add no wait", () => {
    using h1 = handle(1), h2 = handle(2), h3 = handle(1);
    const [b1, b2, b3] = [h1.ref(), h2.ref(), h3.ref()];
    assert.deepEqual(twoStreamsStarted().requiredWaits(1, [b1, b2, b3]), syncs([b2, 2]));
  });
  await t.step("only bindings of the current stream: no wait", () => {
    using h1 = handle(1), h2 = handle(1), h3 = handle(1);
    const required = twoStreamsStarted().requiredWaits(1, [
      h1.ref(),
      h2.ref(),
      h3.ref(),
    ]);
    assert.equal(required.size, 0);
  });
  await t.step("order records the other stream's cursor and advances its own", async () => {
    using h1 = handle(1), h2 = handle(2), h3 = handle(1);
    const ms = twoStreamsStarted();
    ms.order(1, [h1.ref(), h2.ref(), h3.ref()]).finish();
    assert.equal(ms.state(1).lastSynced.get(2), 1);
    assert.equal(ms.state(1).cursor, 2);
    assert.equal(ms.state(2).lastSynced.size, 0);
    assert.equal(ms.state(2).cursor, 1);
    await ms.drain();
    assert.equal(h2.slice.record.pins, 0);
  });
  await t.step("stream() and cursor() are the backend stream and cursor of an id", () => {
    const ms = twoStreamsStarted();
    ms.order(1, []).finish();
    assert.equal(ms.cursor(1), 2);
    assert.equal(ms.cursor(1 + MAX_STREAMS), 2, "ids equal modulo maxStreams share a stream");
    assert.equal(ms.cursor(3), 0, "a stream never resolved");
    assert.equal(ms.stream(2), ms.state(2).stream);
    assert.equal(ms.stream(2 + MAX_STREAMS), ms.stream(2));
    assert.notEqual(ms.stream(1), ms.stream(2));
    assert.throws(() => ms.cursor(-1), RangeError);
  });
});

/** A simulated setup where S = stream 0 created `value` and wrote 1 into it. */
function hazardSetup(options: { maxPendingGc?: number } = {}) {
  const backend = new SimulatedEventBackend({ seed: 7 });
  const ms = new MultiStream(backend, { maxStreams: MAX_STREAMS, ...options });
  const box = { value: 0 };
  const created = ms.order(0, []);
  const h = handle(0, created.cursor);
  created.finish();
  const write = ms.order(0, [h.ref()]);
  backend.enqueue(write.stream, () => box.value = 1);
  write.finish();
  return { backend, ms, box, h, s: ms.state(0).stream as SimStream };
}

/** Runs S first as far as it can go, then everything: the worst schedule for a missing wait. */
function runSFirst(backend: SimulatedEventBackend, s: SimStream): void {
  while (backend.stepStream(s));
  backend.runAll();
}

Deno.test("every stream that used a binding is waited on, not only its creator", async (t) => {
  await t.step("written on T, then read on S: S waits on T (no stale read)", async () => {
    const { backend, ms, box, h, s } = hazardSetup();
    const onT = ms.order(1, [h.ref()]);
    backend.enqueue(onT.stream, () => box.value += 5);
    onT.finish();
    assert.deepEqual(ms.requiredWaits(0, [h.ref()]), syncs([h.ref(), 1]));
    let read = -1;
    const onS = ms.order(0, [h.ref()]);
    backend.enqueue(onS.stream, () => read = box.value);
    onS.finish();
    runSFirst(backend, s);
    assert.equal(read, 6);
    h.dispose();
    await ms.drain();
  });
  await t.step("read on T, then overwritten on S: S waits on T (no write-after-read)", async () => {
    const { backend, ms, box, h, s } = hazardSetup();
    let read = -1;
    const onT = ms.order(1, [h.ref()]);
    backend.enqueue(onT.stream, () => read = box.value);
    onT.finish();
    const onS = ms.order(0, [h.ref()]);
    backend.enqueue(onS.stream, () => box.value = 99);
    onS.finish();
    runSFirst(backend, s);
    assert.equal(read, 1);
    assert.equal(box.value, 99);
    h.dispose();
    await ms.drain();
  });
  await t.step("a use already synchronized needs no new wait", () => {
    const { ms, h } = hazardSetup();
    ms.order(1, [h.ref()]).finish();
    ms.order(0, [h.ref()]).finish(); // S waited on T
    assert.equal(ms.requiredWaits(0, [h.ref()]).size, 0);
    h.dispose();
    return ms.drain();
  });
});

Deno.test("order, enqueue and finish do not interleave", async (t) => {
  await t.step("a second order before finish: ORDER_IN_PROGRESS, state unchanged", async () => {
    const { backend, ms, box, h, s } = hazardSetup();
    const write = ms.order(1, [h.ref()]); // T resolves to write h...
    const before = { cursor: ms.state(2).cursor, synced: [...ms.state(2).lastSynced] };
    // ...and before it enqueued, stream 2 resolves with h. Accepting it would flush T while
    // still empty and record T as synchronized: the read would never wait for the write.
    assert.throws(
      () => ms.order(2, [h.ref()]),
      (e) =>
        e instanceof OrderInProgressError && e.code === "ORDER_IN_PROGRESS" &&
        e.stream === 2 && e.openStream === 1,
    );
    assert.throws(() => ms.order(1, []), OrderInProgressError, "the same stream too");
    assert.deepEqual(
      { cursor: ms.state(2).cursor, synced: [...ms.state(2).lastSynced] },
      before,
    );
    assert.equal(h.slice.record.pins, 1, "only the open order's pin");
    backend.enqueue(write.stream, () => box.value = 42);
    write.finish();
    let read = -1;
    {
      using onRead = ms.order(2, [h.ref()]);
      backend.enqueue(onRead.stream, () => read = box.value);
    }
    const reader = ms.state(2).stream as SimStream;
    while (backend.stepStream(reader));
    runSFirst(backend, s);
    assert.equal(read, 42, "the read waited for the write");
    h.dispose();
    await ms.drain();
  });
  await t.step("finish (or dispose) ends the order even when its flush throws", () => {
    let fail = false;
    const ms = new MultiStream({
      ...instantBackend,
      flush: () => {
        if (fail) throw new DriverError("flush failed");
        return null;
      },
    }, { maxStreams: MAX_STREAMS });
    using h = handle(0);
    const resolved = ms.order(1, [h.ref()]);
    fail = true;
    assert.throws(() => resolved.finish(), /flush failed/);
    fail = false;
    assert.equal(ms.order(2, []).finished, false, "another order is accepted");
  });
});

/** A backend whose host waits settle only when the test says so (no synchronous wait). */
function manualBackend() {
  const gates: { event: number; resolve: () => void; reject: (e: unknown) => void }[] = [];
  let next = 0;
  const backend: EventStreamBackend<object, number> = {
    createStream: () => ({}),
    handleCursor: (_s, b) => b.cursor,
    isHealthy: () => true,
    waitEvent: () => {},
    flush: () => next++,
    waitEventHost: (event) =>
      new Promise<void>((resolve, reject) => gates.push({ event, resolve, reject })),
  };
  return { backend, gates };
}

async function turns(n = 5): Promise<void> {
  for (let i = 0; i < n; i++) await Promise.resolve();
}

Deno.test("cross-stream pins live until the GC event completes", async (t) => {
  await t.step("pins every cross-stream binding, not only those that needed a wait", async () => {
    const { backend, gates } = manualBackend();
    const ms = new MultiStream(backend, { maxStreams: MAX_STREAMS });
    using a = handle(0, 0), b = handle(1, 0);
    ms.order(1, [a.ref()]).finish(); // waits on 0
    assert.equal(ms.requiredWaits(1, [a.ref()]).size, 0);
    const second = ms.order(1, [a.ref(), b.ref()]);
    assert.equal(a.slice.record.pins, 2, "both resolves pin the stream-0 binding");
    assert.equal(b.slice.record.pins, 0, "same-stream bindings are not pinned");
    second.finish();
    second.finish(); // idempotent: one GC task only
    await turns();
    assert.equal(gates.length, 1, "the GC waits for one event at a time, in order");
    assert.equal(a.slice.record.pins, 2, "nothing released before the event completes");
    gates[0].resolve();
    await turns();
    assert.equal(a.slice.record.pins, 1);
    gates[1].resolve();
    await ms.drain();
    assert.equal(a.slice.record.pins, 0);
  });
  await t.step("on the simulated backend the pin outlives the consumer's work", async () => {
    const backend = new SimulatedEventBackend({ seed: 3 });
    const ms = new MultiStream(backend, { maxStreams: MAX_STREAMS });
    const h = handle(0, 0);
    const seen: number[] = [];
    const onT = ms.order(1, [h.ref()]);
    backend.enqueue(
      onT.stream,
      () => seen.push(h.slice.record.pins, h.slice.record.owners),
    );
    onT.finish();
    h.dispose();
    assert.equal(h.slice.record.released, false, "the pin keeps the disposed memory alive");
    await ms.drain();
    assert.deepEqual(seen, [1, 0]);
    assert.equal(h.slice.record.released, true);
    assert.ok(backend.hostWaitLog.length > 0 && backend.hostWaitLog.every((w) => w.complete));
  });
});

Deno.test("a disposed handle's binding is refused even while its memory is pinned", async () => {
  const { backend, gates } = manualBackend();
  const ms = new MultiStream(backend, { maxStreams: MAX_STREAMS });
  const h = handle(0);
  const binding = h.ref();
  ms.order(1, [binding]).finish(); // pinned until the GC event completes
  h.dispose();
  assert.equal(h.slice.record.pins, 1);
  for (const stream of [0, 1, 2]) {
    assert.throws(
      () => ms.order(stream, [binding]),
      (e) => e instanceof InvalidHandleError && e.code === "INVALID_HANDLE",
    );
  }
  assert.equal(ms.state(1).cursor, 1, "refused before any change");
  await turns();
  gates[0].resolve();
  await ms.drain();
  assert.equal(h.slice.record.released, true);
});

Deno.test("pending GC work is bounded (back-pressure)", async (t) => {
  await t.step("a synchronous loop of 20,000 cross-stream tasks keeps memory bounded", async () => {
    const backend = new SimulatedEventBackend({ seed: 11 });
    const ms = new MultiStream(backend, { maxStreams: MAX_STREAMS });
    let live = 0;
    let maxLive = 0;
    let maxPending = 0;
    for (let i = 0; i < 20_000; i++) {
      const memory = new SliceRecord(() => live--);
      live++;
      const h = new Handle(new SliceHandle(memory), { stream: 0, cursor: i, size: 4096 });
      {
        using onT = ms.order(1 + (i % 3), [h.ref()]);
        backend.enqueue(onT.stream, () => {}, "kernel");
      }
      h.dispose();
      maxLive = Math.max(maxLive, live);
      maxPending = Math.max(maxPending, ms.pendingGc);
    }
    assert.ok(maxPending <= ms.maxPendingGc, `${maxPending} GC tasks pending at once`);
    assert.ok(maxLive <= ms.maxPendingGc + 2, `${maxLive} allocations alive at once`);
    assert.ok(backend.syncWaits > 0, "back-pressure used the synchronous host wait");
    await ms.drain();
    assert.equal(live, 0);
  });
  await t.step("the bound is an option; without a synchronous wait it warns once", async () => {
    const { backend, gates } = manualBackend();
    const ms = new MultiStream(backend, { maxStreams: MAX_STREAMS, maxPendingGc: 2 });
    using h = handle(0);
    for (let i = 0; i < 5; i++) ms.order(1, [h.ref()]).finish();
    assert.equal(ms.pendingGc, 5, "nothing can block: all pending");
    assert.throws(
      () => new MultiStream(instantBackend, { maxStreams: 1, maxPendingGc: 0 }),
      RangeError,
    );
    await turns();
    for (let i = 0; i < 5; i++) {
      gates[i].resolve();
      await turns();
    }
    await ms.drain();
    assert.equal(h.slice.record.pins, 0);
  });
});

Deno.test("a failed or timed-out GC wait frees nothing and leaves the stream unhealthy", async (t) => {
  await t.step("failed asynchronous wait: pinned, unhealthy, recorded at once", async () => {
    const { backend, gates } = manualBackend();
    const ms = new MultiStream(backend, { maxStreams: MAX_STREAMS });
    const h = handle(0);
    using shared = handle(2);
    ms.order(1, [h.ref(), shared.ref()]).finish();
    h.dispose();
    await turns();
    gates[0].reject(new DeviceLostError("lost"));
    await turns();
    assert.equal(ms.errors.has(2), false, "recorded on its own stream only");
    assert.equal((ms.errors.take(5) as ComputeError).code, "DEVICE_LOST", "recorded before drain");
    assert.equal(ms.errors.has(1), false, "taken once");
    assert.equal(h.slice.record.released, false, "the memory stays pinned");
    assert.deepEqual([h.slice.record.pins, shared.slice.record.pins], [1, 1]);
    assert.equal(ms.keptAfterFailure, 2);
    assert.equal(ms.failure(5)?.code, "DEVICE_LOST", "5 % 4 is the unhealthy index 1");
    assert.equal(ms.failure(2), undefined);
    for (const enforceHealthy of [false, true]) {
      assert.throws(
        () => ms.order(1, [], { enforceHealthy }),
        (e) =>
          e instanceof StreamUnhealthyError && e.stream === 1 &&
          (e.cause as ComputeError).code === "DEVICE_LOST",
      );
    }
    // Stream 2 must wait on stream 1's use of `shared`: refused, naming stream 1.
    const before = ms.state(2).cursor;
    assert.throws(
      () => ms.order(2, [shared.ref()]),
      (e) =>
        e instanceof StreamUnhealthyError && e.stream === 1 && /Stream 2 must wait/.test(e.message),
    );
    assert.equal(ms.state(2).cursor, before, "refused before any change");
    ms.order(2, []).finish(); // unrelated work on stream 2 goes on
    await assert.rejects(ms.drain(), (e) => e instanceof ComputeError && e.code === "DEVICE_LOST");
    await ms.drain(); // reported once
    assert.equal(h.slice.record.pins, 1, "still pinned after drain");
  });
  await t.step("timed-out synchronous wait under back-pressure: same, finish goes on", async () => {
    let next = 0;
    const hung = new Set<number>();
    const ms = new MultiStream<object, number>({
      createStream: () => ({}),
      handleCursor: (_s, b) => b.cursor,
      isHealthy: () => true,
      waitEvent: () => {},
      flush: () => next++,
      waitEventHost: (event) => hung.has(event) ? new Promise(() => {}) : Promise.resolve(),
      waitEventHostSync: (event) => {
        if (hung.has(event)) throw new TimeoutError(`event ${event}`, 0, "it did not complete");
      },
    }, { maxStreams: MAX_STREAMS, maxPendingGc: 1 });
    using a = handle(0), b = handle(0);
    // Stream 3's resolve flushes stream 0 (event 0), its finish stream 3 (1) and the GC stream (2).
    hung.add(2);
    ms.order(3, [a.ref()]).finish();
    ms.order(2, [b.ref()]).finish(); // 2 pending > 1: blocks on the oldest, which times out
    assert.deepEqual(
      [0, 1, 2, 3].filter((s) => ms.errors.has(s)),
      [3],
      "the failure is recorded on the stream it belongs to",
    );
    assert.equal(ms.failure(3)?.code, "TIMEOUT");
    assert.equal(a.slice.record.pins, 1, "timed out: still pinned");
    await assert.rejects(ms.drain(), (e) => e instanceof ComputeError && e.code === "TIMEOUT");
    assert.equal(b.slice.record.pins, 0, "the later task was not held up by the hung wait");
  });
  await t.step("simulated kernel fault: the GC event fails through the device wait", async () => {
    const backend = new SimulatedEventBackend({ seed: 5 });
    const ms = new MultiStream(backend, { maxStreams: MAX_STREAMS });
    const h = handle(0);
    {
      using onT = ms.order(1, [h.ref()]);
      backend.enqueue(onT.stream, () => {
        throw new Error("illegal address");
      });
    }
    h.dispose();
    await assert.rejects(ms.drain(), (e) => e instanceof ComputeError && e.code === "DRIVER");
    assert.equal(h.slice.record.released, false);
    assert.throws(() => ms.order(1, []), StreamUnhealthyError);
    using fresh = handle(0);
    ms.order(2, [fresh.ref()]).finish(); // the GC stream recovered: later tasks are freed
    await ms.drain();
    assert.equal(fresh.slice.record.pins, 0);
  });
});

Deno.test("error paths release what they took, over several streams", async (t) => {
  await t.step("a throwing flush in finish keeps the pins for the next GC task", async () => {
    const failing = new Set<object>();
    const streams: object[] = [];
    const ms = new MultiStream<object, null>({
      ...instantBackend,
      createStream: () => {
        const stream = {};
        streams.push(stream);
        return stream;
      },
      flush: (stream) => {
        if (failing.has(stream)) throw new DriverError("flush failed");
        return null;
      },
    }, { maxStreams: MAX_STREAMS });
    const handles = [handle(0), handle(0), handle(1), handle(2)];
    for (const s of [1, 2, 3]) ms.order(s, []).finish(); // create the streams in order
    failing.add(ms.state(1).stream).add(ms.state(2).stream);
    // Streams 1 and 2 each use memory of stream 0 and fail to flush in finish.
    for (const s of [1, 2]) {
      const resolved = ms.order(s, [handles[s - 1].ref(), handles[s + 1].ref()]);
      assert.throws(() => resolved.finish(), /flush failed/);
    }
    const pins = () => handles.map((h) => h.slice.record.pins);
    assert.deepEqual(pins(), [1, 1, 0, 0], "held, neither leaked nor released early");
    failing.clear();
    // Stream 1's next finish covers its earlier work (stream order): both are released.
    ms.order(1, [handles[0].ref()]).finish();
    await turns();
    assert.deepEqual(pins(), [0, 1, 0, 0]);
    await ms.drain(); // and drain hands over what stream 2 held
    assert.deepEqual(pins(), [0, 0, 0, 0]);
    handles.forEach((h) => h.dispose());
    assert.ok(handles.every((h) => h.slice.record.released));
  });
  await t.step("a flush of an origin stream that throws leaves resolve without effect", () => {
    let fail = true;
    const ms = new MultiStream<object, null>({
      ...instantBackend,
      flush: () => {
        if (fail) throw new DriverError("flush failed");
        return null;
      },
    }, { maxStreams: MAX_STREAMS });
    using h = handle(0);
    assert.throws(() => ms.order(1, [h.ref()]), /flush failed/);
    assert.deepEqual([ms.state(1).cursor, ms.state(1).lastSynced.size, h.slice.record.pins], [
      0,
      0,
      0,
    ]);
    fail = false;
    ms.order(1, [h.ref()]).finish();
    assert.equal(ms.state(1).lastSynced.get(0), 0);
  });
});

Deno.test("the GC carries any payload, not only pins", async (t) => {
  await t.step("disposables are disposed and buffers kept only until the event", async () => {
    const { backend, gates } = manualBackend();
    const ms = new MultiStream(backend, { maxStreams: MAX_STREAMS });
    const log: string[] = [];
    const staging = { [Symbol.dispose]: () => log.push("staging freed") };
    const hostBuffer = new Uint8Array(16);
    {
      using resolved = ms.order(1, []); // no cross-stream binding: only payloads
      resolved.gc(staging, hostBuffer);
    }
    await turns();
    assert.equal(gates.length, 1, "the payloads made finish hand a task to the GC");
    assert.deepEqual(log, []);
    gates[0].resolve();
    await ms.drain();
    assert.deepEqual(log, ["staging freed"]);
  });
  await t.step("gc after finish is a TypeError; MultiStream.gc takes an event", async () => {
    const backend = new SimulatedEventBackend({ seed: 2 });
    const ms = new MultiStream(backend, { maxStreams: MAX_STREAMS });
    const resolved = ms.order(1, []);
    const stream = resolved.stream;
    resolved.finish();
    assert.throws(() => resolved.gc(new Uint8Array(1)), TypeError);
    let ran = false;
    let freedAfterRun: boolean | undefined;
    backend.enqueue(stream, () => ran = true, "copy");
    const event: SimEvent = backend.flush(stream);
    ms.gc(1, event, [{ [Symbol.dispose]: () => freedAfterRun = ran }]);
    await ms.drain();
    assert.equal(freedAfterRun, true);
  });
  await t.step("a failed wait keeps the payloads (the copy may still read them)", async () => {
    const backend = new SimulatedEventBackend({ seed: 2 });
    const ms = new MultiStream(backend, { maxStreams: MAX_STREAMS });
    let disposed = false;
    {
      using resolved = ms.order(3, []);
      backend.enqueue(resolved.stream, () => {
        throw new Error("copy failed");
      });
      resolved.gc({ [Symbol.dispose]: () => disposed = true });
    }
    await assert.rejects(ms.drain(), ComputeError);
    assert.equal(disposed, false);
    assert.equal(ms.keptAfterFailure, 1);
  });
});

Deno.test("refused resolves leave the multi-stream unchanged and usable", async (t) => {
  await t.step("unhealthy backend stream: STREAM_UNHEALTHY, then recovery", () => {
    const backend = new SimulatedEventBackend();
    const ms = new MultiStream(backend, { maxStreams: MAX_STREAMS });
    ms.order(2, []).finish();
    (ms.state(2).stream as SimStream).healthy = false;
    assert.throws(
      () => ms.order(2, [], { enforceHealthy: true }),
      (e) => e instanceof StreamUnhealthyError && e.code === "STREAM_UNHEALTHY" && e.stream === 2,
    );
    assert.equal(ms.state(2).cursor, 1);
    const lenient = ms.order(2, []);
    assert.equal(lenient.cursor, 2, "without enforceHealthy it proceeds");
    lenient.finish();
    (ms.state(2).stream as SimStream).healthy = true;
    assert.equal(ms.order(2, [], { enforceHealthy: true }).cursor, 3);
  });
  await t.step("bad stream ids throw TypeError or RangeError", () => {
    const ms = twoStreamsStarted();
    using h = handle(2);
    for (const bad of [-1, 1.5, NaN, 2 ** 53, Infinity]) {
      assert.throws(() => ms.order(bad, [h.ref()]), RangeError, String(bad));
      assert.throws(() => ms.requiredWaits(bad, []), RangeError);
    }
    for (const bad of ["1", undefined, 1n]) {
      assert.throws(() => ms.order(bad as unknown as number, []), TypeError);
    }
    assert.deepEqual([ms.state(1).cursor, ms.state(2).cursor], [1, 1]);
    assert.equal(h.slice.record.pins, 0);
    assert.equal(ms.order(1, []).cursor, 2, "still usable");
  });
  await t.step("a binding with a bad stream id is refused before any change", () => {
    const ms = twoStreamsStarted();
    using good = handle(2);
    const forged = { ...good.ref(), stream: -3 } as unknown as HandleRef;
    assert.throws(() => ms.order(1, [good.ref(), forged]), RangeError);
    assert.equal(good.slice.record.pins, 0);
  });
  await t.step("disposed handle: INVALID_HANDLE and state unchanged", async () => {
    const ms = twoStreamsStarted();
    using good = handle(2);
    const gone = handle(3);
    const stale = gone.ref();
    gone.dispose();
    assert.throws(
      () => ms.order(1, [good.ref(), stale]),
      (e) => e instanceof InvalidHandleError && e.code === "INVALID_HANDLE",
    );
    assert.equal(ms.state(1).cursor, 1);
    assert.equal(ms.state(1).lastSynced.size, 0);
    assert.equal(good.slice.record.pins, 0);
    ms.order(1, [good.ref()]).finish();
    assert.equal(ms.state(1).lastSynced.get(2), 1);
    await ms.drain();
  });
});

Deno.test("read-only uses (CUDA's const T*) wait for other streams' writes, not their reads", () => {
  const ms = new MultiStream(instantBackend, { maxStreams: MAX_STREAMS });
  using h = handle(0);
  const ref = h.ref();
  ms.order(0, [ref]).finish(); // created and written on stream 0
  ms.order(1, [ref], { readOnly: [0] }).finish(); // stream 1 reads (waits on 0's write)
  // Stream 2 reads too: it waits on stream 0's write, not on stream 1's read.
  assert.deepEqual(ms.requiredWaits(2, [ref], [0]), syncs([ref, 0]));
  // A write on stream 2 waits on the read of stream 1 as well (write after read).
  assert.deepEqual(ms.requiredWaits(2, [ref]), syncs([ref, 0], [ref, 1]));
  ms.order(1, [ref]).finish(); // stream 1 now writes it
  assert.deepEqual(ms.requiredWaits(2, [ref], [0]), syncs([ref, 0], [ref, 1]));
});
