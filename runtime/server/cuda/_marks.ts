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
 *   single order on the devices: it gets none, and waits on it go through the host.
 *
 * @module
 */

import { CudaTimelineSignal } from "../../../sync/cuda_signal.ts";
import type { TimelineSignal } from "../../../sync/timeline_signal.ts";
import type { CudaDriver } from "./_ffi.ts";
import { signalEvents } from "./_signal.ts";
import type { CudaEvent, CudaStream, CudaStreamBackend, EventPool } from "./_stream.ts";

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

/** Forgets `source` (its events are going away). */
export function unregisterMarks(timeline: TimelineSignal, source: MarkSource): void {
  if (sources.get(timeline) === source) sources.delete(timeline);
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

/** What the marks of one server need from it. */
export interface MarkContext {
  readonly driver: CudaDriver;
  readonly backend: CudaStreamBackend;
  readonly events: EventPool;
  readonly destroyed: () => boolean;
  readonly bind: () => void;
}

/** The marks one server made: a ring per timeline on the server's mark stream. */
export class ServerMarks {
  readonly #ctx: MarkContext;
  readonly #rings = new Map<
    TimelineSignal,
    { ring: CudaTimelineSignal<Deno.PointerValue>; source: MarkSource }
  >();
  #stream: CudaStream | undefined;

  constructor(ctx: MarkContext) {
    this.#ctx = ctx;
  }

  /** Records `value` of `timeline` after the work enqueued so far on `stream` (context current). */
  record(timeline: TimelineSignal, value: bigint, stream: CudaStream): void {
    const { backend, events, driver } = this.#ctx;
    const marks = this.#stream ??= backend.createStream();
    let entry = this.#rings.get(timeline);
    if (entry === undefined) {
      const ring = new CudaTimelineSignal(signalEvents(driver, marks, this.#ctx));
      const source = { driver, eventFor: (v: bigint) => ring.eventFor(v) };
      this.#rings.set(timeline, entry = { ring, source });
    }
    const ready: CudaEvent = events.record(stream);
    backend.waitEvent(marks, ready); // returns `ready` to the pool
    entry.ring.record(value);
    registerMarks(timeline, entry.source);
  }

  /** Registers a signal of the server as its own source; forgotten by {@linkcode destroy}. */
  adopt(signal: CudaTimelineSignal<Deno.PointerValue>): void {
    const source = { driver: this.#ctx.driver, eventFor: (v: bigint) => signal.eventFor(v) };
    this.#rings.set(signal, { ring: signal, source });
    registerMarks(signal, source);
  }

  /** Forgets every source and destroys the rings (adopted signals are destroyed too). */
  destroy(): void {
    for (const [timeline, { ring, source }] of this.#rings) {
      unregisterMarks(timeline, source);
      ring.destroy();
    }
    this.#rings.clear();
  }
}
