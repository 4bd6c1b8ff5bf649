/**
 * Scheduling overhead of {@linkcode SchedulerMultiStream}: 256 tasks registered round-robin over
 * 1, 4 or 16 streams (two bindings each, created on the task's own stream), then `executeAll`.
 * The backend only counts, so the figures are the scheduler's own cost. One group per stream
 * count, `interleave` as the baseline. A second pair per group makes every task also read the
 * binding that the previous stream's queued tasks use, so alignment executes that stream before
 * every task.
 *
 * @module
 */

import "./_bench_guard.ts"; // deno bench awaits only async fns: a promise from another one throws
import {
  Handle,
  type HandleRef,
  SchedulerMultiStream,
  type SchedulerStrategy,
  type SchedulerStreamBackend,
  SliceHandle,
  SliceRecord,
} from "../backend.ts";

const TASKS = 256;

interface CountingStream {
  enqueued: number;
}

let submitted = 0;
const backend: SchedulerStreamBackend<number, CountingStream> = {
  createStream: () => ({ enqueued: 0 }),
  enqueue: (_task, stream) => void stream.enqueued++,
  flush: (stream) => {
    submitted += stream.enqueued;
    stream.enqueued = 0;
  },
};

/** Keeps every handle reachable: a collected handle releases its memory (FinalizationRegistry). */
const handles: Handle[] = [];

/** Two live bindings per stream, created on that stream. */
function bindingsPerStream(streams: number): HandleRef[][] {
  return Array.from({ length: streams }, (_, stream) =>
    [0, 1].map(() => {
      const handle = new Handle(new SliceHandle(new SliceRecord()), {
        stream,
        cursor: 0,
        size: 1024,
      });
      handles.push(handle);
      return handle.ref();
    }));
}

function run(streams: number, strategy: SchedulerStrategy, shared: boolean): () => void {
  const bindings = bindingsPerStream(streams);
  // A task on stream s also reads the binding that tasks of stream s - 1 use when `shared`.
  const taskBindings = bindings.map((own, s) =>
    shared && streams > 1 ? [own[0], bindings[(s + streams - 1) % streams][0]] : own
  );
  return () => {
    const scheduler = new SchedulerMultiStream(backend, {
      maxStreams: streams,
      maxTasks: 32,
      strategy,
    });
    const before = submitted;
    for (let task = 0; task < TASKS; task++) {
      const stream = task % streams;
      scheduler.register(stream, task, taskBindings[stream]);
    }
    scheduler.executeAll();
    if (submitted - before !== TASKS) throw new Error("Not every task was submitted");
  };
}

for (const streams of [1, 4, 16]) {
  const group = `scheduler ${streams} stream${streams === 1 ? "" : "s"}`;
  for (const shared of [false, true]) {
    if (shared && streams === 1) continue;
    const suffix = shared ? ", shared bindings" : "";
    Deno.bench({
      name: `interleave${suffix}`,
      group: group + suffix,
      baseline: true,
      fn: run(streams, "interleave", shared),
    });
    Deno.bench({
      name: `sequential${suffix}`,
      group: group + suffix,
      fn: run(streams, "sequential", shared),
    });
  }
}
