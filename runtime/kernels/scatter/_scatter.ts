/**
 * The launches of {@linkcode scatterAdd} and {@linkcode segmentReduce}.
 *
 * @module
 */

import type { ComputeClient } from "../../client/client.ts";
import type { Handle } from "../../core/handles/handle.ts";
import type { StreamId } from "../../core/stream_id.ts";
import type { ElementType } from "../elementwise.ts";
import { textCache } from "../_shape.ts";
import { DECODE_WGSL, FILL_WGSL, scatterWgsl, type SegmentOp } from "./_scatter_wgsl.ts";
import { runKernel } from "../record_kernels.ts";

const text = textCache((key) => {
  const [op, type, index] = key.split(":");
  return scatterWgsl(op as SegmentOp, type as ElementType, index as "u32" | "i32");
});

/** Folds `values` into `target` at `index` with `op` (f32 max/min: on keys, see the WGSL). */
export function scatterInto(
  client: ComputeClient,
  op: SegmentOp,
  type: ElementType,
  target: Handle,
  index: Handle,
  indexType: "u32" | "i32",
  values: Handle,
  stream: StreamId | undefined,
): void {
  const n = values.size() / 4;
  const len = target.size() / 4;
  if (n === 0 || len === 0) return;
  // The atomics view the target's memory as u32 (f32) or as its own integer type.
  using view = target.as(type === "f32" ? "u32" : type);
  using indices = index.as(indexType); // typed views of untyped handles
  using typed = values.as(type);
  runKernel(client, text(`${op}:${type}:${indexType}`), {
    threads: n,
    buffers: [view, indices, typed],
    params: { n, len },
    stream,
  });
}

/** Fills the `n` elements of `out` with the 32-bit pattern `bits`. */
export function fill(client: ComputeClient, out: Handle, bits: number, stream?: StreamId): void {
  const n = out.size() / 4;
  if (n === 0) return;
  using view = out.as("u32");
  runKernel(client, FILL_WGSL, { threads: n, buffers: [view], params: { n, value: bits }, stream });
}

/** Decodes f32 keys in `out` back into floats. */
export function decodeKeys(client: ComputeClient, out: Handle, stream?: StreamId): void {
  const n = out.size() / 4;
  if (n === 0) return;
  using view = out.as("u32");
  runKernel(client, DECODE_WGSL, { threads: n, buffers: [view], params: { n }, stream });
}
