/**
 * Stream ids and the current stream.
 *
 * CubeCL gives every thread its own stream id. In Deno the analogue of a thread is an async
 * context: the current stream id travels with `AsyncLocalStorage`, so concurrent async tasks that
 * each call {@linkcode withStream} get their own streams, and code outside any `withStream` runs
 * on {@linkcode DEFAULT_STREAM}. Every API that takes a stream also accepts an explicit id.
 *
 * Browsers have no `AsyncLocalStorage`: there `withStream` scopes the synchronous part of `fn`
 * only (until its first `await`), and async code names its stream with the `{ stream }` option of
 * each call. The storage is found through `process.getBuiltinModule` (Deno, Node, Bun), not
 * imported, so the module loads in a browser as is; {@linkcode asyncStreamScope} says which.
 *
 * @module
 */

import { assertNonNegativeInteger, describe } from "./_argument_checks.ts";
import { builtinModule } from "./_platform.ts";
import { runtimeLogger } from "./logging.ts";

/**
 * A logical stream: any non-negative safe integer. Streams map onto a pool by `id % maxStreams`.
 *
 * @example
 * ```ts
 * import { createClient } from "@gpucompute/runtime";
 * import type { StreamId } from "@gpucompute/runtime/backend";
 * using client = await createClient();
 * const stream: StreamId = 3;
 * using x = client.zeros(4, "f32", { stream }); // made on stream 3
 * console.log(x.stream); // 3
 * ```
 */
export type StreamId = number;

/**
 * The stream used outside any {@linkcode withStream} scope.
 *
 * @example
 * ```ts
 * import { currentStreamId, DEFAULT_STREAM } from "@gpucompute/runtime/backend";
 * console.log(currentStreamId() === DEFAULT_STREAM); // true outside withStream
 * ```
 */
export const DEFAULT_STREAM: StreamId = 0;

/** The part of `AsyncLocalStorage` used here; {@linkcode SyncScope} has the same shape. */
interface Scope {
  getStore(): StreamId | undefined;
  run<T>(id: StreamId, fn: () => T): T;
}

/** The browser fallback: the id is current while `fn` runs synchronously, then restored. */
class SyncScope implements Scope {
  #id: StreamId | undefined;

  getStore(): StreamId | undefined {
    return this.#id;
  }

  run<T>(id: StreamId, fn: () => T): T {
    const outer = this.#id;
    this.#id = id;
    try {
      return fn();
    } finally {
      this.#id = outer;
    }
  }
}

type AsyncHooks = { AsyncLocalStorage: new () => Scope };
const Storage = builtinModule<AsyncHooks>("async_hooks")?.AsyncLocalStorage;
// One class per process, so the call in `currentStreamId` stays monomorphic.
const current: Scope = Storage === undefined ? new SyncScope() : new Storage();
// `getStore()` costs more than a whole pool allocation; until some code runs `withStream`, no
// context can hold a stream, and the default is the answer.
let entered = false;
let warned = false;

/**
 * Whether {@linkcode withStream} follows `fn` across `await` (`AsyncLocalStorage`: Deno, Node,
 * Bun) rather than scoping its synchronous part only (browsers).
 *
 * @example
 * ```ts
 * import { asyncStreamScope } from "@gpucompute/runtime/backend";
 * console.log(asyncStreamScope()); // true on Deno
 * ```
 */
export function asyncStreamScope(): boolean {
  return Storage !== undefined;
}

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
 * In a browser (see {@linkcode asyncStreamScope}) only until `fn` returns or first awaits: an
 * async `fn` there gets a one-time warning, and passes `{ stream }` to its calls instead.
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
  if (typeof fn !== "function") {
    throw new TypeError(`withStream: fn must be a function, got ${describe(fn)}`);
  }
  entered = true;
  const result = current.run(id, fn);
  if (Storage === undefined && !warned && isThenable(result)) warnSyncScope(id);
  return result;
}

/**
 * Resolves an optional explicit stream to a validated id, defaulting to the current stream.
 *
 * @example
 * ```ts
 * import { resolveStreamId, withStream } from "@gpucompute/runtime/backend";
 * console.log(resolveStreamId(5), withStream(2, () => resolveStreamId(undefined))); // 5 2
 * ```
 */
export function resolveStreamId(id: StreamId | undefined): StreamId {
  if (id === undefined) return currentStreamId();
  assertStreamId(id);
  return id;
}

function isThenable(value: unknown): boolean {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}

function warnSyncScope(id: StreamId): void {
  warned = true;
  runtimeLogger("stream").warn(
    "withStream({stream}, fn) returned a promise in a host without AsyncLocalStorage: stream " +
      "{stream} applied until fn's first await only; give the calls after it a stream option",
    { stream: id },
  );
}
