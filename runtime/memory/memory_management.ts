/**
 * Memory management over a {@linkcode ComputeStorage}, ported from CubeCL's memory management.
 *
 * - **Routing.** A reservation of `size` bytes goes to the first sliced pool (ordered by
 *   `maxSliceSize`) with `size <= maxSliceSize`; larger ones go to an exclusive pool (one slice
 *   per page). While {@linkcode MemoryManagement.mode} is `"persistent"`, every reservation goes
 *   to a separate persistent exclusive pool instead.
 * - **Reuse.** A slice returns to its pool when its last owner and its last pin are gone (the
 *   {@linkcode SliceRecord} `onRelease` callback), never earlier.
 * - **Automatic cleanup.** Every `deallocPeriod` reservations, the non-persistent pools free the
 *   pages that hold no live slice and served no reservation or release during the last
 *   `deallocPeriod` reservations. Persistent pages are only freed by `cleanup(true)`.
 * - **Out of memory.** When storage refuses a page, the free pages of the non-persistent pools
 *   are returned and the reservation is tried once more before `OUT_OF_MEMORY` is thrown.
 *
 * @module
 */

import { assertPositiveInteger, describe } from "../core/_argument_checks.ts";
import { runtimeLogger } from "../core/logging.ts";
import {
  BufferTooBigError,
  DestroyedError,
  InvalidHandleError,
  OutOfMemoryError,
} from "../core/errors.ts";
import type { MemoryAllocationMode } from "../core/kernel.ts";
import type { MemoryPool, PoolContext } from "./_memory_pool.ts";
import { ExclusivePool } from "./exclusive_pool.ts";
import { SliceRecord } from "../core/handles/slice_record.ts";
import { combineMemoryUsage, type MemoryUsage } from "./memory_usage.ts";
import type { SliceHandle } from "../core/handles/slice.ts";
import { SlicedPool, type SlicedPoolOptions } from "./sliced_pool.ts";
import type { ComputeStorage, StorageHandle } from "./storage.ts";

export type { SlicedPoolOptions } from "./sliced_pool.ts";

/**
 * Options of {@linkcode MemoryManagement}.
 *
 * @example
 * ```ts
 * import type { MemoryManagementOptions } from "@gpucompute/runtime/backend";
 * const options: MemoryManagementOptions = {
 *   slicedPools: [{ maxSliceSize: 4096, pageSize: 65536 }],
 *   deallocPeriod: 500,
 * };
 * ```
 */
export interface MemoryManagementOptions {
  /**
   * The sliced pools: a reservation goes to the first (by `maxSliceSize`) that can hold it.
   * Page sizes may not exceed `maxAllocationSize` (default pools that would are left out).
   * @default {[{ maxSliceSize: 65536, pageSize: 1048576 }, { maxSliceSize: 1048576, pageSize: 8388608 }]}
   */
  slicedPools?: readonly SlicedPoolOptions[];
  /**
   * Exclusive pools reuse a free page for a request when page size <= ratio * aligned size.
   * @default {2}
   */
  exclusiveReuseRatio?: number;
  /**
   * The largest reservation allowed, in bytes.
   * @default {2 ** 31}
   */
  maxAllocationSize?: number;
  /**
   * Reservations between automatic cleanups, and how long a free page must stay unused to be
   * freed by one.
   * @default {1000}
   */
  deallocPeriod?: number;
}

const DEFAULT_SLICED_POOLS: readonly SlicedPoolOptions[] = [
  { maxSliceSize: 64 * 1024, pageSize: 1024 * 1024 },
  { maxSliceSize: 1024 * 1024, pageSize: 8 * 1024 * 1024 },
];
const MODES: readonly MemoryAllocationMode[] = ["auto", "persistent"];

function checkSlicedPools(pools: readonly SlicedPoolOptions[]): SlicedPoolOptions[] {
  if (!Array.isArray(pools)) throw new TypeError(`slicedPools must be an array`);
  const checked = pools.map((pool, i) => {
    assertPositiveInteger(pool?.pageSize, `slicedPools[${i}].pageSize`);
    assertPositiveInteger(pool.maxSliceSize, `slicedPools[${i}].maxSliceSize`);
    if (pool.maxSliceSize > pool.pageSize) {
      throw new RangeError(
        `slicedPools[${i}].maxSliceSize (${pool.maxSliceSize}) exceeds its pageSize (${pool.pageSize})`,
      );
    }
    return { pageSize: pool.pageSize, maxSliceSize: pool.maxSliceSize };
  });
  return checked.sort((a, b) => a.maxSliceSize - b.maxSliceSize);
}

/**
 * Reserves slices of storage pages through sliced and exclusive pools, with reuse, persistent
 * memory and cleanup. A server locates a ref with `get` then `storage.resource`.
 *
 * @example
 * ```ts
 * import { MemoryManagement, type ComputeStorage } from "@gpucompute/runtime/backend";
 * const pages = new Map<number, ArrayBuffer>();
 * let next = 0;
 * const storage: ComputeStorage<Uint8Array> = {
 *   alignment: 256,
 *   alloc: (size) => (pages.set(next, new ArrayBuffer(size)), next++),
 *   dealloc: (page) => void pages.delete(page),
 *   resource: (at) => new Uint8Array(pages.get(at.page)!, at.offset, at.size),
 * };
 * using memory = new MemoryManagement(storage);
 * using slice = memory.reserve(1000);
 * const at = memory.get(slice.record);
 * memory.storage.resource(at).fill(7);
 * console.log(at.size, memory.usage().bytesPadding); // 1000 24
 * ```
 */
export class MemoryManagement<R> implements Disposable {
  /** The page allocator. */
  readonly storage: ComputeStorage<R>;
  /** The largest reservation allowed, in bytes. */
  readonly maxAllocationSize: number;
  readonly #sliced: SlicedPool[];
  readonly #exclusive: ExclusivePool;
  readonly #persistent: ExclusivePool;
  readonly #pools: MemoryPool[];
  readonly #deallocPeriod: number;
  #mode: MemoryAllocationMode = "auto";
  #clock = 0;
  #destroyed = false;

  /** Creates a manager with no pages; options are validated (`TypeError` / `RangeError`). */
  constructor(storage: ComputeStorage<R>, options: MemoryManagementOptions = {}) {
    if (storage === null || typeof storage !== "object" || typeof storage.alloc !== "function") {
      throw new TypeError(`storage must be a ComputeStorage, got ${describe(storage)}`);
    }
    assertPositiveInteger(storage.alignment, "storage.alignment");
    const maxAllocationSize = options.maxAllocationSize ?? 2 ** 31;
    assertPositiveInteger(maxAllocationSize, "maxAllocationSize");
    const deallocPeriod = options.deallocPeriod ?? 1000;
    assertPositiveInteger(deallocPeriod, "deallocPeriod");
    const reuseRatio = options.exclusiveReuseRatio ?? 2;
    if (typeof reuseRatio !== "number") {
      throw new TypeError(`exclusiveReuseRatio must be a number, got ${describe(reuseRatio)}`);
    }
    if (!(reuseRatio >= 1) || !Number.isFinite(reuseRatio)) {
      throw new RangeError(`exclusiveReuseRatio must be a finite number >= 1, got ${reuseRatio}`);
    }
    this.storage = storage;
    this.maxAllocationSize = maxAllocationSize;
    this.#deallocPeriod = deallocPeriod;
    const context: PoolContext = {
      storage,
      log: runtimeLogger("memory"),
      clock: () => this.#clock,
      deallocPeriod,
    };
    // Default pools whose pages exceed the largest allocation are left out (reservations they
    // would serve go to the next pool or the exclusive one); explicit ones are an error.
    const sliced = options.slicedPools === undefined
      ? DEFAULT_SLICED_POOLS.filter((pool) => pool.pageSize <= maxAllocationSize)
      : checkSlicedPools(options.slicedPools);
    for (const [i, pool] of sliced.entries()) {
      if (pool.pageSize > maxAllocationSize) {
        throw new RangeError(
          `slicedPools[${i}].pageSize (${pool.pageSize}) exceeds maxAllocationSize (${maxAllocationSize})`,
        );
      }
    }
    this.#sliced = sliced.map((pool) => new SlicedPool(pool, context));
    this.#exclusive = new ExclusivePool({ reuseRatio, name: "exclusive" }, context);
    this.#persistent = new ExclusivePool({ reuseRatio, name: "persistent" }, context);
    this.#pools = [...this.#sliced, this.#exclusive, this.#persistent];
  }

  /** Where new reservations go: `"auto"` (dynamic pools) or `"persistent"`. */
  get mode(): MemoryAllocationMode {
    return this.#mode;
  }

  set mode(mode: MemoryAllocationMode) {
    this.#assertLive();
    if (typeof mode !== "string") {
      throw new TypeError(`mode must be "auto" or "persistent", got ${describe(mode)}`);
    }
    if (!MODES.includes(mode)) {
      throw new RangeError(`mode must be "auto" or "persistent", got ${describe(mode)}`);
    }
    this.#mode = mode;
  }

  /** True after {@linkcode destroy}. */
  get destroyed(): boolean {
    return this.#destroyed;
  }

  /**
   * Reserves `size` bytes and returns the owning slice handle. Throws `TypeError` for a
   * non-number, `RangeError` for 0, negative or non-integer sizes, `BUFFER_TOO_BIG` above
   * {@linkcode maxAllocationSize} and `OUT_OF_MEMORY` when storage cannot provide a page.
   */
  reserve(size: number): SliceHandle {
    this.#assertLive();
    assertPositiveInteger(size, "Reservation size");
    if (size > this.maxAllocationSize) throw new BufferTooBigError(size, this.maxAllocationSize);
    const pool = this.#route(size);
    this.#clock++;
    let slice: SliceHandle;
    try {
      slice = pool.reserve(size);
    } catch (error) {
      slice = this.#retry(pool, size, error);
    }
    if (this.#clock % this.#deallocPeriod === 0) this.cleanup(false);
    return slice;
  }

  /** After `OUT_OF_MEMORY`: gives back every free page of the dynamic pools, then tries once more. */
  #retry(pool: MemoryPool, size: number, error: unknown): SliceHandle {
    if (!(error instanceof OutOfMemoryError)) throw error;
    for (const other of this.#pools) if (other !== this.#persistent) other.cleanup(true);
    return pool.reserve(size);
  }

  /** Where live memory sits; `INVALID_HANDLE` if it was released or belongs elsewhere. */
  get(memory: SliceRecord): StorageHandle {
    this.#assertLive();
    if (!(memory instanceof SliceRecord)) {
      throw new TypeError(`memory must be a SliceRecord, got ${describe(memory)}`);
    }
    for (const pool of this.#pools) {
      const at = pool.get(memory);
      if (at !== undefined) return at;
    }
    throw new InvalidHandleError(
      `Memory ${memory.value} was released or does not belong to this memory manager`,
    );
  }

  /** Exact usage figures over every pool. */
  usage(): MemoryUsage {
    this.#assertLive();
    return combineMemoryUsage(this.#pools.map((pool) => pool.usage()));
  }

  /**
   * Returns pages with no live slice to storage. `explicit`: every such page, persistent ones
   * included. Otherwise the automatic policy: only idle pages of the non-persistent pools.
   */
  cleanup(explicit: boolean): void {
    this.#assertLive();
    if (typeof explicit !== "boolean") {
      throw new TypeError(`explicit must be a boolean, got ${describe(explicit)}`);
    }
    for (const pool of this.#pools) {
      if (explicit || pool !== this.#persistent) pool.cleanup(explicit);
    }
  }

  /** Frees every page (live slices included); idempotent. Later calls throw `DESTROYED`. */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    for (const pool of this.#pools) pool.destroy();
  }

  /** Same as {@linkcode destroy}. */
  [Symbol.dispose](): void {
    this.destroy();
  }

  #route(size: number): MemoryPool {
    if (this.#mode === "persistent") return this.#persistent;
    const sliced = this.#sliced;
    for (let i = 0; i < sliced.length; i++) if (size <= sliced[i].maxSliceSize) return sliced[i];
    return this.#exclusive;
  }

  #assertLive(): void {
    if (this.#destroyed) {
      throw new DestroyedError("The memory manager was destroyed");
    }
  }
}
