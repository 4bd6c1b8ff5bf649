/**
 * One memory manager per stream index. The event multi-stream does not pin same-stream bindings:
 * that is safe only when memory freed on a stream is reused in that stream's order. Giving every
 * stream index its own pools over its own storage (pages allocated and freed in its order) is
 * how the backend meets that precondition; a handle's memory lives in the pools of the index of
 * the stream that created it.
 *
 * Out of memory: the manager already returns its own free pages and retries once; when that
 * fails too, the other streams' free pages are returned and the reservation is tried a last time
 * before `OUT_OF_MEMORY` reaches the caller.
 *
 * @module
 */

import { OutOfMemoryError } from "../../core/errors.ts";
import { formatBytes } from "../../core/format_bytes.ts";
import type { MemoryAllocationMode } from "../../core/kernel.ts";
import type { SliceRecord } from "../../core/slice_record.ts";
import type { SliceHandle } from "../../core/slice.ts";
import type { StorageHandle } from "../../memory/storage.ts";
import { MemoryManagement, type MemoryManagementOptions } from "../../memory/memory_management.ts";
import { combineMemoryUsage, type MemoryUsage } from "../../memory/memory_usage.ts";
import type { ResourceRange } from "../server.ts";
import type { CudaStorage } from "./storage.ts";

type Manager = MemoryManagement<ResourceRange<bigint>>;

/** The pools of every stream index. */
export class StreamMemory {
  readonly #managers = new Map<number, Manager>();
  readonly #storages = new Map<number, CudaStorage>();
  readonly #create: (index: number) => CudaStorage;
  readonly #options: MemoryManagementOptions;
  readonly #maxStreams: number;
  readonly #free: () => number;
  #mode: MemoryAllocationMode = "auto";

  constructor(
    createStorage: (index: number) => CudaStorage,
    options: { memory: MemoryManagementOptions; maxStreams: number; freeBytes: () => number },
  ) {
    this.#create = createStorage;
    this.#options = options.memory;
    this.#maxStreams = options.maxStreams;
    this.#free = options.freeBytes;
  }

  /** The largest reservation. */
  get maxAllocationSize(): number {
    return this.#manager(0).maxAllocationSize;
  }

  /** The allocation mode of every manager. */
  get mode(): MemoryAllocationMode {
    return this.#mode;
  }

  set mode(mode: MemoryAllocationMode) {
    this.#manager(0).mode = mode; // validates
    for (const manager of this.#managers.values()) manager.mode = mode;
    this.#mode = mode;
  }

  /** Reserves `size` bytes in the pools of `stream`'s index. */
  reserve(size: number, stream: number): SliceHandle {
    const manager = this.#manager(stream % this.#maxStreams);
    try {
      return manager.reserve(size);
    } catch (error) {
      if (!(error instanceof OutOfMemoryError)) throw error;
      for (const other of this.#managers.values()) if (other !== manager) other.cleanup(false);
      try {
        return manager.reserve(size);
      } catch (again) {
        if (!(again instanceof OutOfMemoryError)) throw again;
        throw new OutOfMemoryError(
          `Cannot allocate ${formatBytes(size)} on stream ${stream}: the device is out of memory ` +
            `after a cleanup and a retry (${formatBytes(this.#free())} free)`,
          { cause: again },
        );
      }
    }
  }

  /** Where the memory of a binding created on `stream` lives, and its storage resource. */
  resolve(
    memory: SliceRecord,
    stream: number,
  ): { at: StorageHandle; resource: ResourceRange<bigint> } {
    const index = stream % this.#maxStreams;
    const at = this.#manager(index).get(memory);
    return { at, resource: this.#storages.get(index)!.resource(at) };
  }

  /** Figures over every stream's pools. */
  usage(): MemoryUsage {
    return combineMemoryUsage([...this.#managers.values()].map((m) => m.usage()));
  }

  /** Returns unused pages of every stream to the device. */
  cleanup(explicit: boolean): void {
    for (const manager of this.#managers.values()) manager.cleanup(explicit);
  }

  /** Frees deferred pages (without memory pools); returns how many are still waiting. */
  deferredFrees(): number {
    let waiting = 0;
    for (const storage of this.#storages.values()) waiting += storage.deferredFrees;
    return waiting;
  }

  /** Frees every page of every stream. */
  destroy(): void {
    for (const manager of this.#managers.values()) {
      try {
        manager.destroy();
      } catch { /* a page the driver refused to free (sticky error) */ }
    }
    for (const storage of this.#storages.values()) storage.destroy();
    this.#managers.clear();
    this.#storages.clear();
  }

  #manager(index: number): Manager {
    let manager = this.#managers.get(index);
    if (manager === undefined) {
      const storage = this.#create(index);
      manager = new MemoryManagement(storage, this.#options);
      manager.mode = this.#mode;
      this.#storages.set(index, storage);
      this.#managers.set(index, manager);
    }
    return manager;
  }
}
