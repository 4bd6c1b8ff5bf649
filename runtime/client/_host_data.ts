/**
 * Host data of the client: typed arrays to bytes and back, checked against the handle's element
 * type so that data is never read or written as another type by accident, and the host arrays
 * of the typed constructors (`full`, `arange`).
 *
 * @module
 */

import { describe, type FloatType, roundFloat } from "../core/_argument_checks.ts";
import {
  type ArrayOf,
  arrayTypeOf,
  type DType,
  DTYPE_SIZE,
  dtypeOf,
  type HandleType,
  type TypedArray,
  type TypedArrayConstructor,
} from "../core/dtype.ts";
import type { Handle } from "../core/handles/handle.ts";
import { HandleRef } from "../core/handles/handle_ref.ts";

/** The bytes of `data` (a view, no copy) and its element type. */
export function toBytes(data: TypedArray | ArrayBuffer): Uint8Array {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data) && !(data instanceof DataView)) {
    return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  }
  throw new TypeError(`data must be a typed array or an ArrayBuffer, got ${describe(data)}`);
}

/**
 * Throws `TypeError` when `data` would be written into `handle` as another type: a typed array
 * must be of the handle's type; an `ArrayBuffer` is raw bytes and fits any handle.
 */
export function checkWriteData(handle: Handle, data: TypedArray | ArrayBuffer): void {
  const type = dtypeOf(data);
  if (type === "bytes" || handle.dtype === "bytes" || type === handle.dtype) return;
  throw new TypeError(
    `Cannot write ${data.constructor.name} (${type}) into ${handle.describe()}: convert the ` +
      `data to ${arrayTypeOf(handle.dtype).name}, or write its raw bytes (data.buffer) on purpose`,
  );
}

/**
 * Throws `TypeError` when `type` would read `handle` as another type: the handle's own array,
 * a byte view (`Uint8Array`), or anything for an untyped handle.
 */
export function checkReadType(
  handle: Handle,
  type: TypedArrayConstructor<TypedArray>,
  what: string,
): void {
  if (typeof type !== "function" || !Number.isInteger(type.BYTES_PER_ELEMENT)) {
    throw new TypeError(`type must be a typed array constructor, got ${describe(type)}`);
  }
  const dtype = handle.dtype;
  if (dtype === "bytes" || type === Uint8Array || type === arrayTypeOf(dtype)) return;
  throw new TypeError(
    `${what} holds ${dtype}, but it was asked as ${type.name}: read(handle) returns ` +
      `${arrayTypeOf(dtype).name}; to reinterpret the bytes on purpose, read handle.as(...)`,
  );
}

/** Views `bytes` as `type` (copying when the view would be misaligned). */
export function fromBytes<T extends TypedArray>(
  bytes: Uint8Array,
  type: TypedArrayConstructor<T>,
): T {
  if ((type as unknown) === Uint8Array) return bytes as T;
  if (bytes.byteLength % type.BYTES_PER_ELEMENT !== 0) {
    throw new RangeError(
      `Cannot view ${bytes.byteLength} bytes as elements of ${type.BYTES_PER_ELEMENT} bytes`,
    );
  }
  const aligned = bytes.byteOffset % type.BYTES_PER_ELEMENT === 0 ? bytes : bytes.slice();
  return new type(
    aligned.buffer as ArrayBuffer,
    aligned.byteOffset,
    aligned.byteLength / type.BYTES_PER_ELEMENT,
  );
}

const INTEGER_RANGE: Partial<Record<DType, readonly [number, number]>> = {
  i8: [-128, 127],
  i16: [-32768, 32767],
  i32: [-(2 ** 31), 2 ** 31 - 1],
  u8: [0, 255],
  u16: [0, 65535],
  u32: [0, 2 ** 32 - 1],
};

const BIG_RANGE: Partial<Record<DType, readonly [bigint, bigint]>> = {
  i64: [-(2n ** 63n), 2n ** 63n - 1n],
  u64: [0n, 2n ** 64n - 1n],
};

/**
 * `value` as an element of `dtype`, checked: integers are never rounded, wrapped or clamped;
 * floats round to nearest (as NumPy) but never overflow to infinity (`TypeError` for a value of
 * the wrong kind, `RangeError` for one the type cannot hold). NaN and the infinities given
 * explicitly are float values too.
 */
export function elementValue(dtype: DType, value: unknown, what: string): number | bigint {
  const big = BIG_RANGE[dtype];
  if (big !== undefined) {
    const n = typeof value === "number" && Number.isSafeInteger(value) ? BigInt(value) : value;
    if (typeof n !== "bigint") {
      throw new TypeError(
        `${what} must be a bigint or a safe integer for ${dtype}, got ${describe(value)}`,
      );
    }
    if (n < big[0] || n > big[1]) throw new RangeError(`${what} ${n} does not fit ${dtype}`);
    return n;
  }
  if (typeof value !== "number") {
    throw new TypeError(`${what} must be a number for ${dtype}, got ${describe(value)}`);
  }
  const range = INTEGER_RANGE[dtype];
  if (range === undefined) return roundFloat(dtype as FloatType, value, what);
  if (!Number.isInteger(value) || value < range[0] || value > range[1]) {
    throw new RangeError(`${what} ${value} does not fit ${dtype} [${range[0]}, ${range[1]}]`);
  }
  return value;
}

/** `length` elements of `dtype`, all `value`. */
export function fullArray<D extends DType>(length: number, dtype: D, value: unknown): ArrayOf<D> {
  const element = elementValue(dtype, value, "value");
  const array = newArray(dtype, length);
  (array as { fill(value: number | bigint): unknown }).fill(element);
  return array;
}

/**
 * `length` elements of `dtype`: `start`, `start + step`, ... Every integer element must fit the
 * type exactly; float elements round to nearest but must not overflow to infinity (`RangeError`
 * naming `start` or the last element).
 */
export function arangeArray<D extends DType>(
  length: number,
  dtype: D,
  start: number,
  step: number,
): ArrayOf<D> {
  for (const [what, value] of [["start", start], ["step", step]] as const) {
    if (typeof value !== "number" || !Number.isFinite(value)) {
      throw new TypeError(`${what} must be a finite number, got ${describe(value)}`);
    }
  }
  const array = newArray(dtype, length);
  if (length === 0) return array;
  const last = start + step * (length - 1);
  const integral = dtype !== "f32" && dtype !== "f16" && dtype !== "f64";
  if (!integral) {
    // The elements run from `start` to `last`: if neither end overflows, none does.
    roundFloat(dtype as FloatType, start, "start");
    roundFloat(dtype as FloatType, last, "the last element");
  } else {
    elementValue(dtype, integral && BIG_RANGE[dtype] ? safe(start) : start, "start");
    elementValue(dtype, integral && BIG_RANGE[dtype] ? safe(last) : last, "the last element");
    if (!Number.isInteger(step)) {
      throw new RangeError(`step ${step} is not an integer for ${dtype}`);
    }
  }
  const target = array as unknown as { [i: number]: number | bigint };
  const big = BIG_RANGE[dtype] !== undefined;
  for (let i = 0; i < length; i++) {
    const value = start + step * i;
    target[i] = big ? BigInt(value) : value;
  }
  return array;
}

function safe(value: number): number {
  if (!Number.isSafeInteger(value)) {
    throw new RangeError(`${value} is not a safe integer: give 64-bit ranges as safe integers`);
  }
  return value;
}

/** A zeroed array of `length` elements. */
export function newArray<D extends HandleType>(dtype: D, length: number): ArrayOf<D> {
  const type = arrayTypeOf(dtype) as unknown as new (length: number) => ArrayOf<D>;
  return new type(length);
}

/** Bytes of `length` elements of `dtype` (`RangeError` past the safe integers). */
export function byteLength(length: number, dtype: HandleType): number {
  const bytes = length * DTYPE_SIZE[dtype];
  if (!Number.isSafeInteger(bytes)) {
    throw new RangeError(`${length} elements of ${dtype} exceed the largest safe byte count`);
  }
  return bytes;
}

/**
 * The ref of the range that `bytes` written at element `offset` of `handle` cover (`RangeError`
 * past the handle's end, or for a partial element); the handle keeps owning the whole slice.
 */
export function writeRange(handle: Handle, bytes: Uint8Array, offset: number): HandleRef {
  const unit = DTYPE_SIZE[handle.dtype];
  const whole = handle.ref();
  const start = offset * unit;
  if (start + bytes.byteLength > whole.size() || bytes.byteLength % unit !== 0) {
    throw new RangeError(
      `Cannot write ${bytes.byteLength} bytes at element ${offset} of ${handle.describe()} ` +
        `(${whole.size()} bytes, ${unit}-byte elements)`,
    );
  }
  return narrowRef(whole, start, bytes.byteLength);
}

/** A sub-range of `ref`: `length` bytes from byte `start` of it (the slice stays its own). */
export function narrowRef(ref: HandleRef, start: number, length: number): HandleRef {
  return new HandleRef(ref.slice, {
    offsetStart: (ref.offsetStart ?? 0) + start,
    offsetEnd: (ref.offsetEnd ?? 0) + ref.size() - start - length,
    stream: ref.stream,
    cursor: ref.cursor,
    fullSize: ref.fullSize,
    dtype: ref.dtype,
    label: ref.label,
    madeBy: ref.madeBy,
  });
}
