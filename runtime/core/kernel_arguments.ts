/**
 * What a kernel launch receives: buffers, packed metadata, scalars by storage type, and the cube
 * count (static, or dynamic from a buffer for indirect dispatch).
 *
 * @module
 */

import {
  assertNonNegativeInteger,
  describe,
  type FloatType,
  roundFloat,
} from "./_argument_checks.ts";
import { HandleRef } from "./handles/handle.ts";
import { clearArray } from "./_clear_array.ts";

/**
 * Element storage types that scalars and tensors may have.
 *
 * @example
 * ```ts
 * import { STORAGE_TYPE_SIZE, type StorageType } from "@gpucompute/runtime/backend";
 * const type: StorageType = "bf16";
 * console.log(STORAGE_TYPE_SIZE[type]); // 2
 * ```
 */
export type StorageType =
  | "f16"
  | "bf16"
  | "f32"
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
 * Bytes per element of each {@linkcode StorageType}.
 *
 * @example
 * ```ts
 * import { STORAGE_TYPE_SIZE } from "@gpucompute/runtime/backend";
 * console.log(STORAGE_TYPE_SIZE.f16, STORAGE_TYPE_SIZE.u64); // 2 8
 * ```
 */
export const STORAGE_TYPE_SIZE: Readonly<Record<StorageType, number>> = {
  f16: 2,
  bf16: 2,
  f32: 4,
  f64: 8,
  i8: 1,
  i16: 2,
  i32: 4,
  i64: 8,
  u8: 1,
  u16: 2,
  u32: 4,
  u64: 8,
};

/**
 * Packed tensor metadata (rank, lengths, shapes, strides) and the length of its static part.
 *
 * @example
 * ```ts
 * import type { MetadataArgument } from "@gpucompute/runtime/backend";
 * const metadata: MetadataArgument = { data: new Uint32Array([1, 16]), staticLength: 2 };
 * ```
 */
export interface MetadataArgument {
  /** Metadata words. */
  readonly data: Uint32Array;
  /** Length of the static portion (rank, len, buffer_len, shape_offsets, stride_offsets). */
  readonly staticLength: number;
}

/**
 * Scalars of one storage type, as raw little-endian bytes.
 *
 * @example
 * ```ts
 * import { ScalarArgument } from "@gpucompute/runtime/backend";
 * const scalars = ScalarArgument.from("f32", [0.5, 2]);
 * console.log(scalars.length, scalars.bytes.byteLength); // 2 8
 * ```
 */
export interface ScalarArgument {
  /** The storage type of every scalar. */
  readonly type: StorageType;
  /** Number of scalars. */
  readonly length: number;
  /** `length * STORAGE_TYPE_SIZE[type]` bytes. */
  readonly bytes: Uint8Array;
}

/**
 * Constructors of {@linkcode ScalarArgument}.
 *
 * @example
 * ```ts
 * import { ScalarArgument, type ScalarArgumentConstructors } from "@gpucompute/runtime/backend";
 * const make: ScalarArgumentConstructors = ScalarArgument;
 * console.log(make.from("u32", [1, 2]).bytes.byteLength); // 8
 * try {
 *   make.from("u32", [-1]);
 * } catch (error) {
 *   console.log((error as Error).name); // RangeError: never wrapped
 * }
 * ```
 */
export interface ScalarArgumentConstructors {
  /**
   * Encodes numbers (or bigints for 64-bit integers) as scalars of `type`. Never coerces:
   * `TypeError` for a value of the wrong kind (a string, a bigint for a float or 32-bit type),
   * `RangeError` for a value the type cannot hold (`-1`, `1.5`, `NaN` or `2**32` as `u32`, `1e39`
   * as `f32`). Floats accept `NaN` and the infinities.
   */
  from(type: StorageType, values: readonly (number | bigint)[]): ScalarArgument;
}

/** Constructors of {@linkcode ScalarArgument}. */
export const ScalarArgument: ScalarArgumentConstructors = {
  from(type: StorageType, values: readonly (number | bigint)[]): ScalarArgument {
    const size = Object.hasOwn(STORAGE_TYPE_SIZE, type) ? STORAGE_TYPE_SIZE[type] : undefined;
    if (size === undefined) throw new TypeError(`Unknown storage type ${describe(type)}`);
    if (!Array.isArray(values)) {
      throw new TypeError(`Scalars of ${type} must be an array, got ${describe(values)}`);
    }
    values.forEach((value, i) => checkScalar(type, value, `${type} scalar ${i}`));
    const bytes = new Uint8Array(values.length * size);
    const view = new DataView(bytes.buffer);
    values.forEach((value, i) => writeScalar(view, i * size, type, value));
    return { type, length: values.length, bytes };
  },
};

const INTEGER_RANGE: Partial<Record<StorageType, readonly [bigint, bigint]>> = {
  i8: [-(2n ** 7n), 2n ** 7n - 1n],
  u8: [0n, 2n ** 8n - 1n],
  i16: [-(2n ** 15n), 2n ** 15n - 1n],
  u16: [0n, 2n ** 16n - 1n],
  i32: [-(2n ** 31n), 2n ** 31n - 1n],
  u32: [0n, 2n ** 32n - 1n],
  i64: [-(2n ** 63n), 2n ** 63n - 1n],
  u64: [0n, 2n ** 64n - 1n],
};

function checkScalar(type: StorageType, value: unknown, what: string): void {
  const range = INTEGER_RANGE[type];
  if (range === undefined) {
    if (typeof value !== "number") {
      throw new TypeError(`${what} must be a number, got ${describe(value)}`);
    }
    roundFloat(type as FloatType, value, what);
    return;
  }
  const wide = type === "i64" || type === "u64";
  if (typeof value === "bigint" ? !wide : typeof value !== "number") {
    const kind = wide ? "an integer number or a bigint" : "an integer number";
    throw new TypeError(`${what} must be ${kind}, got ${describe(value)}`);
  }
  if (typeof value === "number" && !Number.isSafeInteger(value)) {
    throw new RangeError(`${what} must be a safe integer to be stored as ${type}, got ${value}`);
  }
  const big = BigInt(value as number | bigint);
  if (big < range[0] || big > range[1]) {
    throw new RangeError(`${what} ${value} does not fit in ${type} [${range[0]}, ${range[1]}]`);
  }
}

function writeScalar(
  view: DataView,
  at: number,
  type: StorageType,
  value: number | bigint,
): void {
  const num = Number(value);
  switch (type) {
    case "f16":
      return view.setFloat16(at, num, true);
    case "bf16":
      return view.setUint16(at, new Uint32Array(new Float32Array([num]).buffer)[0] >>> 16, true);
    case "f32":
      return view.setFloat32(at, num, true);
    case "f64":
      return view.setFloat64(at, num, true);
    case "i8":
      return view.setInt8(at, num);
    case "u8":
      return view.setUint8(at, num);
    case "i16":
      return view.setInt16(at, num, true);
    case "u16":
      return view.setUint16(at, num, true);
    case "i32":
      return view.setInt32(at, num, true);
    case "u32":
      return view.setUint32(at, num, true);
    case "i64":
      return view.setBigInt64(at, BigInt(value), true);
    case "u64":
      return view.setBigUint64(at, BigInt(value), true);
  }
}

/**
 * A tensor map (CUDA TMA descriptor). Declared for parity with CubeCL; backends without TMA
 * reject launches that carry one with `UNSUPPORTED`.
 *
 * @example
 * ```ts
 * import type { TensorMapArgument } from "@gpucompute/runtime/backend";
 * const count = (maps: TensorMapArgument[]) => maps.length;
 * ```
 */
export interface TensorMapArgument {
  /** The backing tensor. */
  readonly ref: HandleRef;
  /** Shape of the backing tensor. */
  readonly shape: readonly number[];
  /** Strides of the backing tensor. */
  readonly strides: readonly number[];
  /** Storage type of the elements. */
  readonly storageType: StorageType;
}

// Shared by every launch without metadata: a zero-length array has no element to change.
const NO_METADATA: MetadataArgument = Object.freeze({ data: new Uint32Array(0), staticLength: 0 });

/**
 * Everything a kernel launch binds, built fluently.
 *
 * @example
 * ```ts
 * import { KernelArguments, Handle, SliceRecord, SliceHandle } from "@gpucompute/runtime/backend";
 * using input = new Handle(new SliceHandle(new SliceRecord()), { stream: 0, cursor: 1, size: 64 });
 * const args = new KernelArguments()
 *   .withBuffer(input.ref())
 *   .withScalar("f32", [2.5])
 *   .withMetadata({ data: new Uint32Array([16]), staticLength: 1 });
 * console.log(args.buffers.length, args.scalars.get("f32")?.length); // 1 1
 * ```
 */
export class KernelArguments {
  /** Buffers, in WGSL ref order (the kernel's parameter order on CUDA). */
  readonly buffers: HandleRef[] = [];
  /** Packed metadata (none by default: one shared empty argument, nothing allocated). */
  metadata: MetadataArgument = NO_METADATA;
  #scalars: Map<StorageType, ScalarArgument> | undefined;
  /**
   * The scalars last encoded per type, with the values they hold: a reused arguments object (the
   * client's launch record) given equal values again reuses them instead of encoding anew.
   */
  #encoded: Map<StorageType, { values: (number | bigint)[]; scalar: ScalarArgument }> | undefined;

  /** Scalars, one entry per storage type (the map is created on first use). */
  get scalars(): Map<StorageType, ScalarArgument> {
    return this.#scalars ??= new Map();
  }

  /** True when scalars of some type were set; creates nothing (the launch hot path). */
  get hasScalars(): boolean {
    return this.#scalars !== undefined && this.#scalars.size > 0;
  }
  /** Tensor maps (rejected by backends without TMA). */
  readonly tensorMaps: TensorMapArgument[] = [];

  /** Appends a buffer; `TypeError` unless it is a {@linkcode HandleRef}. */
  withBuffer(ref: HandleRef): this {
    checkRef(ref, `buffers[${this.buffers.length}]`);
    this.buffers.push(ref);
    return this;
  }

  /** Appends buffers; `TypeError` (and nothing appended) unless each is a {@linkcode HandleRef}. */
  withBuffers(refs: Iterable<HandleRef>): this {
    if (typeof (refs as Iterable<HandleRef>)?.[Symbol.iterator] !== "function") {
      throw new TypeError(`buffers must be an iterable of HandleRef, got ${describe(refs)}`);
    }
    const list = [...refs];
    list.forEach((ref, i) => checkRef(ref, `buffers[${this.buffers.length + i}]`));
    for (const ref of list) this.buffers.push(ref);
    return this;
  }

  /** Sets the scalars of one storage type (replacing earlier ones of that type). */
  withScalar(type: StorageType, values: readonly (number | bigint)[]): this {
    const last = this.#encoded?.get(type);
    if (last !== undefined && sameValues(last.values, values)) {
      this.scalars.set(type, last.scalar);
      return this;
    }
    const scalar = ScalarArgument.from(type, values);
    this.scalars.set(scalar.type, scalar);
    (this.#encoded ??= new Map()).set(type, { values: [...values], scalar });
    return this;
  }

  /** Sets prepared scalar arguments. */
  withScalars(scalars: Iterable<ScalarArgument>): this {
    for (const scalar of scalars) this.scalars.set(scalar.type, scalar);
    return this;
  }

  /** Sets the metadata. */
  withMetadata(metadata: MetadataArgument): this {
    if (!(metadata?.data instanceof Uint32Array)) {
      throw new TypeError(`metadata.data must be a Uint32Array, got ${describe(metadata?.data)}`);
    }
    assertNonNegativeInteger(metadata.staticLength, "metadata.staticLength");
    if (metadata.staticLength > metadata.data.length) {
      throw new RangeError(
        `metadata.staticLength ${metadata.staticLength} exceeds its ${metadata.data.length} words`,
      );
    }
    this.metadata = metadata;
    return this;
  }

  /** Appends tensor maps. */
  withTensorMaps(maps: Iterable<TensorMapArgument>): this {
    for (const map of maps) this.tensorMaps.push(map);
    return this;
  }

  /** Empties it for reuse: no buffers, scalars, metadata or tensor maps. */
  clear(): this {
    clearArray(this.buffers); // keeps the storage of a reused KernelArguments
    this.metadata = NO_METADATA;
    if (this.#scalars !== undefined && this.#scalars.size > 0) this.#scalars.clear(); // V8 allocates
    clearArray(this.tensorMaps);
    return this;
  }

  /** Every ref the launch touches: buffers, then tensor-map tensors. */
  refs(): HandleRef[] {
    return [...this.buffers, ...this.tensorMaps.map((map) => map.ref)];
  }
}

/** Whether two lists hold the same values (`Object.is`: `NaN` equals itself, `0` not `-0`). */
function sameValues(a: readonly (number | bigint)[], b: readonly (number | bigint)[]): boolean {
  if (!Array.isArray(b) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

function checkRef(ref: unknown, what: string): void {
  if (!(ref instanceof HandleRef)) {
    throw new TypeError(`${what} must be a HandleRef, got ${describe(ref)}`);
  }
}
