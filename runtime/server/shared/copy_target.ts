/**
 * Copy descriptors and write entries checked the same way on every backend, before anything is
 * enqueued: a descriptor built by hand is a {@linkcode HandleRef} with a sane shape, strides and
 * element size, laid out by the backend (contiguous, or rows at a pitch), and its span lies
 * within its ref (one error text everywhere); a write entry's bytes are a `Uint8Array` of exactly
 * the descriptor's size.
 *
 * @module
 */

import { type CopyDescriptor, copyDescriptor, isContiguous } from "../../core/allocation.ts";
import { UnsupportedError } from "../../core/errors.ts";
import { HandleRef } from "../../core/handles/handle_ref.ts";
import type { ResourceRange, WriteEntry } from "../server.ts";

/**
 * How many bytes a copy moves and how far it reaches: `span` runs from its first to its last
 * byte on the device (`bytes` plus the gaps between pitched rows).
 *
 * @example
 * ```ts
 * import type { CopyExtent } from "@gpucompute/runtime/backend";
 * const rows: CopyExtent = { bytes: 32, span: 48 }; // two 16-byte rows 32 bytes apart
 * ```
 */
export interface CopyExtent {
  /** Bytes copied. */
  readonly bytes: number;
  /** Bytes from the first to the last byte touched on the device. */
  readonly span: number;
}

/**
 * A checked copy: its ref, where it starts on the device (`at.size` is its span) and its extent.
 *
 * @example
 * ```ts
 * import type { CopyTarget } from "@gpucompute/runtime/backend";
 * const end = (target: CopyTarget<GPUBuffer>) => target.at.offset + target.at.size;
 * ```
 */
export interface CopyTarget<R, X extends CopyExtent = CopyExtent> {
  /** The memory copied. */
  readonly ref: HandleRef;
  /** The resource, the offset of the first byte copied, and the span. */
  readonly at: ResourceRange<R>;
  /** The backend's layout of the copy. */
  readonly extent: X;
}

/**
 * The extent of a contiguous copy; `UNSUPPORTED_STRIDES` for any other layout (for backends that
 * copy contiguous data only).
 *
 * @example
 * ```ts
 * import { contiguousExtent, Handle, SliceHandle, SliceRecord } from "@gpucompute/runtime/backend";
 * using handle = new Handle(new SliceHandle(new SliceRecord()), { stream: 0, cursor: 0, size: 64 });
 * console.log(contiguousExtent(handle.copyDescriptor([4, 4], [4, 1], 4))); // { bytes: 64, span: 64 }
 * ```
 */
export function contiguousExtent(descriptor: CopyDescriptor, backend = "This backend"): CopyExtent {
  const { shape, strides, elemSize } = descriptor;
  if (!isContiguous(shape, strides)) {
    throw new UnsupportedError(
      `${backend} copies contiguous data only; strides [${strides}] of shape [${shape}] are not ` +
        `contiguous`,
      "UNSUPPORTED_STRIDES",
    );
  }
  let bytes = elemSize;
  for (let axis = 0; axis < shape.length; axis++) bytes *= shape[axis];
  return { bytes, span: bytes };
}

/**
 * Checks a copy descriptor (a hand-built one too) and gives its target: `layout` is the backend's
 * extent of the descriptor, `locate` the resource and range of a live ref (`INVALID_HANDLE`
 * otherwise). `TypeError` / `RangeError` for a malformed descriptor or a span past its ref.
 *
 * @example
 * ```ts
 * import { contiguousExtent, copyTarget, Handle, SliceHandle, SliceRecord } from "@gpucompute/runtime/backend";
 * using handle = new Handle(new SliceHandle(new SliceRecord()), { stream: 0, cursor: 0, size: 64 });
 * const target = copyTarget(handle.copyDescriptor([16], [1], 4), {
 *   layout: (d) => contiguousExtent(d),
 *   locate: (ref) => ({ resource: "page", offset: 256, size: ref.size() }),
 * });
 * console.log(target.at); // { resource: "page", offset: 256, size: 64 }
 * ```
 */
export function copyTarget<R, X extends CopyExtent>(
  descriptor: CopyDescriptor,
  primitives: {
    readonly layout: (descriptor: CopyDescriptor) => X;
    readonly locate: (ref: HandleRef) => ResourceRange<R>;
  },
): CopyTarget<R, X> {
  const ref = descriptor?.ref;
  if (!(ref instanceof HandleRef)) {
    throw new TypeError("A copy descriptor must have a HandleRef (see Handle.copyDescriptor)");
  }
  copyDescriptor(ref, descriptor.shape, descriptor.strides, descriptor.elemSize); // sane parts
  const extent = primitives.layout(descriptor);
  const at = primitives.locate(ref);
  if (extent.span > at.size) {
    throw new RangeError(`Copy of ${extent.span} bytes is out of range of a ${at.size}-byte ref`);
  }
  return { ref, at: { resource: at.resource, offset: at.offset, size: extent.span }, extent };
}

/**
 * The targets of a `write` call, every entry checked before anything is enqueued: an array of
 * objects, each a descriptor (see {@linkcode copyTarget}) and a `Uint8Array` of exactly the
 * descriptor's bytes.
 *
 * @example
 * ```ts
 * import { contiguousExtent, Handle, SliceHandle, SliceRecord, writeTargets } from "@gpucompute/runtime/backend";
 * using handle = new Handle(new SliceHandle(new SliceRecord()), { stream: 0, cursor: 0, size: 8 });
 * const data = new Uint8Array(8);
 * const [target] = writeTargets([{ descriptor: handle.copyDescriptor([8], [1], 1), data }], {
 *   layout: (d) => contiguousExtent(d),
 *   locate: (ref) => ({ resource: "page", offset: 0, size: ref.size() }),
 * });
 * console.log(target.data === data, target.at.size); // true 8
 * ```
 */
export function writeTargets<R, X extends CopyExtent>(
  entries: readonly WriteEntry[],
  primitives: {
    readonly layout: (descriptor: CopyDescriptor) => X;
    readonly locate: (ref: HandleRef) => ResourceRange<R>;
  },
): (CopyTarget<R, X> & { readonly data: Uint8Array })[] {
  if (!Array.isArray(entries)) throw new TypeError("entries must be an array");
  return entries.map((entry, i) => {
    if (typeof entry !== "object" || entry === null) {
      throw new TypeError(`entries[${i}] must be a WriteEntry`);
    }
    const target = copyTarget(entry.descriptor, primitives);
    const data = entry.data;
    if (!(data instanceof Uint8Array)) {
      throw new TypeError(`entries[${i}].data must be a Uint8Array`);
    }
    if (data.byteLength !== target.extent.bytes) {
      throw new RangeError(
        `Write of ${data.byteLength} bytes into a descriptor of ${target.extent.bytes} bytes`,
      );
    }
    return { ...target, data };
  });
}
