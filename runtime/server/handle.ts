/**
 * Handles and bindings: what a server hands out for allocated memory and what kernels receive.
 *
 * A {@linkcode Handle} owns a slice (through a {@linkcode SliceHandle}), may narrow it with start
 * and end byte offsets, and remembers the stream that created it and that stream's cursor at the
 * time. {@linkcode Binding} carries the same fields without ownership. Handles are `Disposable`.
 *
 * @module
 */

import { assertNonNegativeInteger, assertPositiveInteger } from "../_validate.ts";
import type { SliceBinding, SliceHandle } from "../memory/slice.ts";
import { currentStreamId, type StreamId } from "../stream/stream_id.ts";
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

function checkOffsets(init: HandleInit): void {
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
 * An owning reference to device memory, optionally narrowed by byte offsets.
 *
 * @example
 * ```ts
 * import { Handle, ManagedMemoryId, SliceHandle } from "@gpucompute/runtime";
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

  /** Wraps a slice handle (taking ownership of it) with its placement. */
  constructor(memory: SliceHandle, init: HandleInit) {
    checkOffsets(init);
    this.memory = memory;
    this.offsetStart = init.offsetStart;
    this.offsetEnd = init.offsetEnd;
    this.stream = init.stream;
    this.cursor = init.cursor;
    this.fullSize = init.size;
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

  /** A binding with the same placement. Throws `INVALID_HANDLE` after dispose. */
  binding(): Binding {
    return new Binding(this.memory.binding(), this);
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
 * @example
 * ```ts
 * import { Handle, ManagedMemoryId, SliceHandle } from "@gpucompute/runtime";
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

  /** Throws `INVALID_HANDLE` if the memory was released (every owning handle was disposed). */
  assertLive(): void {
    this.memory.id.assertLive();
  }
}

/** The layout of a new allocation: contiguous, or optimized (rows may be padded). */
export type AllocationKind = "contiguous" | "optimized";

/**
 * What to allocate: a shape of elements of `elemSize` bytes in a layout.
 *
 * @example
 * ```ts
 * import { AllocationDescriptor } from "@gpucompute/runtime";
 * const descriptor = AllocationDescriptor.contiguous([4, 4], 4);
 * console.log(descriptor.kind, descriptor.shape);
 * ```
 */
export interface AllocationDescriptor {
  /** The layout. */
  readonly kind: AllocationKind;
  /** Shape in elements. */
  readonly shape: readonly number[];
  /** Bytes per element. */
  readonly elemSize: number;
}

/** Constructors of {@linkcode AllocationDescriptor}. */
export interface AllocationDescriptorConstructors {
  /** A contiguous layout with no padding. */
  contiguous(shape: readonly number[], elemSize: number): AllocationDescriptor;
  /** A layout optimized for access; rows may be padded where the backend benefits. */
  optimized(shape: readonly number[], elemSize: number): AllocationDescriptor;
}

/** Constructors of {@linkcode AllocationDescriptor}. */
export const AllocationDescriptor: AllocationDescriptorConstructors = {
  contiguous(shape: readonly number[], elemSize: number): AllocationDescriptor {
    return checkedDescriptor("contiguous", shape, elemSize);
  },
  optimized(shape: readonly number[], elemSize: number): AllocationDescriptor {
    return checkedDescriptor("optimized", shape, elemSize);
  },
};

function checkedDescriptor(
  kind: AllocationKind,
  shape: readonly number[],
  elemSize: number,
): AllocationDescriptor {
  if (!Array.isArray(shape)) throw new TypeError("shape must be an array of integers");
  shape.forEach((dim, i) => assertNonNegativeInteger(dim, `shape[${i}]`));
  assertPositiveInteger(elemSize, "elemSize");
  return { kind, shape: [...shape], elemSize };
}

/**
 * A new allocation: the handle and the strides (in elements) of its layout.
 *
 * @example
 * ```ts
 * import type { Allocation } from "@gpucompute/runtime";
 * const describe = (allocation: Allocation) => `${allocation.handle.size()} bytes, ${allocation.strides}`;
 * ```
 */
export interface Allocation {
  /** The owning handle. */
  readonly handle: Handle;
  /** Strides in elements, one per dimension. */
  readonly strides: readonly number[];
}

/**
 * A binding with shape and strides, for reads, writes and copies of possibly strided data.
 *
 * @example
 * ```ts
 * import { Handle, ManagedMemoryId, SliceHandle } from "@gpucompute/runtime";
 * using handle = new Handle(new SliceHandle(new ManagedMemoryId()), { stream: 0, cursor: 1, size: 64 });
 * const descriptor = handle.copyDescriptor([4, 4], [4, 1], 4);
 * console.log(descriptor.shape);
 * ```
 */
export interface CopyDescriptor {
  /** The memory to copy. */
  readonly binding: Binding;
  /** Shape in elements. */
  readonly shape: readonly number[];
  /** Strides in elements. */
  readonly strides: readonly number[];
  /** Bytes per element. */
  readonly elemSize: number;
}

/**
 * Builds a checked {@linkcode CopyDescriptor}.
 *
 * @example
 * ```ts
 * import { copyDescriptor, Handle, ManagedMemoryId, SliceHandle } from "@gpucompute/runtime";
 * using handle = new Handle(new SliceHandle(new ManagedMemoryId()), { stream: 0, cursor: 1, size: 16 });
 * console.log(copyDescriptor(handle.binding(), [4], [1], 4).elemSize); // 4
 * ```
 */
export function copyDescriptor(
  binding: Binding,
  shape: readonly number[],
  strides: readonly number[],
  elemSize: number,
): CopyDescriptor {
  if (shape.length !== strides.length) {
    throw new RangeError(`shape has ${shape.length} dimensions but strides has ${strides.length}`);
  }
  shape.forEach((dim, i) => assertNonNegativeInteger(dim, `shape[${i}]`));
  strides.forEach((stride, i) => assertNonNegativeInteger(stride, `strides[${i}]`));
  assertPositiveInteger(elemSize, "elemSize");
  return { binding, shape: [...shape], strides: [...strides], elemSize };
}

/**
 * Row-major contiguous strides, in elements, of a shape.
 *
 * @example
 * ```ts
 * import { contiguousStrides } from "@gpucompute/runtime";
 * console.log(contiguousStrides([2, 3, 4])); // [12, 4, 1]
 * ```
 */
export function contiguousStrides(shape: readonly number[]): number[] {
  const strides = new Array<number>(shape.length);
  let stride = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    strides[i] = stride;
    stride *= shape[i];
  }
  return strides;
}

/**
 * True when a descriptor's strides are the contiguous strides of its shape (so it can be copied
 * as one span of `product(shape) * elemSize` bytes). Dimensions of size 1 may have any stride.
 *
 * @example
 * ```ts
 * import { isContiguous } from "@gpucompute/runtime";
 * console.log(isContiguous([2, 3], [3, 1]), isContiguous([2, 3], [4, 1])); // true false
 * ```
 */
export function isContiguous(shape: readonly number[], strides: readonly number[]): boolean {
  const expected = contiguousStrides(shape);
  return shape.every((dim, i) => dim <= 1 || strides[i] === expected[i]);
}
