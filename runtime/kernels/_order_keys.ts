/**
 * Order keys: WGSL that maps f32, i32 and u32 values to u32 keys whose unsigned order is the
 * primitives' order of the values (sort, argsort, argmax/argmin, topk). For f32: the sign bit
 * flipped for positives, all bits for negatives; -0 is first made +0 (equal keys) and every NaN
 * one pattern above +Infinity (`0xffffffff`), so NaN sorts above every number. For i32: the sign
 * bit flipped. For u32: the value.
 *
 * Descending orders use the inverted key (`~key`), which keeps a stable sort stable.
 *
 * @module
 */

import type { ElementType } from "./elementwise.ts";

/** WGSL of `fn order_key(v: T) -> u32` (see the module doc). */
export function orderKeyFunction(type: ElementType): string {
  const body = type === "u32"
    ? "return v;"
    : type === "i32"
    ? "return bitcast<u32>(v) ^ 0x80000000u;"
    : `let b = bitcast<u32>(v);
  if ((b & 0x7fffffffu) > 0x7f800000u) { return 0xffffffffu; }
  let c = select(b, 0u, b == 0x80000000u);
  return select(c | 0x80000000u, ~c, (c & 0x80000000u) != 0u);`;
  return `fn order_key(v: ${type}) -> u32 {
  ${body}
}`;
}

/** WGSL of `fn from_order_key(k: u32) -> T`, the value of a key (NaN as `0x7fc00000`). */
export function fromOrderKeyFunction(type: ElementType): string {
  const body = type === "u32"
    ? "return k;"
    : type === "i32"
    ? "return bitcast<i32>(k ^ 0x80000000u);"
    : `var b = select(~k, k & 0x7fffffffu, (k & 0x80000000u) != 0u);
  if (k == 0xffffffffu) { b = 0x7fc00000u; }
  return bitcast<f32>(b);`;
  return `fn from_order_key(k: u32) -> ${type} {
  ${body}
}`;
}

/** CUDA C of `order_key(v)` (the same keys as {@linkcode orderKeyFunction}). */
export function orderKeyCuda(type: ElementType): string {
  const t = type === "f32" ? "float" : type === "i32" ? "int" : "unsigned int";
  const body = type === "u32"
    ? "return v;"
    : type === "i32"
    ? "return ((unsigned int)v) ^ 0x80000000u;"
    : `const unsigned int b = __float_as_uint(v);
  if ((b & 0x7fffffffu) > 0x7f800000u) return 0xffffffffu;
  const unsigned int c = b == 0x80000000u ? 0u : b;
  return (c & 0x80000000u) != 0u ? ~c : (c | 0x80000000u);`;
  return `__device__ __forceinline__ unsigned int order_key(${t} v) {
  ${body}
}`;
}

/** CUDA C of `from_order_key(k)` (as {@linkcode fromOrderKeyFunction}). */
export function fromOrderKeyCuda(type: ElementType): string {
  const t = type === "f32" ? "float" : type === "i32" ? "int" : "unsigned int";
  const body = type === "u32"
    ? "return k;"
    : type === "i32"
    ? "return (int)(k ^ 0x80000000u);"
    : `unsigned int b = (k & 0x80000000u) != 0u ? (k & 0x7fffffffu) : ~k;
  if (k == 0xffffffffu) b = 0x7fc00000u;
  return __uint_as_float(b);`;
  return `__device__ __forceinline__ ${t} from_order_key(unsigned int k) {
  ${body}
}`;
}
