/**
 * `target[indices[i]] += values[i]` on the device, in place.
 *
 * @module
 */

import type { ComputeClient } from "../../client/client.ts";
import type { Handle } from "../../core/handles/handle.ts";
import type { StreamId } from "../../core/stream_id.ts";
import { elementType } from "../_shape.ts";
import { checkNoOverlap } from "../_inputs.ts";
import { scatterInto } from "./_scatter.ts";
import { checkCall } from "../_inputs.ts";

/**
 * Options of {@linkcode scatterAdd}.
 *
 * @example
 * ```ts
 * import type { ScatterAddOptions } from "@gpucompute/runtime";
 * const options: ScatterAddOptions = { stream: 1 };
 * ```
 */
export interface ScatterAddOptions {
  /**
   * The stream to run on.
   * @default {currentStreamId()}
   */
  stream?: StreamId;
}

/**
 * Adds each of `values` into `target` at its index, in place: `target[indices[i]] += values[i]`
 * for every `i`, repeated indices adding up. `target` and `values` are f32, i32 or u32 of one
 * type, `indices` u32 of `values`' length. An index `>= target`'s length is ignored (the indices
 * live on the device: checking them would cost a read).
 *
 * Integers add with atomics: exact and deterministic (sums wrap as the type does). f32 values add
 * with compare-and-swap loops (WebGPU has no float atomics): every value is added exactly once,
 * but in the device's order, so where additions round, the last bits of a sum may differ from
 * run to run (not deterministic).
 *
 * `TypeError` naming the argument for another element type or mismatched types; `RangeError`
 * when `indices` and `values` differ in length, or when `target` shares memory with either (its
 * elements would be read while other invocations add into them).
 *
 * @example
 * ```ts
 * import { createClient, scatterAdd } from "@gpucompute/runtime";
 * using client = await createClient();
 * using target = client.createWithData(new Float32Array([0, 0, 0]));
 * using indices = client.createWithData(new Uint32Array([0, 2, 2, 5]));
 * using values = client.createWithData(new Float32Array([1, 2, 3, 4]));
 * scatterAdd(client, target, indices, values);
 * console.log(await client.read(target)); // Float32Array [1, 0, 5]
 * ```
 */
export function scatterAdd(
  client: ComputeClient,
  target: Handle,
  indices: Handle,
  values: Handle,
  options: ScatterAddOptions = {},
): void {
  checkCall("scatterAdd", client, options, ["stream"]);
  const what = "scatterAdd";
  const type = elementType(target, "target", what, ["f32", "i32", "u32"]);
  elementType(indices, "indices", what, ["u32"]);
  elementType(values, "values", what, [type]);
  if (indices.size() !== values.size()) {
    throw new RangeError(
      `scatterAdd: indices has ${indices.size() / 4} elements, values ${values.size() / 4}`,
    );
  }
  checkNoOverlap(what, ["target", target], [["indices", indices], ["values", values]]);
  scatterInto(client, "sum", type, target, indices, "u32", values, options.stream);
}
