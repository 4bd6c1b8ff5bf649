/**
 * The launch of the GPU-shaped radix sort (the sort of real GPUs, see `../_variant.ts`) whose
 * kernel text is `_tiled_wgsl.ts` (WGSL) or `_tiled_cuda.ts` (CUDA C): passes of
 * {@linkcode TILED_BITS} bits over u32 order keys and an optional u32 payload, each a histogram
 * per block of {@linkcode TILED_BLOCK} keys (one workgroup each), the general exclusive scan of
 * the counts and a stable scatter that sorts each block by digit in workgroup memory first. As
 * the serial sort, the first pass may encode the caller's keys as it reads them and the last
 * key pass decode them (`RadixPlan.decode`).
 *
 * @module
 */

import type { ComputeClient } from "../../../client/client.ts";
import { backendTexts, launch } from "../../_backend_kernels.ts";
import { scanInto } from "../../scan/scan.ts";
import type { ElementType } from "../../elementwise.ts";
import {
  digitPasses,
  dispose,
  passOutput,
  type RadixPlan,
  type RawInput,
  type Sortable,
} from "../_radix.ts";
import type { DigitSource, Encoding, Payload } from "../_radix_wgsl.ts";
import {
  histogramKernel,
  scatterKernel,
  TILED_BITS,
  TILED_BLOCK,
  TILED_DIGITS,
} from "./_tiled_wgsl.ts";
import { histogramCuda, scatterCuda } from "./_tiled_cuda.ts";

/**
 * The passes' texts by backend: keys `h:source:encoding` (`encoding` is `type/payload` or `-`)
 * and `s:source:payload:encoding:decode:optional` (`decode` a type or `-`).
 */
const texts = backendTexts({
  webgpu: (key) => passOf(key, histogramKernel, scatterKernel),
  cuda: (key) => passOf(key, histogramCuda, scatterCuda),
});

function passOf<T>(
  key: string,
  histogram: (source: DigitSource, encoding?: Encoding) => T,
  scatter: (
    source: DigitSource,
    payload: boolean,
    encoding?: Encoding,
    decode?: ElementType,
    optional?: boolean,
  ) => T,
): T {
  const [pass, source, ...rest] = key.split(":");
  const encodingOf = (text: string): Encoding | undefined => {
    if (text === "-") return undefined;
    const [type, payload] = text.split("/");
    return { type: type as ElementType, payload: payload as Payload };
  };
  if (pass === "h") return histogram(source as DigitSource, encodingOf(rest[0]));
  const decode = rest[2] === "-" ? undefined : rest[2] as ElementType;
  return scatter(
    source as DigitSource,
    rest[0] === "true",
    encodingOf(rest[1]),
    decode,
    rest[3] === "true",
  );
}

/** The key part of an encoding (the histogram reads no payload: one text per key type). */
function encodingKey(encoding: Encoding | undefined, payload = true): string {
  return encoding === undefined ? "-" : `${encoding.type}/${payload ? encoding.payload : "none"}`;
}

/**
 * Sorts `input` stably by its keys, then (row passes) stably by row: returns the sorted keys
 * and payload (new handles of `n` elements the caller disposes); given order keys are
 * disposed, the caller's keys (`RawInput`, encoded by the first pass) are not. With
 * `plan.decode` the last key pass writes the keys' values, with `plan.optionalPayload` too the
 * payload (f32 keys' own bits, always carried here) as the keys (as `radixSort`).
 */
export function tiledRadixSort(
  client: ComputeClient,
  input: Sortable | RawInput,
  plan: RadixPlan,
): Sortable {
  const { n, stream } = plan;
  const passes = digitPasses(plan, TILED_BITS);
  const raw = "type" in input ? input : undefined;
  if (raw !== undefined && (n <= 1 || plan.keyBits === 0)) {
    throw new RangeError("tiledRadixSort: raw keys need a key pass over at least 2 keys");
  }
  if (n <= 1 || passes.length === 0) return input as Sortable;
  const blocks = Math.ceil(n / TILED_BLOCK);
  const hasPayload = raw !== undefined ? raw.payload !== "none" : input.payload !== undefined;
  const optional = plan.optionalPayload === true && hasPayload;
  if (optional && (plan.rowBits ?? 0) > 0) {
    throw new RangeError("tiledRadixSort: an optional payload needs key passes only");
  }
  let current: Sortable | undefined = raw === undefined ? input as Sortable : undefined;
  using counts = client.empty(TILED_DIGITS * blocks, "u32", { stream });
  using offsets = client.empty(TILED_DIGITS * blocks, "u32", { stream });
  const layout = { outer: 1, count: TILED_DIGITS * blocks, inner: 1, segments: 1 };
  const count = { kind: "static", x: blocks, y: 1, z: 1 } as const;
  const flags = plan.descending ? 0xffffffff : 0;
  try {
    passes.forEach(([source, shift], index) => {
      const params = { n, shift, blocks, cols: plan.cols ?? 1, flags };
      const encoding = index === 0 ? raw : undefined;
      const decode = index === passes.length - 1 && source === "key" ? plan.decode : undefined;
      const inputs = current === undefined
        ? [raw!.keys, ...(raw!.values !== undefined ? [raw!.values] : [])]
        : [current.keys, ...(hasPayload ? [current.payload!] : [])];
      const histogram = texts(client, "sort", `h:${source}:${encodingKey(encoding, false)}`);
      const digits = source === "key" ? inputs[0] : current!.payload!;
      launch(client, histogram, { count, buffers: [digits, counts], params, stream });
      scanInto(client, counts, offsets, layout, {
        op: "sum",
        type: "u32",
        exclusive: true,
        stream,
      });
      // The last pass of an optional payload writes it as the keys: no payload comes out.
      const next = passOutput(client, n, hasPayload && !(optional && decode !== undefined), stream);
      const scatter = texts(
        client,
        "sort",
        `s:${source}:${hasPayload}:${encodingKey(encoding)}:${decode ?? "-"}:${optional}`,
      );
      const buffers = [
        ...inputs,
        counts,
        offsets,
        next.keys,
        ...(next.payload !== undefined ? [next.payload] : []),
      ];
      try {
        launch(client, scatter, { count, buffers, params, stream });
      } catch (error) {
        dispose(next);
        throw error;
      }
      if (current !== undefined) dispose(current); // pinned by the launch that reads it
      current = next;
    });
  } catch (error) {
    if (current !== undefined) dispose(current);
    throw error;
  }
  return current!;
}
