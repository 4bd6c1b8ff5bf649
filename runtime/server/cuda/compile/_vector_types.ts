/**
 * CUDA's built-in vector types (`float4`, `uchar2`, `__half2`...) as a pointer parameter's element
 * type and lane count.
 *
 * @module
 */
import type { StorageType } from "../../../core/kernel_arguments.ts";

/** CUDA's vector types (`float4`, `uchar2`, `__half2`...) by element type, and their lanes. */
const VECTOR_ELEMENTS: Record<string, StorageType> = {
  char: "i8",
  uchar: "u8",
  short: "i16",
  ushort: "u16",
  int: "i32",
  uint: "u32",
  long: "i64",
  ulong: "u64",
  longlong: "i64",
  ulonglong: "u64",
  float: "f32",
  double: "f64",
};
/** `[element, lanes]` of a vector type's name, or `undefined`. */
export function vectorType(name: string): [StorageType, number] | undefined {
  if (name === "__half2" || name === "half2") return ["f16", 2];
  const m = /^([a-z]+)([1-4])$/.exec(name);
  return m && Object.hasOwn(VECTOR_ELEMENTS, m[1])
    ? [VECTOR_ELEMENTS[m[1]], Number(m[2])]
    : undefined;
}
