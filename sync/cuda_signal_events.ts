/**
 * What a {@linkcode CudaTimelineSignal} is built on: the events of its stream
 * ({@linkcode CudaSignalEvents}, injected so that `sync/` imports no driver code), and the options
 * of its waits.
 *
 * @module
 */

/**
 * How the signal records and queries events on its stream.
 *
 * @example
 * ```ts
 * import { type CudaSignalEvents, CudaTimelineSignal } from "@gpucompute/runtime/cuda";
 * // A test double of a stream's events: the work recorded is complete at once.
 * const events: CudaSignalEvents<{ done: boolean }> = {
 *   create: () => ({ done: false }),
 *   record: (event) => void (event.done = true),
 *   query: (event) => event.done,
 *   destroy: () => {},
 * };
 * using signal = new CudaTimelineSignal(events);
 * signal.record(1);
 * console.log(signal.value); // 1n
 * ```
 */
export interface CudaSignalEvents<E> {
  /** Creates an event. */
  create(): E;
  /** Records `event` on the signal's stream (after the work submitted so far). */
  record(event: E): void;
  /** Whether the event's last record completed; throws for a driver error. */
  query(event: E): boolean;
  /** Destroys an event. */
  destroy(event: E): void;
  /**
   * Resolves once the event's last record completed, without polling; rejects with the driver's
   * error, `TIMEOUT` after `timeoutMs` (0: the backend's own limit) or `DESTROYED`. `released` is
   * called once no driver call uses the event any more (a parked call may outlive a timeout):
   * the signal destroys the event only then. Optional: without it, the signal's waits poll.
   */
  waitHost?(event: E, timeoutMs: number, released: () => void): Promise<void>;
  /**
   * Blocks the calling thread until the event's last record completed (a blocking
   * `cuEventSynchronize`); throws the driver's error. Optional: without it, `waitSync` naps.
   */
  synchronize?(event: E): void;
  /**
   * Blocks the calling thread until the event's last record completed (true) or `timeoutMs`
   * passed (false), without a sleep loop where the driver allows (the CUDA server's events: a
   * wait the device wakes); throws the driver's error. Optional: without it, `waitSync` with a
   * timeout naps.
   */
  synchronizeWithin?(event: E, timeoutMs: number): boolean;
}

/**
 * Options of the waits: milliseconds before `TIMEOUT` (0: none), and an abort signal.
 *
 * @example
 * ```ts ignore
 * import { CudaServer, type CudaSignalWaitOptions } from "@gpucompute/runtime/cuda";
 * using server = CudaServer.create();
 * using signal = server.timelineSignal(0);
 * signal.record(1); // after the work enqueued on stream 0 so far
 * const options: CudaSignalWaitOptions = { timeoutMs: 5_000, signal: new AbortController().signal };
 * await signal.wait(1, options);
 * ```
 */
export interface CudaSignalWaitOptions {
  /**
   * Milliseconds before the wait fails with `TIMEOUT`; 0 waits without limit.
   * @default {0}
   */
  timeoutMs?: number;
  /**
   * Aborts the wait with the signal's reason.
   * @default {undefined}
   */
  signal?: AbortSignal;
}
