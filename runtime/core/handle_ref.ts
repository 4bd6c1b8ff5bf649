/**
 * {@linkcode HandleRef}: a non-owning reference to a handle's slice and placement, as kernel
 * arguments, copy descriptors, the stream engines and `getResource` take it. A {@linkcode Handle}
 * owns its slice; its ref names the same memory without ownership: the runtime pins the memory
 * while work that uses a ref is queued or in flight.
 *
 * @module
 */

import type { SliceRef } from "./slice.ts";
import type { StreamId } from "./stream_id.ts";
import type { HandleType } from "./dtype.ts";

/** The placement fields shared by handles and their refs. */
export interface Placement {
  /** Bytes skipped at the start of the slice. */
  readonly offsetStart: number | undefined;
  /** Bytes cut from the end of the slice. */
  readonly offsetEnd: number | undefined;
  /** The stream that created the memory. */
  readonly stream: StreamId;
  /** That stream's cursor when the memory became available. */
  readonly cursor: number;
  /** Length of the slice in bytes, ignoring offsets. */
  readonly fullSize: number;
  /** What the memory holds: elements of a type, or untyped `"bytes"`. */
  readonly dtype: HandleType;
}

/**
 * A non-owning reference to a handle's memory and placement, as kernels and copies take it.
 *
 * @example From a client's handle
 * ```ts ignore
 * import { createClient } from "@gpucompute/runtime";
 * using client = await createClient();
 * using handle = client.createBytes(64, { stream: 2 });
 * const ref = handle.ref();
 * console.log(ref.stream, ref.size()); // 2 64
 * ```
 *
 * @example Built by a backend
 * ```ts
 * import { Handle, SliceHandle, SliceRecord } from "@gpucompute/runtime/backend";
 * using handle = new Handle(new SliceHandle(new SliceRecord()), { stream: 2, cursor: 5, size: 32 });
 * const ref = handle.ref();
 * console.log(ref.stream, ref.size()); // 2 32
 * ```
 */
export class HandleRef implements Placement {
  /** The slice, not owned. */
  readonly slice: SliceRef;
  readonly offsetStart: number | undefined;
  readonly offsetEnd: number | undefined;
  readonly stream: StreamId;
  readonly cursor: number;
  readonly fullSize: number;
  readonly dtype: HandleType;

  /** Creates a ref over a slice with the given placement (untyped when it has no `dtype`). */
  constructor(
    slice: SliceRef,
    placement: Omit<Placement, "dtype"> & { readonly dtype?: HandleType },
  ) {
    this.slice = slice;
    this.offsetStart = placement.offsetStart;
    this.offsetEnd = placement.offsetEnd;
    this.stream = placement.stream;
    this.cursor = placement.cursor;
    this.fullSize = placement.fullSize;
    this.dtype = placement.dtype ?? "bytes";
  }

  /** Size in bytes, net of the offsets. */
  size(): number {
    return this.fullSize - (this.offsetStart ?? 0) - (this.offsetEnd ?? 0);
  }

  /**
   * Throws `INVALID_HANDLE` once every owning handle was disposed, even while work in flight
   * still pins the memory.
   */
  assertLive(): void {
    this.slice.record.assertLive();
  }
}
