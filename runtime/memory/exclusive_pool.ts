/**
 * The exclusive pool: one slice per page, for large reservations and persistent memory.
 *
 * Reuse rule: a free page of `P` bytes serves a request whose aligned size is `N` when
 * `N <= P <= reuseRatio * N` (default ratio 2, so at most half of a reused page is wasted). The
 * smallest such page is chosen (binary search over the free pages sorted by size); otherwise a
 * new page of exactly `N` bytes is allocated. A slice's padding is `P` minus the size asked.
 *
 * @module
 */

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

/** Options of an {@linkcode ExclusivePool}. */
export interface ExclusivePoolOptions {
  /** A free page is reused for a request when page size <= ratio * aligned request size. */
  reuseRatio: number;
  /** Name used in logs. */
  name: string;
}

interface Page {
  readonly id: number;
  readonly size: number;
  /** The pool of the page (tells its pages from other pools' tags). */
  readonly owner: ExclusivePool;
  /** Bytes asked by the live slice; 0 while free. */
  asked: number;
  lastUsed: number;
  /** Where the live slice sits (made at reserve: lookups allocate nothing). */
  location?: StorageHandle;
}

/**
 * Pages that each hold one slice, reused for requests of a similar size.
 *
 * @example
 * ```ts
 * import { ExclusivePool } from "./exclusive_pool.ts";
 * import { runtimeLogger } from "../core/logging.ts";
 * import { HostStorage } from "../../tests/fixtures/host_storage.ts";
 * const pool = new ExclusivePool({ reuseRatio: 2, name: "large" }, {
 *   storage: new HostStorage({ alignment: 256 }),
 *   log: runtimeLogger("memory"),
 *   clock: () => 0,
 *   deallocPeriod: 100,
 * });
 * const big = pool.reserve(3000);
 * big.dispose();
 * const again = pool.reserve(2000); // reuses the 3072-byte page: 3072 <= 2 * 2048
 * console.log(pool.usage().bytesReserved); // 3072
 * again.dispose();
 * pool.destroy();
 * ```
 */
export class ExclusivePool implements MemoryPool {
  readonly #context: PoolContext;
  readonly #options: ExclusivePoolOptions;
  readonly #pages = new Set<Page>();
  /** Free pages sorted by size. */
  #free: Page[] = [];
  /** Live slices (each memory id's `tag` is its {@linkcode Page}, so no map is needed). */
  #live = 0;
  /** The release callback of every memory id this pool creates (one function, no closure each). */
  readonly #onRelease = (memory: SliceRecord) => this.#release(memory.tag as Page);
  #bytesReserved = 0;
  #bytesInUse = 0;
  #bytesPadding = 0;
  #destroyed = false;

  /** Creates an empty pool; `options` were validated by the manager. */
  constructor(options: ExclusivePoolOptions, context: PoolContext) {
    this.#options = options;
    this.#context = context;
  }

  /** Reserves a page for `size` bytes, reusing a free one that fits; throws `OUT_OF_MEMORY`. */
  reserve(size: number): SliceHandle {
    const need = alignUp(size, this.#context.storage.alignment);
    const index = this.#lowerBound(need);
    let page: Page;
    if (index < this.#free.length && this.#free[index].size <= this.#options.reuseRatio * need) {
      page = this.#free[index];
      this.#free.splice(index, 1);
    } else {
      const id = allocPage(this.#context, need, this.#options.name);
      page = { id, size: need, owner: this, asked: 0, lastUsed: 0 };
      this.#pages.add(page);
      this.#bytesReserved += need;
    }
    page.asked = size;
    page.location = { page: page.id, offset: 0, size };
    page.lastUsed = this.#context.clock();
    this.#bytesInUse += size;
    this.#bytesPadding += page.size - size;
    this.#live++;
    return new SliceHandle(new SliceRecord(this.#onRelease, page));
  }

  /** Where a live slice sits, or `undefined`. */
  get(memory: SliceRecord): StorageHandle | undefined {
    const page = memory.tag as Partial<Page> | undefined;
    // Pages are reused once free: the id must still be live, and the page this pool's.
    if (this.#destroyed || memory.released || page?.owner !== this) return undefined;
    return page.location;
  }

  /** Exact usage figures. */
  usage(): MemoryUsage {
    return {
      numberAllocs: this.#live,
      bytesInUse: this.#bytesInUse,
      bytesPadding: this.#bytesPadding,
      bytesReserved: this.#bytesReserved,
    };
  }

  /** Frees free pages: every one if `explicit`, else those idle for a period. */
  cleanup(explicit: boolean): void {
    const now = this.#context.clock();
    this.#free = this.#free.filter((page) => {
      if (!explicit && now - page.lastUsed < this.#context.deallocPeriod) return true;
      this.#pages.delete(page);
      this.#bytesReserved -= page.size;
      deallocPage(this.#context, page.id, page.size, this.#options.name);
      return false;
    });
  }

  /** Frees every page, live slices included. Idempotent. */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    const pages = [...this.#pages];
    this.#pages.clear();
    this.#free = [];
    this.#live = 0;
    this.#bytesReserved = 0;
    for (const page of pages) deallocPage(this.#context, page.id, page.size, this.#options.name);
  }

  #release(page: Page): void {
    if (this.#destroyed) return;
    this.#live--;
    this.#bytesInUse -= page.asked;
    this.#bytesPadding -= page.size - page.asked;
    page.asked = 0;
    page.lastUsed = this.#context.clock();
    this.#free.splice(this.#lowerBound(page.size), 0, page);
  }

  /** Index of the first free page of at least `size` bytes. */
  #lowerBound(size: number): number {
    let low = 0, high = this.#free.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.#free[mid].size < size) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
