/**
 * The options of the event multi-stream ({@linkcode MultiStream} in `event.ts`) and the shape of
 * the waits it decides.
 *
 * @module
 */

import type { Logger } from "../core/logging.ts";
import type { SliceRecord } from "../core/handles/slice_record.ts";

/**
 * Options of `MultiStream`.
 *
 * @example
 * ```ts
 * import { MultiStream, type MultiStreamOptions } from "@gpucompute/runtime/backend";
 * const options: MultiStreamOptions = { maxStreams: 4 };
 * const multiStream = new MultiStream({
 *   createStream: () => ({}),
 *   handleCursor: (_stream, ref) => ref.cursor,
 *   isHealthy: () => true,
 *   flush: () => null,
 *   waitEvent: () => {},
 *   waitEventHost: () => Promise.resolve(),
 *   waitEventHostSync: () => {},
 * }, options);
 * await multiStream.drain();
 * ```
 */
export interface MultiStreamOptions {
  /** Number of streams; stream ids map onto them modulo this. */
  maxStreams: number;
  /**
   * Logger of the `stream` category.
   * @default {runtimeLogger("stream")}
   */
  logger?: Logger;
  /**
   * GC tasks that may be pending before `finish` blocks on the oldest (back-pressure).
   * @default {8}
   */
  maxPendingGc?: number;
  /**
   * Batch the GC of cross-stream pins (`_pin_batches.ts`): the orders of a stream that use other
   * streams' memory share one GC task per batch (at most 64 slices, handed over at the end of the
   * synchronous run, by a `finish` with payloads of its own, and by `drain`) instead of one each,
   * and a slice the batch pins is not pinned again. Memory is still never reused before the
   * stream's work on it completed.
   * @default {false}
   */
  batchGc?: boolean;
  /**
   * Called before the batched GC's end-of-run hand-over, which enqueues outside any order: a
   * backend whose calls act in a current context (CUDA) makes its own current.
   * @default {undefined}
   */
  bind?: () => void;
}

/**
 * Options of `MultiStream.order`.
 *
 * @example
 * ```ts
 * import type { OrderOptions } from "@gpucompute/runtime/backend";
 * const options: OrderOptions = { enforceHealthy: true }; // multiStream.order(stream, refs, options)
 * ```
 */
export interface OrderOptions {
  /**
   * Refuse with `STREAM_UNHEALTHY` when the backend reports the stream unhealthy. A stream left
   * unhealthy by a failed GC wait is refused whatever this says.
   * @default {false}
   */
  enforceHealthy?: boolean;
  /**
   * With `enforceHealthy`: the work the caller enqueues reports an unhealthy stream itself (a
   * CUDA launch returns the context's sticky error, and the caller then throws
   * `STREAM_UNHEALTHY`), so the backend is asked only when the order enqueues waits.
   * @default {false}
   */
  healthFromWork?: boolean;
  /**
   * Indices into `refs` of the refs the work only reads (CUDA's `const T*`): a read waits only
   * for other streams' writes of that memory, not for their reads.
   * @default {[]}
   */
  readOnly?: readonly number[];
}

/**
 * Which stream indices a stream must wait on before using some refs, each with the memory that
 * makes the wait necessary (records without duplicates).
 *
 * @example
 * ```ts
 * import type { RequiredWaits } from "@gpucompute/runtime/backend";
 * const waits: RequiredWaits = new Map(); // multiStream.requiredWaits(stream, refs)
 * for (const [index, slices] of waits) console.log(`wait on stream ${index}`, slices.length);
 * ```
 */
export type RequiredWaits = ReadonlyMap<number, readonly SliceRecord[]>;
