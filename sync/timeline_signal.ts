/**
 * The timeline signal contract: a monotonic 64-bit counter that orders work across Workers,
 * queues and devices. Ported from the `TimelineSignal` trait of the seed (svod_device/sync.rs),
 * with these choices:
 *
 * - **Values are `bigint`** (0 to 2^63 - 1, the range of a `BigInt64Array`, the only 64-bit
 *   array `Atomics.wait` accepts). Arguments also take a non-negative safe-integer `number`, so
 *   `signal.set(1)` works; `value` always reads back a `bigint`.
 * - **`set` is a monotonic max**: a lower value never lowers the counter (the seed's `fetch_max`),
 *   so concurrent setters never race a value backwards.
 * - **`wait` is asynchronous** and never blocks the thread; `waitSync` blocks, for Workers and for
 *   the main thread with a timeout. A timeout of 0 means "no timeout", as in the seed.
 * - Failing waits reject with {@linkcode TimeoutError} (code `TIMEOUT`) naming the target, the
 *   value reached and the time waited, or with the `AbortSignal`'s reason.
 *
 * @module
 */

/**
 * Options of {@linkcode TimelineSignal.wait} (and, without `signal`, of `waitSync`).
 *
 * @example
 * ```ts
 * import type { TimelineWaitOptions } from "@gpucompute/runtime/sync";
 * const options: TimelineWaitOptions = { timeoutMs: 100, signal: AbortSignal.timeout(50) };
 * ```
 */
export interface TimelineWaitOptions {
  /**
   * Milliseconds to wait before failing with a `TIMEOUT` error; 0 waits without limit.
   * @default {0}
   */
  timeoutMs?: number;
  /**
   * Aborts the wait: the promise rejects with the signal's reason.
   * @default {undefined}
   */
  signal?: AbortSignal;
}

/**
 * A monotonic counter that waiters watch for a target value. Implemented by
 * {@linkcode CpuTimelineSignal} (shared memory, works across Workers), `WebGpuTimelineSignal`
 * (reached when queue work completes) and the CUDA signal (a ring of events).
 *
 * @example Wait for a producer
 * ```ts
 * import { CpuTimelineSignal, type TimelineSignal } from "@gpucompute/runtime/sync";
 * const ready: TimelineSignal = new CpuTimelineSignal();
 * setTimeout(() => ready.set(1), 10);
 * await ready.wait(1, { timeoutMs: 5_000 });
 * console.log(ready.value, ready.isReached(2)); // 1n false
 * ```
 */
export interface TimelineSignal {
  /** The current value. */
  readonly value: bigint;
  /** Raises the value to `value`; a lower value leaves it unchanged. Wakes reached waiters. */
  set(value: bigint | number): void;
  /**
   * Resolves once the value is at least `target`. Rejects with a `TIMEOUT` error after
   * `timeoutMs` (0: never), or with the abort reason of `options.signal`. On the main thread a
   * pending wait keeps the program running (a Worker may still set the signal): a `deno run`
   * script that leaves one pending with neither `timeoutMs` nor `signal` never exits.
   */
  wait(target: bigint | number, options?: TimelineWaitOptions): Promise<void>;
  /**
   * Blocks the thread until the value is at least `target`, or throws a `TIMEOUT` error after
   * `timeoutMs`. Allowed in Workers, and on the main thread only with a timeout.
   */
  waitSync(target: bigint | number, options?: Omit<TimelineWaitOptions, "signal">): void;
  /** Whether the value is at least `target`, without waiting. */
  isReached(target: bigint | number): boolean;
}
