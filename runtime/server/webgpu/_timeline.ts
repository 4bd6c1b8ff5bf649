/**
 * Bookkeeping of the WebGPU profiler while windows or a trace are open: a note per launched task,
 * the timed compute passes that hold them, and the trace log that turns both into a
 * {@linkcode Trace}. Nothing here exists while profiling is off.
 *
 * @module
 */

import type { HandleRef } from "../../core/handle.ts";
import type { StreamId } from "../../core/stream_id.ts";
import type { Trace, TraceEvent, TraceKernel } from "../../core/trace.ts";
import type { PassGroup } from "./_stream.ts";

/** What the server knew about a task when it was launched. */
export interface Note {
  readonly kind: "kernel" | "write" | "read";
  readonly stream: StreamId;
  /** Kernel id (kernels). */
  readonly name: string;
  readonly workgroups: readonly [number, number, number] | undefined;
  /** Bytes copied (copies). */
  readonly bytes: number;
  readonly launched: number;
  /** Set when the task's command buffer was submitted. */
  submission: number;
  submittedAt: number;
  /** The timed pass of a kernel, if any. */
  pass: TimedPass | undefined;
}

/** A compute pass with timestamps: the work of one stream (one kernel when `alone`). */
export interface TimedPass extends PassGroup {
  readonly stream: StreamId;
  readonly alone: boolean;
  /** The query slot, or -1 without the device timer. */
  readonly slot: number;
  readonly kernels: Note[];
  /** Windows (and the trace) that will read it; the slot is recycled at 0. */
  refs: number;
}

/** Device begin and end of a pass in host-clock ms, or `undefined` when not timed. */
export type PassTimes = (pass: TimedPass) => { start: number; end: number } | undefined;

/** The events of one recording, assembled into a {@linkcode Trace} when it stops. */
export class TraceLog {
  readonly start: number = performance.now();
  readonly #events: TraceEvent[] = [];
  readonly #launches: Note[] = [];
  /** The stream of the last task that wrote each memory (ids are objects: weakly held). */
  readonly #lastWrite = new WeakMap<object, StreamId>();
  /** The streams that read each memory since its last write. */
  readonly #readers = new WeakMap<object, Set<StreamId>>();
  #submissions = 0;

  /** Records a launched task (kernel or copy). */
  launched(note: Note): void {
    this.#launches.push(note);
  }

  /**
   * Records the cross-stream waits of a task launched on `stream` over `bindings`, as the
   * scheduler orders them: a read (a binding in `reads`) waits on another stream's last write of
   * the memory; a write waits on that and on other streams' reads since. Two reads never wait on
   * each other; memory first used by this task implies no wait.
   */
  used(
    stream: StreamId,
    bindings: readonly HandleRef[],
    at: number,
    reads: readonly HandleRef[] = [],
  ): void {
    const waited: StreamId[] = [];
    const wait = (on: StreamId | undefined) => {
      if (on === undefined || on === stream || waited.includes(on)) return;
      waited.push(on);
      this.add({ type: "wait", stream, on, at });
    };
    const readOnly = new Set(reads.map((binding) => binding.slice.record));
    for (const binding of bindings) {
      const id = binding.slice.record;
      wait(this.#lastWrite.get(id));
      const readers = this.#readers.get(id);
      if (readOnly.has(id)) {
        if (readers === undefined) this.#readers.set(id, new Set([stream]));
        else readers.add(stream);
        continue;
      }
      for (const reader of readers ?? []) wait(reader);
      this.#readers.delete(id);
      this.#lastWrite.set(id, stream);
    }
  }

  /** Records a host event. */
  add(event: TraceEvent): void {
    this.#events.push(event);
  }

  /** Records a submission carrying `notes`; returns its id. */
  submitted(notes: readonly Note[], at: number): number {
    const id = this.#submissions++;
    const streams = [...new Set(notes.map((note) => note.stream))];
    const kernels = notes.filter((note) => note.kind === "kernel").length;
    this.add({ type: "submit", id, at, streams, kernels, copies: notes.length - kernels });
    return id;
  }

  /** The trace: host events, then every launched kernel and copy once, in launch order. */
  finish(info: Pick<Trace, "backend" | "device" | "timing">, times: PassTimes): Trace {
    const events: TraceEvent[] = [...this.#events];
    for (const note of this.#launches) {
      const submission = Number.isFinite(note.submittedAt) ? note.submission : -1;
      if (note.kind !== "kernel") {
        const { kind, stream, bytes, launched } = note;
        events.push({ type: "copy", kind, stream, bytes, launched, submission });
        continue;
      }
      // Untimed (no device timer, or never submitted): a point at submission (or launch).
      const at = Number.isFinite(note.submittedAt) ? note.submittedAt : note.launched;
      const span = note.pass === undefined ? undefined : times(note.pass);
      const kernel: TraceKernel = {
        type: "kernel",
        kernel: note.name,
        stream: note.stream,
        start: span?.start ?? at,
        end: span?.end ?? at,
        workgroups: note.workgroups,
        launched: note.launched,
        submission,
      };
      events.push(kernel);
    }
    return { ...info, start: this.start, end: performance.now(), events };
  }
}
