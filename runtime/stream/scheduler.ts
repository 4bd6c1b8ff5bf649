/**
 * The task-queue multi-stream, for backends with one in-order queue (WebGPU): a port of CubeCL's
 * `SchedulerMultiStream` (stream/scheduler.rs).
 *
 * Each logical stream buffers its tasks. A stream's buffer is executed when it reaches `maxTasks`,
 * when {@linkcode SchedulerMultiStream.executeStreams} / {@linkcode SchedulerMultiStream.executeAll}
 * is called, or when a task registered on another stream depends on it (alignment: the other
 * stream's queued tasks are executed before the dependent task is even registered). Executing
 * several streams at once follows a strategy:
 *
 * - `interleave`: flush the backend streams of every schedule but the first, then enqueue the
 *   tasks round-robin (one of each schedule in turn) onto the FIRST schedule's backend stream and
 *   flush it, so one submission carries them all;
 * - `sequential`: enqueue each schedule's tasks onto its own backend stream and flush it, in order.
 *
 * Two additions to the seed:
 *
 * 1. **Hazard fix.** The seed aligns only on `binding.stream`, the stream that created the memory.
 *    But a kernel may write any binding: a handle created on S, written by a task still queued on
 *    T, then used on S would run before T's write. So each stream also records the
 *    `ManagedMemoryId`s its queued tasks touch (cleared when it executes), and registering on X
 *    also executes every other stream whose queued tasks touch any memory of the new task.
 *    Invariant: tasks queued on different streams never share memory, so any merge order is safe.
 * 2. **Pins.** `register` pins every binding's memory, and the scheduler releases those pins right
 *    after the backend `flush` that submitted the task returns. On a single in-order queue, work
 *    submitted later always runs after, so memory may be reused once submitted, but never while
 *    its task is still buffered. If the backend throws while executing, the tasks taken from the
 *    buffers are dropped, their pins released, and the error propagates.
 *
 * @module
 */

import { assertPositiveInteger, describe } from "../core/_validate.ts";
import type { SchedulerStrategy } from "../core/config.ts";
import { RuntimeLogger } from "../core/logging.ts";
import type { ManagedMemoryId, MemoryPin } from "../core/managed_memory.ts";
import type { Binding } from "../core/handle.ts";
import { assertStreamId, type StreamId } from "../core/stream_id.ts";
import { StreamPool } from "./stream_pool.ts";

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
  /** Appends a task to a backend stream, without submitting it. */
  enqueue(task: T, stream: S): void;
  /** Submits what was enqueued on `stream` (synchronous). */
  flush(stream: S): void;
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
   * @default {undefined} (no logging)
   */
  logger?: RuntimeLogger;
}

/** A buffered task with the pins that keep its memory alive until it is submitted. */
interface QueuedTask<T> {
  readonly task: T;
  readonly pins: MemoryPin[];
}

/** One pool slot: the task buffer, the memory its tasks touch, and the backend stream. */
interface StreamState<T, S> {
  tasks: QueuedTask<T>[];
  readonly memories: Set<ManagedMemoryId>;
  readonly stream: S;
}

interface Schedule<T> {
  readonly tasks: QueuedTask<T>[];
  readonly index: number;
}

const STRATEGIES: readonly SchedulerStrategy[] = ["interleave", "sequential"];

/**
 * Buffers tasks per logical stream and submits them to a backend with cross-stream ordering.
 *
 * @example
 * ```ts
 * import { Handle, ManagedMemoryId, SchedulerMultiStream, SliceHandle } from "@gpucompute/runtime/backend";
 * const log: string[] = [];
 * const scheduler = new SchedulerMultiStream<string, number>({
 *   createStream: () => log.length,
 *   enqueue: (task) => void log.push(task),
 *   flush: () => void log.push("flush"),
 * }, { maxStreams: 4, maxTasks: 8, strategy: "interleave" });
 * using handle = new Handle(new SliceHandle(new ManagedMemoryId()), { stream: 1, cursor: 0, size: 4 });
 * scheduler.register(1, "write", [handle.binding()]);
 * scheduler.register(2, "read", [handle.binding()]); // executes stream 1 first
 * scheduler.executeAll();
 * console.log(log); // ["write", "flush", "read", "flush"]
 * ```
 */
export class SchedulerMultiStream<T, S> {
  readonly #backend: SchedulerStreamBackend<T, S>;
  readonly #pool: StreamPool<StreamState<T, S>>;
  readonly #maxTasks: number;
  readonly #strategy: SchedulerStrategy;
  readonly #logger: RuntimeLogger;

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
      () => ({ tasks: [], memories: new Set(), stream: backend.createStream() }),
      { maxStreams: options.maxStreams },
    );
    this.#maxTasks = options.maxTasks;
    this.#strategy = options.strategy;
    this.#logger = options.logger ?? new RuntimeLogger("stream", "disabled");
  }

  /** The backend stream of a logical stream, created if needed. */
  stream(id: StreamId): S {
    return this.#pool.get(id).stream;
  }

  /**
   * Buffers `task` on stream `id`, after executing the other streams it depends on: the streams
   * that created its bindings, and the streams whose queued tasks touch the same memory. Pins the
   * bindings' memory until the task is submitted. Executes the stream once it holds `maxTasks`.
   * Bad input (`TypeError` / `RangeError` / `INVALID_HANDLE`) leaves the scheduler unchanged.
   */
  register(id: StreamId, task: T, bindings: Iterable<Binding>): void {
    const index = this.#pool.streamIndex(id);
    const list = checkBindings(bindings);
    this.#align(id, index, list);
    const current = this.#pool.getIndex(index);
    const pins: MemoryPin[] = [];
    for (const binding of list) {
      pins.push(binding.memory.id.pin());
      current.memories.add(binding.memory.id);
    }
    current.tasks.push({ task, pins });
    if (current.tasks.length >= this.#maxTasks) this.executeStreams([id]);
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
      const tasks = state.tasks;
      state.tasks = [];
      state.memories.clear();
      return { tasks, index };
    });
    if (this.#strategy === "interleave") this.#interleave(schedules);
    else this.#sequential(schedules);
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

  #align(id: StreamId, index: number, bindings: readonly Binding[]): void {
    const toFlush: StreamId[] = [];
    for (const binding of bindings) {
      if (this.#pool.streamIndex(binding.stream) !== index) {
        toFlush.push(binding.stream);
        this.#logger.full(() => `Binding on ${binding.stream} is shared on ${id}`);
      }
    }
    // Hazard fix: other streams whose queued tasks touch this task's memory.
    for (const [other, state] of this.#pool.entries()) {
      if (other === index || state.memories.size === 0) continue;
      const shared = bindings.find((binding) => state.memories.has(binding.memory.id));
      if (shared !== undefined) {
        toFlush.push(other);
        this.#logger.full(() =>
          `Memory ${shared.memory.id.value} is used by tasks queued on ${other}, needed on ${id}`
        );
      }
    }
    if (toFlush.length === 0) return;
    this.#logger.basic(() =>
      `Flushing streams [${toFlush.join(", ")}] before registering more tasks on ${id}`
    );
    this.executeStreams(toFlush);
  }

  #sequential(schedules: readonly Schedule<T>[]): void {
    for (const schedule of schedules) {
      const stream = this.#pool.getIndex(schedule.index).stream;
      try {
        for (const queued of schedule.tasks) this.#backend.enqueue(queued.task, stream);
        this.#backend.flush(stream);
      } finally {
        releasePins(schedule.tasks);
      }
    }
  }

  #interleave(schedules: readonly Schedule<T>[]): void {
    try {
      for (const schedule of schedules.slice(1)) {
        this.#backend.flush(this.#pool.getIndex(schedule.index).stream);
      }
      const stream = this.#pool.getIndex(schedules[0].index).stream;
      const rounds = Math.max(...schedules.map((schedule) => schedule.tasks.length));
      for (let round = 0; round < rounds; round++) {
        for (const schedule of schedules) {
          const queued = schedule.tasks[round];
          if (queued !== undefined) this.#backend.enqueue(queued.task, stream);
        }
      }
      this.#backend.flush(stream);
    } finally {
      for (const schedule of schedules) releasePins(schedule.tasks);
    }
  }
}

/** Materializes and validates bindings before any state changes. */
function checkBindings(bindings: Iterable<Binding>): Binding[] {
  if (bindings === null || typeof bindings !== "object" || !(Symbol.iterator in bindings)) {
    throw new TypeError(`bindings must be an iterable of Binding, got ${describe(bindings)}`);
  }
  const list = [...bindings];
  list.forEach((binding, i) => {
    if (typeof binding?.assertLive !== "function") {
      throw new TypeError(`bindings[${i}] must be a Binding, got ${describe(binding)}`);
    }
    binding.assertLive();
    assertStreamId(binding.stream);
  });
  return list;
}

function releasePins<T>(tasks: readonly QueuedTask<T>[]): void {
  for (const queued of tasks) {
    for (const pin of queued.pins) pin.release();
  }
}
