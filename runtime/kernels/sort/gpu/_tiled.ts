/**
 * The launch of the GPU-shaped radix sort (the sort of real GPUs, see `../_variant.ts`) whose
 * kernel text is `_tiled_wgsl.ts` (WGSL) or `_tiled_cuda.ts` (CUDA C): passes of
 * {@linkcode TILED_BITS} bits over u32 order keys and an optional u32 payload, each a histogram
 * per block of {@linkcode TILED_BLOCK} keys (one workgroup each), the general exclusive scan of
 * the counts and a stable scatter ranked in workgroup memory. It sorts encoded keys only
 * (`../_sort_keys.ts` encodes them before and decodes after); the plan's `decode`,
 * `descending` and `optionalPayload` are for the caller.
 *
 * @module
 */

import type { ComputeClient } from "../../../client/client.ts";
import { backendTexts, launch } from "../../_backend_kernels.ts";
import { scanInto } from "../../scan/scan.ts";
import type { RadixPlan, Sortable } from "../_radix.ts";
import type { DigitSource } from "../_radix_wgsl.ts";
import {
  histogramKernel,
  scatterKernel,
  TILED_BITS,
  TILED_BLOCK,
  TILED_DIGITS,
} from "./_tiled_wgsl.ts";
import { histogramCuda, scatterCuda } from "./_tiled_cuda.ts";

/** The passes' texts by backend: keys `h:source` and `s:source:payload`. */
const texts = backendTexts({
  webgpu: (key) => passOf(key, histogramKernel, scatterKernel),
  cuda: (key) => passOf(key, histogramCuda, scatterCuda),
});

function passOf<T>(
  key: string,
  histogram: (source: DigitSource) => T,
  scatter: (source: DigitSource, payload: boolean) => T,
): T {
  const [pass, source, payload] = key.split(":");
  return pass === "h"
    ? histogram(source as DigitSource)
    : scatter(source as DigitSource, payload === "true");
}

/**
 * Sorts `input` stably by its keys, then (row passes) stably by row: returns the sorted keys
 * and payload (new handles the caller disposes); the inputs are disposed.
 */
export function tiledRadixSort(
  client: ComputeClient,
  input: Sortable,
  plan: RadixPlan,
): Sortable {
  const { n, stream } = plan;
  const passes: [DigitSource, number][] = [];
  for (let shift = 0; shift < plan.keyBits; shift += TILED_BITS) passes.push(["key", shift]);
  for (let shift = 0; shift < (plan.rowBits ?? 0); shift += TILED_BITS) passes.push(["row", shift]);
  if (n <= 1 || passes.length === 0) return input;
  const blocks = Math.ceil(n / TILED_BLOCK);
  const hasPayload = input.payload !== undefined;
  let current: Sortable = input;
  using counts = client.empty(TILED_DIGITS * blocks, "u32", { stream });
  using offsets = client.empty(TILED_DIGITS * blocks, "u32", { stream });
  const layout = { outer: 1, count: TILED_DIGITS * blocks, inner: 1, segments: 1 };
  const count = { kind: "static", x: blocks, y: 1, z: 1 } as const;
  try {
    for (const [source, shift] of passes) {
      const params = { n, shift, blocks, cols: plan.cols ?? 1 };
      const histogram = texts(client, "sort", `h:${source}`);
      const digits = source === "key" ? current.keys : current.payload!;
      launch(client, histogram, { count, buffers: [digits, counts], params, stream });
      scanInto(client, counts, offsets, layout, {
        op: "sum",
        type: "u32",
        exclusive: true,
        stream,
      });
      const next: Sortable = {
        keys: client.empty(n, "u32", { stream }),
        payload: hasPayload ? client.empty(n, "u32", { stream }) : undefined,
      };
      const scatter = texts(client, "sort", `s:${source}:${hasPayload}`);
      const buffers = hasPayload
        ? [current.keys, current.payload!, counts, offsets, next.keys, next.payload!]
        : [current.keys, counts, offsets, next.keys];
      try {
        launch(client, scatter, { count, buffers, params, stream });
      } catch (error) {
        dispose(next);
        throw error;
      }
      dispose(current); // pinned by the launch that reads it
      current = next;
    }
  } catch (error) {
    dispose(current);
    throw error;
  }
  return current;
}

function dispose(sortable: Sortable): void {
  sortable.keys.dispose();
  sortable.payload?.dispose();
}
