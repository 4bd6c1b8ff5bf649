/**
 * Argument checks shared by the timeline signals (the CPU, WebGPU and CUDA ones).
 *
 * @module
 */

import { assertKnownKeys, describe } from "../runtime/core/_argument_checks.ts";
import { TimeoutError } from "../runtime/core/errors.ts";

/** The largest timeline value: a `BigInt64Array` element (the only 64-bit `Atomics.wait` type). */
export const MAX_TIMELINE_VALUE = 2n ** 63n - 1n;

/** `value` as a bigint timeline value; `TypeError` / `RangeError` otherwise. */
export function toTimelineValue(value: unknown, what: string): bigint {
  if (typeof value === "bigint") {
    if (value < 0n || value > MAX_TIMELINE_VALUE) {
      throw new RangeError(`${what} must be between 0 and 2^63 - 1, got ${value}`);
    }
    return value;
  }
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new RangeError(`${what} must be a non-negative safe integer or a bigint, got ${value}`);
    }
    return BigInt(value);
  }
  throw new TypeError(`${what} must be a bigint or a number, got ${describe(value)}`);
}

/** A timeout in milliseconds (0 = none); `RangeError` unless finite and non-negative. */
export function toTimeoutMs(value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value !== "number") {
    throw new TypeError(`timeoutMs must be a number, got ${describe(value)}`);
  }
  if (!Number.isFinite(value) || value < 0) {
    throw new RangeError(`timeoutMs must be a finite number >= 0 (0: no timeout), got ${value}`);
  }
  return value;
}

/**
 * The longest delay a timer takes (2^31 - 1 ms, about 24.8 days). Quirk: `setTimeout` fires a
 * longer delay after 1 ms (it does not fit a 32-bit int), so a wait with a larger `timeoutMs` timed
 * out at once: waits arm timers of at most this and re-arm until their deadline.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** The error of a wait for `target` that gave up after `limitMs` with the signal at `current`. */
export function timelineTimeout(target: bigint, current: bigint, limitMs: number): TimeoutError {
  return new TimeoutError(`timeline value ${target}`, limitMs, `the signal is at ${current}`);
}

/** Whether this code runs on the main thread (where blocking waits need a timeout). */
export function onMainThread(): boolean {
  // deno-lint-ignore no-explicit-any
  const scope = (globalThis as any).WorkerGlobalScope;
  return typeof scope !== "function" || !(globalThis instanceof scope);
}

/**
 * Refuses (`TypeError`) wait options of `call` that are not an object or hold another key than
 * `timeoutMs` (and `signal`, an `AbortSignal`, for the asynchronous waits): a misspelt `timeout`
 * was ignored and the wait never timed out.
 */
export function checkWaitOptions(options: unknown, call: "wait" | "waitSync"): void {
  assertKnownKeys(options, call === "wait" ? ["timeoutMs", "signal"] : ["timeoutMs"], call);
  const abort = (options as { signal?: unknown }).signal;
  if (abort !== undefined && !(abort instanceof AbortSignal)) {
    throw new TypeError(`${call}: options.signal must be an AbortSignal, got ${describe(abort)}`);
  }
}
