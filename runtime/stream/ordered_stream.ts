/**
 * {@linkcode OrderedStream}: what `MultiStream.order` hands back, the stream ready for work that
 * uses the ordered refs, and the pins and payloads the GC releases after that work.
 *
 * @module
 */

import type { SlicePin } from "../core/handles/slice_record.ts";
import type { StreamId } from "../core/stream_id.ts";
import type { GcPayload } from "./_gc_loop.ts";

/** What an {@linkcode OrderedStream} needs from its multi-stream. */
export interface OrderOwner<S> {
  stream(id: StreamId): S;
  finish(index: number, payloads: GcPayload[]): void;
}

/**
 * A stream after `MultiStream.order`: it waits for the other streams' work on the refs, so work
 * enqueued on {@linkcode stream} may use them. Call {@linkcode finish} (or `using`) once that
 * work is enqueued; no other `order` is accepted until then.
 *
 * @example Enqueue a copy that reads a host buffer, kept alive until the copy completed
 * ```ts
 * import { Handle, MultiStream, SliceHandle, SliceRecord } from "@gpucompute/runtime/backend";
 * const multiStream = new MultiStream<string[], null>({
 *   createStream: () => [], // a stream here: the list of the work enqueued on it
 *   handleCursor: (_stream, ref) => ref.cursor,
 *   isHealthy: () => true,
 *   flush: () => null,
 *   waitEvent: (stream) => stream.push("wait for stream 0"),
 *   waitEventHost: () => Promise.resolve(),
 *   waitEventHostSync: () => {},
 * }, { maxStreams: 2 });
 * const slice = new SliceHandle(new SliceRecord());
 * using destination = new Handle(slice, { stream: 0, cursor: 0, size: 64 }); // made on stream 0
 * const hostBuffer = new Uint8Array(64);
 * {
 *   using ordered = multiStream.order(1, [destination.ref()]);
 *   ordered.stream.push("copy hostBuffer to destination"); // enqueue the copy
 *   ordered.gc(hostBuffer); // and a staging allocation: ordered.gc(stagingHandle)
 *   console.log(ordered.stream); // ["wait for stream 0", "copy hostBuffer to destination"]
 * } // finish(): the GC releases the pins and payloads once the copy completed
 * await multiStream.drain();
 * ```
 */
export class OrderedStream<S, E = unknown> implements Disposable {
  /** The stream's cursor: stamp new allocations of this task with it. */
  readonly cursor: number;
  /** The stream id. */
  readonly id: StreamId;
  readonly #owner: OrderOwner<S>;
  readonly #index: number;
  #payloads: GcPayload[] | undefined;

  /** @internal Built by `MultiStream.order`. */
  constructor(
    owner: OrderOwner<S>,
    internals: { id: StreamId; index: number; cursor: number; pins: SlicePin[] },
  ) {
    this.#owner = owner;
    this.id = internals.id;
    this.#index = internals.index;
    this.cursor = internals.cursor;
    this.#payloads = internals.pins;
  }

  /** The backend stream, ordered after the other streams' work on the refs. */
  get stream(): S {
    return this.#owner.stream(this.id);
  }

  /** The backend stream of another stream id. */
  streamOf(id: StreamId): S {
    return this.#owner.stream(id);
  }

  /** True after {@linkcode finish}. */
  get finished(): boolean {
    return this.#payloads === undefined;
  }

  /**
   * Hands payloads to the GC with this order's pins: each is released (disposed, or dropped if
   * it is a buffer) once the work enqueued on the stream before {@linkcode finish} completed. If
   * that wait fails they are kept for good. Throws `TypeError` after `finish`.
   *
   * @example Keep a host buffer and a staging allocation until the copy that reads them is done
   * ```ts
   * import { MultiStream } from "@gpucompute/runtime/backend";
   * const multiStream = new MultiStream({
   *   createStream: () => ({}),
   *   handleCursor: (_stream, ref) => ref.cursor,
   *   isHealthy: () => true,
   *   flush: () => null,
   *   waitEvent: () => {},
   *   waitEventHost: () => Promise.resolve(),
   *   waitEventHostSync: () => {},
   * }, { maxStreams: 2 });
   * const host = new Uint8Array(64); // an asynchronous copy reads it
   * const staging = { [Symbol.dispose]: () => console.log("staging released") };
   * {
   *   using ordered = multiStream.order(0, []);
   *   // enqueue the copy from `host` on ordered.stream here
   *   ordered.gc(host, staging);
   * }
   * await multiStream.drain(); // "staging released", once the copy's event completed
   * ```
   */
  gc(...payloads: GcPayload[]): void {
    if (this.#payloads === undefined) {
      throw new TypeError("OrderedStream.gc() called after finish()");
    }
    this.#payloads.push(...payloads);
  }

  /**
   * Ends the order (another may start) and hands the pins and payloads to the GC: flush the
   * stream, the GC stream waits on it, flush the GC stream. Idempotent. If the backend's flush
   * throws, the error propagates and the payloads stay held for the next GC task of this stream
   * or `MultiStream.drain`.
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
