/**
 * The event multi-stream's record of which stream indices used each slice, and when (their
 * cursor): every use, and the writes apart (every use not marked read-only), so that a read waits
 * only for other streams' writes while a write waits for every use.
 *
 * @module
 */

import type { SliceRecord } from "../core/handles/slice_record.ts";

/** The empty list of read-only indices. */
export const NO_READS: readonly number[] = Object.freeze([]);

/** Per slice, the latest cursor of each stream index's uses and writes. */
export class SliceUses {
  readonly #uses = new WeakMap<SliceRecord, Map<number, number>>();
  readonly #writes = new WeakMap<SliceRecord, Map<number, number>>();

  /** Records a use of `record` by stream `index` at `cursor` (a write unless `read`). */
  record(record: SliceRecord, index: number, cursor: number, read: boolean): void {
    let uses = this.#uses.get(record);
    if (uses === undefined) this.#uses.set(record, uses = new Map());
    uses.set(index, cursor);
    if (read) return;
    let writes = this.#writes.get(record);
    if (writes === undefined) this.#writes.set(record, writes = new Map());
    writes.set(index, cursor);
  }

  /** What a new use must wait for: every use, or (for a read) every write. */
  of(record: SliceRecord, read: boolean): Iterable<[number, number]> {
    return (read ? this.#writes : this.#uses).get(record) ?? [];
  }
}
