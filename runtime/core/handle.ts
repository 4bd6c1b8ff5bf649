/**
 * Handles and bindings: what a server hands out for allocated memory and what kernels receive.
 *
 * A {@linkcode Handle} owns a slice (through a {@linkcode SliceHandle}), may narrow it with start
 * and end byte offsets, and remembers the stream that created it and that stream's cursor at the
 * time. {@linkcode Binding} carries the same fields without ownership. Handles are `Disposable`.
 *
 * @module
 */

import { assertNonNegativeInteger } from "./_validate.ts";
import type { SliceBinding, SliceHandle } from "./slice.ts";
import { currentStreamId, type StreamId } from "./stream_id.ts";
import { type CopyDescriptor, copyDescriptor } from "./allocation.ts";
import { InvalidHandleError } from "./errors.ts";

/** The placement fields shared by handles and bindings. */
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
}

/** Options to build a {@linkcode Handle}. */
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
}

/** The init of `Handle.fresh`, reused (the constructor reads it during the call only). */
const FRESH: HandleInit = { stream: 0, cursor: 0, size: 0 };

function checkOffsets(init: HandleInit): void {
  // The common case (no offsets) stays small enough for V8 to inline into allocation paths.
  if (init.offsetStart === undefined && init.offsetEnd === undefined) {
    assertNonNegativeInteger(init.size, "Handle size");
    assertNonNegativeInteger(init.cursor, "Handle cursor");
  } else checkNarrowed(init);
}

function checkNarrowed(init: HandleInit): void {
  assertNonNegativeInteger(init.size, "Handle size");
  assertNonNegativeInteger(init.cursor, "Handle cursor");
  const start = init.offsetStart ?? 0;
  const end = init.offsetEnd ?? 0;
  assertNonNegativeInteger(start, "offsetStart");
  assertNonNegativeInteger(end, "offsetEnd");
  if (start + end > init.size) {
    throw new RangeError(
      `Offsets ${start} + ${end} bytes exceed the handle size of ${init.size} bytes`,
    );
  }
}

/**
 * An owning reference to device memory, optionally narrowed by byte offsets. Users get handles
 * from a client (`create`, `createWithData`, the helpers) and dispose them.
 *
 * @example From a client
 * ```ts ignore
 * import { createClient } from "@gpucompute/runtime";
 * using client = await createClient();
 * using handle = client.createWithData(new Float32Array([1, 2, 3, 4]));
 * using tail = handle.withOffsetStart(8); // a second owner of the last two floats
 * console.log(await client.read(tail, Float32Array)); // Float32Array [3, 4]
 * ```
 *
 * @example Built by a backend
 * ```ts
 * import { Handle, ManagedMemoryId, SliceHandle } from "@gpucompute/runtime/backend";
 * using handle = new Handle(new SliceHandle(new ManagedMemoryId()), { stream: 0, cursor: 1, size: 64 });
 * const tail = handle.withOffsetStart(16);
 * console.log(tail.size()); // 48
 * tail.dispose();
 * ```
 */
export class Handle implements Placement, Disposable {
  /** The owning slice reference. */
  readonly memory: SliceHandle;
  readonly offsetStart: number | undefined;
  readonly offsetEnd: number | undefined;
  readonly stream: StreamId;
  readonly cursor: number;
  readonly fullSize: number;
  #binding: Binding | undefined;

  /** Wraps a slice handle (taking ownership of it) with its placement (`init` is read, not kept). */
  constructor(memory: SliceHandle, init: HandleInit) {
    checkOffsets(init);
    this.memory = memory;
    this.offsetStart = init.offsetStart;
    this.offsetEnd = init.offsetEnd;
    this.stream = init.stream;
    this.cursor = init.cursor;
    this.fullSize = init.size;
  }

  /**
   * The handle of a fresh reservation (no offsets), as `new Handle(memory, { stream, cursor,
   * size })` without building the init object: a backend's allocation path.
   *
   * @example
   * ```ts
   * import { Handle, ManagedMemoryId, SliceHandle } from "@gpucompute/runtime/backend";
   * using handle = Handle.fresh(new SliceHandle(new ManagedMemoryId()), 0, 1, 64);
   * console.log(handle.size(), handle.cursor); // 64 1
   * ```
   */
  static fresh(memory: SliceHandle, stream: StreamId, cursor: number, size: number): Handle {
    FRESH.stream = stream;
    FRESH.cursor = cursor;
    FRESH.size = size;
    return new Handle(memory, FRESH);
  }

  /** Size in bytes, net of the offsets. */
  size(): number {
    return this.fullSize - (this.offsetStart ?? 0) - (this.offsetEnd ?? 0);
  }

  /** True after {@linkcode dispose}. */
  get disposed(): boolean {
    return this.memory.disposed;
  }

  /** A new handle on the same slice with `bytes` more skipped at the start. */
  withOffsetStart(bytes: number): Handle {
    return this.#derive((this.offsetStart ?? 0) + bytes, this.offsetEnd);
  }

  /** A new handle on the same slice with `bytes` more cut from the end. */
  withOffsetEnd(bytes: number): Handle {
    return this.#derive(this.offsetStart, (this.offsetEnd ?? 0) + bytes);
  }

  /** A new owner of the same memory and placement. */
  clone(): Handle {
    return this.#derive(this.offsetStart, this.offsetEnd);
  }

  /** True when this handle is the sole owner and belongs to `stream` (the current stream). */
  canMut(stream: StreamId = currentStreamId()): boolean {
    return this.memory.canMut() && this.stream === stream;
  }

  /**
   * A binding with the same placement. Throws `INVALID_HANDLE` after dispose. Bindings are
   * immutable, so the handle makes one and hands out that one (a launch allocates none).
   */
  binding(): Binding {
    if (this.#binding === undefined || this.memory.disposed) {
      this.#binding = new Binding(this.memory.binding(), this); // throws once disposed
    }
    return this.#binding;
  }

  /** A copy descriptor over this handle. */
  copyDescriptor(
    shape: readonly number[],
    strides: readonly number[],
    elemSize: number,
  ): CopyDescriptor {
    return copyDescriptor(this.binding(), shape, strides, elemSize);
  }

  /** Gives up ownership of the memory. Idempotent. */
  dispose(): void {
    this.memory.dispose();
  }

  /** Same as {@linkcode dispose}, for `using`. */
  [Symbol.dispose](): void {
    this.dispose();
  }

  #derive(offsetStart: number | undefined, offsetEnd: number | undefined): Handle {
    if (this.memory.disposed) {
      throw new InvalidHandleError("Cannot derive a handle from a disposed handle");
    }
    const init = {
      stream: this.stream,
      cursor: this.cursor,
      size: this.fullSize,
      offsetStart,
      offsetEnd,
    };
    checkOffsets(init);
    return new Handle(this.memory.clone(), init);
  }
}

/**
 * A non-owning reference to a handle's memory and placement, as kernels and copies take it.
 *
 * @example From a client's handle
 * ```ts ignore
 * import { createClient } from "@gpucompute/runtime";
 * using client = await createClient();
 * using handle = client.create(64, { stream: 2 });
 * const binding = handle.binding();
 * console.log(binding.stream, binding.size()); // 2 64
 * ```
 *
 * @example Built by a backend
 * ```ts
 * import { Handle, ManagedMemoryId, SliceHandle } from "@gpucompute/runtime/backend";
 * using handle = new Handle(new SliceHandle(new ManagedMemoryId()), { stream: 2, cursor: 5, size: 32 });
 * const binding = handle.binding();
 * console.log(binding.stream, binding.size()); // 2 32
 * ```
 */
export class Binding implements Placement {
  /** The slice, not owned. */
  readonly memory: SliceBinding;
  readonly offsetStart: number | undefined;
  readonly offsetEnd: number | undefined;
  readonly stream: StreamId;
  readonly cursor: number;
  readonly fullSize: number;

  /** Creates a binding over a slice with the given placement. */
  constructor(memory: SliceBinding, placement: Placement) {
    this.memory = memory;
    this.offsetStart = placement.offsetStart;
    this.offsetEnd = placement.offsetEnd;
    this.stream = placement.stream;
    this.cursor = placement.cursor;
    this.fullSize = placement.fullSize;
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
    this.memory.id.assertLive();
  }
}
