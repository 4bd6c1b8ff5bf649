/**
 * Gathers elements of a handle by u32 indices on the device (WebGPU or CUDA).
 *
 * @module
 */

import type { ComputeClient } from "../../client/client.ts";
import type { Handle } from "../../core/handles/handle.ts";
import type { StreamId } from "../../core/stream_id.ts";
import type { ElementType } from "../elementwise.ts";
import type { ResultType } from "../reduce.ts";
import { elementType, withOutput } from "../_shape.ts";
import { backendTexts, launch } from "../_backend_kernels.ts";
import { BAD_INDEX_WGSL, gatherWgsl } from "./_layout_wgsl.ts";
import { BAD_INDEX_CUDA, gatherCuda } from "./_layout_cuda.ts";
import { checkCall } from "../_inputs.ts";
import { optionalBoolean } from "../../core/_argument_checks.ts";

/**
 * Options of {@linkcode gather}.
 *
 * @example
 * ```ts
 * import type { GatherOptions } from "@gpucompute/runtime";
 * const options: GatherOptions = { check: true };
 * ```
 */
export interface GatherOptions {
  /**
   * Check the indices on the device and read the result of the check back: `gather` then
   * returns a promise that rejects with a `RangeError` naming the first out-of-range index.
   * @default {false}
   */
  check?: boolean;
  /**
   * The stream to run on.
   * @default {currentStreamId()}
   */
  stream?: StreamId;
}

/** The kernel texts by backend: keys `type:checked`, `type:plain` and `bad_index`. */
const texts = backendTexts({
  webgpu: (key) => key === "bad_index" ? BAD_INDEX_WGSL : gatherOf(key, gatherWgsl),
  cuda: (key) => key === "bad_index" ? BAD_INDEX_CUDA : gatherOf(key, gatherCuda),
});

function gatherOf<T>(key: string, make: (type: ElementType, checked: boolean) => T): T {
  const [type, checked] = key.split(":");
  return make(type as ElementType, checked === "checked");
}

/**
 * `out[i] = x[indices[i]]` for each of the u32 `indices`: a new handle of `x`'s type (f32, i32
 * or u32) with one element per index, on the device (the caller disposes it).
 *
 * Out-of-range indices: the indices live on the device, so the call cannot see them without a
 * read. By default an index `>= x`'s length gives 0 (no error); with `{ check: true }` the kernel
 * also records the first out-of-range position, `gather` reads it back (one round trip) and
 * returns a promise that rejects with a `RangeError` naming the position and the index (the
 * output is disposed), else resolves to the output.
 *
 * `TypeError` for an `x` not of f32, i32 or u32, or `indices` not u32 (an untyped handle is read
 * as f32 and u32).
 *
 * @example
 * ```ts
 * import { createClient, gather } from "@gpucompute/runtime";
 * using client = await createClient();
 * using x = client.createWithData(new Float32Array([10, 20, 30]));
 * using indices = client.createWithData(new Uint32Array([2, 0, 2, 7]));
 * using out = gather(client, x, indices);
 * console.log(await client.read(out)); // Float32Array [30, 10, 30, 0]
 * await gather(client, x, indices, { check: true }).catch((e) => console.log(e.message));
 * ```
 */
export function gather<D extends ElementType | "bytes">(
  client: ComputeClient,
  x: Handle<D>,
  indices: Handle,
  options?: GatherOptions & { check?: false },
): Handle<ResultType<D>>;
/**
 * {@linkcode gather} with `{ check: true }`: resolves to the output, or rejects with a
 * `RangeError` naming the first out-of-range index.
 *
 * @example
 * ```ts
 * import { createClient, gather } from "@gpucompute/runtime";
 * using client = await createClient();
 * using x = client.createWithData(new Float32Array([10, 20, 30]));
 * using indices = client.createWithData(new Uint32Array([2, 0]));
 * using out = await gather(client, x, indices, { check: true });
 * ```
 */
export function gather<D extends ElementType | "bytes">(
  client: ComputeClient,
  x: Handle<D>,
  indices: Handle,
  options: GatherOptions & { check: true },
): Promise<Handle<ResultType<D>>>;
export function gather<D extends ElementType | "bytes">(
  client: ComputeClient,
  x: Handle<D>,
  indices: Handle,
  options: GatherOptions = {},
): Handle<ResultType<D>> | Promise<Handle<ResultType<D>>> {
  checkCall("gather", client, options, ["check", "stream"]);
  const what = "gather";
  const type = elementType(x, "x", what, ["f32", "i32", "u32"]);
  elementType(indices, "indices", what, ["u32"]);
  const { stream } = options;
  const n = indices.size() / 4;
  const len = x.size() / 4;
  const checked = optionalBoolean(options.check, "gather: options.check");
  const flag = checked
    ? client.createWithData(new Uint32Array([0xffffffff, 0]), { stream })
    : undefined;
  let out: Handle<ResultType<D>>;
  try {
    out = withOutput(client, n, type, { stream }, (out) => {
      if (n === 0) return;
      // A binding holds at least one element: an empty x is bound as one dummy element.
      using dummy = len === 0 ? client.zeros(1, type, { stream }) : undefined;
      launch(client, texts(client, what, `${type}:${checked ? "checked" : "plain"}`), {
        threads: n,
        buffers: [dummy ?? x, indices, out, ...(flag === undefined ? [] : [flag])],
        params: { n, len },
        stream,
      });
      if (flag !== undefined) {
        launch(client, texts(client, what, "bad_index"), {
          threads: 1,
          buffers: [indices, flag],
          stream,
        });
      }
    }) as Handle<ResultType<D>>;
  } catch (error) {
    flag?.dispose();
    throw error;
  }
  if (flag === undefined) return out;
  const read = client.read(flag, { stream }).finally(() => flag.dispose());
  return read.then(([position, index]) => {
    if (position === 0xffffffff) return out;
    out.dispose();
    throw new RangeError(
      `gather: indices[${position}] is ${index}, out of range for x of ${len} elements`,
    );
  }, (error) => {
    out.dispose();
    throw error;
  });
}
