/**
 * The launch of the radix sort whose kernel text is `_radix_wgsl.ts` (WGSL) or `_radix_cuda.ts`
 * (CUDA C): passes of 8 bits over u32 keys and an optional u32 payload, from the given order
 * keys or from the caller's keys (the first pass encodes them), through new handles. Each pass
 * is a count of every run's digits, an exclusive scan of the counts (a sum per digit, then one
 * invocation per digit; `scanInto` past `OFFSETS_MAX_RUNS` runs) and a stable scatter; the
 * first key pass also finds the key bits that never change, and a key pass whose digit is among
 * them is a copy (see `_radix_wgsl.ts`).
 *
 * The sort of CPU adapters; real GPUs run `gpu/_tiled.ts` instead (see `_variant.ts`).
 *
 * @module
 */

import type { ComputeClient } from "../../client/client.ts";
import type { Handle } from "../../core/handles/handle.ts";
import type { StreamId } from "../../core/stream_id.ts";
import { backendTexts, launch } from "../_backend_kernels.ts";
import type { ElementType } from "../elementwise.ts";
import { scanInto } from "../scan/scan.ts";
import {
  countKernel,
  type CountRole,
  type DigitSource,
  type Encoding,
  OFFSETS_MAX_RUNS,
  offsetsKernel,
  type Payload,
  RADIX_BITS,
  RADIX_DIGITS,
  RADIX_RUN,
  scatterKernel,
  totalsKernel,
} from "./_radix_wgsl.ts";
import { countCuda, offsetsCuda, scatterCuda, totalsCuda } from "./_radix_cuda.ts";

/**
 * Keys (u32) and an optional payload (u32) of `n` elements, in handles of at least
 * {@linkcode paddedLength}`(n)` elements (the passes read them 4 at a time).
 */
export interface Sortable {
  readonly keys: Handle<"u32">;
  readonly payload?: Handle<"u32">;
}

/**
 * The caller's keys (and values) that the first pass encodes as it reads them (see
 * `Encoding`; `RadixPlan.descending` inverts the order keys). Never disposed here.
 */
export interface RawInput extends Encoding {
  readonly keys: Handle;
  readonly values?: Handle;
}

/** Passes of one sort: first all key passes (`keyBits` bits), then row passes (`rowBits`). */
export interface RadixPlan {
  readonly n: number;
  readonly keyBits: number;
  readonly rowBits?: number;
  /** With row passes: the row of element index `p` is `p / cols`. */
  readonly cols?: number;
  /** Whether the keys are inverted order keys (encoded by the first pass, or decoded). */
  readonly descending?: boolean;
  /**
   * Without row passes: the last pass writes the keys' values of this type (their bits, see
   * `scatterKernel`) instead of their order keys.
   */
  readonly decode?: ElementType;
  /**
   * Key passes only: the payload is f32 keys' own bits, carried only when some key's bits are
   * not its order key's value (-0, NaN other than `0x7fc00000`); with `decode`, the last pass
   * writes them as the keys there, and the returned payload holds nothing.
   */
  readonly optionalPayload?: boolean;
  readonly stream?: StreamId;
}

/** The length of the handles a sort of `n` elements reads: `n` rounded up to a multiple of 4. */
export function paddedLength(n: number): number {
  return Math.ceil(n / 4) * 4;
}

/**
 * The passes' texts by backend: keys `c:role:encoding` (`encoding` is `type/payload` or `-`),
 * `s:source:payload:encoding:decode:optional` (`decode` a type or `-`), `totals` and `offsets`.
 */
const texts = backendTexts({
  webgpu: (key) => passOf(key, countKernel, scatterKernel, totalsKernel, offsetsKernel),
  cuda: (key) => passOf(key, countCuda, scatterCuda, totalsCuda, offsetsCuda),
});

function passOf<T>(
  key: string,
  count: (role: CountRole, encoding?: Encoding) => T,
  scatter: (
    source: DigitSource,
    payload: boolean,
    encoding?: Encoding,
    decode?: ElementType,
    optional?: boolean,
  ) => T,
  totals: () => T,
  offsets: () => T,
): T {
  const [pass, source, ...rest] = key.split(":");
  const encodingOf = (text: string): Encoding | undefined => {
    if (text === "-") return undefined;
    const [type, payload] = text.split("/");
    return { type: type as ElementType, payload: payload as Payload };
  };
  if (pass === "c") return count(source as CountRole, encodingOf(rest[0]));
  if (pass === "s") {
    const decode = rest[2] === "-" ? undefined : rest[2] as ElementType;
    return scatter(
      source as DigitSource,
      rest[0] === "true",
      encodingOf(rest[1]),
      decode,
      rest[3] === "true",
    );
  }
  return pass === "totals" ? totals() : offsets();
}

/** The key part of an encoding (`count` reads no payload: one text per key type). */
function encodingKey(encoding: Encoding | undefined, payload = true): string {
  return encoding === undefined ? "-" : `${encoding.type}/${payload ? encoding.payload : "none"}`;
}

/**
 * Keys per invocation for `n` keys (a power of 2 from 256 to `RADIX_RUN`): 4,096 where that
 * leaves at least 64 runs (four workgroups: every core of the CPU adapter busy) and at most
 * 2,048 (so one invocation per digit scans the counts); shorter runs for fewer keys, longer for
 * more. Long runs write each digit's keys in streams: on the CPU adapter, 4,096 keys per run
 * scattered faster than 1,024.
 */
function runLength(n: number): number {
  let run = 4096;
  while (run < RADIX_RUN && n / run > 2048) run *= 2;
  while (run > 256 && n / run < 64) run /= 2;
  return run;
}

/**
 * Sorts `input` stably by its keys, then (row passes) stably by row: returns the sorted keys
 * and payload (new handles of {@linkcode paddedLength}`(n)` elements the caller disposes); the
 * inputs are disposed.
 */
export function radixSort(
  client: ComputeClient,
  input: Sortable | RawInput,
  plan: RadixPlan,
): Sortable {
  const { n, stream } = plan;
  const passes = digitPasses(plan, RADIX_BITS);
  const raw = "type" in input ? input : undefined;
  if (raw !== undefined && (n <= 1 || plan.keyBits === 0)) {
    throw new RangeError("radixSort: raw keys need a key pass over at least 2 keys");
  }
  if (n <= 1 || passes.length === 0) return input as Sortable;
  const run = runLength(n);
  const runs = Math.ceil(n / run);
  const length = paddedLength(n);
  const hasPayload = raw !== undefined ? raw.payload !== "none" : input.payload !== undefined;
  // The first pass reads the raw input (encoding it) or the given order keys.
  let current: Sortable | undefined = raw === undefined ? input as Sortable : undefined;
  using counts = client.empty(RADIX_DIGITS * runs, "u32", { stream });
  using offsets = client.empty(RADIX_DIGITS * runs, "u32", { stream });
  // [OR, AND] of every key and whether an f32 key is inexact, folded by the first key pass's count.
  using bits = plan.keyBits > 0
    ? client.createWithData(new Uint32Array([0, 0xffffffff, 0]), { stream })
    : undefined;
  const optional = plan.optionalPayload === true && hasPayload;
  if (optional && (plan.rowBits ?? 0) > 0) {
    throw new RangeError("radixSort: an optional payload needs key passes only");
  }
  // The counts' sum per digit, when one invocation per digit scans them.
  using totals = runs <= OFFSETS_MAX_RUNS
    ? client.empty(RADIX_DIGITS, "u32", { stream })
    : undefined;
  const layout = { outer: 1, count: RADIX_DIGITS * runs, inner: 1, segments: 1 };
  try {
    passes.forEach(([source, shift], index) => {
      const flags = plan.descending ? 0xffffffff : 0;
      const decode = index === passes.length - 1 && source === "key" ? plan.decode : undefined;
      const params = { n, shift, runs, run, cols: plan.cols ?? 1, flags };
      const role: CountRole = source === "row" ? "row" : index === 0 ? "first" : "later";
      const encoding = index === 0 ? raw : undefined;
      const inputs = current === undefined
        ? [raw!.keys, ...(raw!.values !== undefined ? [raw!.values] : [])]
        : [current.keys, ...(hasPayload ? [current.payload!] : [])];
      const digits = source === "key" ? inputs[0] : current!.payload!;
      const countBuffers = source === "key" ? [digits, counts, bits!] : [digits, counts];
      launch(client, texts(client, "sort", `c:${role}:${encodingKey(encoding, false)}`), {
        threads: runs,
        buffers: countBuffers,
        params,
        stream,
      });
      if (totals !== undefined) {
        const launches = { threads: RADIX_DIGITS, params, stream };
        launch(client, texts(client, "sort", "totals"), { ...launches, buffers: [counts, totals] });
        launch(client, texts(client, "sort", "offsets"), {
          ...launches,
          buffers: [counts, totals, offsets],
        });
      } else {
        scanInto(client, counts, offsets, layout, {
          op: "sum",
          type: "u32",
          exclusive: true,
          stream,
        });
      }
      // The last pass of an optional payload writes it as the keys: no payload comes out.
      const next = passOutput(
        client,
        length,
        hasPayload && !(optional && decode !== undefined),
        stream,
      );
      const scatter = texts(
        client,
        "sort",
        `s:${source}:${hasPayload}:${encodingKey(encoding)}:${decode ?? "-"}:${optional}`,
      );
      const buffers = [
        ...inputs,
        offsets,
        next.keys,
        ...(next.payload !== undefined ? [next.payload] : []),
        ...(source === "key" ? [bits!] : []),
      ];
      try {
        launch(client, scatter, { threads: runs, buffers, params, stream });
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

/** The passes of `plan` with digits of `bits` bits: its key bits, then its row bits. */
export function digitPasses(plan: RadixPlan, bits: number): [DigitSource, number][] {
  const passes: [DigitSource, number][] = [];
  for (let shift = 0; shift < plan.keyBits; shift += bits) passes.push(["key", shift]);
  for (let shift = 0; shift < (plan.rowBits ?? 0); shift += bits) passes.push(["row", shift]);
  return passes;
}

/**
 * A pass's output: `n` keys, and `n` payload words when `withPayload` (the last pass of an
 * optional payload writes it as the keys: no payload comes out).
 */
export function passOutput(
  client: ComputeClient,
  n: number,
  withPayload: boolean,
  stream: StreamId | undefined,
): Sortable {
  return {
    keys: client.empty(n, "u32", { stream }),
    payload: withPayload ? client.empty(n, "u32", { stream }) : undefined,
  };
}

/** Disposes a pass's keys and payload. */
export function dispose(sortable: Sortable): void {
  sortable.keys.dispose();
  sortable.payload?.dispose();
}
