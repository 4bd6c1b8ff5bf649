/**
 * The event multi-stream: cross-stream ordering for backends with device streams and events
 * (CUDA, the simulated test device), ported from CubeCL's `stream/event.rs`. Each stream has a
 * cursor and, per other stream, the cursor up to which it last waited on it;
 * {@linkcode MultiStream.order} makes a stream wait (on the device) for the other streams' work on
 * the memory a task uses and pins memory shared across streams until the GC released it. A
 * failed GC wait leaves its stream unhealthy and is recorded in {@linkcode MultiStream.errors}.
 * The rules this port adds to CubeCL's, and why, are in docs/architecture.md ("The event
 * multi-stream").
 *
 * @module
 */

import type { SlicePin, SliceRecord } from "../core/handles/slice_record.ts";
import { addWait, NO_READS, SliceUses } from "./_slice_uses.ts";
import { type ComputeError, OrderInProgressError, StreamUnhealthyError } from "../core/errors.ts";
import type { HandleRef } from "../core/handles/handle_ref.ts";
import { type Logger, runtimeLogger } from "../core/logging.ts";
import { assertPositiveInteger } from "../core/_argument_checks.ts";
import { GcLoop, type GcPayload, type GcTask } from "./_gc_loop.ts";
import { HandOver } from "./_hand_over.ts";
import { unhealthy } from "./_unhealthy.ts";
import { assertStreamId, type StreamId } from "../core/stream_id.ts";
import { StreamPool } from "./stream_pool.ts";
import { OrderedStream, type OrderOwner } from "./ordered_stream.ts";
import type { EventStreamBackend } from "./event_backend.ts";
import { StreamErrors } from "./stream_errors.ts";
import { errorList, joinErrors } from "../core/_join_errors.ts";
import type { WaitRecorder } from "./wait_recorder.ts";
import type { MultiStreamOptions, OrderOptions, RequiredWaits } from "./event_options.ts";

export { OrderedStream, unhealthy };
export type { EventStreamBackend };
export type { GcPayload } from "./_gc_loop.ts";
export type { MultiStreamOptions, OrderOptions, RequiredWaits };

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
 *   handleCursor: (_stream, ref) => ref.cursor,
 *   isHealthy: () => true,
 *   flush: () => null,
 *   waitEvent: () => {},
 *   waitEventHost: () => Promise.resolve(),
 *   waitEventHostSync: () => {},
 * }, { maxStreams: 4 });
 * {
 *   using ordered = multiStream.order(1, []);
 *   console.log(ordered.cursor); // 1
 * }
 * await multiStream.drain();
 * ```
 */
export class MultiStream<S, E> {
  readonly #backend: EventStreamBackend<S, E>;
  readonly #pool: StreamPool<EventStreamState<S>>;
  readonly #logger: Logger;
  readonly #gc: GcLoop<E>;
  readonly #owner: OrderOwner<S>;
  /** Per memory, the latest cursor at which each stream index used it, and wrote it. */
  readonly #uses = new SliceUses();
  /** Stream indices left unhealthy by a failed GC wait, with the failure. */
  readonly #unhealthy = new Map<number, ComputeError>();
  /** Hands finished orders' pins and payloads to the GC (`_hand_over.ts`). */
  readonly #handOver: HandOver<E>;
  #open: OrderedStream<S, E> | undefined;
  /** Number of regular streams. */
  readonly maxStreams: number;
  /** GC tasks allowed to be pending before `finish` blocks on the oldest. */
  readonly maxPendingGc: number;
  /**
   * Failed GC waits, each recorded on the stream whose work it waited for (its next `sync` or
   * `read` throws it, see {@linkcode StreamErrors}).
   */
  readonly errors: StreamErrors;
  /** Receives every wait {@linkcode order} enqueues, while set (a trace records them). */
  waits: WaitRecorder | undefined;

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
    this.errors = new StreamErrors({ maxStreams: options.maxStreams });
    const waitSync = backend.waitEventHostSync;
    const poll = backend.isEventComplete;
    this.#gc = new GcLoop<E>({
      wait: (event) => backend.waitEventHost(event),
      waitSync: waitSync === undefined ? undefined : (event) => waitSync.call(backend, event),
      poll: poll && ((event, waitedMs) => poll.call(backend, event, waitedMs)),
      park: backend.hostWaitsSleep ? (event) => backend.waitEventHost(event) : undefined,
      maxPending: this.maxPendingGc,
      onFailure: (task, error) => this.#markUnhealthy(task, error),
      onUnbounded: () =>
        this.#logger.warn(
          "More than {maxPendingGc} GC tasks are pending and the backend has no " +
            "waitEventHostSync: pinned memory is released only when the event loop turns",
          { maxPendingGc: this.maxPendingGc },
        ),
    });
    this.#handOver = new HandOver<E>({
      flushToGc: (index) => {
        const done = backend.flush(this.#pool.getIndex(index).stream);
        const gcStream = this.#pool.getSpecial(0).stream;
        backend.waitEvent(gcStream, done);
        return backend.flush(gcStream);
      },
      register: (stream, event, payloads) => this.#gc.register({ event, stream, payloads }),
      openIndex: () => this.#open === undefined ? -1 : this.#pool.streamIndex(this.#open.id),
      bind: () => options.bind?.(),
      logger: this.#logger,
    }, options.batchGc ?? false);
    this.#owner = {
      stream: (id) => this.#pool.get(id).stream,
      finish: (index, payloads) => this.#finish(index, payloads),
    };
  }

  /** GC tasks registered and not yet settled (at most {@linkcode maxPendingGc} after an order). */
  get pendingGc(): number {
    return this.#gc.pending;
  }

  /** GC payloads kept for good because the wait that would have released them failed. */
  get keptAfterFailure(): number {
    return this.#gc.kept;
  }

  /**
   * The backend stream of `id` (created on first use; ids equal modulo `maxStreams` share it):
   * where a backend enqueues work outside an order, e.g. profiling events.
   */
  stream(id: StreamId): S {
    return this.#pool.get(id).stream;
  }

  /**
   * The cursor of `id`'s stream: how many orders it had. Stamp an allocation made outside an
   * order with it (a later order on another stream then waits for this stream's work up to here
   * before using the allocation).
   */
  cursor(id: StreamId): number {
    return this.#pool.get(id).cursor;
  }

  /** @internal The synchronization state of a stream (tests inspect it). */
  state(id: StreamId): Readonly<EventStreamState<S>> {
    return this.#pool.get(id);
  }

  /** The failed wait that left the stream of `id` unhealthy, if any. */
  failure(id: StreamId): ComputeError | undefined {
    return this.#unhealthy.get(this.#pool.streamIndex(id));
  }

  /**
   * Orders `stream` after every other stream that touched `refs` since it last waited on it,
   * advances its cursor and pins the cross-stream refs until {@linkcode OrderedStream.finish}
   * hands them to the GC.
   *
   * Only one order may be unfinished at a time: enqueue the work and finish before the next
   * order, or this throws `ORDER_IN_PROGRESS`. Recording uses at `finish` instead would not
   * suffice: two open orders touching the same memory would each miss the other's work (not
   * enqueued yet when the other flushed), a race in both directions.
   *
   * Throws `TypeError`/`RangeError` for a bad stream id, `INVALID_HANDLE` for a ref whose handles
   * were all disposed, `ORDER_IN_PROGRESS`, and `STREAM_UNHEALTHY` for an unhealthy stream, a
   * wait needed on an unhealthy stream, or (with `enforceHealthy`) a stream the backend reports
   * unhealthy, all before any state changes.
   */
  order(
    stream: StreamId,
    refs: Iterable<HandleRef>,
    options: OrderOptions = {},
  ): OrderedStream<S, E> {
    assertStreamId(stream);
    const list: readonly HandleRef[] = Array.isArray(refs) ? refs : [...refs];
    for (let i = 0; i < list.length; i++) {
      assertStreamId(list[i].stream);
      list[i].assertLive();
    }
    if (this.#open !== undefined) throw new OrderInProgressError(stream, this.#open.id);
    const index = this.#pool.streamIndex(stream);
    const failure = this.#unhealthy.get(index);
    if (failure !== undefined) {
      throw new StreamUnhealthyError(stream, {
        cause: failure,
        message: `Stream ${stream} is unhealthy: a wait on its work failed (${failure.message})`,
      });
    }
    const state = this.#pool.getIndex(index);
    const readOnly = options.readOnly ?? NO_READS;
    const waits = this.#waitsOf(stream, index, list, readOnly);
    if (
      options.enforceHealthy && (waits !== undefined || !options.healthFromWork) &&
      !this.#backend.isHealthy(state.stream)
    ) throw unhealthy(stream, this.#backend.unhealthyCause?.(state.stream));
    for (const other of waits?.keys() ?? []) {
      const cause = this.#unhealthy.get(other);
      if (cause === undefined) continue;
      throw new StreamUnhealthyError(other, {
        cause,
        message: `Stream ${stream} must wait on stream index ${other}, which is unhealthy: ` +
          `a wait on its work failed (${cause.message})`,
      });
    }
    if (waits !== undefined) this.#waitOn(stream, waits);
    const cursor = ++state.cursor;
    const pins: SlicePin[] = [];
    for (let i = 0; i < list.length; i++) {
      const ref = list[i];
      const record = ref.slice.record;
      this.#uses.record(record, index, cursor, readOnly.length > 0 && readOnly.includes(i));
      if (this.#pool.streamIndex(ref.stream) === index) continue;
      this.#handOver.pin(index, record, pins);
    }
    const ordered = new OrderedStream<S, E>(this.#owner, { id: stream, index, cursor, pins });
    this.#open = ordered;
    return ordered;
  }

  /**
   * Which stream indices `stream` must wait on before using `refs`, with the memory that makes
   * each wait necessary: the stream that created a ref and every stream that used it, when that
   * happened after `stream` last waited on it; for the refs at `readOnly` (indices), only the
   * other streams' writes. Changes no state. (CubeCL: `update_shared_bindings`.)
   */
  requiredWaits(
    stream: StreamId,
    refs: Iterable<HandleRef>,
    readOnly: readonly number[] = NO_READS,
  ): RequiredWaits {
    const list = Array.isArray(refs) ? refs : [...refs];
    return this.#waitsOf(stream, this.#pool.streamIndex(stream), list, readOnly) ?? new Map();
  }

  /** {@linkcode requiredWaits} of the stream at `index`: `undefined` for none (no allocation). */
  #waitsOf(
    stream: StreamId,
    index: number,
    refs: readonly HandleRef[],
    readOnly: readonly number[],
  ): Map<number, SliceRecord[]> | undefined {
    const synced = this.#pool.getIndex(index).lastSynced;
    let waits: Map<number, SliceRecord[]> | undefined;
    for (let i = 0; i < refs.length; i++) {
      const ref = refs[i];
      const record = ref.slice.record;
      const read = readOnly.length > 0 && readOnly.includes(i);
      const creator = this.#pool.streamIndex(ref.stream);
      if (creator !== index) {
        const cursor = this.#backend.handleCursor(this.#pool.getIndex(creator).stream, ref);
        if (!(synced.get(creator)! >= cursor)) {
          waits = this.#need(waits, stream, synced, record, creator, cursor, "created");
        }
      }
      const uses = this.#uses.of(record, read);
      if (uses === undefined || (uses.size === 1 && uses.has(index))) continue;
      for (const user of uses.keys()) {
        const cursor = uses.get(user)!;
        if (user !== index && !(synced.get(user)! >= cursor)) {
          waits = this.#need(waits, stream, synced, record, user, cursor, "used");
        }
      }
    }
    return waits;
  }

  /** Adds a wait on stream `other` for `record` (made necessary by its use `why`). */
  #need(
    waits: Map<number, SliceRecord[]> | undefined,
    stream: StreamId,
    synced: ReadonlyMap<number, number>,
    record: SliceRecord,
    other: number,
    cursor: number,
    why: string,
  ): Map<number, SliceRecord[]> {
    this.#logger.debug(
      "Memory {why} on stream {other} is shared on stream {stream}: synced up to {synced}, " +
        "needs {cursor}",
      () => ({ why, other, stream, synced: synced.get(other), cursor, memory: record.value }),
    );
    return addWait(waits, other, record);
  }

  /**
   * Hands payloads to the GC outside an order: they are released once `event` (an event of the
   * stream `stream`, from the backend's `flush`) completed. If that wait fails, the payloads are
   * kept for good and `stream` is left unhealthy.
   */
  gc(stream: StreamId, event: E, payloads: readonly GcPayload[]): void {
    this.#gc.register({ event, stream: this.#pool.streamIndex(stream), payloads: [...payloads] });
  }

  /**
   * Settles now, without waiting, the GC tasks whose events the backend reports complete, each
   * stream's up to its first event not ready; a no-op for backends without
   * {@linkcode EventStreamBackend.isEventComplete}. A backend being destroyed calls it once its
   * queries fail, so that no GC poll outlives it. With `blockMs` (out of memory), it first hands
   * over the open batches of cross-stream pins (but the open order's), then blocks on the pending
   * tasks' events (`waitEventHostSync`) for up to about that long: what they pinned is reusable.
   *
   * @example
   * ```ts
   * import { MultiStream } from "@gpucompute/runtime/backend";
   * const multiStream = new MultiStream({
   *   createStream: () => ({}),
   *   handleCursor: (_stream, ref) => ref.cursor,
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
  pollGc(blockMs = 0): void {
    if (blockMs > 0) this.#handOver.handOverAll(true); // a flush that threw is held for `drain`
    this.#gc.poll(performance.now() + blockMs);
  }

  /**
   * Hands the open batches of cross-stream pins (`batchGc`) to the GC and ends batching: a backend
   * being destroyed calls it before its streams go. Returns the errors of the flushes that threw.
   */
  closeBatches(): unknown[] {
    return this.#handOver.close();
  }

  /**
   * Resolves once the GC settled every task registered so far (first handing over the payloads
   * of a `finish` whose flush threw, with a new flush); rejects with the failures since the last
   * drain, each reported once.
   */
  async drain(): Promise<void> {
    const errors = this.#handOver.handOverAll();
    try {
      await this.#gc.drain();
    } catch (error) {
      errors.push(error);
    }
    const error = joinErrors(errors, `${errors.flatMap(errorList).length} GC errors`);
    if (error !== undefined) throw error;
  }

  #finish(index: number, payloads: GcPayload[]): void {
    this.#open = undefined;
    this.#handOver.finish(index, payloads);
  }

  #markUnhealthy(task: GcTask<E>, error: ComputeError): void {
    if (!this.#unhealthy.has(task.stream)) this.#unhealthy.set(task.stream, error);
    this.#logger.warn(
      "A GC wait on stream index {stream} failed; the stream is unhealthy and {payloads} " +
        "payload(s) stay pinned: {error}",
      { stream: task.stream, payloads: task.payloads.length, error },
    );
    this.errors.record(task.stream, error);
  }

  /** Flushes each other stream once into an event and makes `stream` wait on it. */
  #waitOn(stream: StreamId, waits: RequiredWaits): void {
    if (waits.size === 0) return;
    const events: [number, number, E][] = [];
    for (const other of waits.keys()) {
      const state = this.#pool.getIndex(other);
      events.push([other, state.cursor, this.#backend.flush(state.stream)]);
    }
    const current = this.#pool.get(stream);
    for (const [other, cursor, event] of events) {
      this.#logger.info("Waiting on stream {other} from stream {stream}", { other, stream });
      this.#backend.waitEvent(current.stream, event);
      // Recorded only once the wait is enqueued: a throwing waitEvent leaves no false record.
      current.lastSynced.set(other, cursor);
      this.waits?.waited(stream, other);
    }
  }
}
