/**
 * Histograms of f32 handles on the device, with NumPy's bin edges.
 *
 * @module
 */

import type { ComputeClient } from "../../client/client.ts";
import type { Handle } from "../../core/handles/handle.ts";
import type { StreamId } from "../../core/stream_id.ts";
import { count, elementType, finite } from "../_shape.ts";
import { checkCounts, countInto } from "./_count.ts";
import { checkCall } from "../_inputs.ts";
import { edgeKeys, needsHostEdges, topKey } from "./_edges.ts";

/**
 * Options of {@linkcode histogram}.
 *
 * @example Ten bins over [0, 1]
 * ```ts
 * import type { HistogramOptions } from "@gpucompute/runtime";
 * const options: HistogramOptions = { bins: 10, range: [0, 1] };
 * ```
 */
export interface HistogramOptions {
  /** The number of equal-width bins (an integer >= 1). */
  bins: number;
  /** The lower and upper edges `[low, high]` (finite, `low < high`). */
  range: readonly [number, number];
  /**
   * The stream to run on.
   * @default {currentStreamId()}
   */
  stream?: StreamId;
}

/** The largest finite f32. */
const F32_MAX = 3.4028234663852886e38;

/**
 * Counts the elements of an f32 handle in `bins` equal-width bins over `range`, as NumPy's
 * `histogram(x, bins, range)`: bin `k` holds `edge(k) <= x < edge(k + 1)` with
 * `edge(k) = low + k (high - low) / bins` (computed in f32), and the last bin also holds `high`.
 * Values outside `[low, high]` and NaN are not counted. Returns `bins` u32 counts on the device
 * (the caller disposes them). The order of the atomic additions does not matter: the counts are
 * exact and deterministic.
 *
 * `TypeError` for an input that is not f32; `RangeError` naming the option for `bins` that is not
 * an integer >= 1, or a range that is not two finite numbers with `low < high`. `bins` may be as
 * many as the device's largest buffer holds u32 counts (`maxAllocationSize / 4` of
 * `client.server.properties`, at most 2^32 - 1: 2^25 where it is 128 MiB, as on llvmpipe), on
 * both backends; more is a `BufferTooBigError` at once that names the maximum. Bins with a
 * subnormal edge (bins narrower than 2^-126, a subnormal bound, or an edge in (-2^-126, 2^-126)
 * other than 0) count exactly too, also on a device that flushes subnormal f32 (WGSL allows it;
 * NVIDIA's Vulkan driver does): their edges are computed on the host, as are those of more than
 * 2^24 bins (where f32 no longer holds every bin's index). Elsewhere,
 * on such a device, a subnormal value counts as 0, which matters only next to an edge at 0 (a
 * value in (0, 2^-126) over a range ending at 0 is counted in the last bin).
 *
 * @example
 * ```ts
 * import { createClient, histogram } from "@gpucompute/runtime";
 * using client = await createClient();
 * using x = client.createWithData(new Float32Array([0, 0.5, 1, 1.5, 2, 2, 7, NaN]));
 * using counts = histogram(client, x, { bins: 4, range: [0, 2] });
 * console.log(await client.read(counts)); // Uint32Array [1, 1, 1, 3]
 * ```
 */
export function histogram(
  client: ComputeClient,
  x: Handle,
  options: HistogramOptions,
): Handle<"u32"> {
  checkCall("histogram", client, options, ["bins", "range", "stream"]);
  const what = "histogram";
  elementType(x, "x", what, ["f32"]);
  if (options === null || typeof options !== "object") {
    throw new TypeError("histogram: options { bins, range } are required");
  }
  const bins = count(options.bins, "bins", what, 1);
  checkCounts(client, what, "bins", bins);
  if (!Array.isArray(options.range) || options.range.length !== 2) {
    throw new RangeError(`histogram: range must be [low, high], got ${String(options.range)}`);
  }
  const low = finite(options.range[0], "range[0] (low)", what);
  const high = finite(options.range[1], "range[1] (high)", what);
  if (!(Math.fround(low) < Math.fround(high))) {
    throw new RangeError(`histogram: range must have low < high in f32, got [${low}, ${high}]`);
  }
  const width = (Math.fround(high) - Math.fround(low)) / bins;
  if (!(Math.fround(width) > 0)) {
    throw new RangeError(
      `histogram: the bins of [${low}, ${high}] are too narrow for f32 (${bins})`,
    );
  }
  // One bin over a range wider than the largest f32 (`[-3e38, 3e38]`): its width overflows f32,
  // yet no edge but `low` and `high` uses it (the bin's guess is clamped to it), so the largest
  // f32 stands in for it.
  const params = { low, high, width: Math.min(width, F32_MAX) };
  // Subnormal edges (bins narrower than 2^-126, a subnormal bound, or an edge near 0): WGSL lets
  // a device flush subnormal f32 in arithmetic and comparisons (NVIDIA's Vulkan driver does: [0,
  // 1e-44] in 7 bins put every value in the last bin on an H200), so the docs' edges are computed
  // here and the kernel compares keys of the bits (`histogram_edges`), exact on every device.
  const f32Width = Math.fround(params.width);
  if (needsHostEdges(low, high, f32Width, bins)) {
    const keys = () => edgeKeys(low, high, f32Width, bins);
    const withTop = { ...params, top: topKey(high) };
    return countInto(client, what, "histogram_edges", x, bins, withTop, options.stream, keys);
  }
  return countInto(client, what, "histogram", x, bins, params, options.stream);
}
