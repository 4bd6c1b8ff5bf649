/**
 * {@linkcode CpuTimelineSignal}: a timeline signal in 16 bytes of shared memory, usable from every
 * Worker that holds its buffer. Replaces the seed's `AtomicU64` + condvar with `Atomics`:
 *
 * ```
 * bytes 0..8   BigInt64   the value (only ever raised, by compare-and-swap)
 * bytes 8..12  Int32      how many agents are waiting (setters skip `Atomics.notify` at 0)
 * ```
 *
 * No lost wake-up: a waiter adds itself to the count THEN reads the value; a setter writes the
 * value THEN reads the count. `Atomics` operations are sequentially consistent, so either the
 * waiter sees the new value or the setter sees the waiter and notifies.
 *
 * Each object keeps its own waiters sorted by target and parks ONE `Atomics.waitAsync` on the
 * value for all of them; every successful `set` anywhere wakes it, it resolves what is reached
 * and parks again. A local `set` resolves local waiters at once, without a round trip through
 * the wait. Quirk: a pending `Atomics.waitAsync` does not keep Deno's main thread alive, so an
 * object with waiters holds the thread (see `_keep_alive.ts`).
 *
 * @module
 */

import type { TimelineSignal, TimelineWaitOptions } from "./timeline_signal.ts";
import {
  checkWaitOptions,
  MAX_TIMER_MS,
  onMainThread,
  timelineTimeout,
  toTimelineValue,
  toTimeoutMs,
} from "./_checks.ts";
import { holdThread, releaseThread } from "./_keep_alive.ts";
import { UnsupportedError } from "../runtime/core/errors.ts";

const BYTES = 16;
const WAITING = 2; // Int32 index of the waiting-agents count
// Quirk: Deno may load the timer globals lazily on first access, and the loading drains the
// microtask queue, which would re-enter this class mid-update. Take them once, at load.
const { setTimeout, clearTimeout } = globalThis;

interface Waiter {
  readonly target: bigint;
  readonly resolve: () => void;
  readonly reject: (reason: unknown) => void;
  timer?: ReturnType<typeof setTimeout>;
  abort?: { signal: AbortSignal; listener: () => void };
}

/**
 * A timeline signal on a `SharedArrayBuffer`: set and wait from any Worker. To share it, post
 * its {@linkcode buffer} and rebuild it on the other side with `new CpuTimelineSignal(buffer)`.
 *
 * @example A producer Worker and a consumer on the main thread
 * ```ts ignore
 * import { CpuTimelineSignal } from "@gpucompute/runtime/sync";
 * const ready = new CpuTimelineSignal();
 * const worker = new Worker(new URL("./producer.ts", import.meta.url), { type: "module" });
 * worker.postMessage(ready.buffer);
 * // producer.ts: self.onmessage = (e) => { const ready = new CpuTimelineSignal(e.data); ready.set(1); };
 * await ready.wait(1, { timeoutMs: 10_000 });
 * worker.terminate();
 * ```
 *
 * @example Counting up on one thread
 * ```ts
 * import { CpuTimelineSignal } from "@gpucompute/runtime/sync";
 * const signal = new CpuTimelineSignal(5n);
 * signal.set(3); // a lower value is ignored
 * const later = signal.wait(7);
 * signal.set(7n);
 * await later;
 * console.log(signal.value); // 7n
 * ```
 */
export class CpuTimelineSignal implements TimelineSignal {
  readonly #buffer: SharedArrayBuffer;
  readonly #value: BigInt64Array;
  readonly #count: Int32Array;
  /** Local waiters, sorted by target (ties in arrival order). */
  readonly #waiters: Waiter[] = [];
  /** The value the parked `Atomics.waitAsync` expects, while one is parked. */
  #parkedOn: bigint | undefined;

  /**
   * A new signal at `initial`, or, given the `buffer` of another signal (received by
   * `postMessage`), the same signal. `UNSUPPORTED` where there is no `SharedArrayBuffer`: a
   * browser has it only in a cross-origin isolated page.
   */
  constructor(initial: bigint | number | SharedArrayBuffer = 0n) {
    if (typeof SharedArrayBuffer !== "function") {
      throw new UnsupportedError(
        "A CpuTimelineSignal needs SharedArrayBuffer, which browsers give only to cross-origin " +
          "isolated pages (Cross-Origin-Opener-Policy: same-origin and " +
          "Cross-Origin-Embedder-Policy: require-corp); this page is not",
      );
    }
    if (initial instanceof SharedArrayBuffer) {
      if (initial.byteLength !== BYTES) {
        throw new RangeError(
          `A timeline signal buffer holds ${BYTES} bytes, got ${initial.byteLength}`,
        );
      }
      this.#buffer = initial;
    } else {
      const start = toTimelineValue(initial, "initial");
      this.#buffer = new SharedArrayBuffer(BYTES);
      new BigInt64Array(this.#buffer, 0, 1)[0] = start;
    }
    this.#value = new BigInt64Array(this.#buffer, 0, 1);
    this.#count = new Int32Array(this.#buffer, 0, 4);
  }

  /** The shared memory of the signal: post it to a Worker to share the signal. */
  get buffer(): SharedArrayBuffer {
    return this.#buffer;
  }

  /** The current value. */
  get value(): bigint {
    return Atomics.load(this.#value, 0);
  }

  /** Whether the value is at least `target`. */
  isReached(target: bigint | number): boolean {
    return Atomics.load(this.#value, 0) >= toTimelineValue(target, "target");
  }

  /** Raises the value to `value` (a lower one is ignored) and wakes reached waiters everywhere. */
  set(value: bigint | number): void {
    const next = toTimelineValue(value, "value");
    let current = Atomics.load(this.#value, 0);
    while (next > current) {
      const seen = Atomics.compareExchange(this.#value, 0, current, next);
      if (seen === current) {
        if (Atomics.load(this.#count, WAITING) > 0) Atomics.notify(this.#value, 0);
        if (this.#waiters.length > 0) this.#settle(next);
        return;
      }
      current = seen;
    }
  }

  /** Resolves once the value reaches `target`; see {@linkcode TimelineSignal.wait}. */
  wait(target: bigint | number, options: TimelineWaitOptions = {}): Promise<void> {
    const goal = toTimelineValue(target, "target");
    checkWaitOptions(options, "wait");
    const timeoutMs = toTimeoutMs(options.timeoutMs);
    const abort = options.signal;
    if (abort?.aborted) return Promise.reject(abort.reason);
    if (Atomics.load(this.#value, 0) >= goal) return Promise.resolve();
    const { promise, resolve, reject } = Promise.withResolvers<void>();
    const waiter: Waiter = { target: goal, resolve, reject };
    if (timeoutMs > 0) {
      const deadline = performance.now() + timeoutMs;
      const arm = (delay: number) => {
        waiter.timer = setTimeout(() => {
          if (delay > MAX_TIMER_MS) return arm(deadline - performance.now()); // see MAX_TIMER_MS
          // Another agent may have reached it, and its wake-up not be delivered yet: not a timeout.
          if (Atomics.load(this.#value, 0) >= goal) return this.#settle(this.value);
          this.#drop(waiter);
          reject(timelineTimeout(goal, this.value, timeoutMs));
        }, Math.min(delay, MAX_TIMER_MS));
      };
      arm(timeoutMs);
    }
    if (abort !== undefined) {
      const listener = () => {
        this.#drop(waiter);
        reject(abort.reason);
      };
      abort.addEventListener("abort", listener, { once: true });
      waiter.abort = { signal: abort, listener };
    }
    this.#insert(waiter);
    return promise;
  }

  /**
   * Blocks until the value reaches `target`. On the main thread `timeoutMs` is required, since
   * nothing on a blocked main thread could ever set the signal there.
   */
  waitSync(target: bigint | number, options: Omit<TimelineWaitOptions, "signal"> = {}): void {
    const goal = toTimelineValue(target, "target");
    checkWaitOptions(options, "waitSync");
    const timeoutMs = toTimeoutMs(options.timeoutMs);
    if (Atomics.load(this.#value, 0) >= goal) return;
    if (timeoutMs === 0 && onMainThread()) {
      throw new RangeError(
        `waitSync(${goal}) on the main thread needs a timeoutMs > 0; the signal is at ${this.value}`,
      );
    }
    const deadline = performance.now() + timeoutMs;
    Atomics.add(this.#count, WAITING, 1);
    try {
      for (;;) {
        const current = Atomics.load(this.#value, 0);
        if (current >= goal) return;
        const left = timeoutMs === 0 ? Infinity : deadline - performance.now();
        if (left <= 0) throw timelineTimeout(goal, current, timeoutMs);
        Atomics.wait(this.#value, 0, current, left);
      }
    } finally {
      Atomics.sub(this.#count, WAITING, 1);
    }
  }

  /** The number of pending `wait` calls on this object (for tests and diagnostics). */
  get pendingWaits(): number {
    return this.#waiters.length;
  }

  #insert(waiter: Waiter): void {
    const list = this.#waiters;
    let low = 0;
    let high = list.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (list[mid].target <= waiter.target) low = mid + 1;
      else high = mid;
    }
    list.splice(low, 0, waiter);
    if (list.length === 1) {
      // First waiter: count this agent in BEFORE reading the value (see the module doc).
      holdThread();
      Atomics.add(this.#count, WAITING, 1);
    }
    this.#park();
  }

  /** Parks one `Atomics.waitAsync` on the current value unless one is parked on it already. */
  #park(): void {
    for (;;) {
      const current = Atomics.load(this.#value, 0);
      this.#settle(current);
      if (this.#waiters.length === 0 || this.#parkedOn === current) return;
      const result = Atomics.waitAsync(this.#value, 0, current);
      if (!result.async) continue; // the value moved meanwhile
      this.#parkedOn = current;
      result.value.then(() => {
        if (this.#parkedOn === current) this.#parkedOn = undefined;
        if (this.#waiters.length > 0) this.#park();
      });
      return;
    }
  }

  /** Resolves the waiters reached at `current`, in target order. */
  #settle(current: bigint): void {
    const list = this.#waiters;
    let reached = 0;
    while (reached < list.length && list[reached].target <= current) reached++;
    if (reached === 0) return;
    const done = list.splice(0, reached);
    if (list.length === 0) this.#idle();
    for (const waiter of done) {
      this.#release(waiter);
      waiter.resolve();
    }
  }

  #drop(waiter: Waiter): void {
    const at = this.#waiters.indexOf(waiter);
    if (at < 0) return;
    this.#waiters.splice(at, 1);
    this.#release(waiter);
    if (this.#waiters.length === 0) this.#idle();
  }

  #release(waiter: Waiter): void {
    clearTimeout(waiter.timer);
    waiter.abort?.signal.removeEventListener("abort", waiter.abort.listener);
  }

  /** No waiters left: stop counting this agent and let the process exit. */
  #idle(): void {
    Atomics.sub(this.#count, WAITING, 1);
    releaseThread();
  }
}
