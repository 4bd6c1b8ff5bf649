/**
 * Cost of {@linkcode MultiStream.resolve} + {@linkcode OrderedStream.finish} per task, with 1, 4
 * and 16 bindings, tasks and bindings spread over 4 streams in rotation (so most bindings come
 * from another stream: analysis, pins and the GC path are all exercised). The backend does
 * nothing and its events complete at once, so the figures are the multi-stream's own cost. Each
 * iteration times a batch of {@linkcode TASKS} tasks, then drains the GC loop outside the timing;
 * divide by {@linkcode TASKS} for the cost of one task.
 *
 * A second benchmark per group has every binding on the task's own stream (no cross-stream
 * work), the floor the cross-stream case is compared with.
 *
 * The "GC settle" group times {@linkcode TASKS} cross-stream tasks with the drain that settles
 * them: the GC's host wait per task against its polled per-stream FIFOs (`isEventComplete`).
 *
 * @module
 */

import "./_bench_guard.ts"; // deno bench awaits only async fns: a promise from another one throws
import {
  type EventStreamBackend,
  Handle,
  type HandleRef,
  MultiStream,
  SliceHandle,
  SliceRecord,
} from "../backend.ts";

const STREAMS = 4;
const TASKS = 256;

const noopBackend: EventStreamBackend<object, null> = {
  createStream: () => ({}),
  handleCursor: (_stream, binding) => binding.cursor,
  isHealthy: () => true,
  flush: () => null,
  waitEvent: () => {},
  waitEventHost: () => Promise.resolve(),
  waitEventHostSync: () => {},
};

function handles(count: number, sameStream: boolean): Handle[][] {
  // handles[s] are the bindings of a task on stream s.
  return Array.from(
    { length: STREAMS },
    (_, s) =>
      Array.from({ length: count }, (_, i) =>
        new Handle(new SliceHandle(new SliceRecord()), {
          stream: sameStream ? s : (s + i) % STREAMS,
          cursor: 0,
          size: 64,
        })),
  );
}

for (const count of [1, 4, 16]) {
  for (const sameStream of [false, true]) {
    const ms = new MultiStream(noopBackend, { maxStreams: STREAMS });
    // Keep the handles referenced: a collected handle releases its memory (safety net).
    const owners = handles(count, sameStream);
    const bindings: HandleRef[][] = owners.map((list) => list.map((h) => h.ref()));
    Deno.bench({
      name: `${count} binding(s), ${sameStream ? "same stream" : "4 streams in rotation"}`,
      group: `${count} binding(s)`,
      baseline: sameStream,
      async fn(b) {
        b.start();
        for (let task = 0; task < TASKS; task++) {
          const stream = task % STREAMS;
          ms.order(stream, bindings[stream]).finish();
        }
        b.end();
        await ms.drain();
        if (owners.flat().some((h) => h.disposed)) throw new Error("unreachable");
      },
    });
  }
}

// GC settle: the same cross-stream tasks (1 binding, below the GC bound so nothing blocks), timed
// with the drain that releases their pins: one host wait per task against polled FIFOs
// (`isEventComplete`), the CUDA backend's path.
for (const polled of [false, true]) {
  const backend = polled ? { ...noopBackend, isEventComplete: () => true } : noopBackend;
  const ms = new MultiStream(backend, { maxStreams: STREAMS, maxPendingGc: 4 * TASKS });
  const owners = handles(1, false);
  const bindings: HandleRef[][] = owners.map((list) => list.map((h) => h.ref()));
  Deno.bench({
    name: polled ? "polled per-stream FIFOs" : "one host wait per task",
    group: "GC settle",
    baseline: !polled,
    async fn() {
      for (let task = 0; task < TASKS; task++) {
        const stream = task % STREAMS;
        ms.order(stream, bindings[stream]).finish();
      }
      await ms.drain();
      if (owners.flat().some((h) => h.disposed)) throw new Error("unreachable");
    },
  });
}
