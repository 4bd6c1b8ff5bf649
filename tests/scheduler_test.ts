import assert from "node:assert/strict";
import { configure, type LogRecord, reset } from "@logtape/logtape";
import {
  ComputeError,
  Handle,
  HandleRef,
  InvalidHandleError,
  SchedulerMultiStream,
  type SchedulerMultiStreamOptions,
  type SchedulerStreamBackend,
  SliceHandle,
  SliceRecord,
} from "../backend.ts";

interface FakeStream {
  readonly index: number;
}

/** A backend that records every enqueue and flush as `"enqueue <stream> <task>"` / `"flush <stream>"`. */
class Recorder {
  readonly log: string[] = [];
  created = 0;
  onFlush: ((stream: FakeStream) => void) | undefined;
  readonly backend: SchedulerStreamBackend<string, FakeStream> = {
    createStream: () => ({ index: this.created++ }),
    enqueue: (task, stream) => void this.log.push(`enqueue ${stream.index} ${task}`),
    flush: (stream) => {
      this.log.push(`flush ${stream.index}`);
      this.onFlush?.(stream);
    },
  };

  /** A scheduler whose streams are created in pool order, so `stream.index` is the pool index. */
  scheduler(
    options: Partial<SchedulerMultiStreamOptions> = {},
  ): SchedulerMultiStream<string, FakeStream> {
    const full = { maxStreams: 4, maxTasks: 100, strategy: "interleave" as const, ...options };
    const scheduler = new SchedulerMultiStream(this.backend, full);
    for (let i = 0; i < full.maxStreams; i++) scheduler.stream(i);
    return scheduler;
  }

  take(): string[] {
    return this.log.splice(0);
  }
}

function handleOn(stream: number, onRelease?: () => void): Handle {
  return new Handle(new SliceHandle(new SliceRecord(onRelease)), {
    stream,
    cursor: 0,
    size: 16,
  });
}

Deno.test("SchedulerMultiStream creates backend streams lazily, one per pool index", () => {
  const recorder = new Recorder();
  const scheduler = new SchedulerMultiStream(recorder.backend, {
    maxStreams: 4,
    maxTasks: 8,
    strategy: "interleave",
  });
  assert.equal(recorder.created, 0);
  assert.equal(scheduler.queued(3), 0);
  assert.equal(recorder.created, 0, "queued() must not create a stream");
  const five = scheduler.stream(5);
  assert.equal(scheduler.stream(1), five);
  assert.notEqual(scheduler.stream(2), five);
  assert.equal(recorder.created, 2);
});

Deno.test("SchedulerMultiStream executes a stream exactly when it reaches maxTasks", () => {
  const recorder = new Recorder();
  const scheduler = recorder.scheduler({ maxTasks: 3 });
  using h = handleOn(1);
  scheduler.register(1, "t0", [h.ref()]);
  scheduler.register(5, "t1", [h.ref()]); // 5 % 4 === 1: same stream
  assert.deepEqual(recorder.take(), []);
  assert.equal(scheduler.queued(1), 2);
  scheduler.register(1, "t2", [h.ref()]);
  assert.deepEqual(recorder.take(), ["enqueue 1 t0", "enqueue 1 t1", "enqueue 1 t2", "flush 1"]);
  assert.equal(scheduler.queued(1), 0);
  scheduler.register(1, "t3", []);
  assert.equal(scheduler.queued(1), 1);
  assert.deepEqual(recorder.take(), []);
});

Deno.test("SchedulerMultiStream executes other streams before registering a dependent task", () => {
  const recorder = new Recorder();
  const scheduler = recorder.scheduler();
  using h0 = handleOn(0);
  using h1 = handleOn(1);
  scheduler.register(0, "a0", [h0.ref()]);
  scheduler.register(0, "a1", [h0.ref()]);
  scheduler.register(1, "b0", [h1.ref()]);
  const queuedAtFlush: number[][] = [];
  recorder.onFlush = () => queuedAtFlush.push([0, 1, 2].map((id) => scheduler.queued(id)));
  scheduler.register(2, "c0", [h0.ref(), h1.ref()]);
  // Ref streams in binding order, each executed before c0 exists on stream 2.
  assert.deepEqual(recorder.take(), [
    "flush 1",
    "enqueue 0 a0",
    "enqueue 0 b0",
    "enqueue 0 a1",
    "flush 0",
  ]);
  assert.deepEqual(queuedAtFlush, [[0, 0, 0], [0, 0, 0]]);
  assert.equal(scheduler.queued(2), 1);
  // A binding created on the same pool index needs no alignment.
  using h6 = handleOn(6);
  scheduler.register(2, "c1", [h6.ref()]);
  assert.deepEqual(recorder.take(), []);
});

function fillThreeStreams(scheduler: SchedulerMultiStream<string, FakeStream>): Handle[] {
  const handles = [handleOn(0), handleOn(1), handleOn(2)];
  const counts = [3, 1, 2];
  counts.forEach((count, stream) => {
    for (let i = 0; i < count; i++) {
      scheduler.register(stream, `${"abc"[stream]}${i}`, [handles[stream].ref()]);
    }
  });
  return handles;
}

Deno.test("SchedulerMultiStream interleave merges round-robin onto the first schedule's stream", () => {
  const recorder = new Recorder();
  const scheduler = recorder.scheduler({ strategy: "interleave" });
  const handles = fillThreeStreams(scheduler);
  assert.deepEqual(recorder.take(), []);
  // Duplicates by pool index (4 -> 0, 5 -> 1) are dropped, first-seen order kept.
  scheduler.executeStreams([0, 4, 1, 5, 2]);
  assert.deepEqual(recorder.take(), [
    "flush 1",
    "flush 2",
    "enqueue 0 a0",
    "enqueue 0 b0",
    "enqueue 0 c0",
    "enqueue 0 a1",
    "enqueue 0 c1",
    "enqueue 0 a2",
    "flush 0",
  ]);
  fillThreeStreams(scheduler).forEach((h) => h.dispose());
  scheduler.executeStreams([2, 0, 1]);
  assert.deepEqual(recorder.take(), [
    "flush 0",
    "flush 1",
    "enqueue 2 c0",
    "enqueue 2 a0",
    "enqueue 2 b0",
    "enqueue 2 c1",
    "enqueue 2 a1",
    "enqueue 2 a2",
    "flush 2",
  ]);
  handles.forEach((h) => h.dispose());
});

Deno.test("SchedulerMultiStream sequential submits each schedule on its own stream", () => {
  const recorder = new Recorder();
  const scheduler = recorder.scheduler({ strategy: "sequential" });
  const handles = fillThreeStreams(scheduler);
  scheduler.executeStreams([1, 0, 2]);
  assert.deepEqual(recorder.take(), [
    "enqueue 1 b0",
    "flush 1",
    "enqueue 0 a0",
    "enqueue 0 a1",
    "enqueue 0 a2",
    "flush 0",
    "enqueue 2 c0",
    "enqueue 2 c1",
    "flush 2",
  ]);
  handles.forEach((h) => h.dispose());
});

Deno.test("SchedulerMultiStream executeStreams flushes listed streams even when empty", () => {
  const recorder = new Recorder();
  const scheduler = recorder.scheduler({ strategy: "sequential" });
  scheduler.executeStreams([3]);
  assert.deepEqual(recorder.take(), ["flush 3"]);
  scheduler.executeStreams([]);
  assert.deepEqual(recorder.take(), []);
});

Deno.test("SchedulerMultiStream executeAll executes only streams with queued tasks", () => {
  const recorder = new Recorder();
  const scheduler = recorder.scheduler({ strategy: "sequential" });
  scheduler.register(3, "d0", []);
  scheduler.register(1, "b0", []);
  scheduler.executeAll();
  assert.deepEqual(recorder.take(), ["enqueue 1 b0", "flush 1", "enqueue 3 d0", "flush 3"]);
  scheduler.executeAll();
  assert.deepEqual(recorder.take(), []);
});

Deno.test("SchedulerMultiStream executes streams whose queued tasks touch the same memory", async (t) => {
  await t.step("written on another stream, then used on the creating stream", () => {
    const recorder = new Recorder();
    const scheduler = recorder.scheduler();
    using h = handleOn(0);
    scheduler.register(1, "write", [h.ref()]);
    assert.deepEqual(recorder.take(), [], "stream 0 has no queued task on h: nothing to execute");
    // Aligning on the creating stream only would miss this: the write would run after the read.
    scheduler.register(0, "read", [h.ref()]);
    assert.deepEqual(recorder.take(), ["enqueue 1 write", "flush 1"]);
    assert.equal(scheduler.queued(0), 1);
  });
  await t.step("memory created on a third stream", () => {
    const recorder = new Recorder();
    const scheduler = recorder.scheduler({ strategy: "sequential" });
    using h = handleOn(3);
    using other = handleOn(2);
    scheduler.register(3, "make", [h.ref()]);
    scheduler.register(1, "write", [h.ref()]);
    assert.deepEqual(recorder.take(), ["enqueue 3 make", "flush 3"]);
    scheduler.register(2, "other", [other.ref()]);
    scheduler.register(2, "read", [h.ref()]);
    // Stream 3 (the creator) holds nothing on h any more; stream 1 holds the write.
    assert.deepEqual(recorder.take(), ["enqueue 1 write", "flush 1"]);
    assert.equal(scheduler.queued(2), 2);
  });
  await t.step("unrelated memory does not execute other streams", () => {
    const recorder = new Recorder();
    const scheduler = recorder.scheduler();
    using a = handleOn(1);
    using b = handleOn(2);
    scheduler.register(1, "a", [a.ref()]);
    scheduler.register(2, "b", [b.ref()]);
    assert.deepEqual(recorder.take(), []);
    assert.equal(scheduler.queued(1), 1);
  });
});

Deno.test("SchedulerMultiStream pins memory while queued and releases it after the flush", async (t) => {
  for (const strategy of ["interleave", "sequential"] as const) {
    await t.step(strategy, () => {
      const recorder = new Recorder();
      const scheduler = recorder.scheduler({ strategy });
      let released = 0;
      const h = handleOn(0, () => released++);
      const g = handleOn(1);
      const memory = h.slice.record;
      scheduler.register(0, "t0", [h.ref(), h.ref()]);
      scheduler.register(1, "t1", [g.ref()]);
      assert.equal(memory.pins, 2);
      h.dispose();
      assert.equal(memory.released, false, "a queued task keeps its memory alive");
      assert.equal(released, 0);
      const pinsAtFlush: number[] = [];
      recorder.onFlush = () => pinsAtFlush.push(memory.pins);
      scheduler.executeStreams([0, 1]);
      // Pins are held through every flush of the execution and released after the last one.
      assert.ok(pinsAtFlush.length >= 2);
      if (strategy === "interleave") assert.deepEqual(pinsAtFlush, [2, 2]);
      else assert.deepEqual(pinsAtFlush, [2, 0]);
      assert.equal(memory.pins, 0);
      assert.equal(released, 1);
      assert.equal(g.slice.record.pins, 0);
      g.dispose();
    });
  }
  await t.step("a throwing backend flush releases the pins and the scheduler stays usable", () => {
    const recorder = new Recorder();
    const scheduler = recorder.scheduler();
    using h = handleOn(0);
    scheduler.register(0, "t0", [h.ref()]);
    recorder.onFlush = () => {
      throw new Error("device lost");
    };
    assert.throws(() => scheduler.executeAll(), /device lost/);
    assert.equal(h.slice.record.pins, 0);
    assert.equal(scheduler.queued(0), 0);
    recorder.onFlush = undefined;
    recorder.take();
    scheduler.register(0, "t1", [h.ref()]);
    scheduler.executeAll();
    assert.deepEqual(recorder.take(), ["enqueue 0 t1", "flush 0"]);
  });
});

Deno.test("SchedulerMultiStream rejects bad input and leaves its state unchanged", async (t) => {
  const recorder = new Recorder();
  const scheduler = recorder.scheduler();
  using live = handleOn(1);
  using queuedOn2 = handleOn(2);
  scheduler.register(2, "q", [queuedOn2.ref()]);
  const dead = handleOn(3);
  const deadBinding = dead.ref();
  dead.dispose();
  const unchanged = () => {
    assert.deepEqual(recorder.take(), []);
    assert.equal(scheduler.queued(2), 1);
    assert.equal(scheduler.queued(0), 0);
    assert.equal(live.slice.record.pins, 0);
    assert.equal(queuedOn2.slice.record.pins, 1);
  };
  await t.step("bad stream ids", () => {
    assert.throws(() => scheduler.register("1" as unknown as number, "x", []), TypeError);
    assert.throws(() => scheduler.register(-1, "x", []), RangeError);
    assert.throws(() => scheduler.register(1.5, "x", []), RangeError);
    assert.throws(() => scheduler.executeStreams([0, NaN]), RangeError);
    assert.throws(() => scheduler.queued(-2), RangeError);
    assert.throws(() => scheduler.stream(2 ** 60), RangeError);
    unchanged();
  });
  await t.step("bad bindings", () => {
    // The dead binding comes last, after bindings that would align stream 2 and pin `live`.
    assert.throws(
      () => scheduler.register(0, "x", [live.ref(), queuedOn2.ref(), deadBinding]),
      InvalidHandleError,
    );
    assert.throws(() => scheduler.register(0, "x", [{} as HandleRef]), TypeError);
    assert.throws(() => scheduler.register(0, "x", 3 as unknown as HandleRef[]), TypeError);
    const badStream = new HandleRef(live.slice.ref(), { ...live, stream: -1 });
    assert.throws(() => scheduler.register(0, "x", [badStream]), RangeError);
    unchanged();
  });
  await t.step("still works", () => {
    scheduler.register(0, "ok", [live.ref(), queuedOn2.ref()]);
    // Only stream 2 queues a task on that memory; `live` (created on 1) needs nothing.
    assert.deepEqual(recorder.take(), ["enqueue 2 q", "flush 2"]);
    assert.equal(scheduler.queued(0), 1);
    scheduler.executeAll();
    assert.deepEqual(recorder.take(), ["enqueue 0 ok", "flush 0"]);
    assert.equal(live.slice.record.pins, 0);
  });
});

Deno.test("SchedulerMultiStream rejects bad options", () => {
  const { backend } = new Recorder();
  const options: SchedulerMultiStreamOptions = {
    maxStreams: 2,
    maxTasks: 2,
    strategy: "sequential",
  };
  assert.throws(() => new SchedulerMultiStream(backend, { ...options, maxStreams: 0 }), RangeError);
  assert.throws(() => new SchedulerMultiStream(backend, { ...options, maxTasks: 0 }), RangeError);
  assert.throws(
    () => new SchedulerMultiStream(backend, { ...options, maxTasks: "2" as unknown as number }),
    TypeError,
  );
  assert.throws(
    () => new SchedulerMultiStream(backend, { ...options, strategy: "random" as "interleave" }),
    RangeError,
  );
  assert.throws(
    () => new SchedulerMultiStream({ ...backend, flush: undefined! }, options),
    TypeError,
  );
  assert.throws(
    () => new SchedulerMultiStream(backend, undefined as unknown as SchedulerMultiStreamOptions),
    TypeError,
  );
});

Deno.test("SchedulerMultiStream logs alignment lazily through the stream logger", async () => {
  const records: LogRecord[] = [];
  await configure({
    sinks: { buffer: (record) => void records.push(record) },
    loggers: [
      { category: ["gpucompute", "stream"], lowestLevel: "debug", sinks: ["buffer"] },
      { category: ["logtape", "meta"], lowestLevel: "warning", sinks: [] },
    ],
  });
  try {
    const messages = () =>
      records.splice(0).map((r) => `${r.level} ${r.message.map((part) => String(part)).join("")}`);
    // LogTape alone decides what is emitted: debug records appear as soon as it is configured.
    const recorder = new Recorder();
    const scheduler = recorder.scheduler();
    using h = handleOn(0);
    scheduler.register(1, "w", [h.ref()]);
    scheduler.register(0, "r", [h.ref()]);
    assert.deepEqual(messages(), [
      `debug Memory ${h.slice.record.value} is used by tasks queued on stream 1, needed on stream 0`,
      "info Executing streams 1 before registering more tasks on stream 0",
    ]);
    scheduler.executeAll();
  } finally {
    await reset();
  }
});

Deno.test("SchedulerMultiStream does not submit unrelated tasks of the creating stream", () => {
  const recorder = new Recorder();
  const scheduler = recorder.scheduler();
  using h = handleOn(1);
  using a = handleOn(1), b = handleOn(1), c = handleOn(1);
  scheduler.register(1, "a", [a.ref()]);
  scheduler.register(1, "b", [b.ref()]);
  scheduler.register(1, "c", [c.ref()]);
  scheduler.register(2, "uses h", [h.ref()]); // h was created on 1, no task on 1 touches it
  assert.deepEqual(recorder.take(), [], "nothing submitted");
  assert.deepEqual([scheduler.queued(1), scheduler.queued(2)], [3, 1]);
  scheduler.register(2, "uses b", [b.ref()]); // now a task of 1 does touch the memory
  assert.deepEqual(recorder.take(), ["enqueue 1 a", "enqueue 1 b", "enqueue 1 c", "flush 1"]);
  scheduler.executeAll();
});

Deno.test("SchedulerMultiStream orders readers after writers but not readers among themselves", () => {
  const recorder = new Recorder();
  const scheduler = recorder.scheduler();
  using h = handleOn(0);
  using out1 = handleOn(1), out2 = handleOn(2);
  // `reads` lists bindings among those registered (a handle hands out one cached HandleRef).
  const read = (stream: number, out: Handle) => {
    const input = h.ref();
    scheduler.register(stream, `read h on ${stream}`, [input, out.ref()], { reads: [input] });
  };
  read(1, out1);
  read(2, out2);
  assert.deepEqual(recorder.take(), [], "two readers of h stay on their streams");
  assert.deepEqual([scheduler.queued(1), scheduler.queued(2)], [1, 1]);
  scheduler.register(3, "write h on 3", [h.ref()]);
  assert.deepEqual(
    recorder.take(),
    ["flush 2", "enqueue 1 read h on 1", "enqueue 1 read h on 2", "flush 1"],
    "a writer executes every queued reader first",
  );
  read(1, out1);
  assert.deepEqual(recorder.take(), ["enqueue 3 write h on 3", "flush 3"], "a reader, the writer");
  scheduler.executeAll();
});

Deno.test("SchedulerMultiStream counts a memory bound twice, read once, as written", () => {
  const recorder = new Recorder();
  const scheduler = recorder.scheduler();
  using h = handleOn(0);
  using out = handleOn(1);
  assert.equal(h.ref(), h.ref(), "one cached HandleRef per handle");
  scheduler.register(1, "read h on 1", [h.ref(), out.ref()], { reads: [h.ref()] });
  // Stream 2 binds h twice (a read-only and a writable binding): it writes h.
  scheduler.register(2, "read and write h on 2", [h.ref(), h.ref()], {
    reads: [h.ref()],
  });
  assert.deepEqual(
    recorder.take(),
    ["enqueue 1 read h on 1", "flush 1"],
    "the reader on 1 executes before h is written on 2",
  );
  scheduler.register(1, "read h again on 1", [h.ref()], { reads: [h.ref()] });
  assert.deepEqual(recorder.take(), ["enqueue 2 read and write h on 2", "flush 2"]);
  scheduler.executeAll();
});

/** A task whose backend calls may fail, and whose `done` must run once whatever happens. */
interface FallibleTask {
  readonly name: string;
  readonly failEnqueue?: boolean;
  done(): void;
}

/** A backend like the WebGPU one: `done` callbacks run at flush (even one that throws). */
function fallibleBackend(failFlush: Set<number>) {
  const log: string[] = [];
  const backend: SchedulerStreamBackend<FallibleTask, { index: number; done: (() => void)[] }> = {
    createStream: (() => {
      let created = 0;
      return () => ({ index: created++, done: [] });
    })(),
    enqueue(task, stream) {
      stream.done.push(() => task.done());
      if (task.failEnqueue) throw new Error(`enqueue ${task.name} failed`);
      log.push(`enqueue ${stream.index} ${task.name}`);
    },
    flush(stream) {
      const done = stream.done.splice(0);
      try {
        if (failFlush.has(stream.index)) throw new Error(`flush ${stream.index} failed`);
        log.push(`flush ${stream.index}`);
      } finally {
        done.forEach((callback) => callback());
      }
    },
  };
  return { backend, log };
}

Deno.test("SchedulerMultiStream error paths lose no task, pin or done callback", async (t) => {
  const setup = (strategy: "interleave" | "sequential", failFlush: number[]) => {
    const { backend, log } = fallibleBackend(new Set(failFlush));
    const scheduler = new SchedulerMultiStream(backend, { maxStreams: 4, maxTasks: 100, strategy });
    for (let i = 0; i < 4; i++) scheduler.stream(i); // pool index === backend index
    const handles = [0, 1, 2].map((s) => handleOn(s));
    const finished: string[] = [];
    const register = (stream: number, name: string, failEnqueue = false) =>
      scheduler.register(stream, { name, failEnqueue, done: () => finished.push(name) }, [
        handles[stream].ref(),
      ]);
    register(0, "a0");
    register(0, "a1");
    register(1, "b0");
    register(2, "c0");
    register(2, "c1");
    return { scheduler, log, handles, finished, register };
  };
  const all = ["a0", "a1", "b0", "c0", "c1"];

  await t.step("sequential: a failing flush of the first stream does not drop the others", () => {
    const { scheduler, log, handles, finished } = setup("sequential", [0]);
    assert.throws(() => scheduler.executeStreams([0, 1, 2]), /flush 0 failed/);
    assert.deepEqual(finished.sort(), all, "every done callback ran");
    assert.deepEqual(log, [
      "enqueue 0 a0",
      "enqueue 0 a1",
      "enqueue 1 b0",
      "flush 1",
      "enqueue 2 c0",
      "enqueue 2 c1",
      "flush 2",
    ]);
    assert.deepEqual(handles.map((h) => h.slice.record.pins), [0, 0, 0]);
    assert.deepEqual([0, 1, 2].map((s) => scheduler.queued(s)), [0, 0, 0]);
    handles.forEach((h) => h.dispose());
    assert.ok(handles.every((h) => h.slice.record.released));
  });
  await t.step("interleave: a failing flush of a merged stream still submits every task", () => {
    const { scheduler, log, handles, finished } = setup("interleave", [1]);
    assert.throws(() => scheduler.executeStreams([0, 1, 2]), /flush 1 failed/);
    assert.deepEqual(finished.sort(), all);
    assert.deepEqual(log, [
      "flush 2",
      "enqueue 0 a0",
      "enqueue 0 b0",
      "enqueue 0 c0",
      "enqueue 0 a1",
      "enqueue 0 c1",
      "flush 0",
    ]);
    assert.deepEqual(handles.map((h) => h.slice.record.pins), [0, 0, 0]);
    handles.forEach((h) => h.dispose());
  });
  await t.step("register takes its task even when executing another stream throws", () => {
    const { scheduler, handles, finished } = setup("sequential", [0]);
    // A task on stream 3 over stream 0's memory executes stream 0 first, whose flush fails.
    assert.throws(
      () =>
        scheduler.register(3, { name: "d0", done: () => finished.push("d0") }, [
          handles[0].ref(),
        ]),
      /flush 0 failed/,
    );
    assert.equal(scheduler.queued(3), 1, "the valid task was taken");
    scheduler.executeAll();
    assert.ok(finished.includes("d0"));
    assert.deepEqual(handles.map((h) => h.slice.record.pins), [0, 0, 0]);
    handles.forEach((h) => h.dispose());
  });
  for (const strategy of ["interleave", "sequential"] as const) {
    await t.step(`${strategy}: a failing enqueue does not drop later tasks`, () => {
      const { scheduler, log, handles, finished, register } = setup(strategy, [2]);
      register(1, "b1", true);
      register(1, "b2");
      let error: unknown;
      try {
        scheduler.executeAll();
      } catch (caught) {
        error = caught;
      }
      assert.ok(error instanceof ComputeError, "two failures: one ComputeError");
      assert.ok(error.cause instanceof AggregateError, "listing them in its cause");
      assert.deepEqual(error.cause.errors.map((e: Error) => e.message).sort(), [
        "enqueue b1 failed",
        "flush 2 failed",
      ]);
      assert.deepEqual(finished.sort(), [...all, "b1", "b2"].sort());
      assert.ok(log.some((line) => line.endsWith(" b2")), "b2 enqueued after b1 failed");
      assert.deepEqual(handles.map((h) => h.slice.record.pins), [0, 0, 0]);
      register(1, "later");
      scheduler.executeAll();
      assert.deepEqual(log.slice(-2), ["enqueue 1 later", "flush 1"]);
      handles.forEach((h) => h.dispose());
    });
  }
});

Deno.test("SchedulerMultiStream refuses a disposed handle even while its memory is pinned", () => {
  const recorder = new Recorder();
  const scheduler = recorder.scheduler();
  const h = handleOn(0);
  const binding = h.ref();
  scheduler.register(1, "queued", [binding]);
  h.dispose();
  assert.equal(h.slice.record.pins, 1, "the queued task still pins the memory");
  for (const stream of [1, 2]) {
    assert.throws(
      () => scheduler.register(stream, "late", [binding]),
      (e) => e instanceof InvalidHandleError && e.code === "INVALID_HANDLE",
    );
  }
  assert.deepEqual([scheduler.queued(1), scheduler.queued(2)], [1, 0]);
  assert.deepEqual(recorder.take(), []);
  scheduler.executeAll();
  assert.equal(h.slice.record.released, true);
});
