/**
 * Stable sorts of f32, i32 and u32 keys (with values, or as indices) on the device: an LSD radix
 * sort (`_radix.ts`) over order keys (`../_order_keys.ts`) whose first pass encodes the keys as
 * it reads them, then, where the result is not the sorted order keys or payload themselves, a
 * decoding or gathering kernel of `_map.ts`; on WebGPU (WGSL) and CUDA (CUDA C) from the same
 * call.
 *
 * @module
 */

import type { ComputeClient } from "../../client/client.ts";
import type { Handle } from "../../core/handles/handle.ts";
import type { StreamId } from "../../core/stream_id.ts";
import type { ElementType } from "../elementwise.ts";
import { elementTypeOf } from "../_grid.ts";
import { launch } from "../_backend_kernels.ts";
import type { MapBinding } from "./_map_wgsl.ts";
import { mapText } from "./_map.ts";
import { paddedLength, radixSort, type Sortable } from "./_radix.ts";
import type { Payload } from "./_radix_wgsl.ts";

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
 * ```ts ignore
 * import type { Handle, SortPairsOptions } from "@gpucompute/runtime";
 * const byKey = (values: Handle<"u32">): SortPairsOptions<"u32"> => ({ values });
 * ```
 */
export interface SortPairsOptions<V extends ElementType | "bytes"> extends SortOptions {
  /** The values to reorder with the keys (their length is the keys'). */
  values: Handle<V>;
}

/** Consecutive elements per invocation of the encoding and decoding kernels. */
const MAP_RUN = 16;

/**
 * Sorts keys (f32, i32 or u32) stably, smallest first (`descending`: largest first), into new
 * handles on the device. NaN sorts above every number (last, or first when descending) and -0
 * equals +0 (both keep their input order, and their bits). With `values`, returns the keys and
 * the values reordered with them.
 *
 * @example
 * ```ts ignore
 * import { createClient, sort } from "@gpucompute/runtime";
 * using client = await createClient();
 * using keys = client.createWithData(new Float32Array([3, NaN, -1, 2]));
 * using values = client.createWithData(new Uint32Array([30, 99, 10, 20]));
 * using sorted = sort(client, keys);
 * const pairs = sort(client, keys, { values, descending: true });
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
 * ```ts ignore
 * import { createClient, sort } from "@gpucompute/runtime";
 * using client = await createClient();
 * using keys = client.createWithData(new Int32Array([2, 1, 2]));
 * using values = client.createWithData(new Float32Array([0.5, 1.5, 2.5]));
 * const pairs = sort(client, keys, { values });
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
 * ```ts ignore
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

/** What a decoding or encoding launch needs besides its bindings. */
interface Coding {
  readonly type: ElementType;
  readonly n: number;
  readonly descending: boolean;
  readonly stream?: StreamId;
}

/**
 * The encoded keys of `keys` (order keys, inverted when descending) and the payload, radix
 * sorted, in handles of `paddedLength(n)` elements. Exported for topk, which sorts `rows` rows
 * of `cols` elements. With `decode` and two keys or more, the keys come back as the bits of
 * their values of that type; with `optionalPayload` too (f32 keys carrying their bits), as the
 * keys' own bits (see `RadixPlan`).
 */
export function sortKeys(
  client: ComputeClient,
  keys: Handle,
  type: ElementType,
  payload: Payload,
  values: Handle | undefined,
  n: number,
  descending: boolean,
  stream: StreamId | undefined,
  shape: {
    readonly rows?: number;
    readonly cols?: number;
    readonly decode?: ElementType;
    readonly optionalPayload?: boolean;
  } = {},
): Sortable {
  const { rows = 1, cols, decode, optionalPayload } = shape;
  const rowBits = rows <= 1 ? 0 : Math.ceil(Math.log2(rows));
  // Two keys or more: the passes decode (fewer come back as order keys, for the caller to decode).
  const plan = {
    n,
    keyBits: 32,
    rowBits,
    cols,
    stream,
    descending,
    decode: n >= 2 ? decode : undefined,
    optionalPayload,
  };
  // u32 keys sorted up are their own order keys: the passes read them as they are when their
  // length is a whole number of vec4s (the first pass writes new handles; the clone is disposed).
  if (type === "u32" && !descending && payload === "none" && n >= 4 && n % 4 === 0) {
    return radixSort(client, { keys: keys.clone() as Handle<"u32"> }, plan);
  }
  // Otherwise the first pass encodes the keys (and makes the payload) as it reads them.
  if (n >= 2) {
    const carriesValues = payload !== "none" && payload !== "index" && payload !== "bits";
    if (carriesValues && values === undefined) {
      throw new Error(`sortKeys: ${payload} payload without values`);
    }
    const raw = { keys, type, payload, descending, values: carriesValues ? values : undefined };
    return radixSort(client, raw, plan);
  }
  const length = paddedLength(n);
  const encoded: Sortable = {
    keys: client.empty(length, "u32", { stream }),
    payload: payload === "none" ? undefined : client.empty(length, "u32", { stream }),
  };
  try {
    if (n > 0) {
      const bindings: MapBinding[] = [["x", type, false], ["keys_out", "u32", true]];
      const buffers = [keys, encoded.keys];
      let body = "keys_out[i] = order_key(x[i]) ^ params.flags;";
      if (payload !== "none") {
        const carriesValues = payload !== "index" && payload !== "bits";
        if (carriesValues) {
          if (values === undefined) throw new Error(`sortKeys: ${payload} payload without values`);
          bindings.push(["v", payload, false]);
          buffers.push(values);
        }
        bindings.push(["payload_out", "u32", true]);
        buffers.push(encoded.payload!);
        body += payload === "index"
          ? " payload_out[i] = i;"
          : payload === "bits"
          ? " payload_out[i] = bitcast<u32>(x[i]);"
          : " payload_out[i] = bitcast<u32>(v[i]);";
      }
      run(client, `encode_${type}_${payload}`, bindings, buffers, body, {
        type,
        n,
        descending,
        stream,
      });
    }
  } catch (error) {
    dispose(encoded);
    throw error;
  }
  return radixSort(client, encoded, plan);
}

/** The sorted keys of `type` from `source` (encoded keys, or f32 keys' bits) by `body`. */
function decode(
  client: ComputeClient,
  source: Handle,
  type: ElementType,
  body: string,
  coding: Coding,
): Handle {
  const out = client.empty(coding.n, type, { stream: coding.stream });
  try {
    const bindings: MapBinding[] = [["keys", "u32", false], ["out", type, true]];
    run(client, `decode_${type}`, bindings, [source, out], body, coding);
  } catch (error) {
    out.dispose();
    throw error;
  }
  return out;
}

/** Runs a map kernel over `coding.n` elements (the key functions of `coding.type` included). */
function run(
  client: ComputeClient,
  id: string,
  bindings: readonly MapBinding[],
  buffers: readonly Handle[],
  body: string,
  coding: Coding,
): void {
  const { type, n, descending, stream } = coding;
  if (n === 0) return;
  const kernel = mapText(client, "sort", { id, bindings, body, keys: type, run: MAP_RUN });
  const flags = descending ? 0xffffffff : 0;
  const threads = Math.ceil(n / MAP_RUN);
  launch(client, kernel, { threads, buffers, params: { n, cols: 0, k: 0, flags }, stream });
}

/** `handle` read as `dtype` (the same memory; `handle` is disposed). */
function retype<D extends ElementType>(handle: Handle, dtype: D): Handle<D> {
  try {
    return handle.as(dtype);
  } finally {
    handle.dispose();
  }
}

/** `handle` cut to its first `n` elements (the same memory; `handle` is disposed). */
function narrow<D extends ElementType>(handle: Handle<D>, n: number): Handle<D> {
  const extra = handle.size() - n * 4;
  if (extra === 0) return handle;
  try {
    return handle.withOffsetEnd(extra);
  } finally {
    handle.dispose();
  }
}

function dispose(sortable: Sortable): void {
  sortable.keys.dispose();
  sortable.payload?.dispose();
}
