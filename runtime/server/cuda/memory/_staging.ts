/**
 * Pinned host memory (`cuMemAllocHost`) for host/device copies.
 *
 * Asynchronous copies need page-locked host memory: a pageable source makes the driver copy
 * synchronously. Writes copy the caller's bytes into a pinned buffer, enqueue the copy, and
 * retire the buffer with an event recorded after it; the buffer (and any JS object the copy reads
 * from, such as a `staging()` buffer passed back to `write`) stays referenced here until a later
 * poll finds the event complete. Nothing is reused early, and nothing the device still reads can
 * be garbage-collected: a strong reference is the GC's only rule.
 *
 * Buffers handed out by `staging()` are pinned too, so `write` copies straight from them.
 *
 * @module
 */

import { CUDA_SUCCESS, type CudaDriver } from "../_ffi.ts";
import type { CudaEvent, EventPool } from "../queue/streams.ts";

/** A pinned host buffer. */
export interface Pinned {
  /** The host pointer. */
  readonly pointer: Deno.PointerObject;
  /** Its address. */
  readonly address: bigint;
  /** Capacity in bytes. */
  readonly size: number;
  /** A view over the whole buffer. */
  readonly bytes: Uint8Array;
}

interface InFlight {
  readonly pinned: Pinned | undefined;
  readonly event: CudaEvent;
  /** `staging()` buffers (their `ArrayBuffer`s) the copies read directly. */
  readonly keep: readonly ArrayBufferLike[];
}

const MIN_SIZE = 4096;
const MAX_FREE_BYTES = 64 * 1024 * 1024;

/** Pool of pinned buffers plus the copies still reading or writing them. */
export class PinnedPool {
  readonly #driver: CudaDriver;
  readonly #events: EventPool;
  readonly #free: Pinned[] = [];
  readonly #inFlight: InFlight[] = [];
  readonly #user = new Map<ArrayBufferLike, Pinned>();
  #freeBytes = 0;
  /** Pinned buffers allocated (`cuMemAllocHost` calls). */
  allocations = 0;

  constructor(driver: CudaDriver, events: EventPool) {
    this.#driver = driver;
    this.#events = events;
  }

  /** Copies whose event has not been seen complete. */
  get inFlight(): number {
    return this.#inFlight.length;
  }

  /** A free pinned buffer of at least `size` bytes. */
  acquire(size: number): Pinned {
    this.collect();
    let best = -1;
    for (let i = 0; i < this.#free.length; i++) {
      const candidate = this.#free[i];
      if (candidate.size >= size && (best < 0 || candidate.size < this.#free[best].size)) best = i;
    }
    if (best >= 0) {
      const [pinned] = this.#free.splice(best, 1);
      this.#freeBytes -= pinned.size;
      return pinned;
    }
    return this.#allocate(Math.max(MIN_SIZE, 2 ** Math.ceil(Math.log2(Math.max(1, size)))));
  }

  /** Returns a buffer whose copies the host saw complete. */
  release(pinned: Pinned): void {
    if (this.#freeBytes + pinned.size > MAX_FREE_BYTES) {
      this.#driver.symbols.cuMemFreeHost(pinned.pointer);
      return;
    }
    this.#free.push(pinned);
    this.#freeBytes += pinned.size;
  }

  /**
   * Keeps `pinned` and the `staging()` buffers in `keep` referenced until `event` completes, then
   * releases `pinned` to the pool.
   */
  retire(
    pinned: Pinned | undefined,
    event: CudaEvent,
    keep: readonly ArrayBufferLike[] = [],
  ): void {
    this.#inFlight.push({ pinned, event, keep });
  }

  /** Releases what completed; returns how many entries are still in flight. */
  collect(): number {
    const { symbols } = this.#driver;
    for (let i = 0; i < this.#inFlight.length;) {
      const entry = this.#inFlight[i];
      // Anything but success (not ready, or a sticky error) keeps the memory pinned.
      if (symbols.cuEventQuery(entry.event.handle) !== CUDA_SUCCESS) {
        i++;
        continue;
      }
      this.#inFlight.splice(i, 1);
      this.#events.release(entry.event);
      if (entry.pinned !== undefined) this.release(entry.pinned);
    }
    return this.#inFlight.length;
  }

  /**
   * Pinned buffers for `server.staging(sizes)`, each checked first (`TypeError` / `RangeError`):
   * a `write` copies straight from them until the server is destroyed.
   */
  userBuffers(sizes: readonly number[]): Uint8Array[] {
    if (!Array.isArray(sizes)) throw new TypeError("sizes must be an array");
    for (const size of sizes) {
      if (!Number.isInteger(size) || size < 0) {
        throw new RangeError(`staging sizes must be non-negative integers, got ${size}`);
      }
    }
    return sizes.map((size) => this.userBuffer(size));
  }

  /** A pinned buffer for the caller to fill (the `staging()` API); freed by {@linkcode destroy}. */
  userBuffer(size: number): Uint8Array {
    const pinned = this.#allocate(Math.max(1, size));
    const bytes = pinned.bytes.subarray(0, size);
    this.#user.set(bytes.buffer, pinned);
    return bytes;
  }

  /** The address of `data` when it lies in a `staging()` buffer, else `undefined`. */
  addressOf(data: Uint8Array): bigint | undefined {
    const pinned = this.#user.get(data.buffer);
    return pinned === undefined ? undefined : pinned.address + BigInt(data.byteOffset);
  }

  /**
   * Frees every buffer whose copies completed. Buffers still in flight after `collect` (pool
   * buffers, and `staging()` buffers a copy reads) are left allocated rather than freed under the
   * device: the context's release reclaims them once its work drained. Returns how many copies
   * were still in flight.
   */
  destroy(): number {
    const left = this.collect();
    const kept = new Set<ArrayBufferLike>(this.#inFlight.flatMap((entry) => entry.keep));
    for (const pinned of this.#free) this.#driver.symbols.cuMemFreeHost(pinned.pointer);
    for (const [buffer, pinned] of this.#user) {
      if (!kept.has(buffer)) this.#driver.symbols.cuMemFreeHost(pinned.pointer);
    }
    this.#free.length = 0;
    this.#user.clear();
    this.#freeBytes = 0;
    return left;
  }

  #allocate(size: number): Pinned {
    const { symbols, out64 } = this.#driver;
    this.#driver.check(
      symbols.cuMemAllocHost_v2(out64, BigInt(size)),
      `cuMemAllocHost_v2(${size})`,
    );
    const address = out64[0];
    const pointer = Deno.UnsafePointer.create(address)!;
    this.allocations++;
    const bytes = new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(pointer, size));
    return { pointer, address, size, bytes };
  }
}
