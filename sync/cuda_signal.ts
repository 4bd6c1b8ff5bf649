/**
 * The CUDA timeline signal: the seed's `CudaTimelineSignal` (svod_device/sync.rs), a ring of 64
 * event slots. `record(v)` is called after work is submitted on the signal's stream: it records an
 * event into the next slot. `wait(target)` finds the smallest recorded value at or above the
 * target and waits for its event; stream order makes every earlier record complete by then.
 *
 * Events come from an injected {@linkcode CudaSignalEvents} (the CUDA server provides one for a
 * stream: `CudaServer.timelineSignal`), so this layer imports no driver code.
 *
 * Deliberate differences from the seed:
 *
 * 1. **`value` is what completed, not what was recorded.** The seed raises `value` in `record`,
 *    so its `wait` fast path returns before the device reached the target. Here `record` raises
 *    {@linkcode CudaTimelineSignal.recorded}; `value` rises when an event is seen complete (or by
 *    `set`, the seed's host-side fallback), so `isReached` means the device got there.
 * 2. **Overwritten slots are recycled, not freed under a waiter.** Rust kept an evicted event
 *    alive through its `Arc`; here a slot counts its waiters, and an event still awaited moves
 *    out of the ring and is destroyed when its last waiter is done.
 * 3. The seed's race (the slot for the target overwritten by a wrapping `record` between the fast
 *    path and the lookup) is handled the same way: the smallest newer slot is waited on instead,
 *    and with no slot at all the wait sleeps until a `record` or `set` (or its deadline).
 * 4. **Waits do not poll** where the events wait on the host ({@linkcode CudaSignalEvents.waitHost},
 *    which the CUDA server's events do with a parked non-blocking `cuEventSynchronize`): a wait
 *    sleeps until its slot's event completed, a `record` or `set`, its deadline, its abort, or
 *    `destroy` (which ends it with `DESTROYED`). Events without `waitHost` are polled.
 *
 * @module
 */

import { DestroyedError, TimeoutError, UnsupportedError } from "../runtime/core/errors.ts";
import type { TimelineSignal } from "./timeline_signal.ts";
import { checkWaitOptions, MAX_TIMER_MS, toTimelineValue, toTimeoutMs } from "./_checks.ts";
import type { CudaSignalEvents, CudaSignalWaitOptions } from "./cuda_signal_events.ts";

export type { CudaSignalEvents, CudaSignalWaitOptions } from "./cuda_signal_events.ts";

interface Slot<E> {
  value: bigint;
  readonly event: E;
  waiters: number;
  evicted: boolean;
  /** The host wait on the event, shared by the slot's waiters (it counts as one waiter). */
  parked?: Promise<void>;
}

/**
 * Slots in the ring (the seed's `EVENT_RING_SIZE`): well above typical in-flight depth.
 *
 * @example
 * ```ts
 * import { CUDA_SIGNAL_RING_SIZE } from "@gpucompute/runtime/cuda";
 * console.log(CUDA_SIGNAL_RING_SIZE); // 64
 * ```
 */
export const CUDA_SIGNAL_RING_SIZE = 64;

const nap = new Int32Array(new SharedArrayBuffer(4));

/**
 * A timeline signal on a CUDA stream. See the module documentation.
 *
 * @example
 * ```ts ignore
 * import { CudaServer } from "@gpucompute/runtime/cuda";
 * using server = CudaServer.create();
 * using signal = server.timelineSignal(0);
 * // ... enqueue work on stream 0 ...
 * signal.record(1);
 * await signal.wait(1, { timeoutMs: 5_000 });
 * console.log(signal.value); // 1n
 * ```
 */
export class CudaTimelineSignal<E> implements TimelineSignal, Disposable {
  readonly #events: CudaSignalEvents<E>;
  readonly #ring: (Slot<E> | undefined)[] = new Array(CUDA_SIGNAL_RING_SIZE);
  #next = 0;
  #value = 0n;
  #recorded = 0n;
  #destroyed = false;
  /** Waits asleep until something changes (a record, a set, destroy). */
  readonly #wakers = new Set<() => void>();

  /** Creates a signal at 0 over the events of one stream. */
  constructor(events: CudaSignalEvents<E>) {
    this.#events = events;
  }

  /** The highest value known complete on the device (or `set` on the host). */
  get value(): bigint {
    this.#refresh();
    return this.#value;
  }

  /** The highest value recorded so far (submitted, maybe not complete). */
  get recorded(): bigint {
    return this.#recorded;
  }

  /** Raises the value on the host (the seed's fallback); a lower value changes nothing. */
  set(value: bigint | number): void {
    const v = toValue(value);
    if (v > this.#value) this.#value = v;
    this.#wake();
  }

  /**
   * Records `value` after the work submitted so far on the stream, in the next ring slot.
   * `RangeError` for a value not above {@linkcode recorded}: once an earlier record completed it
   * would count as reached before its own work (values reached are never taken back).
   */
  record(value: bigint | number): void {
    this.#assertLive();
    const v = toValue(value);
    if (v <= this.#recorded) {
      throw new RangeError(
        `value must be above the last value recorded (${this.#recorded}), got ${v}: a timeline ` +
          `only rises, and a lower or equal value would count as reached before its own work`,
      );
    }
    const index = this.#next;
    this.#next = (index + 1) % CUDA_SIGNAL_RING_SIZE;
    const old = this.#ring[index];
    let event: E;
    if (old === undefined || old.waiters > 0) {
      if (old !== undefined) old.evicted = true; // its last waiter destroys it
      event = this.#events.create();
    } else {
      event = old.event;
    }
    this.#events.record(event);
    this.#ring[index] = { value: v, event, waiters: 0, evicted: false };
    if (v > this.#recorded) this.#recorded = v;
    this.#wake();
  }

  /** Whether the device (or `set`) reached `target`, without waiting. */
  isReached(target: bigint | number): boolean {
    return this.value >= toValue(target);
  }

  /**
   * The event of the smallest value recorded at or above `target` (stream order makes it complete
   * after every earlier record), for a wait on the device: `cuStreamWaitEvent` captures the
   * event's record when it is called, so use the event at once. `undefined` when nothing that far
   * has been recorded, or after {@linkcode destroy}.
   */
  eventFor(target: bigint | number): E | undefined {
    return this.#slotFor(toValue(target))?.event;
  }

  /**
   * Resolves once `target` is reached; `TIMEOUT` after `timeoutMs`, the abort reason, or
   * `DESTROYED` once the signal is destroyed first. Sleeps between checks (module doc, 4).
   */
  async wait(target: bigint | number, options: CudaSignalWaitOptions = {}): Promise<void> {
    const goal = toValue(target);
    checkWaitOptions(options, "wait");
    const deadline = deadlineOf(options.timeoutMs);
    for (let polls = 0;; polls++) {
      options.signal?.throwIfAborted(); // first: an aborted wait rejects, reached or not
      if (this.#poll(goal)) return;
      this.#assertLive();
      this.#checkDeadline(goal, deadline, options.timeoutMs);
      await this.#change(goal, deadline, options.signal, polls);
    }
  }

  /**
   * Blocks until `target` is reached; `TIMEOUT` after `timeoutMs`. A recorded target is one
   * blocking wait on its event: `synchronize` without a timeout, `synchronizeWithin` with one
   * (where the events have them: no polling; events without them are checked between 50 µs
   * naps). A target not recorded yet is refused at once with `UNSUPPORTED`: only this thread
   * records or sets the signal, so the wait could only time out (or, without a timeout, hang).
   */
  waitSync(target: bigint | number, options: Omit<CudaSignalWaitOptions, "signal"> = {}): void {
    const goal = toValue(target);
    checkWaitOptions(options, "waitSync");
    const deadline = deadlineOf(options.timeoutMs);
    this.#synchronize(goal, deadline);
    while (!this.#poll(goal)) {
      this.#assertLive();
      if (this.#slotFor(goal) === undefined) {
        throw new UnsupportedError(
          `Cannot block for CUDA timeline value ${goal}: nothing at or above it is recorded (the ` +
            `signal is at ${this.#value}, recorded ${this.#recorded}), and only this thread can ` +
            `record or set it; record(${goal}) after the work first, or await wait(${goal})`,
        );
      }
      this.#checkDeadline(goal, deadline, options.timeoutMs);
      Atomics.wait(nap, 0, 0, 0.05);
    }
  }

  /** Destroys the ring's events (those still awaited once their waiters are done). Idempotent. */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    for (const slot of this.#ring) {
      if (slot === undefined) continue;
      if (slot.waiters > 0) slot.evicted = true;
      else this.#events.destroy(slot.event);
    }
    this.#ring.fill(undefined);
    this.#wake(); // pending waits end with DESTROYED
  }

  /** Same as {@linkcode destroy}. */
  [Symbol.dispose](): void {
    this.destroy();
  }

  /**
   * Blocks on the event of `goal`'s slot until `deadline`, where there is one and the events can.
   */
  #synchronize(goal: bigint, deadline: number): void {
    if (this.#value >= goal) return;
    const events = this.#events;
    const unlimited = deadline === Infinity;
    if (unlimited ? events.synchronize === undefined : events.synchronizeWithin === undefined) {
      return;
    }
    const slot = this.#slotFor(goal);
    if (slot === undefined) return;
    slot.waiters++;
    try {
      const complete = unlimited
        ? (events.synchronize!(slot.event), true)
        : events.synchronizeWithin!(slot.event, Math.max(0, deadline - performance.now()));
      if (complete && slot.value > this.#value) this.#value = slot.value;
    } finally {
      if (--slot.waiters === 0 && slot.evicted) this.#events.destroy(slot.event);
    }
  }

  /** One step of a wait: true once `goal` is reached. */
  #poll(goal: bigint): boolean {
    if (this.#value >= goal) return true;
    const best = this.#slotFor(goal);
    if (best === undefined) return this.value >= goal; // nothing recorded that far yet
    best.waiters++;
    try {
      if (!this.#events.query(best.event)) return false;
      if (best.value > this.#value) this.#value = best.value;
      return true;
    } finally {
      if (--best.waiters === 0 && best.evicted) this.#events.destroy(best.event);
    }
  }

  /**
   * Resolves when a wait for `goal` should look again: its slot's host wait settled, a record, a
   * set or destroy, the deadline or the abort; a poll's delay only for events without `waitHost`.
   */
  #change(goal: bigint, deadline: number, abort: AbortSignal | undefined, polls: number) {
    return new Promise<void>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const wake = () => {
        this.#wakers.delete(wake);
        clearTimeout(timer);
        abort?.removeEventListener("abort", wake);
        resolve();
      };
      this.#wakers.add(wake);
      abort?.addEventListener("abort", wake, { once: true });
      let delay = deadline - performance.now(); // Infinity without a deadline
      const slot = this.#slotFor(goal);
      if (slot !== undefined && this.#events.waitHost !== undefined) {
        this.#park(slot, deadline).then(wake);
      } else if (slot !== undefined) {
        delay = Math.min(delay, polls < 8 ? 0 : 1);
      }
      if (delay !== Infinity) timer = setTimeout(wake, Math.min(Math.max(0, delay), MAX_TIMER_MS));
    });
  }

  /** The slot's host wait (made once, shared); resolves when it settled, whatever the outcome. */
  #park(slot: Slot<E>, deadline: number): Promise<void> {
    if (slot.parked === undefined) {
      slot.waiters++;
      const limit = deadline === Infinity
        ? 0
        : Math.min(Math.max(1, Math.ceil(deadline - performance.now())), MAX_TIMER_MS);
      const release = () => {
        if (--slot.waiters === 0 && slot.evicted) this.#events.destroy(slot.event);
      };
      // Its outcome is read by the next check (`#poll` queries, the deadline, `DESTROYED`).
      slot.parked = this.#events.waitHost!(slot.event, limit, release)
        .catch(() => {})
        .finally(() => slot.parked = undefined);
    }
    return slot.parked;
  }

  #wake(): void {
    for (const wake of [...this.#wakers]) wake();
  }

  /** The smallest recorded value at or above `goal`: stream order makes it sufficient. */
  #slotFor(goal: bigint): Slot<E> | undefined {
    let best: Slot<E> | undefined;
    for (const slot of this.#ring) {
      if (slot !== undefined && slot.value >= goal && (!best || slot.value < best.value)) {
        best = slot;
      }
    }
    return best;
  }

  /** Raises `value` to the highest slot seen complete. */
  #refresh(): void {
    for (const slot of this.#ring) {
      if (slot === undefined || slot.value <= this.#value || this.#destroyed) continue;
      if (this.#events.query(slot.event)) this.#value = slot.value;
    }
  }

  #checkDeadline(goal: bigint, deadline: number, timeoutMs: number | undefined): void {
    if (performance.now() < deadline) return;
    throw new TimeoutError(
      `CUDA timeline value ${goal}`,
      timeoutMs ?? 0,
      `the signal is at ${this.#value} (recorded ${this.#recorded})`,
    );
  }

  #assertLive(): void {
    if (this.#destroyed) throw new DestroyedError("The CUDA timeline signal was destroyed");
  }
}

function toValue(value: unknown): bigint {
  return toTimelineValue(value, "A timeline value");
}

function deadlineOf(timeoutMs: unknown): number {
  const limit = toTimeoutMs(timeoutMs);
  return limit === 0 ? Infinity : performance.now() + limit;
}
