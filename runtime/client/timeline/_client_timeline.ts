/**
 * The timeline of a client (`client.timeline`): a {@linkcode CpuTimelineSignal} that its client
 * fails when a mark will never be reached, and closes when it is destroyed. Waits never hang on a
 * producer that failed:
 *
 * - **A failed mark** (its stream's wait failed or timed out, its work faulted, its event failed):
 *   the timeline is broken from that value on. Every wait for it or a later value, pending or
 *   made later, rejects (`waitSync` throws at once) with an `AbortedError` naming the producer,
 *   the value and the cause; the timeline never rises to it (later marks would claim work that
 *   did not run). Values reached before stay reached.
 * - **A destroyed client** never reaches the values it marked and did not reach yet: every wait
 *   for such a value rejects with a `DestroyedError` naming the producer and the value.
 * - **A blocking wait for the client's own mark**, not reached yet, is refused at once
 *   (`UNSUPPORTED`, as `WebGpuTimelineSignal` refuses it): the client sets it from its thread's
 *   event loop, which `waitSync` stops, so the wait could only time out. Workers block on
 *   `new CpuTimelineSignal(timeline.buffer)`.
 *
 * Copies rebuilt from `buffer` in other Workers are plain CPU signals, neither failed nor closed.
 *
 * @module
 */

import { CpuTimelineSignal } from "../../../sync/cpu_signal.ts";
import type { TimelineWaitOptions } from "../../../sync/timeline_signal.ts";
import { checkWaitOptions, toTimelineValue, toTimeoutMs } from "../../../sync/_checks.ts";
import { AbortedError, DestroyedError, UnsupportedError } from "../../core/errors.ts";

interface Waiter {
  readonly target: bigint;
  readonly abort: AbortController;
}

/** A client's timeline; see the module doc. */
export class ClientTimeline extends CpuTimelineSignal {
  readonly #producer: string;
  readonly #waiters = new Set<Waiter>();
  /** The lowest failed value and its cause. */
  #fault: { readonly value: bigint; readonly cause: unknown } | undefined;
  #closed: { readonly cause: unknown } | undefined;
  /** The highest value the client marked (set from this thread's event loop). */
  #marked = 0n;
  /** Values that wait for a verdict besides their work ({@linkcode gate}), not settled yet. */
  readonly #gates = new Set<{ readonly value: bigint }>();
  /** The highest value set while a gate held it back. */
  #deferred = 0n;

  /** A timeline whose errors name `producer` (e.g. `client 2 (cuda, "sim device 1")`). */
  constructor(producer: string) {
    super();
    this.#producer = producer;
  }

  /** Notes a value the client marked (`signal`). */
  marked(value: bigint): void {
    if (value > this.#marked) this.#marked = value;
  }

  /** Fails `value` and every later value (see the module doc); reached values are kept. */
  fail(value: bigint, cause: unknown): void {
    if (this.isReached(value)) return;
    if (this.#fault !== undefined && this.#fault.value <= value) return;
    this.#fault = { value, cause };
    for (const waiter of this.#waiters) {
      if (waiter.target >= value) waiter.abort.abort(this.#error(waiter.target, cause));
    }
  }

  /** Rejects pending and later waits for unreached values with `DESTROYED`. Idempotent. */
  close(cause: unknown): void {
    if (this.#closed !== undefined) return;
    this.#closed = { cause };
    for (const waiter of this.#waiters) {
      waiter.abort.abort(this.#error(waiter.target, cause, true));
    }
  }

  /**
   * Holds `value` and later values back until `verdict` settles, whatever their work does (the
   * work ran behind another client's device work whose fate is not known yet): reached once it
   * resolves and the work is done, failed from `value` on if it rejects.
   */
  gate(value: bigint, verdict: Promise<unknown>): void {
    const gate = { value };
    this.#gates.add(gate);
    verdict.then(() => {
      this.#gates.delete(gate);
      if (this.#deferred >= value) this.set(this.#deferred);
    }, (cause) => {
      this.#gates.delete(gate);
      this.fail(value, cause);
    });
  }

  /**
   * As {@linkcode CpuTimelineSignal.set}; a value at or past a failed one is not reached, one at
   * or past a gate only once the gate opened.
   */
  override set(value: bigint | number): void {
    let goal = toTimelineValue(value, "value");
    if (this.#fault !== undefined && goal >= this.#fault.value) return;
    for (const gate of this.#gates) {
      if (goal < gate.value) continue;
      if (goal > this.#deferred) this.#deferred = goal;
      goal = gate.value - 1n; // marks complete in order: the values below the gate are reached
    }
    if (goal > this.value) super.set(goal);
  }

  /** As {@linkcode CpuTimelineSignal.wait}; rejects for a failed value or a closed timeline. */
  override wait(target: bigint | number, options: TimelineWaitOptions = {}): Promise<void> {
    const goal = toTimelineValue(target, "target");
    checkWaitOptions(options, "wait");
    toTimeoutMs(options.timeoutMs);
    // Reached: the CPU signal's answer (an aborted `options.signal` rejects, as there).
    if (this.isReached(goal)) return super.wait(goal, options);
    const never = this.#never(goal);
    if (never !== undefined) return Promise.reject(never);
    const waiter = { target: goal, abort: new AbortController() };
    this.#waiters.add(waiter);
    const signal = options.signal === undefined
      ? waiter.abort.signal
      : AbortSignal.any([options.signal, waiter.abort.signal]);
    return super.wait(goal, { ...options, signal }).finally(() => this.#waiters.delete(waiter));
  }

  /**
   * As {@linkcode CpuTimelineSignal.waitSync}; throws at once for a failed value or a closed
   * timeline, as `wait` rejects (not `TIMEOUT` once the whole timeout was spent blocked).
   */
  override waitSync(
    target: bigint | number,
    options: Omit<TimelineWaitOptions, "signal"> = {},
  ): void {
    const goal = toTimelineValue(target, "target");
    checkWaitOptions(options, "waitSync");
    toTimeoutMs(options.timeoutMs);
    if (this.isReached(goal)) return;
    const never = this.#never(goal);
    if (never !== undefined) throw never;
    if (goal <= this.#marked) {
      throw new UnsupportedError(
        `Cannot block for timeline value ${goal} of ${this.#producer} on its own thread: the ` +
          `client sets it from this thread's event loop, which waitSync stops (the timeline is ` +
          `at ${this.value}); await wait(${goal}), or block in a Worker`,
      );
    }
    super.waitSync(goal, options);
  }

  /** Why `goal` (not reached) never will be: a failed value at or below it, or the close. */
  #never(goal: bigint): Error | undefined {
    if (this.#fault !== undefined && goal >= this.#fault.value) {
      return this.#error(goal, this.#fault.cause);
    }
    if (this.#closed !== undefined) return this.#error(goal, this.#closed.cause, true);
    return undefined;
  }

  /** The error of a wait for `target` (`destroyed`: by `close`, or a server destroyed). */
  #error(target: bigint, cause: unknown, destroyed = cause instanceof DestroyedError): Error {
    const what = `Timeline value ${target} of ${this.#producer} will never be reached`;
    if (destroyed) return new DestroyedError(`${what}: it was destroyed`, { cause });
    const reason = cause instanceof Error ? cause.message : String(cause);
    return new AbortedError(`${what}: ${reason}`, { cause });
  }
}
