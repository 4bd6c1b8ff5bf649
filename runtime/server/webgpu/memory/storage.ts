/**
 * GPU buffers as storage pages for the memory manager.
 *
 * Every page is `STORAGE | COPY_SRC | COPY_DST | INDIRECT`, so any slice can be bound to a kernel,
 * copied, read back, or hold an indirect cube count. Page sizes are rounded up to 4 bytes (copies
 * and storage bindings work in 4-byte units). The alignment of slices inside a page is the device's
 * `minStorageBufferOffsetAlignment`, because bind-group offsets must be multiples of it. A page may
 * not exceed `min(maxBufferSize, maxStorageBufferBindingSize)`, since it is bound whole or in part.
 *
 * @module
 */

import type { ComputeStorage, StorageHandle } from "../../../memory/storage.ts";
import {
  BufferTooBigError,
  DestroyedError,
  InvalidHandleError,
  OutOfMemoryError,
} from "../../../core/errors.ts";
import type { ResourceRange } from "../../server.ts";
import { BufferUsage } from "./_buffer_usage.ts";

const PAGE_USAGE = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST |
  BufferUsage.INDIRECT;

/**
 * Storage of GPU buffer pages.
 *
 * @example
 * ```ts
 * import { WebGpuStorage } from "@gpucompute/runtime/webgpu";
 * const adapter = await navigator.gpu.requestAdapter();
 * const device = await adapter!.requestDevice();
 * using storage = new WebGpuStorage(device);
 * const page = storage.alloc(1024);
 * console.log(storage.resource({ page, offset: 256, size: 16 }).offset); // 256
 * ```
 */
export class WebGpuStorage implements ComputeStorage<ResourceRange<GPUBuffer>>, Disposable {
  /** `minStorageBufferOffsetAlignment` of the device. */
  readonly alignment: number;
  /** Largest page in bytes. */
  readonly maxPageSize: number;
  /** The limit that sets {@linkcode maxPageSize}. */
  readonly maxPageLimit: "maxBufferSize" | "maxStorageBufferBindingSize";
  readonly #device: GPUDevice;
  readonly #pages = new Map<number, GPUBuffer>();
  #next = 0;
  #bytes = 0;
  #destroyed = false;

  /** Creates the storage over a device. */
  constructor(device: GPUDevice) {
    this.#device = device;
    this.alignment = device.limits.minStorageBufferOffsetAlignment;
    const { maxBufferSize, maxStorageBufferBindingSize } = device.limits;
    this.maxPageSize = Math.min(maxBufferSize, maxStorageBufferBindingSize);
    this.maxPageLimit = maxBufferSize <= maxStorageBufferBindingSize
      ? "maxBufferSize"
      : "maxStorageBufferBindingSize";
  }

  /** Bytes held in pages. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Number of live pages. */
  get pageCount(): number {
    return this.#pages.size;
  }

  /** True after {@linkcode destroy}. */
  get destroyed(): boolean {
    return this.#destroyed;
  }

  /** Allocates a page; `BUFFER_TOO_BIG` above the device limit, `OUT_OF_MEMORY` if creation throws. */
  alloc(size: number): number {
    this.#assertLive();
    const bytes = Math.max(4, Math.ceil(size / 4) * 4);
    if (bytes > this.maxPageSize) {
      const error = new BufferTooBigError(size, this.maxPageSize);
      error.message += ` (${this.maxPageLimit})`;
      throw error;
    }
    let buffer: GPUBuffer;
    try {
      buffer = this.#device.createBuffer({ size: bytes, usage: PAGE_USAGE });
    } catch (cause) {
      throw new OutOfMemoryError(`Cannot create a GPU buffer of ${bytes} bytes`, { cause });
    }
    const page = this.#next++;
    this.#pages.set(page, buffer);
    this.#bytes += bytes;
    return page;
  }

  /** Destroys a page's buffer (WebGPU keeps it alive until submitted work that uses it is done). */
  dealloc(page: number): void {
    const buffer = this.#pages.get(page);
    if (buffer === undefined) return;
    this.#pages.delete(page);
    this.#bytes -= buffer.size;
    buffer.destroy();
  }

  /** The GPU buffer of a page. */
  buffer(page: number): GPUBuffer {
    this.#assertLive();
    const buffer = this.#pages.get(page);
    if (buffer === undefined) throw new InvalidHandleError(`Storage page ${page} does not exist`);
    return buffer;
  }

  /** The buffer and byte range of a slice. */
  resource(handle: StorageHandle): ResourceRange<GPUBuffer> {
    return { resource: this.buffer(handle.page), offset: handle.offset, size: handle.size };
  }

  /** Destroys every page. Idempotent. */
  destroy(): void {
    if (this.#destroyed) return;
    for (const page of [...this.#pages.keys()]) this.dealloc(page);
    this.#destroyed = true;
  }

  /** Same as {@linkcode destroy}. */
  [Symbol.dispose](): void {
    this.destroy();
  }

  #assertLive(): void {
    if (this.#destroyed) throw new DestroyedError("The WebGPU storage was destroyed");
  }
}
