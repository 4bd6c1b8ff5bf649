/**
 * The scratch that `cuLaunchKernel`'s parameters are packed into: one set per parameter count
 * (8-byte slots), or per signature where a value is over 8 bytes (a struct by value: each value
 * at its own offset). The driver copies the values during the call, so one set serves every
 * launch (calls are synchronous, on one thread).
 *
 * @module
 */

import type { KernelParam, KernelSignature } from "../compile/signature.ts";
import type { LaunchParams } from "./_params.ts";

/** The reused buffers of one slot count: values, views on them, and the pointers to each slot. */
export interface ParamBuffers {
  readonly values: ArrayBuffer;
  readonly view: DataView;
  readonly bytes: Uint8Array;
  readonly pointers: BigUint64Array;
}

const scratch = new Map<number, ParamBuffers>();

/** The parameter buffers of `count` slots (made once per count). */
export function buffersFor(count: number): ParamBuffers {
  let entry = scratch.get(count);
  if (entry === undefined) {
    const values = new ArrayBuffer(Math.max(8, count * 8));
    const base = BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(values)));
    const pointers = new BigUint64Array(count);
    for (let i = 0; i < count; i++) pointers[i] = base + BigInt(i * 8);
    entry = { values, view: new DataView(values), bytes: new Uint8Array(values), pointers };
    scratch.set(count, entry);
  }
  return entry;
}

/**
 * Per signature: its pointer count, its scalar parameters and their names; where a value is over
 * 8 bytes (a struct by value), each value's offset and the signature's own buffers.
 */
export interface ParamShape {
  pointers: number;
  scalars: readonly KernelParam[];
  names: ReadonlySet<string>;
  offsets?: readonly number[];
  scratch?: ParamBuffers;
  /** Each parameter's byte size (a pointer's 8), in order: the same for every launch. */
  sizes: readonly number[];
  /** The pointer parameters that are `const T*`, by index among the pointers. */
  readOnly: readonly number[];
}

const shapes = new WeakMap<KernelSignature, ParamShape>();

/** The shape of `signature`'s parameters (made once per signature). */
export function shapeOf(signature: KernelSignature): ParamShape {
  let shape = shapes.get(signature);
  if (shape === undefined) {
    const scalars = signature.params.filter((p) => p.kind === "scalar");
    const readOnly: number[] = [];
    signature.params.filter((p) => p.kind === "pointer").forEach((p, i) => {
      if (p.readOnly) readOnly.push(i);
    });
    shape = {
      pointers: signature.params.length - scalars.length,
      scalars,
      names: new Set(scalars.map((p) => p.name)),
      sizes: Object.freeze(signature.params.map((p) => p.kind === "pointer" ? 8 : p.size)),
      readOnly: Object.freeze(readOnly),
    };
    if (scalars.some((p) => p.size > 8)) {
      const offsets: number[] = [];
      let end = 0;
      for (const p of signature.params) {
        offsets.push(end);
        end += Math.ceil(Math.max(8, p.kind === "scalar" ? p.size : 8) / 16) * 16;
      }
      const values = new ArrayBuffer(end);
      const base = BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(values)));
      const pointers = BigUint64Array.from(offsets, (at) => base + BigInt(at));
      shape.offsets = offsets;
      shape.scratch = {
        values,
        view: new DataView(values),
        bytes: new Uint8Array(values),
        pointers,
      };
    }
    shapes.set(signature, shape);
  }
  return shape;
}

/**
 * The marshalled parameters of every launch of a shape: its sizes, `const T*` buffers and scratch
 * never change between launches (the values in the scratch do), so one object serves them all.
 */
export function packedOf(
  shape: ParamShape,
  count: number,
): { readonly packed: LaunchParams; readonly scratch: ParamBuffers } {
  let found = PACKED.get(shape);
  if (found === undefined) {
    const scratch = shape.scratch ?? buffersFor(count);
    const { pointers, values } = scratch;
    const { sizes, readOnly, offsets } = shape;
    const packed = Object.freeze({
      sizes,
      pointers,
      values,
      readOnly,
      ...(offsets ? { offsets } : {}),
    });
    PACKED.set(shape, found = { packed, scratch });
  }
  return found;
}

const PACKED = new WeakMap<
  ParamShape,
  { readonly packed: LaunchParams; readonly scratch: ParamBuffers }
>();
