/**
 * {@linkcode SliceRecord}: the identity and reference counts of one reserved slice of managed
 * memory, and {@linkcode SlicePin}, a pin on it.
 *
 * Invariant: a slice is returned to its pool exactly once, when its last owner is disposed and
 * its last pin is released. Ids are never reused, so a stale ref whose memory was released
 * is always detected (`released` stays true) instead of aliasing a later reservation.
 *
 * - **Owners** are {@linkcode SliceHandle}s (user-visible handles and their clones).
 * - **Pins** are held by the runtime while work that uses the slice is queued or in flight.
 *
 * @module
 */

import { InvalidHandleError } from "../errors.ts";

let nextId = 0;

/**
 * The record of the slice behind a handle: a unique id plus owner and pin counts (CubeCL's
 * `ManagedMemoryId`, whose counts live in its `Arc`). Pools create one per reservation and are
 * told through `onRelease` when it can be reused.
 *
 * @example
 * ```ts
 * import { SliceRecord } from "@gpucompute/runtime/backend";
 * const record = new SliceRecord(() => console.log("slice free"));
 * const pin = record.pin();
 * record.releaseOwner(); // owner gone, but the pin keeps it alive
 * pin.release(); // prints "slice free"
 * ```
 */
export class SliceRecord {
  /** Unique value, never reused within a process. */
  readonly value: number = nextId++;
  #owners = 1;
  #pins = 0;
  #onRelease: ((record: SliceRecord) => void) | undefined;
  /**
   * The creator's record of the slice (a pool keeps where it sits here, so that finding it needs
   * no map lookup); opaque to everyone else.
   */
  readonly tag: unknown;

  /**
   * Creates the record with one owner; `onRelease` runs once when no owner and no pin remain. `tag`
   * is kept for the creator (see {@linkcode tag}).
   */
  constructor(onRelease?: (record: SliceRecord) => void, tag?: unknown) {
    this.#onRelease = onRelease;
    this.tag = tag;
  }

  /** Number of live owners (handles). */
  get owners(): number {
    return this.#owners;
  }

  /** Number of live pins (queued or in-flight work). */
  get pins(): number {
    return this.#pins;
  }

  /** True once the slice went back to its pool; any later use is an error. */
  get released(): boolean {
    return this.#owners === 0 && this.#pins === 0;
  }

  /**
   * True once every owner (handle) was disposed: the memory may still be pinned by work in
   * flight, but no caller may use it any more.
   */
  get disposed(): boolean {
    return this.#owners === 0;
  }

  /** Adds an owner. Throws `INVALID_HANDLE` if every owner was already disposed. */
  retainOwner(): void {
    this.assertLive();
    this.#owners++;
  }

  /** Drops an owner; the caller guarantees it held one. */
  releaseOwner(): void {
    if (this.#owners === 0) throw new Error("Internal error: owner released twice");
    this.#owners--;
    this.#maybeRelease();
  }

  /**
   * Pins the memory until the returned pin is released (idempotently). Throws `INVALID_HANDLE`
   * if the memory went back to its pool. The runtime may pin memory whose owners are all gone
   * but that is still pinned (work in flight); new work must check {@linkcode assertLive} first.
   */
  pin(): SlicePin {
    if (this.released) {
      throw new InvalidHandleError(
        `Memory ${this.value} was released to its pool; it can no longer be pinned`,
      );
    }
    this.#pins++;
    return new SlicePin(this);
  }

  /**
   * Pins the memory like {@linkcode pin}, without a pin object: the caller releases it with
   * exactly one {@linkcode unpin} (the scheduler's hot path, which allocates nothing per task).
   */
  retainPin(): void {
    if (this.#owners === 0 && this.#pins === 0) { // `released`, without the getter's call
      throw new InvalidHandleError(
        `Memory ${this.value} was released to its pool; it can no longer be pinned`,
      );
    }
    this.#pins++;
  }

  /**
   * Throws `INVALID_HANDLE` once every owner was disposed, whether or not work in flight still
   * pins the memory: a use after dispose fails always, not depending on when that work completes.
   */
  assertLive(): void {
    if (this.#owners === 0) {
      throw new InvalidHandleError(
        `Memory ${this.value} was released (its handle was disposed); it can no longer be used`,
      );
    }
  }

  /** Releases one pin taken by {@linkcode retainPin} (or, internally, by a {@linkcode SlicePin}). */
  unpin(): void {
    if (this.#pins === 0) throw new Error("Internal error: pin released twice");
    // Pins or owners left (the common case) return without a call: this runs once per task.
    if (--this.#pins > 0 || this.#owners > 0) return;
    this.#maybeRelease();
  }

  #maybeRelease(): void {
    if (!this.released) return;
    const callback = this.#onRelease;
    this.#onRelease = undefined;
    callback?.(this);
  }
}

/**
 * A pin on managed memory: keeps the slice from being reused while work is queued or in flight.
 *
 * @example
 * ```ts
 * import { SliceRecord } from "@gpucompute/runtime/backend";
 * const record = new SliceRecord();
 * {
 *   using _pin = record.pin();
 * } // released here
 * console.log(record.pins); // 0
 * ```
 */
export class SlicePin implements Disposable {
  #record: SliceRecord | undefined;

  /** @internal Use {@linkcode SliceRecord.pin}. */
  constructor(record: SliceRecord) {
    this.#record = record;
  }

  /** The pinned slice's record (`undefined` once released). */
  get record(): SliceRecord | undefined {
    return this.#record;
  }

  /** Releases the pin; calling it again does nothing. */
  release(): void {
    const record = this.#record;
    this.#record = undefined;
    record?.unpin();
  }

  /** Same as {@linkcode release}. */
  [Symbol.dispose](): void {
    this.release();
  }
}
