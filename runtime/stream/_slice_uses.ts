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

/** A slice's uses and writes: stream index to the cursor of its latest one. */
interface Uses {
  readonly uses: Map<number, number>;
  readonly writes: Map<number, number>;
}

/** Per slice, the latest cursor of each stream index's uses and writes. */
export class SliceUses {
  readonly #of = new WeakMap<SliceRecord, Uses>();

  /** Records a use of `record` by stream `index` at `cursor` (a write unless `read`). */
  record(record: SliceRecord, index: number, cursor: number, read: boolean): void {
    let entry = this.#of.get(record);
    if (entry === undefined) this.#of.set(record, entry = { uses: new Map(), writes: new Map() });
    entry.uses.set(index, cursor);
    if (!read) entry.writes.set(index, cursor);
  }

  /** What a new use must wait for: every use, or (for a read) every write; per stream index. */
  of(record: SliceRecord, read: boolean): ReadonlyMap<number, number> | undefined {
    const entry = this.#of.get(record);
    return entry === undefined ? undefined : read ? entry.writes : entry.uses;
  }
}

/** `waits` (made when `undefined`) with a wait on stream `other` for `record`, once. */
export function addWait(
  waits: Map<number, SliceRecord[]> | undefined,
  other: number,
  record: SliceRecord,
): Map<number, SliceRecord[]> {
  waits ??= new Map();
  const records = waits.get(other);
  if (records === undefined) waits.set(other, [record]);
  else if (!records.includes(record)) records.push(record);
  return waits;
}
