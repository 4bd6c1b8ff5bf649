/**
 * Counts of each value of an integer handle on the device, as `tf.bincount` with a size.
 *
 * @module
 */

import type { ComputeClient } from "../../client/client.ts";
import type { Handle } from "../../core/handles/handle.ts";
import type { StreamId } from "../../core/stream_id.ts";
import { count, elementType } from "../_shape.ts";
import { checkCounts, countInto } from "./_count.ts";
import { checkCall } from "../_inputs.ts";

/**
 * Options of {@linkcode bincount}.
 *
 * @example Counts of the values 0 to 255
 * ```ts
 * import type { BincountOptions } from "@gpucompute/runtime";
 * const options: BincountOptions = { length: 256 };
 * ```
 */
export interface BincountOptions {
  /** The number of counts: values `0 .. length - 1` are counted, larger ones ignored. */
  length: number;
  /**
   * The stream to run on.
   * @default {currentStreamId()}
   */
  stream?: StreamId;
}

/**
 * Counts how often each value `0 .. length - 1` occurs in an i32 or u32 handle: `length` u32
 * counts on the device (the caller disposes them). Values `>= length` are ignored, as
 * `tf.bincount(x, [], size)` does, and so are negative i32 values. The counts are exact and
 * deterministic. NumPy's weighted `bincount(x, weights)` is `segmentReduce(client, weights, x,
 * { segments: length })` (the weights summed by value).
 *
 * `TypeError` for an input that is not i32 or u32 (an untyped one is read as i32); `RangeError`
 * for a `length` that is not an integer >= 0; `BufferTooBigError` naming the maximum for one past
 * what the device's largest buffer holds (`maxAllocationSize / 4`, as `histogram`'s `bins`).
 *
 * @example
 * ```ts
 * import { bincount, createClient } from "@gpucompute/runtime";
 * using client = await createClient();
 * using x = client.createWithData(new Int32Array([1, 1, 3, -2, 9, 0]));
 * using counts = bincount(client, x, { length: 4 });
 * console.log(await client.read(counts)); // Uint32Array [1, 2, 0, 1]
 * ```
 */
export function bincount(
  client: ComputeClient,
  x: Handle,
  options: BincountOptions,
): Handle<"u32"> {
  checkCall("bincount", client, options, ["length", "stream"]);
  const what = "bincount";
  const type = elementType(x, "x", what, ["i32", "u32"]);
  if (options === null || typeof options !== "object") {
    throw new TypeError("bincount: options { length } are required");
  }
  const length = count(options.length, "length", what);
  checkCounts(client, what, "length", length);
  const kind = type === "u32" ? "bincount_u32" : "bincount_i32";
  return countInto(client, what, kind, x, length, { low: 0, high: 0, width: 0 }, options.stream);
}
