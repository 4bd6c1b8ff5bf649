/**
 * Device events behind timeline values, so that a CUDA server can make a stream wait on the
 * device for a value another CUDA server (of the same driver library) marks: `cuStreamWaitEvent`
 * accepts an event of another context (cuda.h), so the host never has to see the value.
 *
 * - A server's `signal(timeline, v, stream)` also records `v` in a ring of events (a
 *   {@linkcode CudaTimelineSignal} over a stream of its own, the mark stream): the mark stream
 *   first waits on an event of `stream`, so marks complete in the order they were made, whatever
 *   their streams, as the host-side marks do. The event of the smallest value at or above a
 *   target therefore completes only after every earlier mark's work.
 * - A `CudaTimelineSignal` made by a server (`timelineSignal(stream)`) is its own source.
 * - The registry maps a timeline to its one source. A timeline marked by two servers has no
 *   single order on the devices: it gets none, and waits on it go through the host; so does a
 *   timeline whose source went away (its server destroyed, or its ring dropped).
 *
 * @module
 */

import { CudaTimelineSignal } from "../../../../sync/cuda_signal.ts";
import type { TimelineSignal } from "../../../../sync/timeline_signal.ts";
import type { CudaDriver } from "../_ffi.ts";
import { signalEvents } from "./_signal_events.ts";
import type { CudaEvent, CudaStream, CudaStreamBackend, EventPool, WaitOwner } from "./streams.ts";
import type { StreamId } from "../../../core/stream_id.ts";
import type { MultiStream } from "../../../stream/event.ts";

/** Where the device event of a timeline value comes from. */
export interface MarkSource {
  readonly driver: CudaDriver;
  /** The event of the smallest value recorded at or above `value`, if any (use it at once). */
  eventFor(value: bigint): Deno.PointerValue | undefined;
}

/** `null`: marked by several sources, no device waits. */
const sources = new WeakMap<TimelineSignal, MarkSource | null>();

/** Makes `source` the device source of `timeline` (or none, if it already has another). */
export function registerMarks(timeline: TimelineSignal, source: MarkSource): void {
  const known = sources.get(timeline);
  if (known === undefined) sources.set(timeline, source);
  else if (known !== source) sources.set(timeline, null);
}

/**
 * Forgets `source` (its events are going away). The timeline gets no other source: marks made
 * before by this one would not be covered by another's events.
 */
export function unregisterMarks(timeline: TimelineSignal, source: MarkSource): void {
  if (sources.get(timeline) === source) sources.set(timeline, null);
}

/** The event to wait on for `timeline` to reach `value`, from a source of `driver`. */
export function markEvent(
  timeline: TimelineSignal,
  driver: CudaDriver,
  value: bigint,
): Deno.PointerValue | undefined {
  const source = sources.get(timeline);
  return source?.driver === driver ? source.eventFor(value) : undefined;
}

/** Where a server waits on a mark: its driver and its multi-stream (a `CudaParts`). */
export interface MarkWaiter {
  readonly device: { readonly driver: CudaDriver };
  readonly streams: MultiStream<CudaStream, CudaEvent>;
}

/**
 * Makes `stream` of `waiter` wait on the device (`cuStreamWaitEvent`) for `timeline` to reach
 * `value`: on the event of the smallest value at or above it that a source of the same driver
 * recorded. False, with nothing enqueued, when there is none (then wait on the host).
 */
export function waitOnMark(
  waiter: MarkWaiter,
  mark: { readonly timeline: TimelineSignal; readonly value: bigint; readonly stream: StreamId },
): boolean {
  const { driver } = waiter.device;
  const event = markEvent(mark.timeline, driver, mark.value);
  if (event === undefined) return false;
  using ordered = waiter.streams.order(mark.stream, [], { enforceHealthy: true });
  driver.check(
    driver.symbols.cuStreamWaitEvent(ordered.stream.handle, event, 0),
    `cuStreamWaitEvent(timeline value ${mark.value}, stream ${ordered.stream.index})`,
  );
  return true;
}

/** What the marks of one server need from it. */
export interface MarkContext {
  readonly driver: CudaDriver;
  readonly backend: CudaStreamBackend;
  readonly events: EventPool;
  /** The server the marks belong to. */
  readonly owner: WaitOwner;
}

/**
 * Timelines a server keeps rings for: past this, the ring of the timeline marked least recently is
 * dropped (its waits then go through the host), so a program that marks a new timeline every frame
 * does not keep 64 events per frame alive.
 */
export const MAX_MARKED_TIMELINES = 16;

interface Ring {
  readonly ring: CudaTimelineSignal<Deno.PointerValue>;
  readonly source: MarkSource;
}

/** The marks one server made: a ring per timeline on the server's mark stream. */
export class ServerMarks {
  readonly #ctx: MarkContext;
  /** Rings of marked timelines, least recently marked first. */
  readonly #rings = new Map<TimelineSignal, Ring>();
  /** The server's own CUDA signals, registered as their own sources. */
  readonly #adopted = new Map<CudaTimelineSignal<Deno.PointerValue>, MarkSource>();
  #stream: CudaStream | undefined;

  constructor(ctx: MarkContext) {
    this.#ctx = ctx;
  }

  /** Records `value` of `timeline` after the work enqueued so far on `stream` (context current). */
  record(timeline: TimelineSignal, value: bigint, stream: CudaStream): void {
    const { backend, events, driver } = this.#ctx;
    const known = this.#rings.get(timeline);
    if (known !== undefined && value <= known.ring.recorded) {
      // Marked out of order (a backend caller's own signal): no event stands for a value any
      // more (a later one would stand for this one too early), so its waits go through the host.
      this.#drop(timeline);
      return;
    }
    const marks = this.#stream ??= backend.createStream();
    let entry = known;
    if (entry === undefined) {
      const ring = new CudaTimelineSignal(signalEvents(driver, marks, this.#ctx.owner));
      entry = { ring, source: { driver, eventFor: (v: bigint) => ring.eventFor(v) } };
      if (this.#rings.size >= MAX_MARKED_TIMELINES) this.#drop(this.#rings.keys().next().value!);
    } else {
      this.#rings.delete(timeline); // re-inserted last: most recently marked
    }
    this.#rings.set(timeline, entry);
    const ready: CudaEvent = events.record(stream);
    backend.waitEvent(marks, ready); // returns `ready` to the pool
    entry.ring.record(value);
    registerMarks(timeline, entry.source);
  }

  /** Registers a signal of the server as its own source; forgotten by {@linkcode destroy}. */
  adopt(signal: CudaTimelineSignal<Deno.PointerValue>): void {
    const source = { driver: this.#ctx.driver, eventFor: (v: bigint) => signal.eventFor(v) };
    this.#adopted.set(signal, source);
    registerMarks(signal, source);
  }

  /** Forgets every source and destroys the rings (the adopted signals are their owner's). */
  destroy(): void {
    for (const timeline of [...this.#rings.keys()]) this.#drop(timeline);
    for (const [signal, source] of this.#adopted) unregisterMarks(signal, source);
    this.#adopted.clear();
  }

  #drop(timeline: TimelineSignal): void {
    const entry = this.#rings.get(timeline);
    if (entry === undefined) return;
    this.#rings.delete(timeline);
    unregisterMarks(timeline, entry.source);
    entry.ring.destroy(); // a wait already enqueued on the device captured its record
  }
}
