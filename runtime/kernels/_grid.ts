/**
 * Grid and index arithmetic shared by the primitives (scan, sort, argmax/argmin, topk): the
 * checked element type of an input, the `[rows, cols]` layout along an axis as segments, the
 * WGSL that finds element `k` of a segment, and a cache of generated kernels.
 *
 * A layout `{ outer, count, inner }` names `outer * inner` segments of `count` elements each:
 * element `k` of segment `s` is at `(s / inner) * count * inner + s % inner + k * inner`. A whole
 * handle is `{ 1, n, 1 }`; rows of `[rows, cols]` (axis 1) are `{ rows, cols, 1 }`; its columns
 * (axis 0) are `{ 1, rows, cols }`.
 *
 * @module
 */

import type { Handle } from "../core/handles/handle.ts";
import type { ElementType } from "./elementwise.ts";

/** A generated WGSL kernel: what the WebGPU backend launches, its text kept for debugging. */
export interface GeneratedKernel {
  /** Name in errors, logs and pipeline labels. */
  readonly id: string;
  /** The WGSL. */
  readonly source: string;
}

/** Segments of a handle (see the module doc). */
export interface Layout {
  readonly outer: number;
  readonly count: number;
  readonly inner: number;
  /** `outer * inner`. */
  readonly segments: number;
}

/** Most loop iterations of one invocation (llvmpipe stops loops after 65,535 in all). */
export const LOOP_LIMIT = 4096;

/**
 * The element type of `handle` (an untyped handle reads as f32): `TypeError` naming `argument`
 * of `primitive` for another type, `RangeError` for a size not a multiple of 4 bytes.
 */
export function elementTypeOf(
  handle: Handle,
  primitive: string,
  argument: string,
  allowed: readonly ElementType[] = ["f32", "i32", "u32"],
): ElementType {
  if (handle === null || typeof handle !== "object" || typeof handle.size !== "function") {
    throw new TypeError(`${primitive}: ${argument} must be a handle, got ${String(handle)}`);
  }
  // A disposed handle is INVALID_HANDLE here, before any launch (on every backend the same).
  if (handle.disposed) handle.ref();
  const dtype = handle.dtype === "bytes" ? "f32" : handle.dtype;
  if (!(allowed as readonly string[]).includes(dtype)) {
    throw new TypeError(
      `${primitive}: ${argument} must hold ${
        allowed.join(", ")
      } elements, got ${handle.describe()}`,
    );
  }
  if (handle.size() % 4 !== 0) {
    throw new RangeError(
      `${primitive}: ${argument} is not whole 4-byte elements: ${handle.describe()}`,
    );
  }
  return dtype as ElementType;
}

/**
 * The layout of `n` elements: the whole handle without `shape`, else the rows (`axis` 1, the
 * default) or columns (`axis` 0) of `shape`. `RangeError` naming `shape` or `axis`.
 */
export function layoutOf(
  primitive: string,
  n: number,
  shape: readonly [number, number] | undefined,
  axis: 0 | 1 | undefined,
): Layout {
  if (shape === undefined) {
    if (axis !== undefined) throw new RangeError(`${primitive}: axis needs a shape [rows, cols]`);
    return { outer: 1, count: n, inner: 1, segments: 1 };
  }
  if (!Array.isArray(shape) || shape.length !== 2) {
    throw new RangeError(`${primitive}: shape must be [rows, cols], got ${JSON.stringify(shape)}`);
  }
  const [rows, cols] = shape;
  for (const [what, value] of [["rows", rows], ["cols", cols]] as const) {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new RangeError(
        `${primitive}: shape ${what} must be a non-negative integer, got ${value}`,
      );
    }
  }
  if (rows * cols !== n) {
    throw new RangeError(
      `${primitive}: shape [${rows}, ${cols}] has ${rows * cols} elements, the input ${n}`,
    );
  }
  const along = axis ?? 1;
  if (along !== 0 && along !== 1) {
    throw new RangeError(`${primitive}: axis must be 0 or 1, got ${String(axis)}`);
  }
  return along === 1
    ? { outer: rows, count: cols, inner: 1, segments: rows }
    : { outer: 1, count: rows, inner: cols, segments: cols };
}

/**
 * WGSL of `fn at(segment, k) -> u32`, the index of element `k` of a segment, reading the
 * uniform fields `count` and `inner` of `params`.
 */
export const SEGMENT_INDEX =
  `fn at(segment: u32, k: u32) -> u32 { return (segment / params.inner) * params.count * params.inner + segment % params.inner + k * params.inner; }`;

/** The kernel `make()` gives for `key`, made once per key. */
export function cached(
  cache: Map<string, GeneratedKernel>,
  key: string,
  make: () => GeneratedKernel,
): GeneratedKernel {
  let found = cache.get(key);
  if (found === undefined) cache.set(key, found = make());
  return found;
}

/** WGSL literal of `type` for a u32 bit pattern (`bitcast` of a variable: no NaN constants). */
export function bitsOf(type: ElementType, bits: number): string {
  const hex = `0x${(bits >>> 0).toString(16)}u`;
  if (type === "u32") return hex;
  return type === "i32" ? `bitcast<i32>(${hex})` : `bits_f32(${hex})`;
}

/** WGSL helper that `bitsOf` uses for f32 (an infinite constant expression is a WGSL error). */
export const BITS_F32 = `fn bits_f32(b: u32) -> f32 { var v = b; return bitcast<f32>(v); }`;
