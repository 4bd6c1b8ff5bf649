/**
 * The typed arrays the client reads and writes, and their byte views.
 *
 * @module
 */

/** The typed arrays the client reads and writes. */
export type TypedArray =
  | Int8Array
  | Uint8Array
  | Uint8ClampedArray
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | Float32Array
  | Float64Array
  | BigInt64Array
  | BigUint64Array;

/** A typed array constructor such as `Float32Array`. */
export interface TypedArrayConstructor<T extends TypedArray> {
  /** Bytes per element. */
  readonly BYTES_PER_ELEMENT: number;
  /** A view over a buffer. */
  new (buffer: ArrayBuffer, byteOffset: number, length: number): T;
}

export function toBytes(data: TypedArray | ArrayBuffer): Uint8Array {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) {
    return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  }
  throw new TypeError("data must be a typed array or an ArrayBuffer");
}

export function fromBytes<T extends TypedArray>(
  bytes: Uint8Array,
  type?: TypedArrayConstructor<T>,
): T {
  if (type === undefined) return bytes as T;
  if (bytes.byteLength % type.BYTES_PER_ELEMENT !== 0) {
    throw new RangeError(
      `Cannot view ${bytes.byteLength} bytes as elements of ${type.BYTES_PER_ELEMENT} bytes`,
    );
  }
  // Copy when the view would be misaligned inside its buffer.
  const aligned = bytes.byteOffset % type.BYTES_PER_ELEMENT === 0 ? bytes : bytes.slice();
  return new type(
    aligned.buffer as ArrayBuffer,
    aligned.byteOffset,
    aligned.byteLength / type.BYTES_PER_ELEMENT,
  );
}
