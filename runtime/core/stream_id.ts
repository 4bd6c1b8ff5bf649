/**
 * Stream ids and the current stream.
 *
 * CubeCL gives every thread its own stream id. In Deno the analogue of a thread is an async
 * context: the current stream id travels with `AsyncLocalStorage`, so concurrent async tasks that
 * each call {@linkcode withStream} get their own streams, and code outside any `withStream` runs
 * on {@linkcode DEFAULT_STREAM}. Every API that takes a stream also accepts an explicit id.
 *
 * @module
 */

import { AsyncLocalStorage } from "node:async_hooks";
import { assertNonNegativeInteger } from "./_validate.ts";

/** A logical stream: any non-negative safe integer. Streams map onto a pool by `id % maxStreams`. */
export type StreamId = number;

/** The stream used outside any {@linkcode withStream} scope. */
export const DEFAULT_STREAM: StreamId = 0;

const current = new AsyncLocalStorage<StreamId>();
// `getStore()` costs more than a whole pool allocation; until some code runs `withStream`, no
// context can hold a stream, and the default is the answer.
let entered = false;

/**
 * Throws `TypeError` / `RangeError` unless `id` is a non-negative safe integer.
 *
 * @example
 * ```ts
 * import { assertStreamId } from "@gpucompute/runtime/backend";
 * assertStreamId(3); // ok
 * try { assertStreamId(-1); } catch (error) { console.log((error as Error).name); } // RangeError
 * ```
 */
export function assertStreamId(id: unknown): asserts id is StreamId {
  assertNonNegativeInteger(id, "Stream id");
}

/**
 * The stream of the current async context.
 *
 * @example
 * ```ts
 * import { currentStreamId, withStream } from "@gpucompute/runtime/backend";
 * console.log(currentStreamId()); // 0
 * await withStream(2, async () => console.log(currentStreamId())); // 2
 * ```
 */
export function currentStreamId(): StreamId {
  return entered ? current.getStore() ?? DEFAULT_STREAM : DEFAULT_STREAM;
}

/**
 * Runs `fn` with `id` as the current stream, for it and every async continuation it starts.
 *
 * @example
 * ```ts
 * import { currentStreamId, withStream } from "@gpucompute/runtime/backend";
 * const ids = await Promise.all([1, 2, 3].map((id) => withStream(id, async () => {
 *   await new Promise((resolve) => setTimeout(resolve, 1));
 *   return currentStreamId();
 * })));
 * console.log(ids); // [1, 2, 3]
 * ```
 */
export function withStream<T>(id: StreamId, fn: () => T): T {
  assertStreamId(id);
  entered = true;
  return current.run(id, fn);
}

/** Resolves an optional explicit stream to a validated id, defaulting to the current stream. */
export function resolveStreamId(id: StreamId | undefined): StreamId {
  if (id === undefined) return currentStreamId();
  assertStreamId(id);
  return id;
}
