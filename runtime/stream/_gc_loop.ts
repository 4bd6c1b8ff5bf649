/**
 * The garbage-collection loop of the event multi-stream: the port of CubeCL's GC thread.
 *
 * JavaScript has no thread to park on an event, so the loop is a promise chain: every task waits
 * (on the host) for its event, in registration order, then releases what it holds. A failed wait
 * still releases the task's pins (the work behind a failed event will never touch the memory
 * again) and keeps the error for {@linkcode GcLoop.drain} to report, so nothing is left unhandled.
 *
 * @module
 */

import type { MemoryPin } from "../core/managed_memory.ts";

/** Waits on the host for an event; rejects with a typed error when the event failed. */
export type HostWait<E> = (event: E) => Promise<void>;

/** @internal A promise chain that releases pins once their event completed. */
export class GcLoop<E> {
  readonly #wait: HostWait<E>;
  #tail: Promise<void> = Promise.resolve();
  #errors: unknown[] = [];
  #pending = 0;

  constructor(wait: HostWait<E>) {
    this.#wait = wait;
  }

  /** Tasks registered and not yet processed. */
  get pending(): number {
    return this.#pending;
  }

  /** Queues `pins` to be released after `event` completed (and after every earlier task). */
  register(event: E, pins: MemoryPin[]): void {
    this.#pending++;
    this.#tail = this.#tail.then(async () => {
      try {
        await this.#wait(event);
      } catch (error) {
        this.#errors.push(error);
      } finally {
        for (const pin of pins) pin.release();
        this.#pending--;
      }
    });
  }

  /**
   * Resolves once every task registered so far was processed; rejects with the failure of a host
   * wait since the last drain (an `AggregateError` when several failed).
   */
  async drain(): Promise<void> {
    await this.#tail;
    const errors = this.#errors;
    if (errors.length === 0) return;
    this.#errors = [];
    if (errors.length === 1) throw errors[0];
    throw new AggregateError(errors, `${errors.length} GC event waits failed`);
  }
}
