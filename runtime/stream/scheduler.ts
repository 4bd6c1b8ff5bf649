/**
 * The task-queue multi-stream, for backends with one in-order queue (WebGPU). Ported from
 * CubeCL's `SchedulerMultiStream` (stream/scheduler.rs).
 *
 * Each logical stream buffers its tasks. A stream's buffer is executed when it reaches `maxTasks`,
 * when {@linkcode SchedulerMultiStream.executeStreams} / {@linkcode SchedulerMultiStream.executeAll}
 * is called, or when a task registered on another stream touches memory that its queued tasks
 * touch (the other stream's queued tasks are executed before the new task is even registered).
 * Executing several streams at once follows a strategy:
 *
 * - `interleave`: flush the backend streams of every schedule but the first, then enqueue the
 *   tasks round-robin (one of each schedule in turn) onto the FIRST schedule's backend stream and
 *   flush it, so one submission carries them all;
 * - `sequential`: enqueue each schedule's tasks onto its own backend stream and flush it, in order.
 *
 * Rules:
 *
 * 1. **Order by memory, not by creator.** Each stream records the `SliceRecord`s its queued
 *    tasks touch (cleared when it executes), and registering on X executes every other stream
 *    whose queued tasks touch any memory of the new task, whichever stream created it. Memory a
 *    task only reads (`reads` of {@linkcode SchedulerMultiStream.register}) conflicts only with
 *    queued writers: two kernels that only read a handle stay on their streams. Invariant: tasks
 *    queued on different streams never share memory that one of them writes, so any merge order
 *    is safe. CubeCL
 *    also executes the stream that created each binding; that is not needed here (reuse is
 *    guarded by pins, and the single queue orders everything submitted), so unrelated tasks
 *    queued on the creating stream stay buffered.
 * 2. **Pins.** `register` pins every binding's memory, and the scheduler releases those pins right
 *    after the backend `flush` that submitted the task returns (or, when the backend held the
 *    submission back, once `heldUntil()` settles). On a single in-order queue, work submitted
 *    later always runs after, so memory may be reused once submitted, but never while its task
 *    is still buffered or held.
 * 3. **Errors lose no task.** Every task taken from a buffer is passed to `enqueue` exactly once
 *    and every scheduled backend stream is flushed once, even when an earlier `enqueue` or
 *    `flush` threw; then every pin is released and the first error is thrown (an
 *    `AggregateError` when several). The backend owns a task's resources (its `done` callbacks)
 *    from the moment `enqueue` was called, even if that call threw.
 *
 * @module
 */

import { assertPositiveInteger, describe } from "../core/_validate.ts";
import type { SchedulerStrategy } from "../core/config.ts";
import { type Logger, runtimeLogger } from "../core/logging.ts";
import type { SliceRecord } from "../core/slice_record.ts";
import type { HandleRef } from "../core/handle.ts";
import { assertStreamId, type StreamId } from "../core/stream_id.ts";
import { StreamPool } from "./stream_pool.ts";
import { empty } from "../core/_empty.ts";

/**
 * What a backend provides to the scheduler: streams, and enqueue / flush of tasks on them.
 *
 * @example
 * ```ts
 * import type { SchedulerStreamBackend } from "@gpucompute/runtime/backend";
 * const backend: SchedulerStreamBackend<string, string[]> = {
 *   createStream: () => [],
 *   enqueue: (task, stream) => void stream.push(task),
 *   flush: (stream) => console.log("submit", stream.splice(0)),
 * };
 * ```
 */
export interface SchedulerStreamBackend<T, S> {
  /** Creates a backend stream; called lazily, once per pool index. */
  createStream(): S;
  /**
   * Appends a task to a backend stream, without submitting it. From this call on the backend
   * owns what the task holds (it must release it even if this call or the next flush throws).
   */
  enqueue(task: T, stream: S): void;
  /** Submits what was enqueued on `stream` (synchronous). */
  flush(stream: S): void;
  /**
   * Optional. For a backend that may hold finished submissions back (WebGPU holds those waiting
   * for a kernel's validation): a promise that settles once everything flushed so far reached
   * the device, or `undefined` when it all did. The scheduler keeps the flushed tasks' memory
   * pinned until then, so it is not reused or freed under held work.
   */
  heldUntil?(): Promise<void> | undefined;
}

/**
 * Options of {@linkcode SchedulerMultiStream}.
 *
 * @example
 * ```ts
 * import type { SchedulerMultiStreamOptions } from "@gpucompute/runtime/backend";
 * const options: SchedulerMultiStreamOptions = { maxStreams: 8, maxTasks: 32, strategy: "interleave" };
 * ```
 */
export interface SchedulerMultiStreamOptions {
  /** Number of distinct streams; ids map onto them modulo this. */
  maxStreams: number;
  /** Tasks a stream buffers before it is executed. */
  maxTasks: number;
  /** How the queued tasks of several streams are merged when executed together. */
  strategy: SchedulerStrategy;
  /**
   * Logger of the `"stream"` subject.
   * @default {runtimeLogger("stream")}
   */
  logger?: Logger;
}

/**
 * One pool slot: the task buffer, the memory its tasks pin (one `retainPin` per entry, released
 * once they are submitted), the memory they touch (and write), the backend stream. Flat arrays:
 * registering a task allocates nothing of its own.
 */
interface StreamState<T, S> {
  tasks: T[];
  pinned: SliceRecord[];
  /** Emptied `tasks` and `pinned` arrays of an earlier execution, to queue into next. */
  spareTasks: T[] | undefined;
  sparePinned: SliceRecord[] | undefined;
  readonly memories: Set<SliceRecord>;
  readonly written: Set<SliceRecord>;
  readonly stream: S;
}

/**
 * Options of {@linkcode SchedulerMultiStream.register}.
 *
 * @example
 * ```ts
 * import type { RegisterOptions } from "@gpucompute/runtime/backend";
 * const options: RegisterOptions = { reads: [] };
 * ```
 */
export interface RegisterOptions {
  /**
   * The bindings (of those registered) that the task only reads. A memory is written by the task
   * if any of its bindings is not listed.
   * @default {[]} (every binding may be written)
   */
  reads?: Iterable<HandleRef>;
}

interface Schedule<T> {
  readonly tasks: T[];
  readonly pinned: SliceRecord[];
  readonly index: number;
}

const STRATEGIES: readonly SchedulerStrategy[] = ["interleave", "sequential"];

/**
 * Buffers tasks per logical stream and submits them to a backend with cross-stream ordering.
 *
 * @example
 * ```ts
 * import { Handle, SliceRecord, SchedulerMultiStream, SliceHandle } from "@gpucompute/runtime/backend";
 * const log: string[] = [];
 * const scheduler = new SchedulerMultiStream<string, number>({
 *   createStream: () => log.length,
 *   enqueue: (task) => void log.push(task),
 *   flush: () => void log.push("flush"),
 * }, { maxStreams: 4, maxTasks: 8, strategy: "interleave" });
 * using handle = new Handle(new SliceHandle(new SliceRecord()), { stream: 1, cursor: 0, size: 4 });
 * scheduler.register(1, "write", [handle.ref()]);
 * scheduler.register(2, "read", [handle.ref()]); // executes stream 1 first
 * scheduler.executeAll();
 * console.log(log); // ["write", "flush", "read", "flush"]
 * ```
 */
export class SchedulerMultiStream<T, S> {
  readonly #backend: SchedulerStreamBackend<T, S>;
  readonly #pool: StreamPool<StreamState<T, S>>;
  readonly #maxTasks: number;
  readonly #strategy: SchedulerStrategy;
  readonly #logger: Logger;

  /** Creates the scheduler over a backend; streams are created on first use. */
  constructor(backend: SchedulerStreamBackend<T, S>, options: SchedulerMultiStreamOptions) {
    for (const method of ["createStream", "enqueue", "flush"] as const) {
      if (typeof backend?.[method] !== "function") {
        throw new TypeError(`Scheduler backend must have a ${method}() method`);
      }
    }
    if (typeof options !== "object" || options === null) {
      throw new TypeError(`Scheduler options must be an object, got ${describe(options)}`);
    }
    assertPositiveInteger(options.maxTasks, "maxTasks");
    if (!STRATEGIES.includes(options.strategy)) {
      throw new RangeError(
        `strategy must be one of ${STRATEGIES.join(", ")}, got ${describe(options.strategy)}`,
      );
    }
    this.#backend = backend;
    this.#pool = new StreamPool(
      () => ({
        tasks: [],
        pinned: [],
        spareTasks: undefined,
        sparePinned: undefined,
        memories: new Set(),
        written: new Set(),
        stream: backend.createStream(),
      }),
      { maxStreams: options.maxStreams },
    );
    this.#maxTasks = options.maxTasks;
    this.#strategy = options.strategy;
    this.#logger = options.logger ?? runtimeLogger("stream");
  }

  /** The backend stream of a logical stream, created if needed. */
  stream(id: StreamId): S {
    return this.#pool.get(id).stream;
  }

  /**
   * Buffers `task` on stream `id`, after executing the other streams whose queued tasks touch the
   * same memory (unless both only read it, see {@linkcode RegisterOptions.reads}). Pins the
   * bindings' memory until the task is submitted. Executes the stream once it holds `maxTasks`.
   *
   * Bad input (`TypeError` / `RangeError` / `INVALID_HANDLE`, including a binding whose handles
   * were all disposed) leaves the scheduler unchanged: the caller keeps its task. Once the input
   * is valid the task is always taken, so any other error (thrown by the backend while executing
   * the other streams or this one; every task is still enqueued, see the module documentation)
   * propagates after the task was queued or handed to the backend.
   */
  register(
    id: StreamId,
    task: T,
    bindings: Iterable<HandleRef>,
    options: RegisterOptions = {},
  ): void {
    const index = this.#pool.streamIndex(id);
    const list = checkBindings(bindings);
    const reads = readList(options.reads);
    let errors: unknown[] | undefined;
    try {
      this.#align(id, index, list, reads);
    } catch (error) {
      (errors ??= []).push(error);
    }
    const current = this.#pool.getIndex(index);
    for (let i = 0; i < list.length; i++) {
      const memory = list[i].slice.record;
      memory.retainPin();
      current.pinned.push(memory);
      current.memories.add(memory);
      if (writes(list, reads, memory)) current.written.add(memory);
    }
    current.tasks.push(task);
    if (current.tasks.length >= this.#maxTasks) {
      try {
        this.executeStreams([id]);
      } catch (error) {
        (errors ??= []).push(error);
      }
    }
    if (errors !== undefined) {
      throwAll(errors.flatMap((e) => e instanceof AggregateError ? e.errors : [e]));
    }
  }

  /**
   * Executes the queued tasks of the given streams, deduplicated by pool index in first-seen
   * order, with the configured strategy. Every listed backend stream is flushed, even an empty one.
   */
  executeStreams(ids: Iterable<StreamId>): void {
    const indices: number[] = [];
    for (const id of ids) {
      const index = this.#pool.streamIndex(id);
      if (!indices.includes(index)) indices.push(index);
    }
    if (indices.length === 0) return;
    const schedules = indices.map((index): Schedule<T> => {
      const state = this.#pool.getIndex(index);
      const { tasks, pinned } = state;
      // The queue starts over in the spare arrays (a backend call that registers again while
      // these execute gets fresh ones): refilling grown arrays allocates nothing.
      state.tasks = state.spareTasks ?? [];
      state.pinned = state.sparePinned ?? [];
      state.spareTasks = state.sparePinned = undefined;
      state.memories.clear();
      state.written.clear();
      return { tasks, pinned, index };
    });
    try {
      if (this.#strategy === "interleave") this.#interleave(schedules);
      else this.#sequential(schedules);
    } finally {
      for (const { tasks, pinned, index } of schedules) {
        empty(tasks); // the backend has every task: keep none alive
        const state = this.#pool.getIndex(index);
        if (pinned.length === 0 && state.spareTasks === undefined) {
          state.spareTasks = tasks;
          state.sparePinned = pinned;
        }
      }
    }
  }

  /** Executes every stream that has queued tasks, in pool order (for sync and reads). */
  executeAll(): void {
    const ids: StreamId[] = [];
    for (const [index, state] of this.#pool.entries()) {
      if (state.tasks.length > 0) ids.push(index);
    }
    this.executeStreams(ids);
  }

  /** Number of tasks buffered on the stream of `id`. */
  queued(id: StreamId): number {
    const index = this.#pool.streamIndex(id);
    for (const [i, state] of this.#pool.entries()) {
      if (i === index) return state.tasks.length;
    }
    return 0;
  }

  /** Executes the other streams whose queued tasks touch this task's memory. */
  #align(
    id: StreamId,
    index: number,
    bindings: readonly HandleRef[],
    reads: readonly HandleRef[] | undefined,
  ): void {
    let toFlush: StreamId[] | undefined;
    for (let other = 0; other < this.#pool.size; other++) {
      const state = this.#pool.peek(other);
      if (other === index || state === undefined || state.memories.size === 0) continue;
      // A hazard unless both sides only read: read-after-write, write-after-read, write-after-write.
      let shared: HandleRef | undefined;
      for (let i = 0; i < bindings.length && shared === undefined; i++) {
        const memory = bindings[i].slice.record;
        if (!state.memories.has(memory)) continue;
        if (state.written.has(memory) || writes(bindings, reads, memory)) shared = bindings[i];
      }
      if (shared !== undefined) {
        (toFlush ??= []).push(other);
        this.#logShared(shared, other, id);
      }
    }
    if (toFlush === undefined) return;
    this.#logger.info(
      "Executing streams {streams} before registering more tasks on stream {stream}",
      { streams: toFlush, stream: id },
    );
    this.executeStreams(toFlush);
  }

  /**
   * Logs why `other` executes. A method of its own: a closure inside `#align`'s loop would make V8
   * allocate a context for the loop's variables on every registration, logged or not.
   */
  #logShared(shared: HandleRef, other: number, stream: StreamId): void {
    this.#logger.debug(
      "Memory {memory} is used by tasks queued on stream {other}, needed on stream {stream}",
      () => ({ memory: shared.slice.record.value, other, stream }),
    );
  }

  #sequential(schedules: readonly Schedule<T>[]): void {
    const errors: unknown[] = [];
    try {
      for (const schedule of schedules) {
        const stream = this.#pool.getIndex(schedule.index).stream;
        for (const task of schedule.tasks) this.#attempt(errors, "enqueue", task, stream);
        this.#attempt(errors, "flush", undefined, stream);
        this.#release(schedule.pinned);
      }
    } finally {
      for (const schedule of schedules) this.#release(schedule.pinned);
    }
    throwAll(errors);
  }

  #interleave(schedules: readonly Schedule<T>[]): void {
    const errors: unknown[] = [];
    try {
      for (const schedule of schedules.slice(1)) {
        this.#attempt(errors, "flush", undefined, this.#pool.getIndex(schedule.index).stream);
      }
      const stream = this.#pool.getIndex(schedules[0].index).stream;
      const rounds = Math.max(...schedules.map((schedule) => schedule.tasks.length));
      for (let round = 0; round < rounds; round++) {
        for (const schedule of schedules) {
          if (round < schedule.tasks.length) {
            this.#attempt(errors, "enqueue", schedule.tasks[round], stream);
          }
        }
      }
      this.#attempt(errors, "flush", undefined, stream);
    } finally {
      for (const schedule of schedules) this.#release(schedule.pinned);
    }
    throwAll(errors);
  }

  /** Releases the pins of flushed tasks: now, or once the backend's held submissions went out. */
  #release(pinned: SliceRecord[]): void {
    const held = pinned.length === 0 ? undefined : this.#backend.heldUntil?.();
    if (held === undefined) return releasePins(pinned);
    const later = pinned.slice();
    empty(pinned);
    held.then(() => releasePins(later));
  }

  /** Calls the backend, collecting a thrown error instead of abandoning the remaining tasks. */
  #attempt(errors: unknown[], call: "enqueue" | "flush", task: T | undefined, stream: S): void {
    try {
      if (call === "enqueue") this.#backend.enqueue(task as T, stream);
      else this.#backend.flush(stream);
    } catch (error) {
      errors.push(error);
    }
  }
}

function throwAll(errors: readonly unknown[]): void {
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) {
    throw new AggregateError(errors, `${errors.length} scheduler backend calls failed`);
  }
}

/** The bindings a task only reads, or `undefined` when it may write every one. */
function readList(reads: Iterable<HandleRef> | undefined): readonly HandleRef[] | undefined {
  if (reads === undefined) return undefined;
  const list = Array.isArray(reads) ? reads : [...reads];
  return list.length === 0 ? undefined : list;
}

/**
 * True when the task writes `memory`: it binds that memory more often than it reads it. Counted,
 * not matched by identity: a handle hands out one cached `HandleRef`, so a kernel that binds one
 * handle twice (read-only and writable) lists the same object twice and reads it once.
 */
function writes(
  list: readonly HandleRef[],
  reads: readonly HandleRef[] | undefined,
  memory: SliceRecord,
): boolean {
  if (reads === undefined) return true;
  let uses = 0;
  for (let i = 0; i < list.length; i++) if (list[i].slice.record === memory) uses++;
  for (let i = 0; i < reads.length; i++) if (reads[i].slice.record === memory) uses--;
  return uses > 0;
}

/** Validates bindings before any state changes (an array is used as is, not copied). */
function checkBindings(bindings: Iterable<HandleRef>): readonly HandleRef[] {
  if (bindings === null || typeof bindings !== "object" || !(Symbol.iterator in bindings)) {
    throw new TypeError(`bindings must be an iterable of HandleRef, got ${describe(bindings)}`);
  }
  const list = Array.isArray(bindings) ? bindings : [...bindings];
  for (let i = 0; i < list.length; i++) {
    const binding = list[i];
    if (typeof binding?.assertLive !== "function") {
      throw new TypeError(`bindings[${i}] must be a HandleRef, got ${describe(binding)}`);
    }
    binding.assertLive();
    assertStreamId(binding.stream);
  }
  return list;
}

/** Releases the pins of submitted (or dropped) tasks, once: the list is emptied. */
function releasePins(pinned: SliceRecord[]): void {
  for (let i = 0; i < pinned.length; i++) pinned[i].unpin();
  empty(pinned); // keeps its storage: the array is queued into again (see executeStreams)
}
