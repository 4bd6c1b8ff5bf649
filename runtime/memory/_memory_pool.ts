/**
 * What the memory manager needs from a pool, and the page allocation shared by the pools.
 *
 * @module
 */

import type { Logger } from "../core/logging.ts";
import { OutOfMemoryError } from "../core/errors.ts";
import { formatBytes } from "../core/format_bytes.ts";
import type { SliceRecord } from "../core/handles/slice_record.ts";
import type { MemoryUsage } from "./memory_usage.ts";
import type { SliceHandle } from "../core/handles/slice.ts";
import type { ComputeStorage, StorageHandle } from "./storage.ts";

/** A pool of pages split into slices. */
export interface MemoryPool {
  /** Reserves `size` bytes from a free slice, or from a new page; throws `OUT_OF_MEMORY`. */
  reserve(size: number): SliceHandle;
  /** Where a live slice of this pool sits, or `undefined` if it is not one. */
  get(memory: SliceRecord): StorageHandle | undefined;
  /** Exact usage figures of this pool. */
  usage(): MemoryUsage;
  /** Frees pages with no live slice: all of them if `explicit`, else only idle ones. */
  cleanup(explicit: boolean): void;
  /** Frees every page; later releases of outstanding slices do nothing. */
  destroy(): void;
}

/** What a pool shares with its manager. */
export interface PoolContext {
  /** The page allocator. */
  readonly storage: ComputeStorage<unknown>;
  /** The `memory` logger. */
  readonly log: Logger;
  /** The manager's reservation counter: pools stamp pages with it to find idle ones. */
  readonly clock: () => number;
  /** Pages free and unstamped for this many reservations are idle (automatic cleanup). */
  readonly deallocPeriod: number;
}

/** `value` rounded up to a multiple of `alignment`. */
export function alignUp(value: number, alignment: number): number {
  const rest = value % alignment;
  return rest === 0 ? value : value + alignment - rest;
}

/**
 * Allocates a page, turning any storage failure into an `OutOfMemoryError` that names the pool
 * and the size asked for (the storage's own error is kept as `cause`).
 */
export function allocPage(context: PoolContext, size: number, pool: string): number {
  let page: number;
  try {
    page = context.storage.alloc(size);
  } catch (cause) {
    throw new OutOfMemoryError(
      `Cannot allocate a page of ${formatBytes(size)} for the ${pool} pool: ` +
        (cause instanceof Error ? cause.message : String(cause)),
      { cause },
    );
  }
  context.log.info("Allocated page {page} of {bytes} for the {pool} pool", () => ({
    page,
    bytes: formatBytes(size),
    size,
    pool,
  }));
  return page;
}

/** Returns a page to storage and logs it. */
export function deallocPage(context: PoolContext, page: number, size: number, pool: string): void {
  context.storage.dealloc(page);
  context.log.info("Freed page {page} of {bytes} from the {pool} pool", () => ({
    page,
    bytes: formatBytes(size),
    size,
    pool,
  }));
}
