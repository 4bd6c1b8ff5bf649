/**
 * {@linkcode HandleRef}: a non-owning reference to a handle's slice and placement, as kernel
 * arguments, copy descriptors, the stream engines and `getResource` take it. A {@linkcode Handle}
 * owns its slice; its ref names the same memory without ownership: the runtime pins the memory
 * while work that uses a ref is queued or in flight.
 *
 * @module
 */

import { DTYPE_SIZE } from "../dtype.ts";
import { InvalidHandleError } from "../errors.ts";
import type { SliceRef } from "./slice.ts";
import type { StreamId } from "../stream_id.ts";
import type { HandleType } from "../dtype.ts";

/**
 * The placement fields shared by handles and their refs.
 *
 * @example
 * ```ts
 * import { Handle, type Placement, SliceHandle, SliceRecord } from "@gpucompute/runtime/backend";
 * using handle = new Handle(new SliceHandle(new SliceRecord()), { stream: 2, cursor: 0, size: 64 });
 * const placement: Placement = handle.ref(); // a handle and its refs share their placement
 * console.log(placement.stream, placement.fullSize, placement.dtype); // 2 64 bytes
 * ```
 */
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

/** What error messages name a handle by: its caller's label and the call that made it. */
export interface HandleNames {
  /** The caller's name for the handle, if it gave one. */
  readonly label?: string | undefined;
  /** The call that made it, if known. */
  readonly madeBy?: string | undefined;
}

/**
 * A handle as error messages name it: its label, or its type and size, and where it was made
 * (`handle 'weights' (f32 × 1024, made by createWithData on stream 0)`).
 *
 * @example
 * ```ts
 * import { describeHandle } from "./handle_ref.ts";
 * const text = describeHandle({ dtype: "u32", fullSize: 8, offsetStart: 0, offsetEnd: 0, stream: 1 });
 * console.log(text); // the handle of u32 × 2 on stream 1
 * ```
 */
export function describeHandle(
  handle:
    & HandleNames
    & Pick<Placement, "dtype" | "fullSize" | "offsetStart" | "offsetEnd" | "stream">,
): string {
  if (handle.madeBy === "createTexture") { // a texture's ref: no byte size of its own
    return `texture '${handle.label}' (made by createTexture on stream ${handle.stream})`;
  }
  const bytes = handle.fullSize - (handle.offsetStart ?? 0) - (handle.offsetEnd ?? 0);
  const shape = handle.dtype === "bytes"
    ? `${bytes} bytes`
    : `${handle.dtype} × ${bytes / DTYPE_SIZE[handle.dtype]}`;
  const where = handle.madeBy === undefined
    ? `on stream ${handle.stream}`
    : `made by ${handle.madeBy} on stream ${handle.stream}`;
  return handle.label === undefined
    ? `the handle of ${shape} ${where}`
    : `handle '${handle.label}' (${shape}, ${where})`;
}

/**
 * A non-owning reference to a handle's memory and placement, as kernels and copies take it.
 *
 * @example From a client's handle
 * ```ts
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
  /** The handle's label, kept for error messages. */
  readonly label: string | undefined;
  /** The call that made the handle, kept for error messages. */
  readonly madeBy: string | undefined;

  /**
   * Creates a ref over a slice with the given placement (untyped when it has no `dtype`) and
   * the handle's names, for error messages.
   */
  constructor(
    slice: SliceRef,
    placement: Omit<Placement, "dtype"> & { readonly dtype?: HandleType } & HandleNames,
  ) {
    this.slice = slice;
    this.offsetStart = placement.offsetStart;
    this.offsetEnd = placement.offsetEnd;
    this.stream = placement.stream;
    this.cursor = placement.cursor;
    this.fullSize = placement.fullSize;
    this.dtype = placement.dtype ?? "bytes";
    this.label = placement.label;
    this.madeBy = placement.madeBy;
  }

  /** The handle as error messages name it (see {@linkcode describeHandle}). */
  describe(): string {
    return describeHandle(this);
  }

  /**
   * The error for a ref whose memory a server cannot find: its handles were all disposed, or it
   * belongs to another client (or server). Names the handle the user knows.
   */
  notFound(cause?: unknown): InvalidHandleError {
    const what = describeHandle(this);
    const text = what.charAt(0).toUpperCase() + what.slice(1);
    return new InvalidHandleError(
      this.slice.record.disposed
        ? `${text} was used after dispose()`
        : this.madeBy === "createTexture"
        ? `${text} belongs to another client (or server): textures do not move between ` +
          `clients (read its texels and create a texture with them on this client)`
        : `${text} belongs to another client (or server): copy it with copyTo`,
      { cause },
    );
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
