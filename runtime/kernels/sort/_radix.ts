/**
 * The launch of the radix sort whose kernel text is `_radix_wgsl.ts`: passes over u32 keys and
 * an optional u32 payload, ping-ponging between the given handles and two more of each.
 *
 * @module
 */

import type { ComputeClient } from "../../client/client.ts";
import type { Handle } from "../../core/handles/handle.ts";
import type { StreamId } from "../../core/stream_id.ts";
import { cached, type GeneratedKernel } from "../_grid.ts";
import { scanInto } from "../scan/scan.ts";
import {
  type DigitSource,
  histogramKernel,
  RADIX_BITS,
  RADIX_BLOCK,
  RADIX_DIGITS,
  scatterKernel,
} from "./_radix_wgsl.ts";
import { runKernel } from "../record_kernels.ts";

/** Keys (u32) and an optional payload (u32) of `n` elements. */
export interface Sortable {
  readonly keys: Handle<"u32">;
  readonly payload?: Handle<"u32">;
}

/** Passes of one sort: first all key passes (`keyBits` bits), then row passes (`rowBits`). */
export interface RadixPlan {
  readonly n: number;
  readonly keyBits: number;
  readonly rowBits?: number;
  /** With row passes: the row of element index `p` is `p / cols`. */
  readonly cols?: number;
  readonly stream?: StreamId;
}

const kernels = new Map<string, GeneratedKernel>();

/**
 * Sorts `input` stably by its keys, then (row passes) stably by row: returns the sorted keys
 * and payload (new handles the caller disposes); the inputs are disposed.
 */
export function radixSort(client: ComputeClient, input: Sortable, plan: RadixPlan): Sortable {
  const { n, stream } = plan;
  const passes: [DigitSource, number][] = [];
  for (let shift = 0; shift < plan.keyBits; shift += RADIX_BITS) passes.push(["key", shift]);
  for (let shift = 0; shift < (plan.rowBits ?? 0); shift += RADIX_BITS) passes.push(["row", shift]);
  if (n <= 1 || passes.length === 0) return input;
  const blocks = Math.ceil(n / RADIX_BLOCK);
  const hasPayload = input.payload !== undefined;
  let current: Sortable = input;
  using counts = client.empty(RADIX_DIGITS * blocks, "u32", { stream });
  using offsets = client.empty(RADIX_DIGITS * blocks, "u32", { stream });
  const layout = { outer: 1, count: RADIX_DIGITS * blocks, inner: 1, segments: 1 };
  const count = { kind: "static", x: blocks, y: 1, z: 1 } as const;
  try {
    for (const [source, shift] of passes) {
      const params = { n, shift, blocks, cols: plan.cols ?? 1 };
      const histogram = cached(kernels, `h:${source}`, () => histogramKernel(source));
      const digits = source === "key" ? current.keys : current.payload!;
      runKernel(client, histogram, { count, buffers: [digits, counts], params, stream });
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
      const scatter = cached(
        kernels,
        `s:${source}:${hasPayload}`,
        () => scatterKernel(source, hasPayload),
      );
      const buffers = hasPayload
        ? [current.keys, current.payload!, offsets, next.keys, next.payload!]
        : [current.keys, offsets, next.keys];
      try {
        runKernel(client, scatter, { count, buffers, params, stream });
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
