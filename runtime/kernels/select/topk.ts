/**
 * topk: the `k` largest (or smallest) elements of a handle, or of each row of a `[rows, cols]`
 * shape, with their indices, best first. Built on the stable radix sort (`../sort/`): the keys
 * sorted in the wanted direction, then stably by row, then the first `k` of each row gathered.
 *
 * @module
 */

import type { ComputeClient } from "../../client/client.ts";
import type { Handle } from "../../core/handles/handle.ts";
import type { StreamId } from "../../core/stream_id.ts";
import type { ElementType } from "../elementwise.ts";
import { elementTypeOf, layoutOf } from "../_grid.ts";
import { launch } from "../_backend_kernels.ts";
import { mapText } from "../sort/_map.ts";
import { sortKeys } from "../sort/sort.ts";
import { checkCall } from "../_inputs.ts";

/**
 * Options of {@linkcode topk}.
 *
 * @example The 3 smallest of each of 10 rows of 100
 * ```ts
 * import type { TopkOptions } from "@gpucompute/runtime";
 * const options: TopkOptions = { shape: [10, 100], largest: false };
 * ```
 */
export interface TopkOptions {
  /**
   * The input's shape `[rows, cols]` (row-major), for the best `k` of each row.
   * @default {undefined} (the whole handle as one row)
   */
  shape?: readonly [number, number];
  /**
   * The largest first (NaN counts as the largest), or the smallest first (NaN last).
   * @default {true}
   */
  largest?: boolean;
  /**
   * The stream to run on.
   * @default {currentStreamId()}
   */
  stream?: StreamId;
}

/**
 * What {@linkcode topk} returns: `[rows, k]` values and their indices within the row. Disposing
 * it disposes both handles (`using best = topk(...)`).
 *
 * @example
 * ```ts
 * import { createClient, topk, type TopkResult } from "@gpucompute/runtime";
 * using client = await createClient();
 * using x = client.createWithData(new Float32Array([0.5, 2, -1, 7, 3, 3]));
 * using best: TopkResult<"f32"> = topk(client, x, 3);
 * console.log(await client.read(best.values), await client.read(best.indices));
 * // Float32Array [7, 3, 3] Uint32Array [3, 4, 5]: ties keep the first index first
 * ```
 */
export interface TopkResult<D extends ElementType> extends Disposable {
  /** The best `k` values of each row, best first. */
  readonly values: Handle<D>;
  /** Their indices within the row (u32). */
  readonly indices: Handle<"u32">;
}

/**
 * The `k` largest elements (f32, i32 or u32; `largest: false`: smallest) of a handle, or of each
 * row of `shape`, best first, with their indices: the first `k` of a stable sort of each row in
 * that direction, so equal values come by lower index, NaN counts as larger than every number,
 * and -0 equals +0. `k` may be 0 up to the row's length (`RangeError` beyond).
 *
 * @example The largest 2 of each row
 * ```ts
 * import { createClient, topk } from "@gpucompute/runtime";
 * using client = await createClient();
 * using x = client.createWithData(new Float32Array([3, 9, 4, 1, 5, 5]));
 * using best = topk(client, x, 2, { shape: [2, 3] }); // disposes both handles
 * console.log(await client.readMany([best.values, best.indices]));
 * // [Float32Array [9, 4, 5, 5], Uint32Array [1, 2, 1, 2]]
 * ```
 */
export function topk<D extends ElementType | "bytes">(
  client: ComputeClient,
  x: Handle<D>,
  k: number,
  options: TopkOptions = {},
): TopkResult<D extends "bytes" ? "f32" : D> {
  checkCall("topk", client, options, ["shape", "largest", "stream"]);
  const type = elementTypeOf(x, "topk", "x");
  const n = x.size() / 4;
  const { outer: rows, count: cols } = layoutOf("topk", n, options.shape, undefined);
  if (!Number.isSafeInteger(k) || k < 0 || k > cols) {
    throw new RangeError(`topk: k must be an integer from 0 to the row length ${cols}, got ${k}`);
  }
  const { largest = true, stream } = options;
  if (typeof largest !== "boolean") {
    throw new TypeError(`topk: options.largest must be a boolean, got ${largest}`);
  }
  const values = client.empty(rows * k, type, { stream });
  const indices = client.empty(rows * k, "u32", { stream });
  const result = {
    values,
    indices,
    [Symbol.dispose]() {
      values.dispose();
      indices.dispose();
    },
  } as TopkResult<D extends "bytes" ? "f32" : D>;
  if (rows * k === 0) return result;
  try {
    const sorted = sortKeys(client, x, type, "index", undefined, n, largest, stream, {
      rows,
      cols,
    });
    try {
      const kernel = mapText(client, "topk", {
        id: `topk_gather_${type}`,
        bindings: [
          ["order", "u32", false],
          ["x", type, false],
          ["values", type, true],
          ["indices", "u32", true],
        ],
        body: `let row = i / params.k;
  let j = order[row * params.cols + i % params.k];
  values[i] = x[j];
  indices[i] = j - row * params.cols;`,
      });
      launch(client, kernel, {
        threads: rows * k,
        buffers: [sorted.payload!, x, values, indices],
        params: { n: rows * k, cols, k, flags: 0 },
        stream,
      });
    } finally {
      sorted.keys.dispose();
      sorted.payload?.dispose();
    }
  } catch (error) {
    values.dispose();
    indices.dispose();
    throw error;
  }
  return result;
}
