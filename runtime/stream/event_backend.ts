/**
 * {@linkcode EventStreamBackend}: what a backend with device streams and events (CUDA, the
 * simulated test device) provides to the event multi-stream (`event.ts`).
 *
 * @module
 */

import type { HandleRef } from "../core/handles/handle_ref.ts";

/**
 * What a backend with device streams and events provides to the event `MultiStream`.
 *
 * @example A backend whose events are complete at once
 * ```ts
 * import type { EventStreamBackend, HandleRef } from "@gpucompute/runtime/backend";
 * const backend: EventStreamBackend<object, null> = {
 *   createStream: () => ({}),
 *   handleCursor: (_stream: object, ref: HandleRef) => ref.cursor,
 *   isHealthy: () => true,
 *   flush: () => null,
 *   waitEvent: () => {},
 *   waitEventHost: () => Promise.resolve(),
 *   waitEventHostSync: () => {},
 * };
 * ```
 */
export interface EventStreamBackend<S, E> {
  /** Creates a device stream. */
  createStream(): S;
  /** The cursor of `ref` as seen from the stream that created it (usually `ref.cursor`). */
  handleCursor(stream: S, ref: HandleRef): number;
  /** Whether the stream accepts new work. */
  isHealthy(stream: S): boolean;
  /**
   * Why an unhealthy stream refuses work (the fault that made it so), kept as the `cause` of
   * its `STREAM_UNHEALTHY` errors. Optional.
   */
  unhealthyCause?(stream: S): Error | undefined;
  /** Submits the stream's pending work and returns an event completed when that work is done. */
  flush(stream: S): E;
  /** Makes the stream wait (on the device) for the event before running later work. */
  waitEvent(stream: S, event: E): void;
  /**
   * Waits on the host for the event; rejects with a typed `ComputeError` when it failed (and
   * with `TIMEOUT` when it did not complete in a bounded time).
   */
  waitEventHost(event: E): Promise<void>;
  /**
   * Blocks the host until the event completed (CUDA: `cuEventSynchronize`, or `cuEventQuery`
   * polled up to a deadline); throws a typed `ComputeError` when it failed or timed out. Used for
   * back-pressure once `maxPendingGc` GC tasks are pending. Optional for compatibility, but
   * without it a long synchronous loop of cross-stream work keeps every pinned allocation alive
   * until the event loop turns (a warning is logged the first time). The GC may call it on an
   * event whose `waitEventHost` is still pending (it blocks on the oldest task): both calls must
   * settle, and an event pool must take the event back once.
   */
  waitEventHostSync?(event: E): void;
  /**
   * Optional non-blocking query (CUDA: `cuEventQuery`): true once the event completed (the GC
   * then never uses it again, so a pool may take it back), false while it is not ready; throws a
   * typed `ComputeError` when it failed, and `TIMEOUT` once `waitedMs` (time since the GC task
   * was registered) is past the backend's bound for host waits. When present, the GC settles
   * tasks by polling one FIFO per stream index on a timer, up to each FIFO's first event that is
   * not ready, instead of one `waitEventHost` per task; back-pressure still uses
   * `waitEventHostSync` (on an event never reported complete).
   */
  isEventComplete?(event: E, waitedMs: number): boolean;
  /**
   * True where `waitEventHost` sleeps until the event settles, without a timer loop (CUDA: a
   * parked non-blocking `cuEventSynchronize`). With `isEventComplete`, the GC then parks one
   * `waitEventHost` on each FIFO's oldest pending event and polls when it settles, instead of
   * polling on a timer.
   * @default {false}
   */
  readonly hostWaitsSleep?: boolean;
}
