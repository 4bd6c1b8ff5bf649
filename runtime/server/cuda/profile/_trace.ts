/**
 * The trace recording of the CUDA server: nothing here exists while no trace runs (the server
 * holds `undefined`, and a launch costs one check of it).
 *
 * - **Kernels** are timed by the profiler's timing-event pairs (`CudaProfiler.timeLaunch`), one
 *   pair per launch shared with the per-kernel windows open then. `cuEventElapsedTime` only gives
 *   differences, so device times are measured from the first timed launch's start event and put
 *   on the host clock the way `core/trace.ts` says: `offset` is the smallest
 *   `(device begin - host launch)` over the trace's kernels (CUDA submits at the launch call).
 * - **Copies** (writes, and the device-to-pinned copies of reads) at their host launch time;
 *   they are not timed on the device.
 * - **Submissions**: CUDA submits each enqueue on its own, so every kernel and copy is one.
 * - **Cross-stream waits** as the event multi-stream decides them (it reports each wait it
 *   enqueues while a trace records).
 * - **Reads and syncs** as host spans; the **memory counter** at start, stop and after each.
 *
 * @module
 */

import type { StreamId } from "../../../core/stream_id.ts";
import type { Trace, TraceEvent, TraceKernel, TraceSpan } from "../../../core/trace.ts";
import type { WaitRecorder } from "../../../stream/wait_recorder.ts";

/** A launch timed by timing events: its pair, shared by the windows (and trace) open then. */
export interface TimedLaunch {
  readonly kernel: string;
  readonly stream: StreamId;
  readonly workgroups: readonly [number, number, number];
  readonly before: Deno.PointerValue;
  after: Deno.PointerValue;
  refs: number;
}

interface TracedKernel {
  readonly timed: TimedLaunch;
  readonly launched: number;
  /** Its submission, once the driver took the launch (`-1`: refused, it never ran). */
  submission: number;
}

/** The events of one recording, assembled into a {@linkcode Trace} when it stops. */
export class CudaTraceLog implements WaitRecorder {
  readonly start: number = performance.now();
  readonly #events: TraceEvent[] = [];
  readonly #kernels: TracedKernel[] = [];
  #submissions = 0;

  /** The timed launches recorded, in launch order. */
  get launches(): TimedLaunch[] {
    return this.#kernels.map((k) => k.timed);
  }

  /** Records a cross-stream wait the event multi-stream decided (see `WaitRecorder`). */
  waited(stream: StreamId, on: number): void {
    this.#events.push({ type: "wait", stream, on, at: performance.now() });
  }

  /**
   * Records a timed kernel launched now (the launch call comes right after); call the returned
   * function once the driver took it (its submission). A refused launch stays in the trace as
   * a point at its launch with `submission: -1`, as WebGPU shows a dropped submission's kernels.
   */
  kernel(timed: TimedLaunch): () => void {
    const launched = performance.now();
    const traced: TracedKernel = { timed, launched, submission: -1 };
    this.#kernels.push(traced);
    return () => traced.submission = this.#submit(timed.stream, launched, 1, 0);
  }

  /** Records a copy launched now. */
  copy(kind: "write" | "read", stream: StreamId, bytes: number): void {
    const launched = performance.now();
    const submission = this.#submit(stream, launched, 0, 1);
    this.#events.push({ type: "copy", kind, stream, bytes, launched, submission });
  }

  /** Records a host span that ends now. */
  span(span: Omit<TraceSpan, "end">): void {
    this.#events.push({ ...span, end: performance.now() });
  }

  /** Records a sample of the memory counter. */
  memory(inUse: number, reserved: number): void {
    this.#events.push({ type: "memory", at: performance.now(), inUse, reserved });
  }

  /**
   * The trace: host events, then every launched kernel once, in launch order. `elapsed` gives
   * the device milliseconds between two completed events (every `after` event completed).
   */
  finish(
    info: Pick<Trace, "backend" | "device">,
    elapsed: (from: Deno.PointerValue, to: Deno.PointerValue) => number,
  ): Trace {
    const events: TraceEvent[] = [...this.#events];
    // A launch the driver refused has no end event: it never ran (a point at its launch).
    for (const { timed, launched, submission } of this.#kernels) {
      if (timed.after !== null) continue;
      const { kernel, stream, workgroups } = timed;
      const at = launched;
      events.push({
        type: "kernel",
        kernel,
        stream,
        start: at,
        end: at,
        workgroups,
        launched,
        submission,
      });
    }
    const kernels = this.#kernels.filter((k) => k.timed.after !== null);
    const origin = kernels[0]?.timed.before;
    const spans = kernels.map(({ timed }) => ({
      begin: elapsed(origin, timed.before),
      end: elapsed(origin, timed.after),
    }));
    let offset = Infinity;
    kernels.forEach((k, i) => offset = Math.min(offset, spans[i].begin - k.launched));
    kernels.forEach(({ timed, launched, submission }, i) => {
      const start = spans[i].begin - offset;
      const kernel: TraceKernel = {
        type: "kernel",
        kernel: timed.kernel,
        stream: timed.stream,
        start,
        end: Math.max(start, spans[i].end - offset),
        workgroups: timed.workgroups,
        launched,
        submission,
      };
      events.push(kernel);
    });
    return { ...info, timing: "device", start: this.start, end: performance.now(), events };
  }

  #submit(stream: StreamId, at: number, kernels: number, copies: number): number {
    const id = this.#submissions++;
    this.#events.push({ type: "submit", id, at, streams: [stream], kernels, copies });
    return id;
  }
}
