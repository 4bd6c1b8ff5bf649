import assert from "node:assert/strict";
import { SliceRecord } from "../runtime/core/handles/slice_record.ts";
import { SliceHandle } from "../runtime/core/handles/slice.ts";
import { Handle } from "../runtime/core/handles/handle.ts";
import { type EventStreamBackend, MultiStream } from "../runtime/stream/event.ts";
import { MAX_BATCH_PINS } from "../runtime/stream/_hand_over.ts";

/** Events are numbers; every flush and host wait is counted, host waits settle when told. */
function countingBackend() {
  const gates: (() => void)[] = [];
  let flushes = 0;
  const backend: EventStreamBackend<object, number> = {
    createStream: () => ({}),
    handleCursor: (_s, ref) => ref.cursor,
    isHealthy: () => true,
    waitEvent: () => {},
    flush: () => flushes++,
    waitEventHost: () => new Promise<void>((resolve) => gates.push(resolve)),
  };
  return { backend, gates, flushes: () => flushes };
}

function handle(stream: number): Handle {
  return new Handle(new SliceHandle(new SliceRecord()), { stream, cursor: 0, size: 16 });
}

Deno.test("batched GC: the cross-stream orders of one synchronous run share one GC task", async () => {
  const { backend, gates, flushes } = countingBackend();
  const ms = new MultiStream(backend, { maxStreams: 4, batchGc: true });
  const a = handle(0);
  const before = flushes();
  for (let i = 0; i < 100; i++) ms.order(1, [a.ref()]).finish();
  const waitFlushes = flushes() - before; // the first order waits on stream 0: one flush
  assert.equal(a.slice.record.pins, 1, "pinned once by the batch, not once per order");
  assert.equal(ms.pendingGc, 0, "nothing handed over inside the synchronous run");
  a.dispose();
  assert.equal(a.slice.record.released, false, "the batch keeps the disposed memory");
  await Promise.resolve(); // the microtask hands the batch over
  assert.equal(ms.pendingGc, 1, "one GC task for the 100 orders");
  assert.equal(flushes() - before - waitFlushes, 2, "one stream event, one GC-stream event");
  assert.equal(a.slice.record.released, false, "not before its event completed");
  await new Promise((resolve) => setTimeout(resolve, 0));
  gates.shift()!();
  await ms.drain();
  assert.equal(a.slice.record.released, true);
});

Deno.test("batched GC: a full batch, an order with payloads and drain hand it over", async () => {
  const { backend, gates } = countingBackend();
  const ms = new MultiStream(backend, { maxStreams: 4, batchGc: true });
  const many = Array.from({ length: MAX_BATCH_PINS }, () => handle(0));
  for (const h of many) ms.order(1, [h.ref()]).finish();
  assert.equal(ms.pendingGc, 1, "handed over at once when full");
  const b = handle(0);
  ms.order(2, [b.ref()]).finish();
  const withPayload = ms.order(2, []);
  let released = false;
  withPayload.gc({ [Symbol.dispose]: () => released = true });
  withPayload.finish();
  assert.equal(ms.pendingGc, 2, "the payload's task carries stream 2's batch");
  const c = handle(0);
  ms.order(3, [c.ref()]).finish();
  const drained = ms.drain(); // hands stream 3's batch over before the microtask
  assert.equal(ms.pendingGc, 3);
  for (let i = 0; i < 3; i++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    gates.shift()?.();
  }
  await drained;
  assert.equal(released, true);
  for (const h of [...many, b, c]) {
    assert.equal(h.slice.record.pins, 0);
    h.dispose();
  }
});

Deno.test("batched GC: an order left open across the microtask keeps its stream's batch", async () => {
  const { backend, gates } = countingBackend();
  const ms = new MultiStream(backend, { maxStreams: 4, batchGc: true });
  using a = handle(0);
  ms.order(1, [a.ref()]).finish(); // opens stream 1's batch and schedules the hand-over
  const open = ms.order(1, [a.ref()]); // its work is not enqueued yet
  await Promise.resolve();
  assert.equal(ms.pendingGc, 0, "not handed over before the open order's work");
  assert.equal(a.slice.record.pins, 1);
  open.finish();
  await Promise.resolve();
  assert.equal(ms.pendingGc, 1, "handed over after it finished");
  await new Promise((resolve) => setTimeout(resolve, 0));
  gates.shift()!();
  await ms.drain();
  assert.equal(a.slice.record.pins, 0);
});
