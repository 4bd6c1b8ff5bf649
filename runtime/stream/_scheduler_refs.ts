/**
 * The scheduler's helpers over refs and errors (`scheduler.ts`): the checks of `register`, which
 * refs a task writes, releasing pins, throwing the errors of backend calls as one.
 *
 * @module
 */

import { describe } from "../core/_argument_checks.ts";
import { clearArray } from "../core/_clear_array.ts";
import type { HandleRef } from "../core/handles/handle.ts";
import type { SliceRecord } from "../core/handles/slice_record.ts";
import { errorList, joinErrors } from "../core/_join_errors.ts";
import { assertStreamId } from "../core/stream_id.ts";

/** Throws `errors` as one (see `core/_join_errors.ts`), if any. */
export function throwAll(errors: readonly unknown[]): void {
  if (errors.length === 0) return;
  const count = errors.flatMap(errorList).length;
  const error = joinErrors(errors, `${count} scheduler backend calls failed`);
  if (error !== undefined) throw error;
}

/** The refs a task only reads, or `undefined` when it may write every one. */
export function readList(reads: Iterable<HandleRef> | undefined): readonly HandleRef[] | undefined {
  if (reads === undefined) return undefined;
  const list = Array.isArray(reads) ? reads : [...reads];
  return list.length === 0 ? undefined : list;
}

/**
 * True when the task writes `record`: it binds that memory more often than it reads it. Counted,
 * not matched by identity: a handle hands out one cached `HandleRef`, so a kernel that binds one
 * handle twice (read-only and writable) lists the same object twice and reads it once.
 */
export function writes(
  list: readonly HandleRef[],
  reads: readonly HandleRef[],
  record: SliceRecord,
): boolean {
  let uses = 0;
  for (let i = 0; i < list.length; i++) if (list[i].slice.record === record) uses++;
  for (let i = 0; i < reads.length; i++) if (reads[i].slice.record === record) uses--;
  return uses > 0;
}

/** Validates refs before any state changes (an array is used as is, not copied). */
export function checkRefs(refs: Iterable<HandleRef>): readonly HandleRef[] {
  if (refs === null || typeof refs !== "object" || !(Symbol.iterator in refs)) {
    throw new TypeError(`refs must be an iterable of HandleRef, got ${describe(refs)}`);
  }
  const list = Array.isArray(refs) ? refs : [...refs];
  for (let i = 0; i < list.length; i++) {
    const ref = list[i];
    if (typeof ref?.assertLive !== "function") {
      throw new TypeError(`refs[${i}] must be a HandleRef, got ${describe(ref)}`);
    }
    ref.assertLive();
    assertStreamId(ref.stream);
  }
  return list;
}

/** Releases the pins of submitted (or dropped) tasks, once: the list is emptied. */
export function releasePins(pinned: SliceRecord[]): void {
  for (let i = 0; i < pinned.length; i++) pinned[i].unpin();
  clearArray(pinned); // keeps its storage: the array is queued into again (see executeStreams)
}
