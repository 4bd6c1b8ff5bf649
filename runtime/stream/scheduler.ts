/**
 * The task scheduler: cross-stream ordering for backends with one in-order queue (WebGPU), ported
 * from CubeCL's `SchedulerMultiStream` (stream/scheduler.rs). Each logical stream buffers its
 * tasks; a stream executes when it reaches `maxTasks`, when asked to, or when a task registered
 * on another stream touches memory its queued tasks write or read (the other stream executes
 * first: on one queue, that submission is the wait, reported to {@linkcode
 * SchedulerMultiStream.waits}). Executing several streams merges them by a strategy
 * (`interleave` or `sequential`). The rules (memory, pins, errors) and why are in
 * docs/architecture.md ("The task scheduler").
 *
 * @module
 */

import { assertPositiveInteger, describe } from "../core/_argument_checks.ts";
import type { SchedulerStrategy } from "../core/config.ts";
import { type Logger, runtimeLogger } from "../core/logging.ts";
import type { SliceRecord } from "../core/handles/slice_record.ts";
import type { HandleRef } from "../core/handles/handle.ts";
import type { StreamId } from "../core/stream_id.ts";
import { StreamPool } from "./stream_pool.ts";
import { clearArray } from "../core/_clear_array.ts";
import { checkRefs, readList, releasePins, throwAll, writes } from "./_scheduler_refs.ts";
import type {
  RegisterOptions,
  SchedulerMultiStreamOptions,
  SchedulerStreamBackend,
} from "./scheduler_backend.ts";
import type { WaitRecorder } from "./wait_recorder.ts";

export type { RegisterOptions, SchedulerMultiStreamOptions, SchedulerStreamBackend };

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
  /** How many streams have queued memory: with none but the registering one, nothing to align. */
  #streamsWithMemory = 0;
  /** Receives the waits {@linkcode register} decides, while set (a trace records them). */
  waits: WaitRecorder | undefined;

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
   * same memory (unless both only read it, see {@linkcode RegisterOptions.reads}). Pins the refs'
   * memory until the task is submitted. Executes the stream once it holds `maxTasks`.
   *
   * Bad input (`TypeError` / `RangeError` / `INVALID_HANDLE`, including a ref whose handles were
   * all disposed) leaves the scheduler unchanged: the caller keeps its task. Once the input is
   * valid the task is always taken, so any other error (thrown by the backend while executing the
   * other streams or this one; every task is still enqueued, see the module documentation)
   * propagates after the task was queued or handed to the backend.
   */
  register(
    id: StreamId,
    task: T,
    refs: Iterable<HandleRef>,
    options: RegisterOptions = {},
  ): void {
    this.#pool.streamIndex(id); // checks the id before anything changes
    const list = checkRefs(refs);
    this.registerChecked(id, task, list, readList(options.reads));
  }

  /**
   * {@linkcode register} for a caller that checked its input (the server's launch path, which
   * checked every ref once): `id` is a stream id, every ref is live with a valid stream id, and
   * `reads` (the refs the task only reads, or `undefined` when it may write them all) is a subset
   * of `refs`. Nothing is checked again; the arrays are read during the call only.
   */
  registerChecked(
    id: StreamId,
    task: T,
    refs: readonly HandleRef[],
    reads: readonly HandleRef[] | undefined,
  ): void {
    const index = id % this.#pool.maxStreams;
    let errors: unknown[] | undefined;
    const current = this.#pool.slots[index] ?? this.#pool.getIndex(index);
    // No other stream has queued memory (one stream at work: the common case): no loop over them.
    if (this.#streamsWithMemory > (current.memories.size > 0 ? 1 : 0)) {
      try {
        this.#align(id, index, refs, reads);
      } catch (error) {
        (errors ??= []).push(error);
      }
    }
    const memories = current.memories, wasEmpty = memories.size === 0;
    try {
      for (let i = 0; i < refs.length; i++) {
        const record = refs[i].slice.record;
        record.retainPin();
        current.pinned.push(record);
        memories.add(record);
        if (reads === undefined || writes(refs, reads, record)) current.written.add(record);
      }
    } finally {
      if (wasEmpty && memories.size > 0) this.#streamsWithMemory++;
    }
    current.tasks.push(task);
    if (current.tasks.length >= this.#maxTasks) {
      try {
        this.executeStream(id);
      } catch (error) {
        (errors ??= []).push(error);
      }
    }
    if (errors !== undefined) {
      throwAll(errors);
    }
  }

  /**
   * Executes the queued tasks of the given streams, deduplicated by pool index in first-seen
   * order, with the configured strategy. Every listed backend stream is flushed, even an empty one.
   */
  executeStreams(ids: Iterable<StreamId>): void {
    if (Array.isArray(ids) && ids.length === 1) return this.executeStream(ids[0]);
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
      if (state.memories.size > 0) this.#streamsWithMemory--;
      state.memories.clear();
      state.written.clear();
      return { tasks, pinned, index };
    });
    try {
      if (this.#strategy === "interleave") this.#interleave(schedules);
      else this.#sequential(schedules);
    } finally {
      for (const { tasks, pinned, index } of schedules) {
        clearArray(tasks); // the backend has every task: keep none alive
        const state = this.#pool.getIndex(index);
        if (pinned.length === 0 && state.spareTasks === undefined) {
          state.spareTasks = tasks;
          state.sparePinned = pinned;
        }
      }
    }
  }

  /**
   * {@linkcode executeStreams} of one stream (a flush): the same steps as the sequential strategy
   * (the interleaved one of a single stream is the same), allocating nothing of its own.
   */
  executeStream(id: StreamId): void {
    const pool = this.#pool;
    const index = (id >>> 0) === id ? id % pool.maxStreams : pool.streamIndex(id);
    const state = pool.slots[index] ?? pool.getIndex(index);
    const { tasks, pinned, stream } = state;
    state.tasks = state.spareTasks ?? [];
    state.pinned = state.sparePinned ?? [];
    state.spareTasks = state.sparePinned = undefined;
    if (state.memories.size > 0) this.#streamsWithMemory--;
    state.memories.clear();
    state.written.clear();
    let errors: unknown[] | undefined;
    try {
      for (let i = 0; i < tasks.length; i++) {
        try {
          this.#backend.enqueue(tasks[i], stream);
        } catch (error) {
          (errors ??= []).push(error);
        }
      }
      try {
        this.#backend.flush(stream);
      } catch (error) {
        (errors ??= []).push(error);
      }
    } finally {
      this.#release(pinned);
      clearArray(tasks);
      if (pinned.length === 0 && state.spareTasks === undefined) {
        state.spareTasks = tasks;
        state.sparePinned = pinned;
      }
    }
    if (errors !== undefined) throwAll(errors);
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
    refs: readonly HandleRef[],
    reads: readonly HandleRef[] | undefined,
  ): void {
    let toFlush: number[] | undefined;
    const slots = this.#pool.slots; // no call per slot: this runs on every registration
    for (let other = 0; other < slots.length; other++) {
      const state = slots[other];
      if (other === index || state === undefined || state.memories.size === 0) continue;
      // A hazard unless both sides only read: read-after-write, write-after-read, write-after-write.
      let shared: HandleRef | undefined;
      for (let i = 0; i < refs.length && shared === undefined; i++) {
        const record = refs[i].slice.record;
        if (!state.memories.has(record)) continue;
        if (state.written.has(record) || reads === undefined || writes(refs, reads, record)) {
          shared = refs[i];
        }
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
    const waits = this.waits;
    if (waits !== undefined) { for (const other of toFlush) waits.waited(id, other); }
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
    if (schedules.length === 1) return this.#sequential(schedules); // the same, allocating less
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

  /** Releases the pins of flushed tasks: now, or once the backend's parked submissions went out. */
  #release(pinned: SliceRecord[]): void {
    const parked = pinned.length === 0 ? undefined : this.#backend.parkedUntil?.();
    if (parked === undefined) return releasePins(pinned);
    const later = pinned.slice();
    clearArray(pinned);
    parked.then(() => releasePins(later));
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
