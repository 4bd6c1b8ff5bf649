/**
 * Event-based multi-stream: the cross-stream synchronization of backends with device streams and
 * events (CUDA). Port of CubeCL's `stream/event.rs`.
 *
 * Every stream has a `cursor` (incremented by each {@linkcode MultiStream.resolve}) and
 * `lastSynced`: for each other stream index, the cursor it had when this stream last waited on it.
 * `resolve(stream, bindings)` finds the bindings that other streams touched after that point,
 * flushes each such origin stream once into an event, makes the current stream wait on it (on the
 * device) and records the origin's cursor. The GC stream (special stream 0 of the pool) and an
 * async GC loop keep cross-stream memory pinned until the consumer's work completed.
 *
 * Two deliberate corrections of the seed, both real hazards:
 *
 * 1. **Every stream that used a binding counts, not only its creator.** The seed only compares
 *    the creating stream's cursor. But a kernel may write any of its bindings: a handle created on
 *    S, written by a kernel on T, then read on S would be read stale; and T reading a handle that
 *    S later overwrites is a write-after-read hazard. So each resolve records, per
 *    `ManagedMemoryId`, the cursor at which the stream index used it, and the analysis also treats
 *    every recorded use by another stream index newer than `lastSynced` as shared.
 * 2. **Pin every cross-stream binding, not only the ones that needed a sync.** A handle from S's
 *    pool used on T and then disposed would otherwise return to S's pool and be reused by S while
 *    T's work is in flight. Each binding whose stream index differs from the current one is pinned
 *    (`ManagedMemoryId.pin()`), and {@linkcode ResolvedStreams.finish} hands the pins to the GC:
 *    flush the current stream, the GC stream waits on that event, flush the GC stream, the GC loop
 *    awaits that event on the host, then releases the pins. Same-stream bindings need no pin:
 *    memory is per stream, so stream order protects reuse.
 *
 * Smaller deviations: bindings are validated (`assertLive`, stream ids) and health is checked
 * before any state changes, so a refused resolve leaves the multi-stream as it was; streams are
 * compared by pool index (ids 1 and 5 share a stream when `maxStreams` is 4), and pins are taken
 * in `resolve` rather than in `finish`, so a handle disposed between the two stays protected.
 *
 * @module
 */

import type { ManagedMemoryId, MemoryPin } from "../core/managed_memory.ts";
import { StreamUnhealthyError } from "../core/errors.ts";
import type { Binding } from "../core/handle.ts";
import { RuntimeLogger } from "../core/logging.ts";
import { GcLoop } from "./_gc_loop.ts";
import { assertStreamId, type StreamId } from "../core/stream_id.ts";
import { StreamPool } from "./stream_pool.ts";

/**
 * What a backend with device streams and events provides to {@linkcode MultiStream}.
 *
 * @example A backend whose events are complete at once
 * ```ts
 * import type { Binding, EventStreamBackend } from "@gpucompute/runtime/backend";
 * const backend: EventStreamBackend<object, null> = {
 *   createStream: () => ({}),
 *   handleCursor: (_stream: object, binding: Binding) => binding.cursor,
 *   isHealthy: () => true,
 *   flush: () => null,
 *   waitEvent: () => {},
 *   waitEventHost: () => Promise.resolve(),
 * };
 * ```
 */
export interface EventStreamBackend<S, E> {
  /** Creates a device stream. */
  createStream(): S;
  /** The cursor of `binding` as seen from its origin stream (usually `binding.cursor`). */
  handleCursor(stream: S, binding: Binding): number;
  /** Whether the stream accepts new work. */
  isHealthy(stream: S): boolean;
  /** Submits the stream's pending work and returns an event completed when that work is done. */
  flush(stream: S): E;
  /** Makes the stream wait (on the device) for the event before running later work. */
  waitEvent(stream: S, event: E): void;
  /** Waits on the host for the event; rejects with a typed `ComputeError` when it failed. */
  waitEventHost(event: E): Promise<void>;
}

/** Options of {@linkcode MultiStream}. */
export interface MultiStreamOptions {
  /** Number of streams; stream ids map onto them modulo this. */
  maxStreams: number;
  /**
   * Logger of the `stream` category.
   * @default {new RuntimeLogger("stream", "disabled")}
   */
  logger?: RuntimeLogger;
}

/** Options of {@linkcode MultiStream.resolve}. */
export interface MultiStreamResolveOptions {
  /**
   * Refuse with `STREAM_UNHEALTHY` when the current stream is in an error state.
   * @default {false}
   */
  enforceHealthy?: boolean;
}

/**
 * The memory that must be synchronized before the current stream may use it, grouped by the
 * stream index it must wait on.
 *
 * @example
 * ```ts
 * import { ManagedMemoryId, SharedBindingAnalysis } from "@gpucompute/runtime/backend";
 * const analysis = new SharedBindingAnalysis();
 * analysis.shared(new ManagedMemoryId(), 2);
 * console.log([...analysis.slices.keys()]); // [2]
 * ```
 */
export class SharedBindingAnalysis {
  /** Memory ids per origin stream index, without duplicates. */
  readonly slices: Map<number, ManagedMemoryId[]> = new Map();

  /** Records that `id` must be synchronized with stream index `index`. */
  shared(id: ManagedMemoryId, index: number): void {
    const list = this.slices.get(index);
    if (list === undefined) this.slices.set(index, [id]);
    else if (!list.includes(id)) list.push(id);
  }

  /** True when nothing needs synchronization. */
  get isEmpty(): boolean {
    return this.slices.size === 0;
  }
}

/** @internal A backend stream with its synchronization state. */
export interface EventStreamState<S> {
  readonly stream: S;
  cursor: number;
  readonly lastSynced: Map<number, number>;
}

/**
 * The streams after {@linkcode MultiStream.resolve}: the current one may receive work that uses
 * the bindings. Call {@linkcode finish} (or `using`) once that work is enqueued.
 *
 * @example
 * ```ts ignore
 * using resolved = multiStream.resolve(1, bindings);
 * enqueueKernel(resolved.currentStream());
 * ```
 */
export class ResolvedStreams<S, E> implements Disposable {
  /** The current stream's cursor: stamp new allocations of this task with it. */
  readonly cursor: number;
  /** The current stream id. */
  readonly current: StreamId;
  readonly #pool: StreamPool<EventStreamState<S>>;
  readonly #backend: EventStreamBackend<S, E>;
  readonly #gc: GcLoop<E>;
  #pins: MemoryPin[] | undefined;

  /** @internal Built by {@linkcode MultiStream.resolve}. */
  constructor(
    pool: StreamPool<EventStreamState<S>>,
    internals: {
      backend: EventStreamBackend<S, E>;
      gc: GcLoop<E>;
      current: StreamId;
      cursor: number;
      pins: MemoryPin[];
    },
  ) {
    this.#pool = pool;
    this.#backend = internals.backend;
    this.#gc = internals.gc;
    this.current = internals.current;
    this.cursor = internals.cursor;
    this.#pins = internals.pins;
  }

  /** The backend stream of a stream id. */
  get(id: StreamId): S {
    return this.#pool.get(id).stream;
  }

  /** The backend stream of the current stream id. */
  currentStream(): S {
    return this.#pool.get(this.current).stream;
  }

  /** True after {@linkcode finish}. */
  get finished(): boolean {
    return this.#pins === undefined;
  }

  /**
   * Hands the cross-stream pins to the GC: they are released once the work enqueued on the
   * current stream so far has completed. Idempotent.
   */
  finish(): void {
    const pins = this.#pins;
    this.#pins = undefined;
    if (pins === undefined || pins.length === 0) return;
    const origin = this.#backend.flush(this.currentStream());
    const gcStream = this.#pool.getSpecial(0).stream;
    this.#backend.waitEvent(gcStream, origin);
    this.#gc.register(this.#backend.flush(gcStream), pins);
  }

  /** Same as {@linkcode finish}, for `using`. */
  [Symbol.dispose](): void {
    this.finish();
  }
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
  readonly #logger: RuntimeLogger;
  readonly #gc: GcLoop<E>;
  /** Correction 1: per memory, the latest cursor at which each stream index used it. */
  readonly #uses = new WeakMap<ManagedMemoryId, Map<number, number>>();
  /** Number of regular streams. */
  readonly maxStreams: number;

  /** Creates the multi-stream; streams are created lazily on first use. */
  constructor(backend: EventStreamBackend<S, E>, options: MultiStreamOptions) {
    this.#backend = backend;
    this.#pool = new StreamPool(
      () => ({ stream: backend.createStream(), cursor: 0, lastSynced: new Map() }),
      { maxStreams: options.maxStreams, numSpecial: 1 },
    );
    this.maxStreams = options.maxStreams;
    this.#logger = options.logger ?? new RuntimeLogger("stream", "disabled");
    this.#gc = new GcLoop((event) => backend.waitEventHost(event));
  }

  /** GC tasks registered and not yet processed. */
  get pendingGc(): number {
    return this.#gc.pending;
  }

  /** @internal The synchronization state of a stream (tests inspect it). */
  state(id: StreamId): Readonly<EventStreamState<S>> {
    return this.#pool.get(id);
  }

  /**
   * Synchronizes `stream` with every other stream that touched `bindings` since it last waited
   * on it, advances its cursor and pins the cross-stream bindings until {@linkcode
   * ResolvedStreams.finish} hands them to the GC. Throws `TypeError`/`RangeError` for a bad
   * stream id, `INVALID_HANDLE` for released memory and `STREAM_UNHEALTHY` when asked to, all
   * before any state changes.
   */
  resolve(
    stream: StreamId,
    bindings: Iterable<Binding>,
    options: MultiStreamResolveOptions = {},
  ): ResolvedStreams<S, E> {
    assertStreamId(stream);
    const list = [...bindings];
    for (const binding of list) {
      assertStreamId(binding.stream);
      binding.assertLive();
    }
    const index = this.#pool.streamIndex(stream);
    const state = this.#pool.getIndex(index);
    if (options.enforceHealthy && !this.#backend.isHealthy(state.stream)) {
      throw new StreamUnhealthyError(stream);
    }
    this.#apply(stream, this.updateSharedBindings(stream, list));
    const cursor = ++state.cursor;
    const pins: MemoryPin[] = [];
    for (const binding of list) {
      const id = binding.memory.id;
      let uses = this.#uses.get(id);
      if (uses === undefined) this.#uses.set(id, uses = new Map());
      uses.set(index, cursor);
      if (this.#pool.streamIndex(binding.stream) !== index) pins.push(id.pin());
    }
    const internals = { backend: this.#backend, gc: this.#gc, current: stream, cursor, pins };
    return new ResolvedStreams(this.#pool, internals);
  }

  /**
   * Which bindings `stream` must synchronize before using them, by origin stream index: the
   * creating stream (as in the seed) and every stream that used them (correction 1) when that
   * happened after `stream` last waited on it. Does not change any state.
   */
  updateSharedBindings(stream: StreamId, bindings: Iterable<Binding>): SharedBindingAnalysis {
    const index = this.#pool.streamIndex(stream);
    const current = this.#pool.getIndex(index);
    const analysis = new SharedBindingAnalysis();
    const check = (id: ManagedMemoryId, origin: number, cursor: number, why: string) => {
      const synced = current.lastSynced.get(origin);
      if (synced !== undefined && synced >= cursor) return;
      this.#logger.full(() =>
        synced === undefined
          ? `Binding ${why} on ${origin} is shared on ${stream} since it was never synced.`
          : `Binding ${why} on ${origin} is shared on ${stream} since it's not sync ${synced} < ${cursor}`
      );
      analysis.shared(id, origin);
    };
    for (const binding of bindings) {
      const id = binding.memory.id;
      const origin = this.#pool.streamIndex(binding.stream);
      if (origin !== index) {
        const cursor = this.#backend.handleCursor(this.#pool.getIndex(origin).stream, binding);
        check(id, origin, cursor, "created");
      }
      for (const [user, cursor] of this.#uses.get(id) ?? []) {
        if (user !== index) check(id, user, cursor, "used");
      }
    }
    return analysis;
  }

  /** Resolves once the GC processed every task registered so far; rejects on a failed wait. */
  drain(): Promise<void> {
    return this.#gc.drain();
  }

  #apply(stream: StreamId, analysis: SharedBindingAnalysis): void {
    if (analysis.isEmpty) return;
    const events: [number, number, E][] = [];
    for (const origin of analysis.slices.keys()) {
      const state = this.#pool.getIndex(origin);
      events.push([origin, state.cursor, this.#backend.flush(state.stream)]);
    }
    const current = this.#pool.get(stream);
    for (const [origin, cursor, event] of events) {
      current.lastSynced.set(origin, cursor);
      this.#logger.basic(() => `Waiting on ${origin} from ${stream}`);
      this.#backend.waitEvent(current.stream, event);
    }
  }
}
