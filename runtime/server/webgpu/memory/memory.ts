/**
 * {@linkcode WebGpuMemory}: the server's memory, pools over GPU-buffer pages, and where a ref's
 * bytes are. One object, made before everything that needs it (the launcher locates every
 * buffer it binds here).
 *
 * @module
 */

import type { HandleRef } from "../../../core/handles/handle_ref.ts";
import type { MemoryAllocationMode } from "../../../core/kernel.ts";
import type { SliceHandle } from "../../../core/handles/slice.ts";
import type { SliceRecord } from "../../../core/handles/slice_record.ts";
import { BufferTooBigError } from "../../../core/errors.ts";
import {
  MemoryManagement,
  type MemoryManagementOptions,
} from "../../../memory/memory_management.ts";
import type { MemoryUsage } from "../../../memory/memory_usage.ts";
import type { StorageHandle } from "../../../memory/storage.ts";
import type { ResourceRange } from "../../server.ts";
import { WebGpuStorage } from "./storage.ts";

/** A {@linkcode ResourceRange} filled in place (the launch hot path allocates none). */
export interface MutableRange {
  resource: GPUBuffer;
  offset: number;
  size: number;
}

/** The pools of one device and the buffers behind them. */
export class WebGpuMemory {
  readonly #storage: WebGpuStorage;
  readonly #pools: MemoryManagement<ResourceRange<GPUBuffer>>;
  /**
   * The last slice located and where it sits: a live slice never moves, and records are never
   * reused, so repeated launches on one buffer skip the pool and page lookups.
   */
  #lastRecord: SliceRecord | undefined;
  #lastBuffer: GPUBuffer | undefined;
  #lastOffset = 0;

  /** Pools over pages of `device`; the largest allocation is the largest page. */
  constructor(device: GPUDevice, options: MemoryManagementOptions = {}) {
    this.#storage = new WebGpuStorage(device);
    this.#pools = new MemoryManagement(this.#storage, {
      maxAllocationSize: this.#storage.maxPageSize,
      ...options,
    });
  }

  /** The largest single allocation in bytes. */
  get maxAllocationSize(): number {
    return this.#pools.maxAllocationSize;
  }

  /** Where new allocations go. */
  get mode(): MemoryAllocationMode {
    return this.#pools.mode;
  }

  set mode(mode: MemoryAllocationMode) {
    this.#pools.mode = mode;
  }

  /** Reserves `size` bytes (at least one); `BUFFER_TOO_BIG` names the device limit. */
  reserve(size: number): SliceHandle {
    try {
      return this.#pools.reserve(size > 0 ? size : 1);
    } catch (error) {
      if (error instanceof BufferTooBigError) error.message += ` (${this.#storage.maxPageLimit})`;
      throw error;
    }
  }

  /**
   * The buffer and range of a live ref of this memory, written into `into` (the launch path
   * passes one it reuses; other callers get a new one): `INVALID_HANDLE` after every handle was
   * disposed, or for memory of another server.
   */
  locate(
    ref: HandleRef,
    into: MutableRange = { resource: undefined!, offset: 0, size: 0 },
  ): MutableRange {
    const record = ref.slice.record;
    if (record !== this.#lastRecord || record.released) this.#find(ref);
    else if (record.disposed) throw ref.notFound();
    into.resource = this.#lastBuffer!;
    into.offset = this.#lastOffset + (ref.offsetStart ?? 0);
    into.size = ref.size();
    return into;
  }

  #find(ref: HandleRef): void {
    const record = ref.slice.record;
    if (record.disposed) throw ref.notFound();
    let at: StorageHandle;
    try {
      at = this.#pools.get(record);
    } catch (cause) {
      throw ref.notFound(cause); // another server's memory
    }
    this.#lastBuffer = this.#storage.buffer(at.page);
    this.#lastOffset = at.offset;
    this.#lastRecord = record;
  }

  /** Where a slice sits in its page (its offset and reserved size). */
  slice(record: SliceRecord): StorageHandle {
    return this.#pools.get(record);
  }

  /** Memory figures. */
  usage(): MemoryUsage {
    return this.#pools.usage();
  }

  /** Returns unused pages to the device. */
  cleanup(explicit: boolean): void {
    this.#lastRecord = undefined; // its page may go
    this.#pools.cleanup(explicit);
  }

  /** Destroys every page. */
  destroy(): void {
    this.#lastRecord = undefined;
    this.#pools.destroy();
  }
}
