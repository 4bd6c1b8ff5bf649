/**
 * Allocation as every server does it: descriptors checked and laid out before anything is
 * reserved, all reserved or none (rollback), `empty` and `createWithData` with their
 * {@linkcode HandleKind} checked first and the new handle given back when its upload fails.
 * The backend gives its parts: its layout of a descriptor, its memory ({@linkcode HandleAllocator}),
 * and for uploads the server itself (its `write`).
 *
 * @module
 */

import {
  type Allocation,
  type AllocationDescriptor,
  contiguousStrides,
} from "../../core/allocation.ts";
import { BufferTooBigError } from "../../core/errors.ts";
import type { Handle } from "../../core/handles/handle.ts";
import { checkHandleKind, type HandleKind } from "../../core/handles/handle_kind.ts";
import { assertNonNegativeInteger, checkShape } from "../../core/_argument_checks.ts";
import type { StreamId } from "../../core/stream_id.ts";
import type { ComputeServer } from "../server.ts";

/**
 * What the shared layer needs of a backend's memory part: reserving bytes as a new handle of a
 * stream, and the largest reservation (named in errors).
 *
 * @example
 * ```ts
 * import { Handle, type HandleAllocator, SliceHandle, SliceRecord } from "@gpucompute/runtime/backend";
 * const memory: HandleAllocator = {
 *   maxAllocationSize: 2 ** 30,
 *   allocate: (bytes, stream) =>
 *     new Handle(new SliceHandle(new SliceRecord()), { stream, cursor: 0, size: bytes }),
 * };
 * ```
 */
export interface HandleAllocator {
  /** The largest reservation, in bytes. */
  readonly maxAllocationSize: number;
  /** Reserves `bytes` as a new handle made on `stream` (of `kind`'s element type when given). */
  allocate(bytes: number, stream: StreamId, kind?: HandleKind): Handle;
}

/**
 * A backend's layout of an allocation: its byte size and its strides in elements.
 *
 * @example
 * ```ts
 * import type { AllocationLayout } from "@gpucompute/runtime/backend";
 * const layout: AllocationLayout = { bytes: 64, strides: [4, 1] };
 * ```
 */
export interface AllocationLayout {
  /** Bytes to reserve. */
  readonly bytes: number;
  /** Strides in elements, one per dimension. */
  readonly strides: readonly number[];
}

/** The strides of every one-dimensional allocation (read-only in `Allocation`, so shared). */
const ONE_D: readonly number[] = Object.freeze([1]);

/**
 * The contiguous layout of a checked descriptor (`optimized` gains nothing where rows need no
 * padding): the product of the shape times the element size, row-major strides.
 *
 * @example
 * ```ts
 * import { AllocationDescriptor, contiguousLayout } from "@gpucompute/runtime/backend";
 * console.log(contiguousLayout(AllocationDescriptor.optimized([2, 3], 4))); // { bytes: 24, strides: [3, 1] }
 * ```
 */
export function contiguousLayout(descriptor: AllocationDescriptor): AllocationLayout {
  const { shape, elemSize } = descriptor;
  let bytes = elemSize;
  for (let axis = 0; axis < shape.length; axis++) bytes *= shape[axis];
  return { bytes, strides: shape.length === 1 ? ONE_D : contiguousStrides(shape) };
}

/**
 * Checks every descriptor (`TypeError` / `RangeError`, `BUFFER_TOO_BIG` past the safe integers)
 * and lays it out with `layout`, then reserves each on `stream` from `memory`: all or none, the handles
 * reserved before a failure are disposed. The descriptors are read during the call only.
 *
 * @example
 * ```ts
 * import {
 *   AllocationDescriptor,
 *   contiguousLayout,
 *   createAllocations,
 *   Handle,
 *   SliceHandle,
 *   SliceRecord,
 * } from "@gpucompute/runtime/backend";
 * const memory = {
 *   maxAllocationSize: 2 ** 30,
 *   allocate: (bytes: number, stream: number) =>
 *     new Handle(new SliceHandle(new SliceRecord()), { stream, cursor: 0, size: bytes }),
 * };
 * const [a] = createAllocations([AllocationDescriptor.contiguous([4], 4)], 0, {
 *   layout: contiguousLayout,
 *   memory,
 * });
 * console.log(a.handle.size(), a.strides); // 16 [ 1 ]
 * a.handle.dispose();
 * ```
 */
export function createAllocations(
  descriptors: readonly AllocationDescriptor[],
  stream: StreamId,
  parts: {
    readonly layout: (descriptor: AllocationDescriptor) => AllocationLayout;
    readonly memory: HandleAllocator;
  },
): Allocation[] {
  if (!Array.isArray(descriptors)) throw new TypeError("descriptors must be an array");
  const layouts = new Array<AllocationLayout>(descriptors.length); // sized: no growth
  for (let i = 0; i < descriptors.length; i++) {
    const d = descriptors[i];
    if (d?.kind !== "contiguous" && d?.kind !== "optimized") notADescriptor(i);
    checkShape(d.shape, d.elemSize);
    const layout = parts.layout(d);
    if (!Number.isSafeInteger(layout.bytes)) {
      throw new BufferTooBigError(layout.bytes, parts.memory.maxAllocationSize);
    }
    layouts[i] = layout;
  }
  const allocations = new Array<Allocation>(descriptors.length);
  let made = 0;
  try {
    for (; made < layouts.length; made++) {
      const { bytes, strides } = layouts[made];
      allocations[made] = { handle: parts.memory.allocate(bytes, stream), strides };
    }
  } catch (error) {
    for (let i = 0; i < made; i++) allocations[i].handle.dispose();
    throw error;
  }
  return allocations;
}

function notADescriptor(index: number): never {
  throw new TypeError(`descriptors[${index}] must be an AllocationDescriptor`);
}

/**
 * Checks `empty`'s arguments before anything is reserved: a non-negative safe integer size that
 * is a whole number of `kind`'s elements.
 *
 * @example
 * ```ts
 * import { checkEmpty } from "@gpucompute/runtime/backend";
 * checkEmpty(12, { dtype: "f32" }); // three floats: fine
 * ```
 */
export function checkEmpty(byteSize: number, kind: HandleKind | undefined): void {
  assertNonNegativeInteger(byteSize, "byteSize");
  if (kind !== undefined) checkHandleKind(byteSize, kind);
}

/**
 * `createWithData` on every backend: checks `data` and `kind`, reserves on `stream` from `memory`,
 * writes the bytes with the server's `write` (in stream order), and disposes the new handle when
 * the write throws.
 *
 * @example
 * ```ts
 * import {
 *   createWithData,
 *   Handle,
 *   SliceHandle,
 *   SliceRecord,
 *   type WriteEntry,
 * } from "@gpucompute/runtime/backend";
 * import type { HandleType } from "@gpucompute/runtime";
 * const memory = {
 *   maxAllocationSize: 2 ** 30,
 *   allocate: (bytes: number, stream: number, kind?: { dtype?: HandleType }) =>
 *     new Handle(new SliceHandle(new SliceRecord()), { stream, cursor: 0, size: bytes, ...kind }),
 * };
 * const server = { // a server passes itself: its `write` enqueues the copy on the stream
 *   write: (entries: readonly WriteEntry[], stream: number) =>
 *     console.log(stream, entries[0].data, entries[0].descriptor.shape),
 * };
 * // a server's createWithData(data, stream, kind) is this call with its own memory
 * using handle = createWithData(new Uint8Array([1, 2, 3, 4]), { dtype: "u32" }, 2, {
 *   memory,
 *   server,
 * });
 * // 2 Uint8Array [1, 2, 3, 4] [4]
 * console.log(handle.dtype, handle.length); // u32 1
 * ```
 */
export function createWithData(
  data: Uint8Array,
  kind: HandleKind | undefined,
  stream: StreamId,
  parts: { readonly memory: HandleAllocator; readonly server: Pick<ComputeServer, "write"> },
): Handle {
  if (!(data instanceof Uint8Array)) throw new TypeError("data must be a Uint8Array");
  if (kind !== undefined) checkHandleKind(data.byteLength, kind);
  const handle = parts.memory.allocate(data.byteLength, stream, kind);
  try {
    const descriptor = handle.copyDescriptor([data.byteLength], [1], 1);
    parts.server.write([{ descriptor, data }], stream);
  } catch (error) {
    handle.dispose();
    throw error;
  }
  return handle;
}
