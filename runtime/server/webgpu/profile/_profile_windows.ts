/**
 * Profiling windows and trace recording of the WebGPU server (see `profiler.ts` for its public
 * face).
 *
 * **Per-stream windows.** A window belongs to one stream and measures only the work that stream
 * launches inside it. While a window (or a trace) is open, the server traced every launched task
 * with its stream, and the encoder asks {@linkcode ProfilerCore.group} where each dispatch goes:
 * a compute pass then holds the dispatches of ONE stream (or one kernel, in per-kernel mode and
 * while tracing), and with `timestamp-query` it gets begin/end timestamps in a query slot that
 * every open window of that stream references. A window's device time is the sum of its passes'
 * (end - begin). The server submits the window's stream (only that one) when the window opens and
 * closes, and no pass outlives the executeStreams call that encoded it, so passes never straddle a
 * window boundary. Closing resolves the window's slots and maps one buffer.
 *
 * **Recycling.** A slot returns to a free list once every window holding it closed and its resolve
 * was submitted: windows that always overlap reuse the same query sets.
 *
 * **Clocks.** Device times are aligned to `performance.now()` with the smallest
 * (device begin - host submit) seen so far (see `runtime/core/trace.ts`).
 *
 * Without `timestamp-query` a window's duration is the wall clock from its start to the completion
 * of the submitted work (`timing: "system"`), which includes other streams' work: one queue.
 *
 * @module
 */

import {
  DestroyedError,
  ProfileNotRegisteredError,
  TraceActiveError,
  UnsupportedError,
} from "../../../core/errors.ts";
import type { StreamId } from "../../../core/stream_id.ts";
import type { KernelTiming, Trace, TraceSpan } from "../../../core/trace.ts";
import type { ProfileDuration, ProfilingToken, StartProfileOptions } from "../../server.ts";
import type {
  CopyTask,
  DispatchTask,
  EncoderTiming,
  GpuTask,
  PassGroup,
  Unrun,
} from "../queue/_tasks.ts";
import { QuerySlots, type SlotTimes } from "./_query_slots.ts";
import { type TimedPass, type TracedTask, TraceLog } from "./_profile_records.ts";

interface Window {
  /** `undefined`: every stream (the trace). */
  readonly stream: StreamId | undefined;
  readonly perKernel: boolean;
  readonly startedAt: number;
  readonly passes: TimedPass[];
}

/** What a traced task records besides the task. */
export type TracedTaskInfo = Pick<TracedTask, "kind" | "stream" | "name" | "workgroups" | "bytes">;

/**
 * The profiler of the WebGPU server: per-stream windows, trace recording, and the encoder hook.
 * `WebGpuProfiler` (profiler.ts) is its public face.
 */
export class ProfilerCore implements EncoderTiming, Disposable {
  readonly #device: GPUDevice;
  readonly #timestamps: boolean;
  readonly #slots: QuerySlots;
  readonly #windows = new Map<number, Window>();
  readonly #traced = new Map<GpuTask, TracedTask>();
  #unsubmitted: TracedTask[] = [];
  #trace: { readonly log: TraceLog; readonly window: number } | undefined;
  #nextToken = 0;
  #offset = Infinity; // device ms - host ms
  #destroyed = false;

  /** Creates the profiler; `timestamps` requires the device's `timestamp-query` feature. */
  constructor(device: GPUDevice, options: { timestamps: boolean }) {
    this.#device = device;
    this.#timestamps = options.timestamps;
    this.#slots = new QuerySlots(device);
  }

  /** True when durations come from the device timer. */
  get deviceTimer(): boolean {
    return this.#timestamps;
  }

  /** Number of open windows (a trace counts as one). */
  get open(): number {
    return this.#windows.size;
  }

  /** True while launches must be tracked: a device-timed window or a trace is open. */
  get active(): boolean {
    return this.#trace !== undefined || (this.#timestamps && this.#windows.size > 0);
  }

  /** Buffers mapped to read timestamps. */
  get maps(): number {
    return this.#slots.maps;
  }

  /** Timestamp query sets created (bounded by the passes in flight, not by history). */
  get querySets(): number {
    return this.#slots.sets;
  }

  /** True after {@linkcode destroy}. */
  get destroyed(): boolean {
    return this.#destroyed;
  }

  /** The trace being recorded, if any: for host events. */
  get trace(): TraceLog | undefined {
    return this.#trace?.log;
  }

  /** Opens a window on `stream`. Per-kernel mode needs the device timer (`UNSUPPORTED`). */
  start(stream: StreamId, options: StartProfileOptions = {}): ProfilingToken {
    this.#assertLive();
    const perKernel = options.perKernel ?? false;
    if (typeof perKernel !== "boolean") throw new TypeError("perKernel must be a boolean");
    if (perKernel && !this.#timestamps) {
      throw new UnsupportedError(
        "Per-kernel timings need the device's timestamp-query feature, which it lacks",
      );
    }
    return { id: this.#open(stream, perKernel) };
  }

  /**
   * Closes a window (synchronously: later passes are not in it) and measures it.
   * `PROFILE_NOT_REGISTERED` for an unknown or closed token, or, given the `stream` it is closed
   * on, for a window opened on another stream (which stays open: that stream's work in it was
   * not submitted).
   */
  async end(
    token: ProfilingToken,
    released?: Promise<void>,
    stream?: StreamId,
  ): Promise<ProfileDuration> {
    // The trace's window is not a token of the caller's.
    const id = token?.id === this.#trace?.window ? NaN : token?.id;
    const opened = this.#windows.get(id)?.stream;
    if (stream !== undefined && opened !== undefined && opened !== stream) {
      throw new ProfileNotRegisteredError(
        `Profiling token ${id} was opened on stream ${opened}, not on stream ${stream}`,
      );
    }
    const window = this.#close(id, token?.id);
    // The window's passes may sit in parked submissions (see `queue/encoder.ts`).
    if (released !== undefined) await released;
    if (!this.#timestamps) {
      await this.#device.queue.onSubmittedWorkDone();
      return { milliseconds: performance.now() - window.startedAt, timing: "system" };
    }
    const times = await this.#read(window.passes);
    let total = 0;
    const kernels: KernelTiming[] = [];
    window.passes.forEach((pass, i) => {
      const [start, end] = [times[2 * i], times[2 * i + 1]];
      if (end > start) total += end - start;
      const traced = pass.kernels[0];
      if (!window.perKernel || !Number.isFinite(traced.submittedAt)) return; // dropped: never ran
      kernels.push({
        kernel: traced.name,
        stream: traced.stream,
        start: start - this.#clock,
        end: Math.max(start, end) - this.#clock,
        workgroups: traced.workgroups,
      });
    });
    const duration = { milliseconds: total, timing: "device" as const };
    return window.perKernel ? { ...duration, kernels } : duration;
  }

  /** Starts a trace recording (`TRACE_ACTIVE` if one runs). */
  startTrace(): void {
    this.#assertLive();
    if (this.#trace !== undefined) {
      throw new TraceActiveError("A trace is already being recorded on this server");
    }
    this.#trace = { log: new TraceLog(), window: this.#open(undefined, this.#timestamps) };
  }

  /** Stops the recording (`PROFILE_NOT_REGISTERED` if none runs) and assembles the trace. */
  async stopTrace(
    info: Pick<Trace, "backend" | "device">,
    released?: Promise<void>,
  ): Promise<Trace> {
    const trace = this.#trace;
    if (trace === undefined) {
      this.#assertLive();
      throw new ProfileNotRegisteredError("No trace is being recorded");
    }
    this.#trace = undefined;
    const window = this.#close(trace.window);
    if (released !== undefined) await released;
    const times = await this.#read(window.passes);
    const index = new Map(window.passes.map((pass, i) => [pass, i]));
    return trace.log.finish({ ...info, timing: this.#timestamps ? "device" : "system" }, (pass) => {
      const i = index.get(pass);
      if (i === undefined || !(times[2 * i + 1] >= times[2 * i] && times[2 * i] > 0)) return;
      return { start: times[2 * i] - this.#clock, end: times[2 * i + 1] - this.#clock };
    });
  }

  /** Tracks a task the server is about to register (only while {@linkcode active}). */
  track(task: GpuTask, info: TracedTaskInfo): void {
    const traced: TracedTask = {
      ...info,
      launched: performance.now(),
      submission: -1,
      submittedAt: NaN,
      pass: undefined,
    };
    this.#traced.set(task, traced);
    this.#trace?.log.launched(traced);
  }

  /** Forgets a tracked task that could not be registered. */
  forget(task: GpuTask): void {
    this.#traced.delete(task);
  }

  /**
   * Records a host span that ends now into the running trace, if any and if the call began after
   * the trace started (as on CUDA: a call made before it is not part of it, and its start would
   * sit before the trace's, a negative time in the Chrome trace).
   */
  span(span: Omit<TraceSpan, "end">): void {
    const log = this.#trace?.log;
    if (log !== undefined && span.start >= log.start) log.add({ ...span, end: performance.now() });
  }

  /** Records a sample of the memory counter into the running trace, if any. */
  memory(inUse: number, reserved: number): void {
    this.#trace?.log.add({ type: "memory", at: performance.now(), inUse, reserved });
  }

  /** {@linkcode EncoderTiming.group}: one stream per pass; one kernel per pass when timed alone. */
  group(task: DispatchTask, current: PassGroup | null | undefined): PassGroup | null {
    const traced = this.#take(task);
    if (traced === undefined || !this.#timestamps) return null;
    const windows: Window[] = [];
    let alone = false;
    for (const window of this.#windows.values()) {
      if (window.stream !== undefined && window.stream !== traced.stream) continue;
      windows.push(window);
      alone ||= window.perKernel;
    }
    if (windows.length === 0) return null;
    const open = current as TimedPass | null | undefined;
    if (!alone && open?.stream === traced.stream && !open.alone) {
      open.kernels.push(traced);
      traced.pass = open;
      return open;
    }
    const slot = this.#slots.acquire();
    const pass: TimedPass = {
      stream: traced.stream,
      alone,
      slot,
      kernels: [traced],
      refs: windows.length,
      timestampWrites: this.#slots.writes(slot),
    };
    for (const window of windows) window.passes.push(pass);
    traced.pass = pass;
    return pass;
  }

  /** {@linkcode EncoderTiming.copied}. */
  copied(task: CopyTask): void {
    this.#take(task);
  }

  /** {@linkcode EncoderTiming.submitted}: stamps the tasks encoded since the last submission. */
  submitted(): Unrun | undefined {
    const tasks = this.#unsubmitted;
    if (tasks.length === 0) return undefined;
    this.#unsubmitted = [];
    return stamp(tasks, this.#trace?.log);
  }

  /**
   * {@linkcode EncoderTiming.parked}: the tasks encoded since the last submission, stamped once
   * their command buffer is submitted; a dropped one's stay unsubmitted (`submission: -1` in the
   * trace, no device time: its timestamps were never written).
   */
  parked(): ((submitted: boolean) => Unrun | undefined) | undefined {
    const tasks = this.#unsubmitted;
    if (tasks.length === 0) return undefined;
    this.#unsubmitted = [];
    const log = this.#trace?.log;
    return (submitted) => submitted ? stamp(tasks, log) : undefined;
  }

  /** Destroys the query sets. Idempotent. */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.#slots.destroy();
    this.#windows.clear();
    this.#traced.clear();
    this.#trace = undefined;
  }

  /** Same as {@linkcode destroy}. */
  [Symbol.dispose](): void {
    this.destroy();
  }

  #take(task: GpuTask): TracedTask | undefined {
    const traced = this.#traced.get(task);
    if (traced === undefined) return undefined;
    this.#traced.delete(task);
    this.#unsubmitted.push(traced);
    return traced;
  }

  #open(stream: StreamId | undefined, perKernel: boolean): number {
    const id = this.#nextToken++;
    this.#windows.set(id, { stream, perKernel, startedAt: performance.now(), passes: [] });
    return id;
  }

  #close(id: number, shown: unknown = id): Window {
    this.#assertLive();
    const window = this.#windows.get(id);
    if (window === undefined) {
      throw new ProfileNotRegisteredError(`Profiling token ${shown} is unknown or already closed`);
    }
    this.#windows.delete(id);
    if (!this.active) {
      this.#traced.clear(); // tasks tracked but never encoded (dropped, failed pipelines)
      this.#unsubmitted = [];
    }
    return window;
  }

  /** Submits the resolve of the passes' slots, recycles them, then maps and aligns the clock. */
  async #read(passes: readonly TimedPass[]): Promise<SlotTimes> {
    const reading = this.#slots.read(passes.map((pass) => pass.slot));
    for (const pass of passes) {
      if (--pass.refs === 0) this.#slots.release(pass.slot);
    }
    const times = await reading;
    for (let i = 0; i < times.length; i++) times[i] /= 1e6;
    passes.forEach((pass, i) => {
      const submittedAt = pass.kernels[0].submittedAt;
      if (!Number.isFinite(submittedAt)) {
        // Never submitted (a dropped submission): its slot holds an earlier pass's times.
        times[2 * i] = times[2 * i + 1] = 0;
      } else if (times[2 * i] > 0) {
        this.#offset = Math.min(this.#offset, times[2 * i] - submittedAt);
      }
    });
    return times;
  }

  /** Device ms minus host ms (0 until a submitted pass was measured). */
  get #clock(): number {
    return Number.isFinite(this.#offset) ? this.#offset : 0;
  }

  #assertLive(): void {
    if (this.#destroyed) throw new DestroyedError("The profiler was destroyed");
  }
}

/**
 * Stamps `tasks` as submitted now, in one submission of `log` (the trace open when encoded);
 * returns what unstamps them if WebGPU rejects the submission (never run, as a dropped one).
 */
function stamp(tasks: readonly TracedTask[], log: TraceLog | undefined): Unrun {
  const at = performance.now();
  const id = log?.submitted(tasks, at) ?? -1;
  for (const task of tasks) {
    task.submission = id;
    task.submittedAt = at;
  }
  return () => {
    for (const task of tasks) {
      task.submission = -1;
      task.submittedAt = NaN;
    }
  };
}
