/**
 * The radix sort of `sort.ts` from the caller's keys (`sortKeys`, which topk uses too) and the
 * small kernels and handle helpers around it: decoding or gathering map kernels, results cut to
 * `n` elements or read as another type.
 *
 * @module
 */

import type { ComputeClient } from "../../client/client.ts";
import type { Handle } from "../../core/handles/handle.ts";
import type { StreamId } from "../../core/stream_id.ts";
import type { ElementType } from "../elementwise.ts";
import { launch } from "../_backend_kernels.ts";
import type { MapBinding } from "./_map_wgsl.ts";
import { mapText } from "./_map.ts";
import { paddedLength, radixSort, type Sortable } from "./_radix.ts";
import type { Payload } from "./_radix_wgsl.ts";
import { sortVariant } from "./_variant.ts";
import { tiledRadixSort } from "./gpu/_tiled.ts";

/** Consecutive elements per invocation of the encoding and decoding kernels. */
const MAP_RUN = 16;

/** What a decoding or encoding launch needs besides its bindings. */
export interface Coding {
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
  // On real GPUs the tiled sort (`_variant.ts`), on CPU adapters the serial one.
  const tiled = sortVariant(client) === "tiled";
  // u32 keys sorted up are their own order keys: the passes read them as they are (the serial
  // sort's when their length is a whole number of vec4s; the first pass writes new handles and
  // the clone is disposed).
  if (type === "u32" && !descending && payload === "none" && n >= 2 && (tiled || n % 4 === 0)) {
    const clone = { keys: keys.clone() as Handle<"u32"> };
    return tiled ? tiledRadixSort(client, clone, plan) : radixSort(client, clone, plan);
  }
  // Otherwise the first pass encodes the keys (and makes the payload) as it reads them.
  if (n >= 2) {
    const carriesValues = payload !== "none" && payload !== "index" && payload !== "bits";
    if (carriesValues && values === undefined) {
      throw new Error(`sortKeys: ${payload} payload without values`);
    }
    const raw = { keys, type, payload, descending, values: carriesValues ? values : undefined };
    return tiled ? tiledRadixSort(client, raw, plan) : radixSort(client, raw, plan);
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
export function decode(
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
export function run(
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
export function retype<D extends ElementType>(handle: Handle, dtype: D): Handle<D> {
  try {
    return handle.as(dtype);
  } finally {
    handle.dispose();
  }
}

/** `handle` cut to its first `n` elements (the same memory; `handle` is disposed). */
export function narrow<D extends ElementType>(handle: Handle<D>, n: number): Handle<D> {
  const extra = handle.size() - n * 4;
  if (extra === 0) return handle;
  try {
    return handle.withOffsetEnd(extra);
  } finally {
    handle.dispose();
  }
}

export function dispose(sortable: Sortable): void {
  sortable.keys.dispose();
  sortable.payload?.dispose();
}
