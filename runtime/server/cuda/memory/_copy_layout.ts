/**
 * The device-side layout of a copy descriptor: contiguous bytes, or rows of contiguous bytes at a
 * pitch (what `cuMemcpy2DAsync` copies). Shapes whose leading dimensions are not a uniform run of
 * rows are `UNSUPPORTED_STRIDES`.
 *
 * @module
 */

import { UnsupportedError } from "../../../core/errors.ts";
import type { CopyDescriptor } from "../../../core/allocation.ts";

/** Rows of `rowBytes` contiguous bytes, `pitch` bytes apart (`rows` is 1 when contiguous). */
export interface CopyLayout {
  readonly rows: number;
  readonly rowBytes: number;
  readonly pitch: number;
  /** Bytes the copy moves (`rows * rowBytes`). */
  readonly bytes: number;
  /** Bytes from the first to the last byte touched on the device. */
  readonly span: number;
}

/** The layout of `descriptor`, or `UNSUPPORTED_STRIDES`. */
export function copyLayout(descriptor: CopyDescriptor): CopyLayout {
  const { shape, strides, elemSize } = descriptor;
  const total = shape.reduce((a, b) => a * b, 1);
  if (total === 0) return { rows: 1, rowBytes: 0, pitch: 0, bytes: 0, span: 0 };
  // Drop size-1 dimensions; their strides do not matter.
  const dims = shape.map((size, i) => ({ size, stride: strides[i] })).filter((d) => d.size > 1);
  if (dims.length === 0) {
    return { rows: 1, rowBytes: elemSize, pitch: elemSize, bytes: elemSize, span: elemSize };
  }
  // The innermost run of contiguous dimensions forms a row; with none (a column), rows are one
  // element wide.
  let i = dims.length - 1;
  let rowElems = 1;
  if (dims[i].stride === 1) {
    rowElems = dims[i].size;
    while (i > 0 && dims[i - 1].stride === rowElems) rowElems *= dims[--i].size;
  } else {
    i = dims.length;
  }
  if (i === 0) {
    const bytes = rowElems * elemSize;
    return { rows: 1, rowBytes: bytes, pitch: bytes, bytes, span: bytes };
  }
  // The remaining dimensions must be uniform rows at one pitch.
  let rows = dims[i - 1].size;
  const pitchElems = dims[i - 1].stride;
  let step = pitchElems * rows;
  for (let j = i - 2; j >= 0; j--) {
    if (dims[j].stride !== step) throw unsupported(descriptor);
    rows *= dims[j].size;
    step *= dims[j].size;
  }
  if (pitchElems < rowElems) throw unsupported(descriptor);
  const rowBytes = rowElems * elemSize;
  const pitch = pitchElems * elemSize;
  return { rows, rowBytes, pitch, bytes: rows * rowBytes, span: (rows - 1) * pitch + rowBytes };
}

function unsupported(descriptor: CopyDescriptor): UnsupportedError {
  return new UnsupportedError(
    `CUDA copies contiguous rows at one pitch; strides [${descriptor.strides}] of shape ` +
      `[${descriptor.shape}] are not`,
    "UNSUPPORTED_STRIDES",
  );
}

/** Writes a `CUDA_MEMCPY2D` (128 bytes, cuda.h layout) into `view`. */
export function memcpy2d(
  view: DataView,
  copy: {
    readonly src: { readonly host: boolean; readonly address: bigint; readonly pitch: number };
    readonly dst: { readonly host: boolean; readonly address: bigint; readonly pitch: number };
    readonly widthInBytes: number;
    readonly height: number;
  },
): void {
  // srcXInBytes 0, srcY 8, srcMemoryType 16, srcHost 24, srcDevice 32, srcArray 40, srcPitch 48,
  // dstXInBytes 56, dstY 64, dstMemoryType 72, dstHost 80, dstDevice 88, dstArray 96,
  // dstPitch 104, WidthInBytes 112, Height 120.
  for (let i = 0; i < 128; i += 8) view.setBigUint64(i, 0n, true);
  const side = (at: number, s: typeof copy.src) => {
    view.setUint32(at + 16, s.host ? 1 : 2, true);
    view.setBigUint64(at + (s.host ? 24 : 32), s.address, true);
    view.setBigUint64(at + 48, BigInt(s.pitch), true);
  };
  side(0, copy.src);
  side(56, copy.dst);
  view.setBigUint64(112, BigInt(copy.widthInBytes), true);
  view.setBigUint64(120, BigInt(copy.height), true);
}

/** Size and strides of a new allocation: `optimized` pads rows of rank 2+ to 16 bytes. */
export function optimizedLayout(
  descriptor: {
    readonly kind: string;
    readonly shape: readonly number[];
    readonly elemSize: number;
  },
): { bytes: number; strides: number[] } {
  const { shape, elemSize } = descriptor;
  const strides = new Array<number>(shape.length);
  let row = shape.at(-1) ?? 1;
  if (descriptor.kind === "optimized" && shape.length >= 2) {
    const padded = Math.ceil((row * elemSize) / 16) * 16;
    if (padded % elemSize === 0) row = padded / elemSize;
  }
  let stride = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    strides[i] = stride;
    stride *= i === shape.length - 1 ? row : shape[i];
  }
  const rows = shape.slice(0, -1).reduce((a, b) => a * b, 1);
  const last = shape.at(-1) ?? 1;
  // The last row needs no padding: bytes end at the last element.
  const bytes = shape.length === 0
    ? elemSize
    : rows === 0 || last === 0
    ? 0
    : ((rows - 1) * row + last) * elemSize;
  return { bytes, strides };
}
