/**
 * Element types of device memory. Every handle carries one, so that the runtime can refuse a
 * kernel that would read its bytes as another type (an `Int32Array` read by an `array<f32>`
 * kernel gives 1.4e-45, 2.8e-45, ... without a word otherwise), and so that `read(handle)` returns
 * the array the data was written as.
 *
 * `"bytes"` marks untyped memory: it binds to any kernel and reads back as a `Uint8Array`. It is
 * what a caller asks for when reinterpreting on purpose (`client.createBytes`,
 * `handle.as("bytes")`).
 *
 * @module
 */

import { describe } from "./_argument_checks.ts";

/**
 * The element type of typed device memory, named as in WGSL (`f32`, `i32`, `u32`, `f16`) and
 * NumPy / CuPy for the others. WGSL kernels can read `f32`, `i32`, `u32` and `f16`; the other
 * types serve CUDA kernels and host-side data.
 *
 * @example
 * ```ts
 * import type { DType } from "@gpucompute/runtime";
 * const dtype: DType = "f32";
 * ```
 */
export type DType =
  | "f32"
  | "f16"
  | "f64"
  | "i8"
  | "i16"
  | "i32"
  | "i64"
  | "u8"
  | "u16"
  | "u32"
  | "u64";

/**
 * What a handle's memory holds: elements of a {@linkcode DType}, or untyped `"bytes"`.
 *
 * @example
 * ```ts
 * import type { HandleType } from "@gpucompute/runtime";
 * const raw: HandleType = "bytes";
 * ```
 */
export type HandleType = DType | "bytes";

/**
 * The typed array of each {@linkcode HandleType}: what `read` returns for it.
 *
 * @example
 * ```ts
 * import type { ArrayOf } from "@gpucompute/runtime";
 * const values: ArrayOf<"f32"> = new Float32Array(4);
 * ```
 */
export interface DTypeArrays {
  /** 32-bit floats. */
  f32: Float32Array;
  /** 16-bit floats. */
  f16: Float16Array;
  /** 64-bit floats. */
  f64: Float64Array;
  /** 8-bit signed integers. */
  i8: Int8Array;
  /** 16-bit signed integers. */
  i16: Int16Array;
  /** 32-bit signed integers. */
  i32: Int32Array;
  /** 64-bit signed integers. */
  i64: BigInt64Array;
  /** 8-bit unsigned integers. */
  u8: Uint8Array;
  /** 16-bit unsigned integers. */
  u16: Uint16Array;
  /** 32-bit unsigned integers. */
  u32: Uint32Array;
  /** 64-bit unsigned integers. */
  u64: BigUint64Array;
  /** Untyped memory. */
  bytes: Uint8Array;
}

/**
 * The typed array that holds elements of `T`.
 *
 * @example
 * ```ts
 * import type { ArrayOf } from "@gpucompute/runtime";
 * const ids: ArrayOf<"u32"> = new Uint32Array([1, 2]);
 * ```
 */
export type ArrayOf<T extends HandleType> = DTypeArrays[T];

/**
 * A typed array the runtime reads and writes.
 *
 * @example
 * ```ts
 * import type { TypedArray } from "@gpucompute/runtime";
 * const data: TypedArray = new Uint32Array(4);
 * ```
 */
export type TypedArray = DTypeArrays[HandleType] | Uint8ClampedArray;

/**
 * The element type of a typed array (`Uint8ClampedArray` counts as `u8`).
 *
 * @example
 * ```ts
 * import type { DTypeOf } from "@gpucompute/runtime";
 * const t: DTypeOf<Int32Array> = "i32";
 * ```
 */
export type DTypeOf<A> = A extends Float32Array ? "f32"
  : A extends Float16Array ? "f16"
  : A extends Float64Array ? "f64"
  : A extends Int8Array ? "i8"
  : A extends Int16Array ? "i16"
  : A extends Int32Array ? "i32"
  : A extends BigInt64Array ? "i64"
  : A extends Uint8ClampedArray ? "u8"
  : A extends Uint8Array ? "u8"
  : A extends Uint16Array ? "u16"
  : A extends Uint32Array ? "u32"
  : A extends BigUint64Array ? "u64"
  : "bytes";

/**
 * A typed array constructor such as `Float32Array`.
 *
 * @example
 * ```ts
 * import type { TypedArrayConstructor } from "@gpucompute/runtime";
 * const type: TypedArrayConstructor<Float32Array> = Float32Array;
 * ```
 */
export interface TypedArrayConstructor<T extends TypedArray> {
  /** Bytes per element. */
  readonly BYTES_PER_ELEMENT: number;
  /** A view over a buffer. */
  new (buffer: ArrayBuffer, byteOffset: number, length: number): T;
}

/**
 * Bytes per element of each type (`bytes`: 1).
 *
 * @example
 * ```ts
 * import { DTYPE_SIZE } from "@gpucompute/runtime/backend";
 * console.log(DTYPE_SIZE.f16); // 2
 * ```
 */
export const DTYPE_SIZE: Readonly<Record<HandleType, number>> = Object.freeze({
  f32: 4,
  f16: 2,
  f64: 8,
  i8: 1,
  i16: 2,
  i32: 4,
  i64: 8,
  u8: 1,
  u16: 2,
  u32: 4,
  u64: 8,
  bytes: 1,
});

const ARRAYS: Readonly<Record<HandleType, TypedArrayConstructor<TypedArray>>> = {
  f32: Float32Array,
  f16: Float16Array,
  f64: Float64Array,
  i8: Int8Array,
  i16: Int16Array,
  i32: Int32Array,
  i64: BigInt64Array,
  u8: Uint8Array,
  u16: Uint16Array,
  u32: Uint32Array,
  u64: BigUint64Array,
  bytes: Uint8Array,
};

/**
 * The typed array constructor of a handle type.
 *
 * @example
 * ```ts
 * import { arrayTypeOf } from "@gpucompute/runtime/backend";
 * console.log(arrayTypeOf("i32") === Int32Array); // true
 * ```
 */
export function arrayTypeOf<T extends HandleType>(dtype: T): TypedArrayConstructor<ArrayOf<T>> {
  return ARRAYS[dtype] as unknown as TypedArrayConstructor<ArrayOf<T>>;
}

/**
 * The element type of a typed array, or `"bytes"` for an `ArrayBuffer`. `TypeError` for anything
 * else (a `DataView`, a plain array).
 *
 * @example
 * ```ts
 * import { dtypeOf } from "@gpucompute/runtime/backend";
 * console.log(dtypeOf(new Int32Array(2)), dtypeOf(new ArrayBuffer(8))); // i32 bytes
 * ```
 */
export function dtypeOf(data: TypedArray | ArrayBuffer): HandleType {
  if (data instanceof Float32Array) return "f32";
  if (data instanceof Uint32Array) return "u32";
  if (data instanceof Int32Array) return "i32";
  if (data instanceof Uint8Array || data instanceof Uint8ClampedArray) return "u8";
  if (data instanceof ArrayBuffer) return "bytes";
  if (data instanceof Float16Array) return "f16";
  if (data instanceof Float64Array) return "f64";
  if (data instanceof Int8Array) return "i8";
  if (data instanceof Int16Array) return "i16";
  if (data instanceof Uint16Array) return "u16";
  if (data instanceof BigInt64Array) return "i64";
  if (data instanceof BigUint64Array) return "u64";
  throw new TypeError(`data must be a typed array or an ArrayBuffer, got ${describe(data)}`);
}

/**
 * Throws `TypeError` unless `value` is a {@linkcode HandleType} (with `allowBytes`) or a
 * {@linkcode DType}.
 *
 * @example
 * ```ts
 * import { assertDType } from "@gpucompute/runtime/backend";
 * assertDType("f32", "dtype"); // ok
 * ```
 */
export function assertDType(
  value: unknown,
  what: string,
  options: { readonly allowBytes?: boolean } = {},
): asserts value is HandleType {
  if (typeof value === "string" && Object.hasOwn(DTYPE_SIZE, value)) {
    if (value !== "bytes" || options.allowBytes) return;
  }
  const names = Object.keys(DTYPE_SIZE).filter((name) => name !== "bytes" || options.allowBytes);
  throw new TypeError(`${what} must be one of ${names.join(", ")}, got ${describe(value)}`);
}
