/**
 * Owning and non-owning references to a slice of managed memory.
 *
 * A {@linkcode SliceHandle} owns: the slice stays reserved while any handle to it is alive. A
 * {@linkcode SliceRef} only names the slice; the runtime pins the memory while the work that
 * uses the ref is queued or in flight. JavaScript has no `Drop`, so handles are released by
 * `dispose()` / `using`; a `FinalizationRegistry` returns forgotten handles as a safety net only.
 *
 * @module
 */

import { InvalidHandleError } from "../errors.ts";
import type { SliceRecord } from "./slice_record.ts";

// Safety net: a handle that is garbage-collected without dispose() still gives its slice back.
const forgotten = new FinalizationRegistry<SliceRecord>((record) => record.releaseOwner());

// Registering costs more than the rest of a pooled allocation, and most handles are disposed
// soon after they are created (temporaries). So a new handle waits here, strongly held, until the
// end of the current task (a microtask) or until MAX_WAITING handles wait; then the ones still
// alive are registered. A handle disposed while waiting is never registered: the last one created
// leaves at once, others are skipped. Invariant: a live handle is waiting or registered.
const MAX_WAITING = 1024;
const waiting: SliceHandle[] = [];
let scheduled = false;

function registerWaiting(): void {
  for (const handle of waiting) register(handle);
  waiting.length = 0;
}

function endOfTask(): void {
  scheduled = false;
  registerWaiting();
}

/** Called once `waiting` is full or no registration is scheduled yet (kept out of line). */
function scheduleRegistration(): void {
  if (waiting.length > MAX_WAITING) registerWaiting();
  if (!scheduled) {
    scheduled = true;
    queueMicrotask(endOfTask);
  }
}

/** Registers a handle with the safety net unless it was disposed (set by `SliceHandle`). */
let register: (handle: SliceHandle) => void;

/**
 * An owning reference to a slice. Clones share the slice and count as owners.
 *
 * @example
 * ```ts
 * import { SliceRecord, SliceHandle } from "@gpucompute/runtime/backend";
 * const slice = new SliceHandle(new SliceRecord());
 * const copy = slice.clone();
 * console.log(slice.canMut()); // false: two owners
 * copy.dispose();
 * console.log(slice.canMut()); // true
 * ```
 */
export class SliceHandle implements Disposable {
  #record: SliceRecord;
  #disposed = false;
  #registered = false;

  /** Takes over the one owner reference a fresh {@linkcode SliceRecord} starts with. */
  constructor(record: SliceRecord) {
    this.#record = record;
    waiting.push(this);
    if (!scheduled || waiting.length > MAX_WAITING) scheduleRegistration();
  }

  static {
    register = (handle) => {
      if (handle.#disposed || handle.#registered) return;
      handle.#registered = true;
      forgotten.register(handle, handle.#record, handle);
    };
  }

  /** The record of the slice (identity, owners, pins). */
  get record(): SliceRecord {
    return this.#record;
  }

  /** True after {@linkcode dispose}. */
  get disposed(): boolean {
    return this.#disposed;
  }

  /** A new owner of the same slice. Throws `INVALID_HANDLE` if this one was disposed. */
  clone(): SliceHandle {
    this.#assertLive();
    this.#record.retainOwner();
    return new SliceHandle(this.#record);
  }

  /** True when this is the only owner, so the slice may be written in place. */
  canMut(): boolean {
    return !this.#disposed && this.#record.owners === 1;
  }

  /** A non-owning ref to the slice. Throws `INVALID_HANDLE` if this one was disposed. */
  ref(): SliceRef {
    this.#assertLive();
    return new SliceRef(this.#record);
  }

  /** Gives up ownership; the slice returns to its pool once no owner or pin remains. Idempotent. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    if (this.#registered) forgotten.unregister(this);
    else if (waiting[waiting.length - 1] === this) waiting.pop();
    this.#record.releaseOwner();
  }

  /** Same as {@linkcode dispose}, for `using`. */
  [Symbol.dispose](): void {
    this.dispose();
  }

  #assertLive(): void {
    if (this.#disposed) {
      throw new InvalidHandleError(`Slice ${this.#record.value} was used after dispose()`);
    }
  }
}

/**
 * A non-owning reference to a slice, as kernels and copies receive it.
 *
 * @example
 * ```ts
 * import { SliceRecord, SliceHandle } from "@gpucompute/runtime/backend";
 * const ref = new SliceHandle(new SliceRecord()).ref();
 * console.log(ref.record.released); // false while the handle is alive
 * ```
 */
export class SliceRef {
  /** The record of the slice (identity, owners, pins). */
  readonly record: SliceRecord;

  /** Wraps a slice record without taking ownership. */
  constructor(record: SliceRecord) {
    this.record = record;
  }
}
