/**
 * What the task scheduler (`scheduler.ts`) takes: {@linkcode SchedulerStreamBackend}, provided by
 * a backend with one in-order queue (WebGPU), and the options of the scheduler and of its
 * `register`.
 *
 * @module
 */

import type { SchedulerStrategy } from "../core/config.ts";
import type { HandleRef } from "../core/handles/handle_ref.ts";
import type { Logger } from "../core/logging.ts";

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
   * Optional. For a backend that may park finished submissions (WebGPU parks those waiting for a
   * kernel's validation): a promise that settles once everything flushed so far reached the
   * device, or `undefined` when it all did. The scheduler keeps the flushed tasks' memory pinned
   * until then, so it is not reused or freed under parked work.
   */
  parkedUntil?(): Promise<void> | undefined;
}

/**
 * Options of `SchedulerMultiStream`.
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
 * Options of `SchedulerMultiStream.register`.
 *
 * @example
 * ```ts
 * import type { RegisterOptions } from "@gpucompute/runtime/backend";
 * const options: RegisterOptions = { reads: [] };
 * ```
 */
export interface RegisterOptions {
  /**
   * The refs (of those registered) that the task only reads. A memory is written by the task if
   * any of its refs is not listed.
   * @default {[]} (every ref may be written)
   */
  reads?: Iterable<HandleRef>;
}
