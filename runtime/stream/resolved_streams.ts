/**
 * {@linkcode ResolvedStreams}: what `MultiStream.resolve` hands back, the streams ready for work
 * that uses the resolved bindings, and the pins and payloads the GC releases after it.
 *
 * @module
 */

import type { SlicePin } from "../core/slice_record.ts";
import type { StreamId } from "../core/stream_id.ts";
import type { GcPayload } from "./_gc_loop.ts";

/** What a {@linkcode ResolvedStreams} needs from its multi-stream. */
export interface ResolveOwner<S> {
  stream(id: StreamId): S;
  finish(index: number, payloads: GcPayload[]): void;
}

/**
 * The streams after `MultiStream.resolve`: the current one may receive work that uses
 * the bindings. Call {@linkcode finish} (or `using`) once that work is enqueued; no other resolve
 * is accepted until then.
 *
 * @example Enqueue a copy that reads a host buffer, kept alive until the copy completed
 * ```ts ignore
 * {
 *   using resolved = multiStream.resolve(1, [destination]);
 *   enqueueCopyFromHost(resolved.currentStream(), hostBuffer, destination);
 *   resolved.gc(hostBuffer); // and a staging allocation: resolved.gc(stagingHandle)
 * } // finish(): the GC releases the pins and payloads once the copy completed
 * ```
 */
export class ResolvedStreams<S, E = unknown> implements Disposable {
  /** The current stream's cursor: stamp new allocations of this task with it. */
  readonly cursor: number;
  /** The current stream id. */
  readonly current: StreamId;
  readonly #owner: ResolveOwner<S>;
  readonly #index: number;
  #payloads: GcPayload[] | undefined;

  /** @internal Built by `MultiStream.resolve`. */
  constructor(
    owner: ResolveOwner<S>,
    internals: { current: StreamId; index: number; cursor: number; pins: SlicePin[] },
  ) {
    this.#owner = owner;
    this.current = internals.current;
    this.#index = internals.index;
    this.cursor = internals.cursor;
    this.#payloads = internals.pins;
  }

  /** The backend stream of a stream id. */
  get(id: StreamId): S {
    return this.#owner.stream(id);
  }

  /** The backend stream of the current stream id. */
  currentStream(): S {
    return this.#owner.stream(this.current);
  }

  /** True after {@linkcode finish}. */
  get finished(): boolean {
    return this.#payloads === undefined;
  }

  /**
   * Hands payloads to the GC with this resolve's pins: each is released (disposed, or dropped
   * if it is a buffer) once the work enqueued on the current stream before {@linkcode finish}
   * completed. If that wait fails they are kept for good. Throws `TypeError` after `finish`.
   *
   * @example Keep a host buffer and a staging allocation until the copy that reads them is done
   * ```ts
   * import { MultiStream } from "@gpucompute/runtime/backend";
   * const multiStream = new MultiStream({
   *   createStream: () => ({}),
   *   handleCursor: (_stream, binding) => binding.cursor,
   *   isHealthy: () => true,
   *   flush: () => null,
   *   waitEvent: () => {},
   *   waitEventHost: () => Promise.resolve(),
   *   waitEventHostSync: () => {},
   * }, { maxStreams: 2 });
   * const host = new Uint8Array(64); // an asynchronous copy reads it
   * const staging = { [Symbol.dispose]: () => console.log("staging released") };
   * {
   *   using resolved = multiStream.resolve(0, []);
   *   // enqueue the copy from `host` on resolved.currentStream() here
   *   resolved.gc(host, staging);
   * }
   * await multiStream.drain(); // "staging released", once the copy's event completed
   * ```
   */
  gc(...payloads: GcPayload[]): void {
    if (this.#payloads === undefined) {
      throw new TypeError("ResolvedStreams.gc() called after finish()");
    }
    this.#payloads.push(...payloads);
  }

  /**
   * Ends the resolve (another may start) and hands the pins and payloads to the GC: flush the
   * current stream, the GC stream waits on it, flush the GC stream. Idempotent. If the backend's
   * flush throws, the error propagates and the payloads stay held for the next GC task of this
   * stream or `MultiStream.drain`.
   */
  finish(): void {
    const payloads = this.#payloads;
    if (payloads === undefined) return;
    this.#payloads = undefined;
    this.#owner.finish(this.#index, payloads);
  }

  /** Same as {@linkcode finish}, for `using`. */
  [Symbol.dispose](): void {
    this.finish();
  }
}
