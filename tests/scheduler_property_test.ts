import assert from "node:assert/strict";
import fc from "fast-check";
import {
  Handle,
  type HandleRef,
  InvalidHandleError,
  SchedulerMultiStream,
  type SchedulerStreamBackend,
  SliceHandle,
  SliceRecord,
} from "../backend.ts";
import { errorList } from "../runtime/core/_join_errors.ts";

interface Task {
  readonly seq: number;
  readonly stream: number;
  readonly handles: readonly number[];
}

type Op =
  | { kind: "register"; stream: number; handles: number[] }
  | { kind: "execute"; streams: number[] }
  | { kind: "executeAll" }
  | { kind: "dispose"; handle: number }
  | { kind: "failNextFlush" };

const NUM_HANDLES = 6;

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("register" as const),
      stream: fc.nat({ max: 15 }),
      handles: fc.uniqueArray(fc.nat({ max: NUM_HANDLES - 1 }), { maxLength: 3 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("execute" as const),
      streams: fc.array(fc.nat({ max: 15 }), { maxLength: 4 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("executeAll" as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("dispose" as const),
      handle: fc.nat({ max: NUM_HANDLES - 1 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("failNextFlush" as const) }) },
);

const programArb = fc.record({
  maxStreams: fc.integer({ min: 1, max: 8 }),
  maxTasks: fc.integer({ min: 1, max: 6 }),
  strategy: fc.constantFrom("interleave" as const, "sequential" as const),
  creators: fc.array(fc.nat({ max: 15 }), { minLength: NUM_HANDLES, maxLength: NUM_HANDLES }),
  ops: fc.array(opArb, { maxLength: 60 }),
});

/** The error a failing flush throws (after submitting, as a rejected submission would). */
class InjectedFailure extends Error {}

/**
 * One in-order device queue: each backend stream holds its enqueued tasks until flushed. Set
 * `failures.next` to make the next flush throw after it submitted.
 */
function inOrderQueue() {
  const submitted: Task[] = [];
  const failures = { next: false, thrown: 0 };
  const backend: SchedulerStreamBackend<Task, Task[]> = {
    createStream: () => [],
    enqueue: (task, stream) => void stream.push(task),
    flush: (stream) => {
      submitted.push(...stream.splice(0));
      if (!failures.next) return;
      failures.next = false;
      failures.thrown++;
      throw new InjectedFailure("flush failed");
    },
  };
  return { backend, submitted, failures };
}

/** Runs `call`; an error must be (or aggregate) injected flush failures only. */
function tolerateInjected(call: () => void): void {
  try {
    call();
  } catch (error) {
    const errors = errorList(error);
    if (!errors.every((e) => e instanceof InjectedFailure)) throw error;
  }
}

Deno.test("SchedulerMultiStream keeps stream and memory order over random programs", () => {
  fc.assert(
    fc.property(programArb, (program) => {
      const { backend, submitted, failures } = inOrderQueue();
      const scheduler = new SchedulerMultiStream(backend, program);
      const handles = program.creators.map((stream) =>
        new Handle(new SliceHandle(new SliceRecord()), { stream, cursor: 0, size: 16 })
      );
      // Taken before any dispose: a binding of a disposed handle must be refused even while
      // queued tasks still pin its memory.
      const bindings: HandleRef[] = handles.map((h) => h.ref());
      const registered: Task[] = [];
      // Every queued (registered, not yet submitted) task holds one pin per binding.
      const checkPins = () => {
        const done = new Set(submitted.map((task) => task.seq));
        const expected = handles.map(() => 0);
        for (const task of registered) {
          if (!done.has(task.seq)) task.handles.forEach((h) => expected[h]++);
        }
        assert.deepEqual(handles.map((h) => h.slice.record.pins), expected);
      };
      try {
        for (const op of program.ops) {
          if (op.kind === "register") {
            const task = { seq: registered.length, stream: op.stream, handles: op.handles };
            const using = op.handles.map((h) => bindings[h]);
            if (op.handles.some((h) => handles[h].disposed)) {
              const queued = scheduler.queued(op.stream);
              assert.throws(() => scheduler.register(op.stream, task, using), InvalidHandleError);
              assert.equal(scheduler.queued(op.stream), queued);
            } else {
              registered.push(task);
              tolerateInjected(() => scheduler.register(op.stream, task, using));
            }
          } else if (op.kind === "execute") {
            tolerateInjected(() => scheduler.executeStreams(op.streams));
          } else if (op.kind === "executeAll") {
            tolerateInjected(() => scheduler.executeAll());
          } else if (op.kind === "dispose") {
            handles[op.handle].dispose();
          } else {
            failures.next = true;
          }
          checkPins();
        }
        failures.next = false;
        scheduler.executeAll();
        checkPins();

        // Every task submitted exactly once.
        assert.deepEqual(submitted.map((task) => task.seq).sort((a, b) => a - b), [
          ...registered.keys(),
        ]);
        const position = new Map(submitted.map((task, i) => [task.seq, i]));
        // Per-stream order preserved (streams are pool indices).
        for (let index = 0; index < program.maxStreams; index++) {
          const order = submitted.filter((t) => t.stream % program.maxStreams === index);
          assert.deepEqual(
            order,
            registered.filter((t) => t.stream % program.maxStreams === index),
          );
        }
        // Memory order: a task never runs before an earlier task touching the same memory.
        for (const later of registered) {
          for (const earlier of registered.slice(0, later.seq)) {
            if (earlier.handles.some((h) => later.handles.includes(h))) {
              assert.ok(position.get(earlier.seq)! < position.get(later.seq)!);
            }
          }
        }
        assert.ok(handles.every((h) => h.slice.record.pins === 0));
      } finally {
        handles.forEach((h) => h.dispose());
      }
      assert.ok(handles.every((h) => h.slice.record.released));
    }),
    { numRuns: 300 },
  );
});
