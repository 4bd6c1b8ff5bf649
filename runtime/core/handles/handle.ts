/**
 * Handles: what a server hands out for allocated memory.
 *
 * A {@linkcode Handle} owns a slice (through a {@linkcode SliceHandle}), may narrow it with start
 * and end byte offsets, and remembers the stream that created it and that stream's cursor at the
 * time. Its {@linkcode HandleRef} (`handle.ref()`, `handle_ref.ts`) carries the same fields
 * without ownership. Handles are `Disposable`.
 *
 * @module
 */

import { assertNonNegativeInteger } from "../_argument_checks.ts";
import type { SliceHandle } from "./slice.ts";
import { currentStreamId, type StreamId } from "../stream_id.ts";
import { type CopyDescriptor, copyDescriptor } from "../allocation.ts";
import { InvalidHandleError } from "../errors.ts";
import { assertDType, DTYPE_SIZE, type HandleType } from "../dtype.ts";
import { describeHandle, HandleRef, type Placement } from "./handle_ref.ts";
import type { HandleKind } from "./handle_kind.ts";

export { HandleRef, type Placement } from "./handle_ref.ts";
export { checkHandleKind, type HandleKind } from "./handle_kind.ts";

/**
 * Options to build a {@linkcode Handle}.
 *
 * @example
 * ```ts
 * import { Handle, type HandleInit, SliceHandle, SliceRecord } from "@gpucompute/runtime/backend";
 * const init: HandleInit = { stream: 1, cursor: 0, size: 64, dtype: "f32", label: "weights" };
 * using handle = new Handle(new SliceHandle(new SliceRecord()), init);
 * console.log(handle.length, handle.stream, handle.label); // 16 1 weights
 * ```
 */
export interface HandleInit {
  /** The stream that created the memory. */
  stream: StreamId;
  /** The stream's cursor when the memory became available. */
  cursor: number;
  /** Length of the slice in bytes, ignoring offsets. */
  size: number;
  /**
   * Bytes skipped at the start of the slice.
   * @default {undefined}
   */
  offsetStart?: number;
  /**
   * Bytes cut from the end of the slice.
   * @default {undefined}
   */
  offsetEnd?: number;
  /**
   * What the memory holds. A typed handle's size and offsets are whole elements.
   * @default {"bytes"}
   */
  dtype?: HandleType;
  /**
   * The caller's name for the handle, used in error messages.
   * @default {undefined}
   */
  label?: string;
  /**
   * The call that made the handle (`"createWithData"`, `"zeros"`...), used in error messages.
   * @default {undefined}
   */
  madeBy?: string;
}

/** The init of `Handle.fresh`, reused (the constructor reads it during the call only). */
const FRESH: HandleInit = { stream: 0, cursor: 0, size: 0 };

function checkInit(init: HandleInit): void {
  // The common case (no offsets, untyped or 4-byte elements) stays small enough for V8 to
  // inline into allocation paths; the rest is checked out of line.
  assertNonNegativeInteger(init.size, "Handle size");
  assertNonNegativeInteger(init.cursor, "Handle cursor");
  if (
    init.offsetStart !== undefined || init.offsetEnd !== undefined ||
    (init.dtype !== undefined && init.dtype !== "bytes")
  ) checkLayout(init);
}

function checkLayout(init: HandleInit): void {
  const dtype = init.dtype ?? "bytes";
  assertDType(dtype, "dtype", { allowBytes: true });
  const start = init.offsetStart ?? 0;
  const end = init.offsetEnd ?? 0;
  assertNonNegativeInteger(start, "offsetStart");
  assertNonNegativeInteger(end, "offsetEnd");
  if (start + end > init.size) {
    throw new RangeError(
      `Offsets ${start} + ${end} bytes exceed the handle size of ${init.size} bytes`,
    );
  }
  const unit = DTYPE_SIZE[dtype];
  if (unit === 1) return;
  for (const [what, bytes] of [["size", init.size - start - end], ["offset", start]] as const) {
    if (bytes % unit !== 0) {
      throw new RangeError(
        `A ${dtype} handle holds whole ${unit}-byte elements: its ${what} of ${bytes} bytes is ` +
          `not a multiple of ${unit} (reinterpret the memory with .as("bytes") first)`,
      );
    }
  }
}

/**
 * An owning reference to device memory of an element type ({@linkcode dtype}), optionally
 * narrowed by byte offsets. Users get handles from a client (`createWithData`, `empty`, `zeros`,
 * the helpers) and dispose them.
 *
 * @example From a client
 * ```ts
 * import { createClient } from "@gpucompute/runtime";
 * using client = await createClient();
 * using handle = client.createWithData(new Float32Array([1, 2, 3, 4]));
 * using tail = handle.withOffsetStart(8); // a second owner of the last two floats
 * console.log(handle.dtype, await client.read(tail)); // f32 Float32Array [3, 4]
 * ```
 *
 * @example Built by a backend
 * ```ts
 * import { Handle, SliceRecord, SliceHandle } from "@gpucompute/runtime/backend";
 * using handle = new Handle(new SliceHandle(new SliceRecord()), {
 *   stream: 0,
 *   cursor: 1,
 *   size: 64,
 *   dtype: "f32",
 * });
 * const tail = handle.withOffsetStart(16);
 * console.log(tail.size(), tail.length); // 48 12
 * tail.dispose();
 * ```
 */
export class Handle<D extends HandleType = HandleType> implements Placement, Disposable {
  /** The owning slice reference. */
  readonly slice: SliceHandle;
  readonly offsetStart: number | undefined;
  readonly offsetEnd: number | undefined;
  readonly stream: StreamId;
  readonly cursor: number;
  readonly fullSize: number;
  /** What the memory holds: `read` returns this type, kernels must declare it. */
  readonly dtype: D;
  /** The caller's name for the handle, if it gave one. */
  readonly label: string | undefined;
  /** The call that made it, if known. */
  readonly madeBy: string | undefined;
  #ref: HandleRef | undefined;

  /** Wraps a slice handle (taking ownership of it) with its placement (`init` is read, not kept). */
  constructor(slice: SliceHandle, init: HandleInit) {
    checkInit(init);
    this.slice = slice;
    this.offsetStart = init.offsetStart;
    this.offsetEnd = init.offsetEnd;
    this.stream = init.stream;
    this.cursor = init.cursor;
    this.fullSize = init.size;
    this.dtype = (init.dtype ?? "bytes") as D;
    this.label = init.label;
    this.madeBy = init.madeBy;
  }

  /**
   * The handle of a fresh reservation (no offsets), as `new Handle(memory, { stream, cursor,
   * size, ...kind })` without building the init object: a backend's allocation path, called per
   * allocation (hence positional).
   *
   * @example
   * ```ts
   * import { Handle, SliceRecord, SliceHandle } from "@gpucompute/runtime/backend";
   * using handle = Handle.fresh(new SliceHandle(new SliceRecord()), 0, 1, 64, { dtype: "u32" });
   * console.log(handle.size(), handle.length, handle.cursor); // 64 16 1
   * ```
   */
  static fresh(
    slice: SliceHandle,
    stream: StreamId,
    cursor: number,
    size: number,
    kind?: HandleKind,
  ): Handle {
    FRESH.stream = stream;
    FRESH.cursor = cursor;
    FRESH.size = size;
    FRESH.dtype = kind?.dtype;
    FRESH.label = kind?.label;
    FRESH.madeBy = kind?.madeBy;
    return new Handle(slice, FRESH);
  }

  /** Size in bytes, net of the offsets. */
  size(): number {
    return this.fullSize - (this.offsetStart ?? 0) - (this.offsetEnd ?? 0);
  }

  /** Number of elements of {@linkcode dtype} (bytes for an untyped handle). */
  get length(): number {
    return this.size() / DTYPE_SIZE[this.dtype];
  }

  /** True after {@linkcode dispose}. */
  get disposed(): boolean {
    return this.slice.disposed;
  }

  /** A new handle on the same slice with `bytes` more skipped at the start. */
  withOffsetStart(bytes: number): Handle<D> {
    return this.#derive((this.offsetStart ?? 0) + bytes, this.offsetEnd, this.dtype);
  }

  /** A new handle on the same slice with `bytes` more cut from the end. */
  withOffsetEnd(bytes: number): Handle<D> {
    return this.#derive(this.offsetStart, (this.offsetEnd ?? 0) + bytes, this.dtype);
  }

  /** A new owner of the same memory and placement. */
  clone(): Handle<D> {
    return this.#derive(this.offsetStart, this.offsetEnd, this.dtype);
  }

  /**
   * A new owner of the same memory read as another type: reinterpretation on purpose (the bytes
   * do not change). `"bytes"` makes an untyped handle that binds to any kernel. `RangeError` when
   * the size is not a whole number of the new elements.
   *
   * @example
   * ```ts
   * import { createClient } from "@gpucompute/runtime";
   * using client = await createClient();
   * using ones = client.createWithData(new Float32Array([1, 1]));
   * using bits = ones.as("u32");
   * console.log(await client.read(bits)); // Uint32Array [1065353216, 1065353216]
   * ```
   */
  as<T extends HandleType>(dtype: T): Handle<T> {
    assertDType(dtype, "dtype", { allowBytes: true });
    return this.#derive(this.offsetStart, this.offsetEnd, dtype);
  }

  /** True when this handle is the sole owner and belongs to `stream` (the current stream). */
  canMut(stream: StreamId = currentStreamId()): boolean {
    return this.slice.canMut() && this.stream === stream;
  }

  /**
   * A ref with the same placement. Throws `INVALID_HANDLE` naming the handle after dispose. Refs
   * are immutable, so the handle makes one and hands out that one (a launch allocates none).
   */
  ref(): HandleRef {
    const cached = this.#ref;
    if (cached !== undefined && !this.slice.disposed) return cached;
    if (this.slice.disposed) throw this.#disposedError();
    return this.#ref = new HandleRef(this.slice.ref(), this);
  }

  /** A copy descriptor over this handle. */
  copyDescriptor(
    shape: readonly number[],
    strides: readonly number[],
    elemSize: number,
  ): CopyDescriptor {
    return copyDescriptor(this.ref(), shape, strides, elemSize);
  }

  /**
   * The handle as error messages name it: its label, or its type and size, and where it was
   * made (`'weights' (f32 × 1024, made by createWithData on stream 0)`).
   */
  describe(): string {
    return describeHandle(this);
  }

  /** Gives up ownership of the memory. Idempotent. */
  dispose(): void {
    this.slice.dispose();
  }

  /** Same as {@linkcode dispose}, for `using`. */
  [Symbol.dispose](): void {
    this.dispose();
  }

  #disposedError(): InvalidHandleError {
    return new InvalidHandleError(`${capitalize(this.describe())} was used after dispose()`);
  }

  #derive<T extends HandleType>(
    offsetStart: number | undefined,
    offsetEnd: number | undefined,
    dtype: T,
  ): Handle<T> {
    if (this.slice.disposed) throw this.#disposedError();
    const init: HandleInit = {
      stream: this.stream,
      cursor: this.cursor,
      size: this.fullSize,
      offsetStart,
      offsetEnd,
      dtype,
      label: this.label,
      madeBy: this.madeBy,
    };
    checkInit(init);
    return new Handle<T>(this.slice.clone(), init);
  }
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
