/**
 * The sliced pool: fixed-size pages split into slices, for small and medium reservations.
 *
 * Invariants of a page:
 * - its slots (used or free) tile it exactly, in offset order, through a doubly linked list;
 * - slot offsets and sizes are multiples of the storage alignment (a slot is the asked size
 *   rounded up to it; the difference is the slice's padding);
 * - no two free slots are neighbours: a released slot merges with free neighbours at once;
 * - `free` lists the free slots sorted by offset, and `freeBytes` is the sum of their sizes.
 *
 * Reserve is address-ordered first fit: pages in allocation order, and within a page the free
 * list, skipping pages whose `freeBytes` cannot hold the request. Only free slots are scanned,
 * never used ones. Release is O(log n) (a binary search in the page's free list).
 *
 * @module
 */

import { formatBytes } from "../core/format_bytes.ts";
import {
  alignUp,
  allocPage,
  deallocPage,
  type MemoryPool,
  type PoolContext,
} from "./_memory_pool.ts";
import { SliceRecord } from "../core/handles/slice_record.ts";
import type { MemoryUsage } from "./memory_usage.ts";
import { SliceHandle } from "../core/handles/slice.ts";
import type { StorageHandle } from "./storage.ts";

/**
 * Sizes of one sliced pool.
 *
 * @example
 * ```ts
 * import type { SlicedPoolOptions } from "@gpucompute/runtime/backend";
 * const small: SlicedPoolOptions = { maxSliceSize: 4096, pageSize: 65536 }; // 16+ slices a page
 * ```
 */
export interface SlicedPoolOptions {
  /** Bytes per page (rounded up to the storage alignment). */
  pageSize: number;
  /** The largest reservation this pool serves; at most `pageSize`. */
  maxSliceSize: number;
}

interface Page {
  readonly id: number;
  readonly size: number;
  /** The pool of the page (tells its slots from other pools' tags). */
  readonly owner: SlicedPool;
  /** Free slots by offset. */
  readonly free: Slot[];
  freeBytes: number;
  live: number;
  lastUsed: number;
}

interface Slot {
  page: Page;
  offset: number;
  size: number;
  prev: Slot | undefined;
  next: Slot | undefined;
  /** Bytes asked at reserve; 0 while free. */
  asked: number;
  /** Where the live slice sits: made by the first lookup, then kept until the slot is free. */
  location: StorageHandle | undefined;
}

/** Most merged-away slot objects kept for reuse. */
const MAX_SPARE_SLOTS = 64;

function newSlot(page: Page): Slot {
  // Every field from the start: slots of one shape keep the pool's property accesses monomorphic.
  return {
    page,
    offset: 0,
    size: 0,
    prev: undefined,
    next: undefined,
    asked: 0,
    location: undefined,
  };
}

/** Index of the first free slot of `list` at or after `offset` (binary search). */
function lowerBound(list: readonly Slot[], offset: number): number {
  let low = 0, high = list.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (list[mid].offset < offset) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * Pages of a fixed size split first-fit into aligned slices that merge again when released.
 *
 * @example
 * ```ts
 * import { SlicedPool } from "./sliced_pool.ts";
 * import { runtimeLogger } from "../core/logging.ts";
 * import { HostStorage } from "../../tests/fixtures/host_storage.ts";
 * let clock = 0;
 * const pool = new SlicedPool({ pageSize: 4096, maxSliceSize: 1024 }, {
 *   storage: new HostStorage({ alignment: 256 }),
 *   log: runtimeLogger("memory"),
 *   clock: () => clock++,
 *   deallocPeriod: 100,
 * });
 * const slice = pool.reserve(100);
 * console.log(pool.get(slice.record)); // { page: 0, offset: 0, size: 100 }
 * slice.dispose();
 * pool.destroy();
 * ```
 */
export class SlicedPool implements MemoryPool {
  /** Bytes per page. */
  readonly pageSize: number;
  /** The largest reservation this pool serves. */
  readonly maxSliceSize: number;
  readonly #context: PoolContext;
  readonly #alignment: number;
  readonly #name: string;
  #pages: Page[] = [];
  /** Live slices (each memory id's `tag` is its {@linkcode Slot}, so no map is needed). */
  #live = 0;
  /** Slot objects merged away, reused by later splits (see `#recycle`). */
  readonly #spare: Slot[] = [];
  /** The release callback of every memory id this pool creates (one function, no closure each). */
  readonly #onRelease = (memory: SliceRecord) => this.#release(memory.tag as Slot);
  #bytesInUse = 0;
  #bytesPadding = 0;
  #destroyed = false;

  /** Creates an empty pool; `options` were validated by the manager. */
  constructor(options: SlicedPoolOptions, context: PoolContext) {
    this.#context = context;
    this.#alignment = context.storage.alignment;
    this.pageSize = alignUp(options.pageSize, this.#alignment);
    this.maxSliceSize = options.maxSliceSize;
    this.#name = `sliced (${formatBytes(this.maxSliceSize)} in ${formatBytes(this.pageSize)})`;
  }

  /** Reserves `size` (at most `maxSliceSize`) bytes; throws `OUT_OF_MEMORY`. */
  reserve(size: number): SliceHandle {
    const need = alignUp(size, this.#alignment);
    const pages = this.#pages;
    for (let p = 0; p < pages.length; p++) {
      const page = pages[p];
      if (page.freeBytes < need) continue;
      const free = page.free;
      for (let i = 0; i < free.length; i++) {
        if (free[i].size >= need) return this.#take(page, i, need, size);
      }
    }
    const page = this.#newPage();
    return this.#take(page, 0, need, size);
  }

  /** Where a live slice sits, or `undefined`. */
  get(memory: SliceRecord): StorageHandle | undefined {
    const slot = memory.tag as Partial<Slot> | undefined;
    // Slots are reused once free: the id must still be live, and the slot this pool's.
    if (this.#destroyed || memory.released || slot?.page?.owner !== this) return undefined;
    return slot.location ??= { page: slot.page.id, offset: slot.offset!, size: slot.asked! };
  }

  /** Exact usage figures. */
  usage(): MemoryUsage {
    return {
      numberAllocs: this.#live,
      bytesInUse: this.#bytesInUse,
      bytesPadding: this.#bytesPadding,
      bytesReserved: this.#pages.length * this.pageSize,
    };
  }

  /** Frees pages with no live slice: every one if `explicit`, else those idle for a period. */
  cleanup(explicit: boolean): void {
    const now = this.#context.clock();
    this.#pages = this.#pages.filter((page) => {
      const idle = now - page.lastUsed >= this.#context.deallocPeriod;
      if (page.live > 0 || !(explicit || idle)) return true;
      deallocPage(this.#context, page.id, page.size, this.#name);
      return false;
    });
  }

  /** Frees every page, live slices included. Idempotent. */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    const pages = this.#pages;
    this.#pages = [];
    this.#live = 0;
    for (const page of pages) deallocPage(this.#context, page.id, page.size, this.#name);
  }

  #newPage(): Page {
    const id = allocPage(this.#context, this.pageSize, this.#name);
    const page: Page = {
      id,
      size: this.pageSize,
      owner: this,
      free: [],
      freeBytes: this.pageSize,
      live: 0,
      lastUsed: this.#context.clock(),
    };
    const whole: Slot = {
      page,
      offset: 0,
      size: this.pageSize,
      prev: undefined,
      next: undefined,
      asked: 0,
      location: undefined,
    };
    page.free.push(whole);
    this.#pages.push(page);
    return page;
  }

  /** Carves `need` bytes from the front of free slot `index` of `page`. */
  #take(page: Page, index: number, need: number, size: number): SliceHandle {
    const free = page.free[index];
    const slot = free.size === need ? page.free.splice(index, 1)[0] : this.#split(page, free, need);
    slot.asked = size;
    slot.location = undefined; // made by the first lookup (a slice never looked up costs none)
    page.freeBytes -= need;
    page.live++;
    page.lastUsed = this.#context.clock();
    this.#bytesInUse += size;
    this.#bytesPadding += need - size;
    this.#live++;
    return new SliceHandle(new SliceRecord(this.#onRelease, slot));
  }

  /**
   * A new slot of `need` bytes at the front of `free`. The remainder keeps its place in the
   * sorted free list: it moves up but stays below the next free slot, which cannot be adjacent.
   */
  #split(page: Page, free: Slot, need: number): Slot {
    const slot = this.#spare.pop() ?? newSlot(page);
    slot.page = page;
    slot.offset = free.offset;
    slot.size = need;
    slot.prev = free.prev;
    slot.next = free;
    if (free.prev) free.prev.next = slot;
    free.prev = slot;
    free.offset += need;
    free.size -= need;
    return slot;
  }

  /**
   * Keeps a slot object that was merged into a neighbour, for a later split. A released memory id
   * may still name it in its `tag`; `get` checks that the id is live first, so a reused slot is
   * never found through a stale id.
   */
  #recycle(slot: Slot): void {
    if (this.#spare.length >= MAX_SPARE_SLOTS) return;
    slot.prev = slot.next = undefined;
    slot.location = undefined;
    this.#spare.push(slot);
  }

  #release(slot: Slot): void {
    if (this.#destroyed) return;
    const page = slot.page;
    this.#live--;
    this.#bytesInUse -= slot.asked;
    this.#bytesPadding -= slot.size - slot.asked;
    slot.asked = 0;
    slot.location = undefined;
    page.freeBytes += slot.size;
    page.live--;
    page.lastUsed = this.#context.clock();
    const { prev, next } = slot;
    if (prev !== undefined && prev.asked === 0) this.#mergeIntoPrevious(page, slot, prev, next);
    else if (next !== undefined && next.asked === 0) {
      // The next free slot grows downwards; its place in the sorted list does not change.
      next.offset = slot.offset;
      next.size += slot.size;
      next.prev = prev;
      if (prev) prev.next = next;
      this.#recycle(slot);
    } else {
      page.free.splice(lowerBound(page.free, slot.offset), 0, slot);
    }
  }

  /** Absorbs a released slot into the free slot before it (already listed), and the next too. */
  #mergeIntoPrevious(page: Page, slot: Slot, prev: Slot, next: Slot | undefined): void {
    prev.size += slot.size;
    prev.next = next;
    if (next) next.prev = prev;
    this.#recycle(slot);
    if (next === undefined || next.asked !== 0) return;
    prev.size += next.size;
    prev.next = next.next;
    if (next.next) next.next.prev = prev;
    page.free.splice(lowerBound(page.free, next.offset), 1);
    this.#recycle(next);
  }
}
