/**
 * The storage contract under the memory pools: it hands out whole pages (a GPU buffer, a CUDA
 * device pointer, an `ArrayBuffer` in tests) and resolves slice locations to backend resources.
 *
 * @module
 */

/**
 * Where a slice lives: a storage page and a byte range inside it.
 *
 * @example
 * ```ts
 * import type { StorageHandle } from "@gpucompute/runtime/backend";
 * const location: StorageHandle = { page: 3, offset: 256, size: 1024 };
 * ```
 */
export interface StorageHandle {
  /** The page id the storage returned from `alloc`. */
  readonly page: number;
  /** Byte offset of the slice in the page. */
  readonly offset: number;
  /** Byte length of the slice. */
  readonly size: number;
}

/**
 * A backend's page allocator. Pages are never resized; pools split them into slices.
 *
 * @example A storage of plain ArrayBuffers
 * ```ts
 * import type { ComputeStorage, StorageHandle } from "@gpucompute/runtime/backend";
 * class HostStorage implements ComputeStorage<Uint8Array> {
 *   readonly alignment = 4;
 *   #pages = new Map<number, ArrayBuffer>();
 *   #next = 0;
 *   alloc(size: number): number {
 *     this.#pages.set(this.#next, new ArrayBuffer(size));
 *     return this.#next++;
 *   }
 *   dealloc(page: number): void {
 *     this.#pages.delete(page);
 *   }
 *   resource(handle: StorageHandle): Uint8Array {
 *     return new Uint8Array(this.#pages.get(handle.page)!, handle.offset, handle.size);
 *   }
 * }
 * ```
 */
export interface ComputeStorage<R> {
  /** Slice offsets within a page are multiples of this (bytes). */
  readonly alignment: number;
  /** Allocates a page of `size` bytes; throws `OUT_OF_MEMORY` when the device cannot. */
  alloc(size: number): number;
  /** Frees a page. Only called for pages with no live slice. */
  dealloc(page: number): void;
  /** The backend resource of a slice (a buffer binding, a pointer, a view). */
  resource(handle: StorageHandle): R;
}
