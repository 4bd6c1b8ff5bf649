/**
 * Memory that a failed call left undefined for good: a new handle's upload, or a copy into one,
 * held by a `waitFor` (or a copy from another client) that failed, never ran. The calls held on
 * it at the time fail with that failure (`_held_streams.ts`); {@linkcode LostMemory} makes every
 * later use fail with it too, on any stream: a read would give bytes never written (what the pool
 * held before: another handle's data). A write of all of the memory defines it again.
 *
 * @module
 */

/** The memory (slice records) left undefined, with the failure that did it. */
export class LostMemory {
  /** Keyed weakly: a released handle's record goes with it. */
  readonly #lost = new WeakMap<object, unknown>();
  /** Whether anything was ever lost: the one check on the calls' fast paths. */
  any = false;

  /** `keys` hold no defined value: `error` failed the calls that would have defined them. */
  lose(keys: readonly object[], error: unknown): void {
    for (const key of keys) this.#lost.set(key, error);
    this.any = true;
  }

  /** `key` is defined again (a write of all of it). */
  found(key: object): void {
    this.#lost.delete(key);
  }

  /** Throws the failure that left `key` undefined, if it was. */
  check(key: object): void {
    if (!this.any) return;
    if (this.#lost.has(key)) throw this.#lost.get(key);
  }
}
