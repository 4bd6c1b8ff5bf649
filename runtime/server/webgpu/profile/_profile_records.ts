/**
 * Bookkeeping of the WebGPU profiler while windows or a trace are open: a record of each traced
 * task, the timed compute passes that hold them, and the trace log that turns both into a
 * {@linkcode Trace}, with the cross-stream waits the task scheduler decided. Nothing here exists
 * while profiling is off.
 *
 * @module
 */

import type { StreamId } from "../../../core/stream_id.ts";
import type { Trace, TraceEvent, TraceKernel } from "../../../core/trace.ts";
import type { WaitRecorder } from "../../../stream/wait_recorder.ts";
import type { PassGroup } from "../queue/_tasks.ts";

/** What the server knew about a task when it was launched (kept while profiling). */
export interface TracedTask {
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
  readonly kernels: TracedTask[];
  /** Windows (and the trace) that will read it; the slot is recycled at 0. */
  refs: number;
}

/** Device begin and end of a pass in host-clock ms, or `undefined` when not timed. */
export type PassTimes = (pass: TimedPass) => { start: number; end: number } | undefined;

/** The events of one recording, assembled into a {@linkcode Trace} when it stops. */
export class TraceLog implements WaitRecorder {
  readonly start: number = performance.now();
  readonly #events: TraceEvent[] = [];
  readonly #launches: TracedTask[] = [];
  #submissions = 0;

  /** Records a launched task (kernel or copy). */
  launched(task: TracedTask): void {
    this.#launches.push(task);
  }

  /** Records a cross-stream wait the task scheduler decided (see `WaitRecorder`). */
  waited(stream: StreamId, on: number): void {
    this.add({ type: "wait", stream, on, at: performance.now() });
  }

  /** Records a host event. */
  add(event: TraceEvent): void {
    this.#events.push(event);
  }

  /** Records a submission carrying `tasks`; returns its id. */
  submitted(tasks: readonly TracedTask[], at: number): number {
    const id = this.#submissions++;
    const streams = [...new Set(tasks.map((task) => task.stream))];
    const kernels = tasks.filter((task) => task.kind === "kernel").length;
    this.add({ type: "submit", id, at, streams, kernels, copies: tasks.length - kernels });
    return id;
  }

  /** The trace: host events, then every launched kernel and copy once, in launch order. */
  finish(info: Pick<Trace, "backend" | "device" | "timing">, times: PassTimes): Trace {
    const events: TraceEvent[] = [...this.#events];
    for (const task of this.#launches) {
      const submission = Number.isFinite(task.submittedAt) ? task.submission : -1;
      if (task.kind !== "kernel") {
        const { kind, stream, bytes, launched } = task;
        events.push({ type: "copy", kind, stream, bytes, launched, submission });
        continue;
      }
      // Untimed (no device timer, or never submitted): a point at submission (or launch).
      const at = Number.isFinite(task.submittedAt) ? task.submittedAt : task.launched;
      const span = task.pass === undefined ? undefined : times(task.pass);
      const kernel: TraceKernel = {
        type: "kernel",
        kernel: task.name,
        stream: task.stream,
        start: span?.start ?? at,
        end: span?.end ?? at,
        workgroups: task.workgroups,
        launched: task.launched,
        submission,
      };
      events.push(kernel);
    }
    return { ...info, start: this.start, end: performance.now(), events };
  }
}
