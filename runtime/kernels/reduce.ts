/**
 * The common reductions: sum, max, min and mean of a handle (f32, i32 or u32), whole or along an
 * axis of a `[rows, cols]` shape, and a dot product. Each is a {@linkcode reduction} whose
 * result stays on the device.
 *
 * @module
 */

import type { ComputeClient } from "../client/client.ts";
import type { Handle } from "../core/handles/handle.ts";
import type { StreamId } from "../core/stream_id.ts";
import type { ElementType } from "./elementwise.ts";
import { type ReductionKernel, reductionOf } from "./reduction.ts";
import { operatorProgram, type ReduceOp } from "./_reduce_kernels.ts";
import { checkCall, checkIsHandle } from "./_inputs.ts";

export type { ReduceOp } from "./_reduce_kernels.ts";

/**
 * Options of {@linkcode reduce} and {@linkcode dot}.
 *
 * @example Column means of a 100 x 8 handle
 * ```ts
 * import type { ReduceOptions } from "@gpucompute/runtime";
 * const options: ReduceOptions = { op: "mean", shape: [100, 8], axis: 0 };
 * ```
 */
export interface ReduceOptions {
  /**
   * The operator (`dot` always sums the products).
   * @default {"sum"}
   */
  op?: ReduceOp;
  /**
   * The input's shape `[rows, cols]` (row-major) for an axis reduction.
   * @default {undefined} (the whole handle to one value)
   */
  shape?: readonly [number, number];
  /**
   * With `shape`: `1` reduces each row (`rows` outputs), `0` each column (`cols` outputs).
   * @default {1}
   */
  axis?: 0 | 1;
  /**
   * Where to write the result; a new handle of the input's type when absent (the caller
   * disposes it). It may be longer than the result (only the first elements are written), but
   * may not share memory with an input (a `RangeError`).
   * @default {undefined}
   */
  out?: Handle;
  /**
   * The stream to run on.
   * @default {currentStreamId()}
   */
  stream?: StreamId;
}

/**
 * The element type of a reduction's result: the input's (an untyped input is read as f32).
 *
 * @example
 * ```ts
 * import type { ResultType } from "@gpucompute/runtime";
 * const t: ResultType<"bytes"> = "f32";
 * ```
 */
export type ResultType<D extends ElementType | "bytes"> = D extends "bytes" ? "f32" : D;

const OPS: readonly ReduceOp[] = ["sum", "max", "min", "mean"];

const kernels = new Map<string, ReductionKernel>();

function kernelFor(op: ReduceOp, type: ElementType, product: boolean): ReductionKernel {
  const key = `${op}:${type}:${product}`;
  let found = kernels.get(key);
  if (found === undefined) {
    kernels.set(key, found = reductionOf(operatorProgram(op, type, product)));
  }
  return found;
}

/**
 * Reduces a handle of f32, i32 or u32: to one value, or along an axis of `shape`. The sum of no
 * element is 0, the max the type's lowest value (-Infinity), the min its highest (Infinity),
 * the mean NaN (NumPy's `max` of no element is an error: this is its `max(x, initial=-inf)`).
 * Integer sums wrap around on overflow, as WGSL's do (the result keeps the input's type: NumPy
 * sums int32 as int64). f32 max and min propagate
 * NaN (as NumPy's `max` and `min`, and `scan`) and order -0 below +0 on every backend (the max
 * of -0 and +0 is +0, their min -0, as `segmentReduce`'s).
 *
 * @example
 * ```ts
 * import { createClient, reduce } from "@gpucompute/runtime";
 * using client = await createClient();
 * using x = client.createWithData(new Float32Array([3, -1, 4, 1, 5, 9]));
 * using top = reduce(client, x, { op: "max" });
 * using rowSums = reduce(client, x, { shape: [2, 3], axis: 1 });
 * console.log(await client.readMany([top, rowSums])); // [Float32Array [9], Float32Array [6, 15]]
 * ```
 */
export function reduce<D extends ElementType | "bytes">(
  client: ComputeClient,
  input: Handle<D>,
  options: ReduceOptions = {},
): Handle<ResultType<D>> {
  checkCall("reduce", client, options, ["op", "shape", "axis", "out", "stream"]);
  const op = options.op ?? "sum";
  if (!OPS.includes(op)) {
    throw new RangeError(`op must be one of ${OPS.join(", ")}, got ${JSON.stringify(op)}`);
  }
  const type = elementTypeOf(input, "reduce", "x");
  if (op === "mean" && type !== "f32") {
    throw new RangeError(`A mean needs f32 elements, got ${input.describe()}`);
  }
  const { shape, axis, out, stream } = options;
  const result = kernelFor(op, type, false).run(client, { x: input }, { shape, axis, out, stream });
  return result as Handle<ResultType<D>>;
}

/**
 * The dot product of two handles of one type (f32, i32 or u32) and length, as a one-element
 * handle; with `shape` and `axis`, the dot products of matching rows or columns.
 *
 * @example
 * ```ts
 * import { createClient, dot } from "@gpucompute/runtime";
 * using client = await createClient();
 * using a = client.createWithData(new Float32Array([1, 2, 3]));
 * using b = client.createWithData(new Float32Array([4, 5, 6]));
 * using d = dot(client, [a, b]);
 * console.log(await client.read(d)); // Float32Array [32]
 * ```
 */
export function dot<D extends ElementType | "bytes">(
  client: ComputeClient,
  [a, b]: readonly [Handle<D>, Handle<D>],
  options: Omit<ReduceOptions, "op"> = {},
): Handle<ResultType<D>> {
  checkCall("dot", client, options, ["shape", "axis", "out", "stream"]);
  const type = elementTypeOf(a, "dot", "a");
  checkIsHandle(b, "dot", "b");
  if (a.size() !== b.size()) {
    throw new RangeError(`dot needs handles of one length, got ${a.size()} and ${b.size()} bytes`);
  }
  const { shape, axis, out, stream } = options;
  const result = kernelFor("sum", type, true).run(client, { a, b }, { shape, axis, out, stream });
  return result as Handle<ResultType<D>>;
}

function elementTypeOf(handle: Handle, what: string, argument: string): ElementType {
  checkIsHandle(handle, what, argument);
  const dtype = handle.dtype === "bytes" ? "f32" : handle.dtype;
  if (dtype !== "f32" && dtype !== "i32" && dtype !== "u32") {
    throw new TypeError(`${what} reads f32, i32 or u32 elements, got ${handle.describe()}`);
  }
  if (handle.size() % 4 !== 0) {
    throw new RangeError(`${what} reads 4-byte elements: ${handle.describe()} is not whole`);
  }
  return dtype;
}
