/**
 * Device memory pages for the memory manager, one storage per stream index (see the server's
 * module documentation for why memory is per stream).
 *
 * Pages come from `cuMemAllocAsync` on the storage's stream where the device supports memory
 * pools, else from `cuMemAlloc`. A stream-ordered page exists from its point in the stream's
 * order only (cuda.h: another stream must first be ordered after the allocation); the storage
 * counts each such page (`orderedPages`) so the server advances the stream's cursor: a first use
 * on another stream then waits on an event recorded after the allocation. Freeing is ordered
 * after the stream's work: `cuMemFreeAsync` on
 * the same stream, or, without pools, an event recorded on the stream and a `cuMemFree` once a
 * later call finds it complete (never a blocking wait). Cross-stream users are already complete
 * when a page is freed: the multi-stream keeps their slices pinned until the host saw their work
 * finish. Slice offsets are 256-byte aligned (`cudaMalloc`'s guarantee, and enough for every
 * vector type).
 *
 * @module
 */

import { DestroyedError, OutOfMemoryError, UnknownError } from "../../../core/errors.ts";
import { formatBytes } from "../../../core/format_bytes.ts";
import type { ComputeStorage, StorageHandle } from "../../../memory/storage.ts";
import type { ResourceRange } from "../../server.ts";
import {
  CUDA_ERROR_NOT_READY,
  CUDA_ERROR_OUT_OF_MEMORY,
  CUDA_SUCCESS,
  type CudaDriver,
} from "../_ffi.ts";
import type { CudaEvent, CudaStream, EventPool } from "../queue/streams.ts";
import { blockUntilComplete, type WakeOwner } from "../queue/_wake.ts";
import type { MultiStream } from "../../../stream/event.ts";

/** Options of {@linkcode CudaStorage}. */
export interface CudaStorageOptions {
  /** The multi-stream of the server, whose stream `index` orders the pages. */
  readonly streams: MultiStream<CudaStream, CudaEvent>;
  /** The stream index pages are allocated and freed in the order of. */
  readonly index: number;
  /** Events for deferred frees (without memory pools). */
  readonly events: EventPool;
  /** Whether `cuMemAllocAsync`/`cuMemFreeAsync` are available and supported by the device. */
  readonly asyncAlloc: boolean;
  /** The server, for the blocking waits of {@linkcode CudaStorage.settleFrees}. */
  readonly owner?: WakeOwner;
}

/**
 * Device pages as `CUdeviceptr` values (bigint).
 *
 * @example
 * ```ts ignore
 * import { CudaServer } from "@gpucompute/runtime/cuda";
 * using server = CudaServer.create();
 * using handle = server.createWithData(new Uint8Array(16), 0);
 * console.log(server.getResource(handle.ref(), 0).resource); // a CUdeviceptr (bigint)
 * ```
 */
export class CudaStorage implements ComputeStorage<ResourceRange<bigint>> {
  /** Slice alignment in bytes. */
  readonly alignment = 256;
  readonly #driver: CudaDriver;
  readonly #options: CudaStorageOptions;
  readonly #pages = new Map<number, { pointer: bigint; size: number }>();
  readonly #deferred: { pointer: bigint; event: CudaEvent }[] = [];
  #next = 0;
  #bytes = 0;
  #destroyed = false;
  /** Whether a `cuMemFreeAsync` was issued since {@linkcode settleFrees} last saw the stream idle. */
  #freed = false;

  /** Creates the storage; pages are allocated lazily. */
  constructor(driver: CudaDriver, options: CudaStorageOptions) {
    this.#driver = driver;
    this.#options = options;
  }

  /**
   * Pages allocated in the stream's order (`cuMemAllocAsync`) so far: such a page exists only
   * from that point of the stream's work, so the server orders first uses elsewhere after it.
   */
  orderedPages = 0;

  /** Bytes held in live pages. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Frees waiting for their stream's work (without memory pools). */
  get deferredFrees(): number {
    return this.#deferred.length;
  }

  /** Allocates a page; `OUT_OF_MEMORY` (with the driver error as cause) when the device cannot. */
  alloc(size: number): number {
    this.#assertLive();
    this.#collect();
    const { symbols, out64 } = this.#driver;
    const bytes = BigInt(size);
    const result = this.#options.asyncAlloc
      ? symbols.cuMemAllocAsync!(out64, bytes, this.#stream().handle)
      : symbols.cuMemAlloc_v2(out64, bytes);
    const call = this.#options.asyncAlloc ? "cuMemAllocAsync" : "cuMemAlloc_v2";
    if (result === CUDA_ERROR_OUT_OF_MEMORY) {
      throw new OutOfMemoryError(
        `Cannot allocate a device page of ${formatBytes(size)}: the device is out of memory`,
        { cause: this.#driver.error(result, `${call}(${size})`) },
      );
    }
    this.#driver.check(result, `${call}(${size})`);
    if (this.#options.asyncAlloc) this.orderedPages++;
    const page = this.#next++;
    this.#pages.set(page, { pointer: out64[0], size });
    this.#bytes += size;
    return page;
  }

  /** Frees a page after the work already enqueued on its stream. */
  dealloc(page: number): void {
    const entry = this.#pages.get(page);
    if (entry === undefined) return;
    this.#pages.delete(page);
    this.#bytes -= entry.size;
    const stream = this.#stream();
    if (this.#options.asyncAlloc) {
      this.#driver.check(
        this.#driver.symbols.cuMemFreeAsync!(entry.pointer, stream.handle),
        `cuMemFreeAsync(stream ${stream.index})`,
      );
      this.#freed = true;
    } else {
      this.#deferred.push({ pointer: entry.pointer, event: this.#options.events.record(stream) });
      this.#collect();
    }
  }

  /** The page's device pointer and the slice's range. */
  resource(handle: StorageHandle): ResourceRange<bigint> {
    return { resource: this.pointer(handle), offset: handle.offset, size: handle.size };
  }

  /** The device pointer of the slice's page (the slice starts at `handle.offset` in it). */
  pointer(handle: StorageHandle): bigint {
    const entry = this.#pages.get(handle.page);
    if (entry === undefined) {
      throw new UnknownError(`CUDA storage page ${handle.page} does not exist`);
    }
    return entry.pointer;
  }

  /**
   * Frees every page: in stream order with memory pools; otherwise the pages whose stream work
   * completed, leaving the others to the context's release (never freed under the device).
   */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    for (const page of [...this.#pages.keys()]) {
      try {
        this.dealloc(page);
      } catch { /* refused after a sticky error: the context's release reclaims it */ }
    }
    this.#collect();
  }

  /**
   * After an out-of-memory: waits until `deadline` (a `performance.now()` time) at most for the
   * frees this storage issued to reach the device, since they run in its stream's order (the
   * stream's work, then `cuMemFreeAsync`; or the event, then `cuMemFree`), so that a retry finds
   * their memory. The waits block until the device wakes them (`queue/_wake.ts`); a deadline
   * already past only collects what completed. Gives up on a stream that reports an error.
   */
  settleFrees(deadline: number): void {
    if (this.#destroyed) return;
    this.#collect();
    const { driver, events, owner } = { driver: this.#driver, ...this.#options };
    const left = () => Math.max(0, deadline - performance.now());
    // Deferred frees wait on events of one stream, which complete in order: the last one.
    const last = this.#deferred.at(-1);
    if (last !== undefined && left() > 0) {
      try {
        blockUntilComplete(driver, owner, last.event.handle, left());
      } catch { /* a sticky error: the context's release reclaims the pages */ }
      this.#collect();
    }
    if (!this.#freed) return;
    if (left() === 0) {
      const status = driver.symbols.cuStreamQuery(this.#stream().handle);
      if (status !== CUDA_ERROR_NOT_READY) this.#freed = false; // idle, or a sticky error
      return;
    }
    // `cuMemFreeAsync`s in stream order: an event after them, waited on.
    let complete = true;
    let event: CudaEvent;
    try {
      event = events.record(this.#stream());
      complete = blockUntilComplete(driver, owner, event.handle, left());
    } catch {
      return; // a sticky error: nothing more will be freed
    }
    if (complete) {
      this.#freed = false;
      events.release(event);
    } // else the event stays out of the pool: the work before it still runs
  }

  /** Frees deferred pages whose event completed, in order (one stream: events complete in order). */
  #collect(): void {
    const { symbols } = this.#driver;
    while (this.#deferred.length > 0) {
      const { pointer, event } = this.#deferred[0];
      if (symbols.cuEventQuery(event.handle) !== CUDA_SUCCESS) return; // not ready, or sticky
      this.#deferred.shift();
      this.#options.events.release(event);
      symbols.cuMemFree_v2(pointer);
    }
  }

  /** The storage's stream (created by the multi-stream on first use). */
  #stream(): CudaStream {
    return this.#options.streams.stream(this.#options.index);
  }

  #assertLive(): void {
    if (this.#destroyed) throw new DestroyedError("The CUDA storage was destroyed");
  }
}
