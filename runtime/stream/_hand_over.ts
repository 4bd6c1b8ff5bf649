/**
 * How the event multi-stream hands what an order leaves to its GC: the pins of memory of other
 * streams and the payloads of `OrderedStream.gc` are released once an event, recorded on the
 * order's stream after its work and waited on by the GC stream, completed. Payloads of a hand-over
 * whose flush threw are held for the stream's next GC task or `drain`.
 *
 * **Batched GC** (`MultiStreamOptions.batchGc`): per stream, the slices of other streams its
 * orders pinned since its last GC task form a batch. A slice the batch pins is not pinned again,
 * and the orders of a batch share one GC task (one event on the stream, a GC-stream wait, one
 * event on the GC stream), handed over when the batch pins {@linkcode MAX_BATCH_PINS} slices, when
 * an order hands payloads of its own, at the end of the synchronous run that opened it (a
 * microtask) and by `drain`. Safe because a batch's pins are released only after an event
 * recorded after the batch's last order; an order left open across the microtask keeps its
 * stream's batch until it finished.
 *
 * @module
 */

import type { SlicePin, SliceRecord } from "../core/handles/slice_record.ts";
import type { Logger } from "../core/logging.ts";
import type { GcPayload } from "./_gc_loop.ts";

/** Distinct slices one batch pins at most before it is handed over. */
export const MAX_BATCH_PINS = 64;

/** What the hand-over needs of its multi-stream. */
export interface HandOverOwner<E> {
  /** Flushes stream `index`, makes the GC stream wait on it and flushes the GC stream. */
  flushToGc(index: number): E;
  /** Registers a GC task. */
  register(index: number, event: E, payloads: GcPayload[]): void;
  /** Called before the end-of-run hand-over (`MultiStreamOptions.bind`). */
  bind(): void;
  /** The index of the stream of the open order, -1 when none is open. */
  openIndex(): number;
  readonly logger: Logger;
}

/** The held payloads and open batches per stream index, and their hand-over to the GC. */
export class HandOver<E> {
  readonly #owner: HandOverOwner<E>;
  /** Per stream index: payloads of a hand-over whose flush threw, and the open batch's pins. */
  readonly #held = new Map<number, GcPayload[]>();
  /** With batching, the slices each open batch pins. */
  readonly #pinned: Map<number, Set<SliceRecord>> | undefined;
  #scheduled = false;
  #closed = false;

  constructor(owner: HandOverOwner<E>, batch: boolean) {
    this.#owner = owner;
    this.#pinned = batch ? new Map() : undefined;
  }

  /**
   * Pins `record` for an order on stream `index`: into `pins` (the order's own GC task) without
   * batching; into the stream's batch with it, unless the batch pins it already.
   */
  pin(index: number, record: SliceRecord, pins: SlicePin[]): void {
    if (this.#pinned === undefined) {
      pins.push(record.pin());
      return;
    }
    let pinned = this.#pinned.get(index);
    if (pinned === undefined) this.#pinned.set(index, pinned = new Set());
    if (pinned.has(record)) return;
    pinned.add(record);
    const held = this.#held.get(index);
    if (held === undefined) this.#held.set(index, [record.pin()]);
    else held.push(record.pin());
  }

  /** After an order on stream `index` finished with `payloads`: hand over now, or batch. */
  finish(index: number, payloads: GcPayload[]): void {
    if (payloads.length > 0) this.handOver(index, payloads);
    else if (this.#pinned !== undefined && this.#held.has(index)) {
      if (this.#closed || this.#pinned.get(index)!.size >= MAX_BATCH_PINS) {
        this.handOver(index, []);
      } else this.#schedule();
    }
  }

  /** Flushes the stream and the GC stream, then registers the payloads (and held ones). */
  handOver(index: number, payloads: GcPayload[]): void {
    const held = this.#held.get(index);
    const all = held === undefined ? payloads : [...held, ...payloads];
    let event: E;
    try {
      event = this.#owner.flushToGc(index);
    } catch (error) {
      this.#held.set(index, all);
      throw error;
    }
    this.#held.delete(index);
    this.#pinned?.delete(index);
    this.#owner.register(index, event, all);
  }

  /**
   * Hands over everything held, and ends the batching: later orders hand over at `finish` (a
   * backend being destroyed calls it, so that no hand-over reaches a destroyed stream later).
   */
  close(): unknown[] {
    this.#closed = true;
    return this.handOverAll();
  }

  /**
   * Hands over everything held (but the open order's stream's, with `skipOpen`: its work is not
   * enqueued yet); returns the errors of the flushes that threw.
   */
  handOverAll(skipOpen = false): unknown[] {
    const errors: unknown[] = [];
    for (const index of [...this.#held.keys()]) {
      if (skipOpen && index === this.#owner.openIndex()) continue;
      try {
        this.handOver(index, []);
      } catch (error) {
        errors.push(error);
      }
    }
    return errors;
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    queueMicrotask(() => {
      this.#scheduled = false;
      if (this.#closed) return; // what `close` could not hand over waits for `drain`
      try {
        this.#owner.bind();
      } catch (error) {
        this.#owner.logger.warn("A batched GC hand-over could not bind: {error}", { error });
        return; // held for the next GC task of each stream or `drain`
      }
      for (const index of [...this.#held.keys()]) {
        if (index === this.#owner.openIndex()) continue; // its finish schedules again
        try {
          this.handOver(index, []);
        } catch (error) {
          // Held for the stream's next GC task or `drain`, which reports it.
          this.#owner.logger.warn(
            "A batched GC hand-over on stream index {index} failed: {error}",
            { index, error },
          );
        }
      }
    });
  }
}
