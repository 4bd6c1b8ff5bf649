/**
 * Allocation and copy descriptors: what to allocate (shape, element size, layout), what a server
 * returns for it (a handle and its row strides), and the shape of a strided copy.
 *
 * @module
 */

import { assertNonNegativeInteger, assertPositiveInteger, checkShape } from "./_argument_checks.ts";
import type { Handle, HandleRef } from "./handles/handle.ts";

/**
 * The layout of a new allocation: contiguous, or optimized (rows may be padded).
 *
 * @example
 * ```ts
 * import { AllocationDescriptor, type AllocationKind } from "@gpucompute/runtime/backend";
 * const kind: AllocationKind = AllocationDescriptor.contiguous([8], 4).kind;
 * console.log(kind); // contiguous
 * ```
 */
export type AllocationKind = "contiguous" | "optimized";

/**
 * What to allocate: a shape of elements of `elemSize` bytes in a layout.
 *
 * @example
 * ```ts
 * import { AllocationDescriptor } from "@gpucompute/runtime/backend";
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

/**
 * Constructors of {@linkcode AllocationDescriptor}.
 *
 * @example
 * ```ts
 * import {
 *   AllocationDescriptor,
 *   type AllocationDescriptorConstructors,
 * } from "@gpucompute/runtime/backend";
 * const make: AllocationDescriptorConstructors = AllocationDescriptor;
 * console.log(make.optimized([4, 4], 4).kind); // optimized
 * ```
 */
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
  checkShape(shape, elemSize);
  return { kind, shape: shape.slice(), elemSize };
}

/**
 * A new allocation: the handle and the strides (in elements) of its layout.
 *
 * @example
 * ```ts
 * import type { Allocation } from "@gpucompute/runtime/backend";
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
 * A ref with shape and strides, for reads, writes and copies of possibly strided data.
 *
 * @example
 * ```ts
 * import { Handle, SliceRecord, SliceHandle } from "@gpucompute/runtime/backend";
 * using handle = new Handle(new SliceHandle(new SliceRecord()), { stream: 0, cursor: 1, size: 64 });
 * const descriptor = handle.copyDescriptor([4, 4], [4, 1], 4);
 * console.log(descriptor.shape);
 * ```
 */
export interface CopyDescriptor {
  /** The memory to copy. */
  readonly ref: HandleRef;
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
 * import { copyDescriptor, Handle, SliceRecord, SliceHandle } from "@gpucompute/runtime/backend";
 * using handle = new Handle(new SliceHandle(new SliceRecord()), { stream: 0, cursor: 1, size: 16 });
 * console.log(copyDescriptor(handle.ref(), [4], [1], 4).elemSize); // 4
 * ```
 */
export function copyDescriptor(
  ref: HandleRef,
  shape: readonly number[],
  strides: readonly number[],
  elemSize: number,
): CopyDescriptor {
  if (!Array.isArray(shape) || !Array.isArray(strides)) {
    throw new TypeError("shape and strides must be arrays of integers");
  }
  if (shape.length !== strides.length) {
    throw new RangeError(`shape has ${shape.length} dimensions but strides has ${strides.length}`);
  }
  shape.forEach((dim, i) => assertNonNegativeInteger(dim, `shape[${i}]`));
  strides.forEach((stride, i) => assertNonNegativeInteger(stride, `strides[${i}]`));
  assertPositiveInteger(elemSize, "elemSize");
  return { ref, shape: [...shape], strides: [...strides], elemSize };
}

/**
 * Row-major contiguous strides, in elements, of a shape.
 *
 * @example
 * ```ts
 * import { contiguousStrides } from "@gpucompute/runtime/backend";
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
 * import { isContiguous } from "@gpucompute/runtime/backend";
 * console.log(isContiguous([2, 3], [3, 1]), isContiguous([2, 3], [4, 1])); // true false
 * ```
 */
export function isContiguous(shape: readonly number[], strides: readonly number[]): boolean {
  const expected = contiguousStrides(shape);
  return shape.every((dim, i) => dim <= 1 || strides[i] === expected[i]);
}
