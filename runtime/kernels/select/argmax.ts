/**
 * argmax and argmin: the index of the largest or smallest element of a handle, or of each row
 * or column of a `[rows, cols]` shape, as u32 on the device. The kernel text is `_arg_wgsl.ts`.
 *
 * @module
 */

import type { ComputeClient } from "../../client/client.ts";
import type { Handle } from "../../core/handles/handle.ts";
import type { StreamId } from "../../core/stream_id.ts";
import type { ElementType } from "../elementwise.ts";
import { elementTypeOf, layoutOf } from "../_grid.ts";
import { backendTexts, launch as launchOn } from "../_backend_kernels.ts";
import { ARG_ROW_MAX, argKernel, argRowsKernel, PARTIAL_CHUNK, VALUE_CHUNK } from "./_arg_wgsl.ts";
import { argCuda, argRowsCuda } from "./_arg_cuda.ts";
import { checkCall } from "../_inputs.ts";

/**
 * Options of {@linkcode argmax} and {@linkcode argmin}.
 *
 * @example The best column of each of 100 rows of 8
 * ```ts
 * import type { ArgOptions } from "@gpucompute/runtime";
 * const options: ArgOptions = { shape: [100, 8], axis: 1 };
 * ```
 */
export interface ArgOptions {
  /**
   * The input's shape `[rows, cols]` (row-major), for one index per row or column.
   * @default {undefined} (one index over the whole handle)
   */
  shape?: readonly [number, number];
  /**
   * With `shape`: `1` gives each row's index (counted within the row, `rows` outputs), `0`
   * each column's (counted within the column, `cols` outputs).
   * @default {1}
   */
  axis?: 0 | 1;
  /**
   * The stream to run on.
   * @default {currentStreamId()}
   */
  stream?: StreamId;
}

/** The passes' texts by backend, keyed `type:largest:from:to:vector`, or `type:largest:rows`. */
const texts = backendTexts({
  webgpu: (key) => passOf(key, argKernel, argRowsKernel),
  cuda: (key) => passOf(key, argCuda, argRowsCuda),
});

function passOf<T>(
  key: string,
  make: (
    t: ElementType,
    l: boolean,
    f: "values" | "partials",
    to: "partials" | "indices",
    vector: boolean,
  ) => T,
  rows: (t: ElementType, l: boolean) => T,
): T {
  const [type, largest, from, to, vector] = key.split(":");
  if (from === "rows") return rows(type as ElementType, largest === "true");
  return make(
    type as ElementType,
    largest === "true",
    from as "values" | "partials",
    to as "partials" | "indices",
    vector === "true",
  );
}

/**
 * The index of the largest element (f32, i32 or u32) as a one-element u32 handle, or one index
 * per row or column with `shape` and `axis`. Ties give the first index; NaN counts as the
 * largest, so the first NaN wins (as NumPy's `argmax`); -0 and +0 are equal. A sequence of no
 * element is a `RangeError`.
 *
 * @example
 * ```ts
 * import { argmax, createClient } from "@gpucompute/runtime";
 * using client = await createClient();
 * using x = client.createWithData(new Float32Array([3, 9, 4, 9, 5, 2]));
 * using best = argmax(client, x);
 * using perRow = argmax(client, x, { shape: [2, 3] });
 * console.log(await client.readMany([best, perRow])); // [Uint32Array [1], Uint32Array [1, 0]]
 * ```
 */
export function argmax(
  client: ComputeClient,
  x: Handle<ElementType | "bytes">,
  options: ArgOptions = {},
): Handle<"u32"> {
  checkCall("argmax", client, options, ["shape", "axis", "stream"]);
  return arg(client, x, options, true);
}

/**
 * The index of the smallest element (f32, i32 or u32), as {@linkcode argmax}: ties give the
 * first index, and the first NaN wins (as NumPy's `argmin`).
 *
 * @example
 * ```ts
 * import { argmin, createClient } from "@gpucompute/runtime";
 * using client = await createClient();
 * using x = client.createWithData(new Int32Array([3, -1, 4, -1]));
 * using low = argmin(client, x);
 * console.log(await client.read(low)); // Uint32Array [1]
 * ```
 */
export function argmin(
  client: ComputeClient,
  x: Handle<ElementType | "bytes">,
  options: ArgOptions = {},
): Handle<"u32"> {
  checkCall("argmin", client, options, ["shape", "axis", "stream"]);
  return arg(client, x, options, false);
}

function arg(
  client: ComputeClient,
  x: Handle,
  options: ArgOptions,
  largest: boolean,
): Handle<"u32"> {
  const name = largest ? "argmax" : "argmin";
  const type = elementTypeOf(x, name, "x");
  const { count, inner, segments } = layoutOf(name, x.size() / 4, options.shape, options.axis);
  if (count === 0 && segments > 0) {
    throw new RangeError(`${name}: x has no element to choose from (a sequence of length 0)`);
  }
  if (count > 0x7fffffff) throw new RangeError(`${name}: x has more than 2^31 elements`);
  const { stream } = options;
  const out = client.empty(segments, "u32", { stream });
  if (segments === 0) return out;
  try {
    if (count <= ARG_ROW_MAX && segments > 1) {
      // Many short segments: one invocation folds each.
      launchOn(client, texts(client, name, `${type}:${largest}:rows`), {
        threads: segments,
        buffers: [x, out],
        params: { count, inner, segments },
        stream,
      });
      return out;
    }
    const chunks = Math.ceil(count / VALUE_CHUNK);
    // Contiguous segments of whole vec4s are read as vec4s (bindings are 256-byte aligned).
    const vector = inner === 1 && count % 4 === 0;
    const kernel = (from: "values" | "partials", to: "partials" | "indices") =>
      texts(client, name, `${type}:${largest}:${from}:${to}:${from === "values" && vector}`);
    const launch = (groups: number) => ({ kind: "static", x: groups, y: 1, z: 1 }) as const;
    if (chunks === 1) {
      launchOn(client, kernel("values", "indices"), {
        count: launch(segments),
        buffers: [x, out],
        params: { count, inner, chunks },
        stream,
      });
      return out;
    }
    // Partials are [segments, chunks]; further passes fold each row of them until one is left.
    let keys = client.empty(segments * chunks, "u32", { stream });
    let indices = client.empty(segments * chunks, "u32", { stream });
    try {
      launchOn(client, kernel("values", "partials"), {
        count: launch(segments * chunks),
        buffers: [x, keys, indices],
        params: { count, inner, chunks },
        stream,
      });
      for (let left = chunks; left > 1;) {
        const next = Math.ceil(left / PARTIAL_CHUNK);
        const params = { count: left, inner: 1, chunks: next };
        if (next === 1) {
          launchOn(client, kernel("partials", "indices"), {
            count: launch(segments),
            buffers: [keys, indices, out],
            params,
            stream,
          });
          break;
        }
        const nextKeys = client.empty(segments * next, "u32", { stream });
        const nextIndices = client.empty(segments * next, "u32", { stream });
        launchOn(client, kernel("partials", "partials"), {
          count: launch(segments * next),
          buffers: [keys, indices, nextKeys, nextIndices],
          params,
          stream,
        });
        keys.dispose(); // pinned by the launch that reads it
        indices.dispose();
        [keys, indices, left] = [nextKeys, nextIndices, next];
      }
    } finally {
      keys.dispose();
      indices.dispose();
    }
  } catch (error) {
    out.dispose();
    throw error;
  }
  return out;
}
