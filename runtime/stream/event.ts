/**
 * Event-based multi-stream: the cross-stream synchronization of backends with device streams and
 * events (CUDA). Ported from CubeCL's `stream/event.rs`.
 *
 * Every stream has a `cursor` (incremented by each {@linkcode MultiStream.resolve}) and
 * `lastSynced`: for each other stream index, the cursor it had when this stream last waited on it.
 * `resolve(stream, bindings)` finds the bindings that other streams touched after that point,
 * flushes each such origin stream once into an event, makes the current stream wait on it (on the
 * device) and records the origin's cursor. The GC stream (special stream 0 of the pool) and the
 * GC loop keep cross-stream memory pinned until the consumer's work completed.
 *
 * Rules, each a hazard in CubeCL's version or in a direct port of it:
 *
 * - **Every stream that used a binding counts, not only its creator.** A kernel may write any of
 *   its bindings: a handle created on S, written by a kernel on T, then read on S would be read
 *   stale; and T reading a handle that S later overwrites is a write-after-read hazard. So each
 *   resolve records, per `SliceRecord`, the cursor at which the stream index used it, and
 *   {@linkcode MultiStream.requiredSyncs} also counts every recorded use by another stream index
 *   newer than `lastSynced`.
 * - **Every cross-stream binding is pinned, not only the ones that needed a wait.** A handle from
 *   S's pool used on T and then disposed would otherwise return to S's pool and be reused by S
 *   while T's work is in flight. {@linkcode ResolvedStreams.finish} hands the pins (and any
 *   payload given to {@linkcode ResolvedStreams.gc}) to the GC: flush the current stream, the GC
 *   stream waits on that event, flush the GC stream; the GC releases them once that event
 *   completed. Same-stream bindings need no pin, provided memory freed on a stream is reused only
 *   in that stream's order (one pool per stream index).
 * - **Resolve, enqueue and finish do not interleave.** Rust's `&mut self` made them one critical
 *   section; here a resolve while another {@linkcode ResolvedStreams} is unfinished throws
 *   `ORDER_IN_PROGRESS` (see {@linkcode MultiStream.resolve} for why recording at `finish`
 *   instead would not be enough).
 * - **The GC polls where it can.** With the backend's optional
 *   {@linkcode EventStreamBackend.isEventComplete}, one timer tick polls one FIFO of GC tasks per
 *   stream index up to its first event that is not ready; otherwise one host wait per task.
 * - **Pending GC work is bounded.** Past `maxPendingGc` pending tasks, `finish` blocks on the
 *   oldest with the backend's {@linkcode EventStreamBackend.waitEventHostSync}, as CubeCL's GC
 *   channel of 8 blocked its producer.
 * - **A failed or timed-out GC wait frees nothing.** The task's payloads stay pinned for good,
 *   the stream is poisoned (every later resolve on it, or needing a wait on it, throws
 *   `STREAM_UNHEALTHY` with the failure as `cause`), `onStreamFailed` is called at once, and
 *   {@linkcode MultiStream.drain} rejects with it.
 * - **Error paths release what they took.** A refused resolve changes no state; a `finish` whose
 *   flush throws keeps its payloads for the next GC task of the same stream (whose event covers
 *   the earlier work in stream order) or for {@linkcode MultiStream.drain}.
 *
 * Streams are compared by pool index (ids 1 and 5 share a stream when `maxStreams` is 4), and pins
 * are taken in `resolve`, so a handle disposed between resolve and finish stays protected.
 *
 * @module
 */

import type { SlicePin, SliceRecord } from "../core/slice_record.ts";
import { type ComputeError, OrderInProgressError, StreamUnhealthyError } from "../core/errors.ts";
import type { HandleRef } from "../core/handle.ts";
import { type Logger, runtimeLogger } from "../core/logging.ts";
import { assertPositiveInteger } from "../core/_validate.ts";
import { GcLoop, type GcPayload, type GcTask } from "./_gc_loop.ts";
import { assertStreamId, type StreamId } from "../core/stream_id.ts";
import { StreamPool } from "./stream_pool.ts";
import { ResolvedStreams, type ResolveOwner } from "./resolved_streams.ts";

export { ResolvedStreams };

export type { GcPayload } from "./_gc_loop.ts";

/**
 * What a backend with device streams and events provides to {@linkcode MultiStream}.
 *
 * @example A backend whose events are complete at once
 * ```ts
 * import type { EventStreamBackend, HandleRef } from "@gpucompute/runtime/backend";
 * const backend: EventStreamBackend<object, null> = {
 *   createStream: () => ({}),
 *   handleCursor: (_stream: object, binding: HandleRef) => binding.cursor,
 *   isHealthy: () => true,
 *   flush: () => null,
 *   waitEvent: () => {},
 *   waitEventHost: () => Promise.resolve(),
 *   waitEventHostSync: () => {},
 * };
 * ```
 */
export interface EventStreamBackend<S, E> {
  /** Creates a device stream. */
  createStream(): S;
  /** The cursor of `binding` as seen from its origin stream (usually `binding.cursor`). */
  handleCursor(stream: S, binding: HandleRef): number;
  /** Whether the stream accepts new work. */
  isHealthy(stream: S): boolean;
  /** Submits the stream's pending work and returns an event completed when that work is done. */
  flush(stream: S): E;
  /** Makes the stream wait (on the device) for the event before running later work. */
  waitEvent(stream: S, event: E): void;
  /**
   * Waits on the host for the event; rejects with a typed `ComputeError` when it failed (and
   * with `TIMEOUT` when it did not complete in a bounded time).
   */
  waitEventHost(event: E): Promise<void>;
  /**
   * Blocks the host until the event completed (CUDA: `cuEventSynchronize`, or `cuEventQuery`
   * polled up to a deadline); throws a typed `ComputeError` when it failed or timed out. Used for
   * back-pressure once `maxPendingGc` GC tasks are pending. Optional for compatibility, but
   * without it a long synchronous loop of cross-stream work keeps every pinned allocation alive
   * until the event loop turns (a warning is logged the first time). The GC may call it on an
   * event whose `waitEventHost` is still pending (it blocks on the oldest task): both calls must
   * settle, and an event pool must take the event back once.
   */
  waitEventHostSync?(event: E): void;
  /**
   * Optional non-blocking query (CUDA: `cuEventQuery`): true once the event completed (the GC
   * then never uses it again, so a pool may take it back), false while it is not ready; throws a
   * typed `ComputeError` when it failed, and `TIMEOUT` once `waitedMs` (time since the GC task
   * was registered) is past the backend's bound for host waits. When present, the GC settles
   * tasks by polling one FIFO per stream index on a timer, up to each FIFO's first event that is
   * not ready, instead of one `waitEventHost` per task; back-pressure still uses
   * `waitEventHostSync` (on an event never reported complete).
   */
  isEventComplete?(event: E, waitedMs: number): boolean;
}

/** Options of {@linkcode MultiStream}. */
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
   * Called at once when a GC wait on a stream's work fails, after the stream (pool index) was
   * poisoned: route the error to that stream's next `sync` or `read`.
   * @default {undefined}
   */
  onStreamFailed?: (index: number, error: ComputeError) => void;
}

/** Options of {@linkcode MultiStream.resolve}. */
export interface MultiStreamResolveOptions {
  /**
   * Refuse with `STREAM_UNHEALTHY` when the backend reports the current stream unhealthy. A
   * poisoned stream (a failed GC wait) is refused whatever this says.
   * @default {false}
   */
  enforceHealthy?: boolean;
}

/**
 * Which stream indices a stream must wait on before using some bindings, each with the memory
 * that makes the wait necessary (ids without duplicates).
 */
export type RequiredSyncs = ReadonlyMap<number, readonly SliceRecord[]>;

/** @internal A backend stream with its synchronization state. */
export interface EventStreamState<S> {
  readonly stream: S;
  cursor: number;
  readonly lastSynced: Map<number, number>;
}

/**
 * Orders work across the streams of an event backend. See the module documentation.
 *
 * @example
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
 * }, { maxStreams: 4 });
 * {
 *   using resolved = multiStream.resolve(1, []);
 *   console.log(resolved.cursor); // 1
 * }
 * await multiStream.drain();
 * ```
 */
export class MultiStream<S, E> {
  readonly #backend: EventStreamBackend<S, E>;
  readonly #pool: StreamPool<EventStreamState<S>>;
  readonly #logger: Logger;
  readonly #gc: GcLoop<E>;
  readonly #onStreamFailed: MultiStreamOptions["onStreamFailed"];
  readonly #owner: ResolveOwner<S>;
  /** Per memory, the latest cursor at which each stream index used it. */
  readonly #uses = new WeakMap<SliceRecord, Map<number, number>>();
  /** Stream indices poisoned by a failed GC wait, with the failure. */
  readonly #poisoned = new Map<number, ComputeError>();
  /** Payloads of a `finish` whose flush threw, per stream index. */
  readonly #held = new Map<number, GcPayload[]>();
  #open: ResolvedStreams<S, E> | undefined;
  /** Number of regular streams. */
  readonly maxStreams: number;
  /** GC tasks allowed to be pending before `finish` blocks on the oldest. */
  readonly maxPendingGc: number;

  /** Creates the multi-stream; streams are created lazily on first use. */
  constructor(backend: EventStreamBackend<S, E>, options: MultiStreamOptions) {
    this.#backend = backend;
    this.#pool = new StreamPool(
      () => ({ stream: backend.createStream(), cursor: 0, lastSynced: new Map() }),
      { maxStreams: options.maxStreams, numSpecial: 1 },
    );
    this.maxStreams = options.maxStreams;
    this.maxPendingGc = options.maxPendingGc ?? 8;
    assertPositiveInteger(this.maxPendingGc, "maxPendingGc");
    this.#logger = options.logger ?? runtimeLogger("stream");
    this.#onStreamFailed = options.onStreamFailed;
    const waitSync = backend.waitEventHostSync;
    const poll = backend.isEventComplete;
    this.#gc = new GcLoop<E>({
      wait: (event) => backend.waitEventHost(event),
      waitSync: waitSync === undefined ? undefined : (event) => waitSync.call(backend, event),
      poll: poll === undefined
        ? undefined
        : (event, waitedMs) => poll.call(backend, event, waitedMs),
      maxPending: this.maxPendingGc,
      onFailure: (task, error) => this.#poison(task, error),
      onUnbounded: () =>
        this.#logger.warn(
          "More than {maxPendingGc} GC tasks are pending and the backend has no " +
            "waitEventHostSync: pinned memory is released only when the event loop turns",
          { maxPendingGc: this.maxPendingGc },
        ),
    });
    this.#owner = {
      stream: (id) => this.#pool.get(id).stream,
      finish: (index, payloads) => this.#finish(index, payloads),
    };
  }

  /** GC tasks registered and not yet settled (at most {@linkcode maxPendingGc} after a resolve). */
  get pendingGc(): number {
    return this.#gc.pending;
  }

  /** GC payloads kept for good because the wait that would have released them failed. */
  get keptAfterFailure(): number {
    return this.#gc.kept;
  }

  /**
   * The backend stream of `id` (created on first use; ids equal modulo `maxStreams` share it):
   * where a backend enqueues work outside a resolve, e.g. profiling events.
   *
   * @example
   * ```ts
   * import { MultiStream } from "@gpucompute/runtime/backend";
   * let created = 0;
   * const multiStream = new MultiStream({
   *   createStream: () => ({ n: created++ }),
   *   handleCursor: (_stream, binding) => binding.cursor,
   *   isHealthy: () => true,
   *   flush: () => null,
   *   waitEvent: () => {},
   *   waitEventHost: () => Promise.resolve(),
   * }, { maxStreams: 2 });
   * console.log(multiStream.stream(3) === multiStream.stream(1)); // true
   * ```
   */
  stream(id: StreamId): S {
    return this.#pool.get(id).stream;
  }

  /**
   * The cursor of `id`'s stream: how many resolves it had. Stamp an allocation made outside a
   * resolve with it (a later resolve on another stream then waits for this stream's work up to
   * here before using the allocation).
   *
   * @example
   * ```ts
   * import { MultiStream } from "@gpucompute/runtime/backend";
   * const multiStream = new MultiStream({
   *   createStream: () => ({}),
   *   handleCursor: (_stream, binding) => binding.cursor,
   *   isHealthy: () => true,
   *   flush: () => null,
   *   waitEvent: () => {},
   *   waitEventHost: () => Promise.resolve(),
   * }, { maxStreams: 2 });
   * multiStream.resolve(1, []).finish();
   * console.log(multiStream.cursor(1)); // 1
   * ```
   */
  cursor(id: StreamId): number {
    return this.#pool.get(id).cursor;
  }

  /** @internal The synchronization state of a stream (tests inspect it). */
  state(id: StreamId): Readonly<EventStreamState<S>> {
    return this.#pool.get(id);
  }

  /** The failed wait that poisoned the stream of `id`, if any. */
  streamError(id: StreamId): ComputeError | undefined {
    return this.#poisoned.get(this.#pool.streamIndex(id));
  }

  /**
   * Synchronizes `stream` with every other stream that touched `bindings` since it last waited
   * on it, advances its cursor and pins the cross-stream bindings until {@linkcode
   * ResolvedStreams.finish} hands them to the GC.
   *
   * Only one resolve may be unfinished at a time: enqueue the work and finish before the next
   * resolve, or this throws `ORDER_IN_PROGRESS`. Recording uses at `finish` instead would not
   * suffice: two open resolves touching the same memory would each miss the other's work (not
   * enqueued yet when the other flushed), a race in both directions.
   *
   * Throws `TypeError`/`RangeError` for a bad stream id, `INVALID_HANDLE` for a binding whose
   * handles were all disposed, `ORDER_IN_PROGRESS`, and `STREAM_UNHEALTHY` for a poisoned
   * stream, a wait needed on a poisoned stream, or (with `enforceHealthy`) an unhealthy backend
   * stream, all before any state changes.
   */
  resolve(
    stream: StreamId,
    bindings: Iterable<HandleRef>,
    options: MultiStreamResolveOptions = {},
  ): ResolvedStreams<S, E> {
    assertStreamId(stream);
    const list = [...bindings];
    for (const binding of list) {
      assertStreamId(binding.stream);
      binding.assertLive();
    }
    if (this.#open !== undefined) throw new OrderInProgressError(stream, this.#open.current);
    const index = this.#pool.streamIndex(stream);
    const failure = this.#poisoned.get(index);
    if (failure !== undefined) {
      throw new StreamUnhealthyError(stream, {
        cause: failure,
        message: `Stream ${stream} is poisoned: a wait on its work failed (${failure.message})`,
      });
    }
    const state = this.#pool.getIndex(index);
    if (options.enforceHealthy && !this.#backend.isHealthy(state.stream)) {
      throw new StreamUnhealthyError(stream);
    }
    const syncs = this.requiredSyncs(stream, list);
    for (const origin of syncs.keys()) {
      const cause = this.#poisoned.get(origin);
      if (cause === undefined) continue;
      throw new StreamUnhealthyError(origin, {
        cause,
        message: `Stream ${stream} must wait on stream index ${origin}, which is poisoned: ` +
          `a wait on its work failed (${cause.message})`,
      });
    }
    this.#waitOn(stream, syncs);
    const cursor = ++state.cursor;
    const pins: SlicePin[] = [];
    for (const binding of list) {
      const id = binding.slice.record;
      let uses = this.#uses.get(id);
      if (uses === undefined) this.#uses.set(id, uses = new Map());
      uses.set(index, cursor);
      if (this.#pool.streamIndex(binding.stream) !== index) pins.push(id.pin());
    }
    const resolved = new ResolvedStreams<S, E>(this.#owner, {
      current: stream,
      index,
      cursor,
      pins,
    });
    this.#open = resolved;
    return resolved;
  }

  /**
   * Which stream indices `stream` must wait on before using `bindings`, with the memory that
   * makes each wait necessary: the stream that created a binding and every stream that used it,
   * when that happened after `stream` last waited on it. Changes no state. (CubeCL:
   * `update_shared_bindings`.)
   */
  requiredSyncs(stream: StreamId, bindings: Iterable<HandleRef>): RequiredSyncs {
    const index = this.#pool.streamIndex(stream);
    const current = this.#pool.getIndex(index);
    const syncs = new Map<number, SliceRecord[]>();
    const check = (id: SliceRecord, origin: number, cursor: number, why: string) => {
      const synced = current.lastSynced.get(origin);
      if (synced !== undefined && synced >= cursor) return;
      this.#logger.debug(
        "HandleRef {why} on stream {origin} is shared on stream {stream}: synced up to {synced}, " +
          "needs {cursor}",
        () => ({ why, origin, stream, synced, cursor, memory: id.value }),
      );
      const ids = syncs.get(origin);
      if (ids === undefined) syncs.set(origin, [id]);
      else if (!ids.includes(id)) ids.push(id);
    };
    for (const binding of bindings) {
      const id = binding.slice.record;
      const origin = this.#pool.streamIndex(binding.stream);
      if (origin !== index) {
        const cursor = this.#backend.handleCursor(this.#pool.getIndex(origin).stream, binding);
        check(id, origin, cursor, "created");
      }
      for (const [user, cursor] of this.#uses.get(id) ?? []) {
        if (user !== index) check(id, user, cursor, "used");
      }
    }
    return syncs;
  }

  /**
   * Hands payloads to the GC outside a resolve: they are released once `event` (an event of the
   * stream `stream`, from the backend's `flush`) completed. If that wait fails, the payloads are
   * kept for good and `stream` is poisoned.
   */
  gc(stream: StreamId, event: E, payloads: readonly GcPayload[]): void {
    this.#gc.register({ event, stream: this.#pool.streamIndex(stream), payloads: [...payloads] });
  }

  /**
   * Settles now, without waiting, the GC tasks whose events the backend reports complete, each
   * stream's up to its first event not ready; a no-op for backends without
   * {@linkcode EventStreamBackend.isEventComplete}. A backend being destroyed calls it once its
   * queries fail, so that no GC poll outlives it.
   *
   * @example
   * ```ts
   * import { MultiStream } from "@gpucompute/runtime/backend";
   * const multiStream = new MultiStream({
   *   createStream: () => ({}),
   *   handleCursor: (_stream, binding) => binding.cursor,
   *   isHealthy: () => true,
   *   flush: () => null,
   *   waitEvent: () => {},
   *   waitEventHost: () => Promise.resolve(),
   *   isEventComplete: () => true,
   * }, { maxStreams: 2 });
   * multiStream.gc(1, null, [{ [Symbol.dispose]: () => console.log("released") }]);
   * multiStream.pollGc(); // "released"
   * console.log(multiStream.pendingGc); // 0
   * ```
   */
  pollGc(): void {
    this.#gc.poll();
  }

  /**
   * Resolves once the GC settled every task registered so far (first handing over the payloads
   * of a `finish` whose flush threw, with a new flush); rejects with the failures since the last
   * drain, each reported once.
   */
  async drain(): Promise<void> {
    const errors: unknown[] = [];
    for (const index of [...this.#held.keys()]) {
      try {
        this.#handOver(index, []);
      } catch (error) {
        errors.push(error);
      }
    }
    try {
      await this.#gc.drain();
    } catch (error) {
      errors.push(...(error instanceof AggregateError ? error.errors : [error]));
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, `${errors.length} GC errors`);
  }

  #finish(index: number, payloads: GcPayload[]): void {
    this.#open = undefined;
    if (payloads.length > 0) this.#handOver(index, payloads);
  }

  /** Flushes the stream and the GC stream, then registers the payloads (and held ones). */
  #handOver(index: number, payloads: GcPayload[]): void {
    const held = this.#held.get(index);
    const all = held === undefined ? payloads : [...held, ...payloads];
    let event: E;
    try {
      const origin = this.#backend.flush(this.#pool.getIndex(index).stream);
      const gcStream = this.#pool.getSpecial(0).stream;
      this.#backend.waitEvent(gcStream, origin);
      event = this.#backend.flush(gcStream);
    } catch (error) {
      this.#held.set(index, all);
      throw error;
    }
    this.#held.delete(index);
    this.#gc.register({ event, stream: index, payloads: all });
  }

  #poison(task: GcTask<E>, error: ComputeError): void {
    if (!this.#poisoned.has(task.stream)) this.#poisoned.set(task.stream, error);
    this.#logger.warn(
      "A GC wait on stream index {stream} failed; the stream is poisoned and {payloads} " +
        "payload(s) stay pinned: {error}",
      { stream: task.stream, payloads: task.payloads.length, error },
    );
    this.#onStreamFailed?.(task.stream, error);
  }

  /** Flushes each origin once into an event and makes `stream` wait on it. */
  #waitOn(stream: StreamId, syncs: RequiredSyncs): void {
    if (syncs.size === 0) return;
    const events: [number, number, E][] = [];
    for (const origin of syncs.keys()) {
      const state = this.#pool.getIndex(origin);
      events.push([origin, state.cursor, this.#backend.flush(state.stream)]);
    }
    const current = this.#pool.get(stream);
    for (const [origin, cursor, event] of events) {
      this.#logger.info("Waiting on stream {origin} from stream {stream}", { origin, stream });
      this.#backend.waitEvent(current.stream, event);
      // Recorded only once the wait is enqueued: a throwing waitEvent leaves no false record.
      current.lastSynced.set(origin, cursor);
    }
  }
}
