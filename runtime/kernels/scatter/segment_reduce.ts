/**
 * Segment sums, maxima and minima on the device, as `tf.unsortedSegmentSum` and friends.
 *
 * @module
 */

import type { ComputeClient } from "../../client/client.ts";
import type { Handle } from "../../core/handles/handle.ts";
import type { StreamId } from "../../core/stream_id.ts";
import type { ElementType } from "../elementwise.ts";
import type { ResultType } from "../reduce.ts";
import { count, elementType, withOutput } from "../_shape.ts";
import { decodeKeys, fill, scatterInto } from "./_scatter.ts";
import { floatKey, type SegmentOp } from "./_scatter_wgsl.ts";
import { checkCall } from "../_inputs.ts";

/**
 * Options of {@linkcode segmentReduce}.
 *
 * @example Per-cluster sums for k-means with 8 clusters
 * ```ts
 * import type { SegmentReduceOptions } from "@gpucompute/runtime";
 * const options: SegmentReduceOptions = { segments: 8, op: "sum" };
 * ```
 */
export interface SegmentReduceOptions {
  /** The number of segments (outputs); ids `>= segments` are ignored. */
  segments: number;
  /**
   * The operator.
   * @default {"sum"}
   */
  op?: "sum" | "max" | "min";
  /**
   * The stream to run on.
   * @default {currentStreamId()}
   */
  stream?: StreamId;
}

const OPS: readonly SegmentOp[] = ["sum", "max", "min"];

/** Identities as 32-bit patterns: 0, and the type's lowest and highest values. */
const IDENTITY: Record<ElementType, Record<SegmentOp, number>> = {
  f32: { sum: 0, max: floatKey(-Infinity, "max"), min: floatKey(Infinity, "min") },
  i32: { sum: 0, max: 0x80000000, min: 0x7fffffff },
  u32: { sum: 0, max: 0, min: 0xffffffff },
};

/**
 * Reduces `values` by segment: output `s` folds, with `op`, every `values[i]` whose
 * `segmentIds[i]` is `s`, as `tf.unsortedSegmentSum` / `Max` / `Min` with `numSegments`. Returns
 * `segments` elements of `values`' type (f32, i32 or u32) on the device (the caller disposes
 * them). An empty segment gets the identity: 0 for sums, -Infinity / +Infinity for f32 max /
 * min, the type's lowest / highest value for integers. Ids are i32 or u32 of `values`' length;
 * negative ids and ids `>= segments` are ignored.
 *
 * Deterministic except f32 sums: integers and f32 max / min fold with atomics whose order does
 * not matter (f32 through order-preserving integer keys; a NaN in a segment makes its max and
 * min NaN; -0 is below +0), while f32 sums add with compare-and-swap loops in the device's order,
 * so their last bits may differ from run to run.
 *
 * `TypeError` for other element types; `RangeError` naming `segments`, `op`, or the lengths.
 *
 * @example
 * ```ts
 * import { createClient, segmentReduce } from "@gpucompute/runtime";
 * using client = await createClient();
 * using values = client.createWithData(new Float32Array([1, 2, 3, 4, 5]));
 * using ids = client.createWithData(new Uint32Array([0, 2, 0, 2, 2]));
 * using sums = segmentReduce(client, values, ids, { segments: 4 });
 * using maxima = segmentReduce(client, values, ids, { segments: 4, op: "max" });
 * console.log(await client.readMany([sums, maxima]));
 * // [Float32Array [4, 0, 11, 0], Float32Array [3, -Infinity, 5, -Infinity]]
 * ```
 */
export function segmentReduce<D extends ElementType | "bytes">(
  client: ComputeClient,
  values: Handle<D>,
  segmentIds: Handle,
  options: SegmentReduceOptions,
): Handle<ResultType<D>> {
  checkCall("segmentReduce", client, options, ["segments", "op", "stream"]);
  const what = "segmentReduce";
  const type = elementType(values, "values", what, ["f32", "i32", "u32"]);
  const idType = elementType(segmentIds, "segmentIds", what, ["i32", "u32"]) as "i32" | "u32";
  if (options === null || typeof options !== "object") {
    throw new TypeError("segmentReduce: options { segments } are required");
  }
  const segments = count(options.segments, "segments", what);
  const op = options.op ?? "sum";
  if (!OPS.includes(op)) {
    throw new RangeError(`segmentReduce: op must be sum, max or min, got ${JSON.stringify(op)}`);
  }
  if (segmentIds.size() !== values.size()) {
    throw new RangeError(
      `segmentReduce: segmentIds has ${segmentIds.size() / 4} elements, values ${
        values.size() / 4
      }`,
    );
  }
  const { stream } = options;
  const keyed = type === "f32" && op !== "sum";
  const out = withOutput(client, segments, type, { stream }, (out) => {
    fill(client, out, IDENTITY[type][op], stream);
    scatterInto(client, op, type, out, segmentIds, idType, values, stream);
    if (keyed) decodeKeys(client, out, stream);
  });
  return out as Handle<ResultType<D>>;
}
