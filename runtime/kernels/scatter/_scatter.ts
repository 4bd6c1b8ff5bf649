/**
 * The launches of {@linkcode scatterAdd} and {@linkcode segmentReduce}.
 *
 * @module
 */

import type { ComputeClient } from "../../client/client.ts";
import type { Handle } from "../../core/handles/handle.ts";
import type { StreamId } from "../../core/stream_id.ts";
import type { ElementType } from "../elementwise.ts";
import { backendTexts, launch } from "../_backend_kernels.ts";
import { DECODE_WGSL, FILL_WGSL, scatterWgsl, type SegmentOp } from "./_scatter_wgsl.ts";
import { DECODE_CUDA, FILL_CUDA, scatterCuda } from "./_scatter_cuda.ts";

/** Texts by backend: `op:type:index` (the scatter), `fill`, `decode`. */
const text = backendTexts({
  webgpu: (key) =>
    key === "fill" ? FILL_WGSL : key === "decode" ? DECODE_WGSL : of(key, scatterWgsl),
  cuda: (key) => key === "fill" ? FILL_CUDA : key === "decode" ? DECODE_CUDA : of(key, scatterCuda),
});

function of<T>(key: string, make: (op: SegmentOp, t: ElementType, i: "u32" | "i32") => T): T {
  const [op, type, index] = key.split(":");
  return make(op as SegmentOp, type as ElementType, index as "u32" | "i32");
}

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
  launch(client, text(client, "scatter", `${op}:${type}:${indexType}`), {
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
  launch(client, text(client, "scatter", "fill"), {
    threads: n,
    buffers: [view],
    params: { n, value: bits },
    stream,
  });
}

/** Decodes f32 keys in `out` back into floats. */
export function decodeKeys(client: ComputeClient, out: Handle, stream?: StreamId): void {
  const n = out.size() / 4;
  if (n === 0) return;
  using view = out.as("u32");
  launch(client, text(client, "scatter", "decode"), {
    threads: n,
    buffers: [view],
    params: { n },
    stream,
  });
}
