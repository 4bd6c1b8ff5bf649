/**
 * One memory manager per stream index. The event multi-stream does not pin same-stream refs:
 * that is safe only when memory freed on a stream is reused in that stream's order. Giving every
 * stream index its own pools over its own storage (pages allocated and freed in its order) is
 * how the backend meets that precondition; a handle's memory lives in the pools of the index of
 * the stream that created it.
 *
 * Out of memory: the manager already returns its own free pages and retries once; when that
 * fails too, the GC settles its tasks (blocking, woken by the device: memory disposed while
 * another stream's use pinned it is free then), every free page of the other streams is
 * returned, the frees are given up to {@linkcode OOM_SETTLE_MS} to reach the device (they run in
 * each stream's order), and the reservation is tried a last time before `OUT_OF_MEMORY` reaches
 * the caller.
 *
 * @module
 */

import { OutOfMemoryError } from "../../../core/errors.ts";
import { formatBytes } from "../../../core/format_bytes.ts";
import type { MemoryAllocationMode } from "../../../core/kernel.ts";
import type { SliceHandle } from "../../../core/handles/slice.ts";
import {
  MemoryManagement,
  type MemoryManagementOptions,
} from "../../../memory/memory_management.ts";
import { combineMemoryUsage, type MemoryUsage } from "../../../memory/memory_usage.ts";
import type { StorageHandle } from "../../../memory/storage.ts";
import type { HandleRef } from "../../../core/handles/handle_ref.ts";
import { Handle, type HandleKind } from "../../../core/handles/handle.ts";
import type { StreamId } from "../../../core/stream_id.ts";
import type { MultiStream } from "../../../stream/event.ts";
import type { ResourceRange } from "../../server.ts";
import type { CudaDriver } from "../_ffi.ts";
import type { WakeOwner } from "../queue/_wake.ts";
import type { CudaEvent, CudaStream, EventPool } from "../queue/streams.ts";
import { CudaStorage } from "./storage.ts";

/** What the memory of a server works with, made before it. */
export interface StreamMemoryParts {
  readonly driver: CudaDriver;
  /** The multi-stream whose streams order each index's pages. */
  readonly streams: MultiStream<CudaStream, CudaEvent>;
  /** Events for deferred frees. */
  readonly events: EventPool;
  /** Whether pages come from `cuMemAllocAsync` (memory pools). */
  readonly asyncAlloc: boolean;
  /** Options of every stream's memory manager. */
  readonly memory: MemoryManagementOptions;
  /** Free device bytes, for out-of-memory messages. */
  readonly freeBytes: () => number;
  /** The server, for the blocking waits on frees after an out-of-memory (`queue/_wake.ts`). */
  readonly owner?: WakeOwner;
}

type Manager = MemoryManagement<ResourceRange<bigint>>;

/**
 * How long an allocation that found the device out of memory waits, at most, for the pages just
 * given back to be freed on their streams before it fails (a blocking wait, on that path only).
 */
export const OOM_SETTLE_MS = 1_000;

/** The pools of every stream index. */
export class StreamMemory {
  readonly #managers = new Map<number, Manager>();
  readonly #storages = new Map<number, CudaStorage>();
  /** The maps' entries by stream index, found without hashing (`locate` runs per buffer). */
  #byIndex: ({ manager: Manager; storage: CudaStorage } | undefined)[] = [];
  readonly #parts: StreamMemoryParts;
  readonly #maxStreams: number;
  #mode: MemoryAllocationMode = "auto";
  /** Whether the last {@linkcode reserve} allocated a page in its stream's order. */
  lastReserveOrdered = false;

  constructor(parts: StreamMemoryParts) {
    this.#parts = parts;
    this.#maxStreams = parts.streams.maxStreams;
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

  /**
   * Reserves `size` bytes in the pools of `stream`'s index; {@linkcode lastReserveOrdered} says
   * whether that allocated a stream-ordered page.
   */
  reserve(size: number, stream: number): SliceHandle {
    const index = stream % this.#maxStreams;
    const manager = this.#manager(index);
    const storage = this.#storages.get(index)!;
    const before = storage.orderedPages;
    try {
      return this.#reserve(manager, size, stream);
    } finally {
      this.lastReserveOrdered = storage.orderedPages !== before;
    }
  }

  #reserve(manager: Manager, size: number, stream: number): SliceHandle {
    try {
      return manager.reserve(size);
    } catch (error) {
      if (!(error instanceof OutOfMemoryError)) throw error;
      const deadline = performance.now() + OOM_SETTLE_MS;
      // Memory disposed while pinned by another stream's use is freed once the GC released the
      // pin: hand over the open batches and wait for their tasks, not for the event loop.
      this.#parts.streams.pollGc(OOM_SETTLE_MS);
      // Every free page, not only the idle ones the automatic policy would give back.
      for (const other of this.#managers.values()) if (other !== manager) other.cleanup(true);
      for (const storage of this.#storages.values()) storage.settleFrees(deadline);
      try {
        return manager.reserve(size);
      } catch (again) {
        if (!(again instanceof OutOfMemoryError)) throw again;
        throw new OutOfMemoryError(
          `Cannot allocate ${formatBytes(size)} on stream ${stream}: the device is out of memory ` +
            `after a cleanup and a retry (${formatBytes(this.#parts.freeBytes())} free)`,
          { cause: again },
        );
      }
    }
  }

  /**
   * A new handle of `size` bytes on `stream` (of `kind`). A stream-ordered page exists from this
   * point of its stream's order: the stream is ordered once more, so the handle's cursor follows
   * the allocation and a first use on another stream waits on an event recorded after it.
   */
  allocate(size: number, stream: StreamId, kind?: HandleKind): Handle {
    const slice = this.reserve(Math.max(1, size), stream);
    if (this.lastReserveOrdered) {
      try {
        this.#parts.streams.order(stream, []).finish();
      } catch (error) {
        Handle.fresh(slice, stream, 0, size).dispose(); // an unhealthy stream: give it back
        throw error;
      }
    }
    return Handle.fresh(slice, stream, this.#parts.streams.cursor(stream), size, kind);
  }

  /**
   * The device pointer and range of a live ref (`INVALID_HANDLE` after every handle was
   * disposed, or for memory of another server): its memory lives in the pools of the index of
   * the stream that created it.
   */
  locate(ref: HandleRef): ResourceRange<bigint> {
    if (ref.slice.record.disposed) throw ref.notFound();
    const index = ref.stream % this.#maxStreams;
    let at: StorageHandle, pools = this.#byIndex[index];
    try {
      pools ??= this.#byIndex[index] = {
        manager: this.#manager(index),
        storage: this.#storages.get(index)!,
      };
      at = pools.manager.get(ref.slice.record);
    } catch (cause) {
      throw ref.notFound(cause); // another server's memory
    }
    return {
      resource: pools.storage.pointer(at),
      offset: at.offset + (ref.offsetStart ?? 0),
      size: ref.size(),
    };
  }

  /** Figures over every stream's pools. */
  usage(): MemoryUsage {
    return combineMemoryUsage([...this.#managers.values()].map((m) => m.usage()));
  }

  /** Returns unused pages of every stream to the device. */
  cleanup(explicit: boolean): void {
    for (const manager of this.#managers.values()) manager.cleanup(explicit);
  }

  /** Frees the deferred pages (without memory pools) whose stream work completed; never waits. */
  collectFrees(): void {
    for (const storage of this.#storages.values()) storage.settleFrees(0);
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
    this.#byIndex = [];
  }

  #manager(index: number): Manager {
    let manager = this.#managers.get(index);
    if (manager === undefined) {
      const { driver, events, asyncAlloc, streams } = this.#parts;
      const owner = this.#parts.owner;
      const storage = new CudaStorage(driver, { streams, index, events, asyncAlloc, owner });
      manager = new MemoryManagement(storage, this.#parts.memory);
      manager.mode = this.#mode;
      this.#storages.set(index, storage);
      this.#managers.set(index, manager);
    }
    return manager;
  }
}
