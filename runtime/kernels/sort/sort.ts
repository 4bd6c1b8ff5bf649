/**
 * Stable sorts of f32, i32 and u32 keys (with values, or as indices) on the device: an LSD radix
 * sort over order keys (`../_order_keys.ts`), then, where the result is not the sorted order keys
 * or payload themselves, a decoding or gathering kernel of `_map.ts`; on WebGPU (WGSL) and CUDA
 * (CUDA C) from the same call.
 *
 * Two radix sorts, one per kind of device (`_variant.ts`, by `../_device_kind.ts`):
 *
 * - CPU adapters (llvmpipe, lavapipe, SwiftShader, WARP): `_radix.ts`, 4 passes of 8 bits, each
 *   invocation counting and scattering a run of up to 8,192 consecutive keys alone (at most about
 *   2,048 runs), its first pass encoding the keys and its last decoding them. There invocations
 *   are SIMD lanes of a few CPU threads: barriers and workgroup memory are dear, long streams
 *   cheap (5-7x faster there than the tiled sort before it).
 * - Real GPUs, CUDA included: `gpu/_tiled.ts`, 4 passes of 8 bits over blocks of 1,024 keys,
 *   one workgroup of 256 invocations each with its counts in workgroup memory and its block
 *   sorted there by digit (two-bit splits) before a stable scatter, as many workgroups as blocks
 *   (the serial sort would run only a few thousand threads there); its first pass encodes the
 *   keys and its last decodes them too. Its speed on a GPU is unmeasured (no GPU was lent).
 *
 * @module
 */

import type { ComputeClient } from "../../client/client.ts";
import type { Handle } from "../../core/handles/handle.ts";
import type { StreamId } from "../../core/stream_id.ts";
import type { ElementType } from "../elementwise.ts";
import { elementTypeOf } from "../_grid.ts";
import type { MapBinding } from "./_map_wgsl.ts";
import { decode, dispose, narrow, retype, run, sortKeys } from "./_sort_keys.ts";
import { checkCall } from "../_inputs.ts";

export { sortKeys } from "./_sort_keys.ts";

/**
 * Options of {@linkcode sort} and {@linkcode argsort}.
 *
 * @example
 * ```ts
 * import type { SortOptions } from "@gpucompute/runtime";
 * const options: SortOptions = { descending: true };
 * ```
 */
export interface SortOptions {
  /**
   * Largest first (NaN first); equal keys still keep their input order.
   * @default {false}
   */
  descending?: boolean;
  /**
   * The stream to run on.
   * @default {currentStreamId()}
   */
  stream?: StreamId;
}

/**
 * Options of {@linkcode sort} with values: the values (f32, i32 or u32, one per key) move with
 * their keys.
 *
 * @example
 * ```ts
 * import type { Handle, SortPairsOptions } from "@gpucompute/runtime";
 * const byKey = (values: Handle<"u32">): SortPairsOptions<"u32"> => ({ values });
 * ```
 */
export interface SortPairsOptions<V extends ElementType | "bytes"> extends SortOptions {
  /** The values to reorder with the keys (their length is the keys'). */
  values: Handle<V>;
}

/**
 * Sorts keys (f32, i32 or u32) stably, smallest first (`descending`: largest first), into new
 * handles on the device. NaN sorts above every number (last, or first when descending) and -0
 * equals +0 (both keep their input order, and their bits). With `values`, returns the keys and
 * the values reordered with them.
 *
 * @example
 * ```ts
 * import { createClient, sort } from "@gpucompute/runtime";
 * using client = await createClient();
 * using keys = client.createWithData(new Float32Array([3, NaN, -1, 2]));
 * using values = client.createWithData(new Uint32Array([30, 99, 10, 20]));
 * using sorted = sort(client, keys);
 * using pairs = sort(client, keys, { values, descending: true });
 * console.log(await client.readMany([sorted, pairs.keys, pairs.values]));
 * // [Float32Array [-1, 2, 3, NaN], Float32Array [NaN, 3, 2, -1], Uint32Array [99, 30, 20, 10]]
 * ```
 */
export function sort<D extends ElementType | "bytes">(
  client: ComputeClient,
  keys: Handle<D>,
  options?: SortOptions,
): Handle<D extends "bytes" ? "f32" : D>;
/**
 * Sorts keys with values: returns the sorted keys and the values reordered with them (see the
 * first overload).
 *
 * @example
 * ```ts
 * import { createClient, sort } from "@gpucompute/runtime";
 * using client = await createClient();
 * using keys = client.createWithData(new Int32Array([2, 1, 2]));
 * using values = client.createWithData(new Float32Array([0.5, 1.5, 2.5]));
 * using pairs = sort(client, keys, { values });
 * console.log(await client.readMany([pairs.keys, pairs.values]));
 * // [Int32Array [1, 2, 2], Float32Array [1.5, 0.5, 2.5]]
 * ```
 */
export function sort<D extends ElementType | "bytes", V extends ElementType | "bytes">(
  client: ComputeClient,
  keys: Handle<D>,
  options: SortPairsOptions<V>,
):
  & { keys: Handle<D extends "bytes" ? "f32" : D>; values: Handle<V extends "bytes" ? "f32" : V> }
  & Disposable;
export function sort(
  client: ComputeClient,
  keys: Handle,
  options: SortOptions & { values?: Handle } = {},
): Handle | ({ keys: Handle; values: Handle } & Disposable) {
  checkCall("sort", client, options, ["descending", "stream", "values"]);
  const type = elementTypeOf(keys, "sort", "keys");
  const n = keys.size() / 4;
  const { values, stream } = options;
  const descending = checkDescending(options, "sort");
  if (values === undefined) {
    const payload = type === "f32" ? "bits" : "none";
    const decoded = !descending && type === "u32" ? undefined : type;
    // f32 keys carry their own bits (the keys made -0 and NaN one pattern each) where some key
    // needs them: the last pass writes them, or the keys' values, as the keys.
    const sorted = sortKeys(client, keys, type, payload, undefined, n, descending, stream, {
      decode: decoded,
      optionalPayload: type === "f32",
    });
    // Fewer than 2 f32 keys come back as their bits in the payload, u32 keys sorted up as
    // themselves: no decoding.
    if (type === "f32" && n < 2 || !descending && type === "u32") {
      const [result, other] = type === "f32"
        ? [sorted.payload!, sorted.keys]
        : [sorted.keys, sorted.payload];
      other?.dispose();
      return narrow(type === "f32" ? retype(result, "f32") : result, n);
    }
    if (n >= 2) return narrow(retype(sorted.keys, type), n); // decoded by the last pass
    try {
      const body = "out[i] = from_order_key(keys[i] ^ params.flags);";
      return decode(client, sorted.keys, type, body, { type, n, descending, stream });
    } finally {
      dispose(sorted);
    }
  }
  const valueType = elementTypeOf(values, "sort", "options.values");
  if (values.size() !== keys.size()) {
    throw new RangeError(
      `sort: options.values has ${values.size() / 4} elements, keys has ${n}`,
    );
  }
  // f32 keys carry their index (to gather keys and values), others the values' bits.
  const payload = type === "f32" ? "index" : valueType;
  const decoded = type === "f32" ? undefined : type;
  const sorted = sortKeys(client, keys, type, payload, values, n, descending, stream, {
    decode: decoded,
  });
  if (decoded !== undefined && n >= 2) {
    // The last pass wrote the keys' values; the payload is the values' bits.
    const out = narrow(retype(sorted.keys, type), n);
    const outValues = narrow(retype(sorted.payload!, valueType), n);
    return {
      keys: out,
      values: outValues,
      [Symbol.dispose]() {
        out.dispose();
        outValues.dispose();
      },
    };
  }
  try {
    const out = client.empty(n, type, { stream });
    const outValues = client.empty(n, valueType, { stream });
    const decoding = { type, n, descending, stream };
    try {
      if (type === "f32") {
        const bindings: MapBinding[] = [
          ["payload", "u32", false],
          ["x", type, false],
          ["v", valueType, false],
          ["out", type, true],
          ["out_values", valueType, true],
        ];
        run(
          client,
          `gather_${type}_${valueType}`,
          bindings,
          [sorted.payload!, keys, values, out, outValues],
          "let j = payload[i]; out[i] = x[j]; out_values[i] = v[j];",
          decoding,
        );
      } else {
        const bindings: MapBinding[] = [
          ["keys", "u32", false],
          ["payload", "u32", false],
          ["out", type, true],
          ["out_values", valueType, true],
        ];
        run(
          client,
          `decode_pairs_${type}_${valueType}`,
          bindings,
          [sorted.keys, sorted.payload!, out, outValues],
          `out[i] = from_order_key(keys[i] ^ params.flags); out_values[i] = bitcast<${valueType}>(payload[i]);`,
          decoding,
        );
      }
    } catch (error) {
      out.dispose();
      outValues.dispose();
      throw error;
    }
    return {
      keys: out,
      values: outValues,
      [Symbol.dispose]() {
        out.dispose();
        outValues.dispose();
      },
    };
  } finally {
    dispose(sorted);
  }
}

/**
 * The indices (u32) that sort `keys` (f32, i32 or u32) stably: `keys[indices[0]]` is the
 * smallest (`descending`: the largest), equal keys in input order, NaN above every number and
 * -0 equal to +0, as {@linkcode sort}.
 *
 * @example
 * ```ts
 * import { argsort, createClient } from "@gpucompute/runtime";
 * using client = await createClient();
 * using keys = client.createWithData(new Int32Array([5, -2, 5, 0]));
 * using order = argsort(client, keys, { descending: true });
 * console.log(await client.read(order)); // Uint32Array [0, 2, 3, 1]
 * ```
 */
export function argsort(
  client: ComputeClient,
  keys: Handle<ElementType | "bytes">,
  options: SortOptions = {},
): Handle<"u32"> {
  checkCall("argsort", client, options, ["descending", "stream"]);
  const type = elementTypeOf(keys, "argsort", "keys");
  const descending = checkDescending(options, "argsort");
  const n = keys.size() / 4;
  const sorted = sortKeys(client, keys, type, "index", undefined, n, descending, options.stream);
  sorted.keys.dispose();
  return narrow(sorted.payload!, n);
}

function checkDescending(options: SortOptions, primitive: string): boolean {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(`${primitive}: options must be an object`);
  }
  const { descending = false } = options;
  if (typeof descending !== "boolean") {
    throw new TypeError(`${primitive}: options.descending must be a boolean, got ${descending}`);
  }
  return descending;
}
