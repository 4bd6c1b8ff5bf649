/**
 * {@linkcode WaitRecorder}: where a stream engine reports the cross-stream waits it decides, so
 * that a trace shows the waits that happened rather than ones derived again from the memory each
 * task declared.
 *
 * - The event multi-stream (`event.ts`) reports each wait it enqueues: `stream` waits (on the
 *   device) for an event of stream index `on`.
 * - The task scheduler (`scheduler.ts`) reports each stream it executes before registering a task
 *   on another: on a single in-order queue, that submission is the wait.
 *
 * @module
 */

import type { StreamId } from "../core/stream_id.ts";

/**
 * Receives the cross-stream waits a stream engine decides (a server sets one on its engine while
 * a trace records).
 *
 * @example
 * ```ts
 * import type { WaitRecorder } from "@gpucompute/runtime/backend";
 * const waits: [number, number][] = [];
 * const recorder: WaitRecorder = { waited: (stream, on) => void waits.push([stream, on]) };
 * ```
 */
export interface WaitRecorder {
  /** `stream` was ordered after the work of stream index `on` (ids equal modulo share an index). */
  waited(stream: StreamId, on: number): void;
}
