/**
 * {@linkcode clearArray}: clears a reused array without giving up its storage (named apart from
 * a server's `empty`, which allocates device memory).
 *
 * V8 quirk: `list.length = 0` drops the array's backing store, so the next `push` allocates a new
 * one (about 150 bytes for a small array); popping the elements keeps it. Hot paths that refill
 * the same array on every launch clear it with this.
 *
 * @module
 */

/** Removes every element of `list`, keeping its capacity. */
export function clearArray(list: unknown[]): void {
  while (list.length > 0) list.pop();
}
