/**
 * Profiling windows of the CUDA server, timed by the device: a window records a timing event on
 * its stream when it opens and another when it closes; its duration is `cuEventElapsedTime`
 * between them once the closing event completed (polled, as every host wait). Windows may nest
 * and overlap; each owns its events, which return to a pool of timing events (created without
 * `CU_EVENT_DISABLE_TIMING`) once measured.
 *
 * Per-kernel windows (`perKernel`): while one is open on a stream, each launch on that stream is
 * wrapped in a pair of timing events (shared by every per-kernel window of the stream open at the
 * launch). A kernel's start and end are its events' elapsed times from the window's start event,
 * placed on the host clock at the window's `performance.now()`: the device reaches the start event
 * no earlier than that, so the times may sit a little early relative to the host, never late
 * relative to each other. A running trace (`_trace.ts`) times every launch the same way.
 *
 * @module
 */

import {
  DestroyedError,
  ProfileNotRegisteredError,
  TraceActiveError,
} from "../../../core/errors.ts";
import type { StreamId } from "../../../core/stream_id.ts";
import type { KernelTiming, Trace } from "../../../core/trace.ts";
import type { ProfileDuration, ProfilingToken, StartProfileOptions } from "../../server.ts";
import { CUDA_ERROR_NOT_READY, CUDA_SUCCESS, type CudaDriver } from "../_ffi.ts";
import { unhealthy } from "../../../stream/event.ts";
import { type CudaStream, type HostWaitOptions, waitForEvent } from "../queue/streams.ts";
import { CudaTraceLog, type TimedLaunch } from "./_trace.ts";

interface Window {
  readonly start: Deno.PointerValue;
  readonly stream: CudaStream;
  /** The stream id it was opened with (for messages). */
  readonly id: StreamId | undefined;
  readonly startedAt: number;
  /** Per-kernel windows only. */
  readonly kernels: TimedLaunch[] | undefined;
}

/**
 * Opens and closes device-timed profiling windows.
 *
 * @example
 * ```ts ignore
 * import { CudaServer } from "@gpucompute/runtime/cuda";
 * using server = CudaServer.create();
 * const token = server.startProfile(0);
 * const { milliseconds, timing } = await server.endProfile(0, token);
 * console.log(milliseconds, timing); // ... "device"
 * ```
 */
export class CudaProfiler {
  readonly #driver: CudaDriver;
  readonly #wait: HostWaitOptions;
  readonly #free: Deno.PointerValue[] = [];
  readonly #all: Deno.PointerValue[] = [];
  readonly #windows = new Map<number, Window>();
  #next = 0;
  /** Open per-kernel windows, plus one while a trace runs. */
  #perKernel = 0;
  #trace: CudaTraceLog | undefined;

  /** Creates the profiler; host waits use `wait`. */
  constructor(driver: CudaDriver, wait: HostWaitOptions) {
    this.#driver = driver;
    this.#wait = wait;
  }

  /** Open windows. */
  get open(): number {
    return this.#windows.size;
  }

  /** Whether launches may be timed now (a trace or a per-kernel window is open). */
  get timesKernels(): boolean {
    return this.#perKernel > 0;
  }

  /** The running trace, if any. */
  get trace(): CudaTraceLog | undefined {
    return this.#trace;
  }

  /** Starts a trace recording (`TRACE_ACTIVE` if one runs); every launch is timed while it runs. */
  startTrace(): CudaTraceLog {
    if (this.#trace !== undefined) {
      throw new TraceActiveError("A trace is already being recorded on this server");
    }
    this.#perKernel++;
    return this.#trace = new CudaTraceLog();
  }

  /** Stops the recording (`PROFILE_NOT_REGISTERED` if none runs), once its kernels completed. */
  async stopTrace(info: Pick<Trace, "backend" | "device">): Promise<Trace> {
    const trace = this.#trace;
    if (trace === undefined) {
      throw new ProfileNotRegisteredError("No trace is being recorded");
    }
    this.#trace = undefined;
    this.#perKernel--;
    const launches = trace.launches;
    for (const timed of launches) {
      if (timed.after === null) continue;
      await waitForEvent(this.#driver, timed.after, { ...this.#wait, what: "a traced kernel" });
    }
    const result = trace.finish(info, (from, to) => this.#elapsed(from, to));
    for (const timed of launches) this.#release(timed);
    return result;
  }

  /** Opens a window on `stream` (of id `id`); `perKernel` also times each launch on it. */
  start(stream: CudaStream, options: StartProfileOptions = {}, id?: StreamId): ProfilingToken {
    const perKernel = options.perKernel ?? false;
    if (typeof perKernel !== "boolean") throw new TypeError("perKernel must be a boolean");
    const startedAt = performance.now();
    const event = this.#record(stream);
    const token = this.#next++;
    this.#windows.set(token, {
      start: event,
      stream,
      id,
      startedAt,
      kernels: perKernel ? [] : undefined,
    });
    if (perKernel) this.#perKernel++;
    return { id: token };
  }

  /**
   * Wraps one launch on `stream` in timing events when a per-kernel window is open on it: call
   * before the launch, and call the returned function after it (`undefined`: nothing to time).
   */
  timeLaunch(
    stream: CudaStream,
    id: StreamId,
    kernel: string,
    workgroups: readonly [number, number, number],
  ): (() => void) | undefined {
    if (this.#perKernel === 0) return undefined; // the common case: one comparison
    const windows = [...this.#windows.values()].filter((w) =>
      w.kernels !== undefined && w.stream === stream
    );
    const trace = this.#trace;
    if (windows.length === 0 && trace === undefined) return undefined;
    const timed: TimedLaunch = {
      kernel,
      stream: id,
      workgroups,
      before: this.#record(stream),
      after: null,
      refs: windows.length + (trace === undefined ? 0 : 1),
    };
    for (const window of windows) window.kernels!.push(timed);
    const submitted = trace?.kernel(timed);
    return () => {
      timed.after = this.#record(stream);
      submitted?.();
    };
  }

  /** Closes a window; `PROFILE_NOT_REGISTERED` for an unknown or closed token. */
  async end(stream: CudaStream, token: ProfilingToken, id?: StreamId): Promise<ProfileDuration> {
    const window = this.#windows.get(token?.id);
    if (window === undefined) {
      throw new ProfileNotRegisteredError(
        `Profiling token ${token?.id} is not an open window of this server`,
      );
    }
    if (window.stream !== stream) {
      // Timed from an event on one stream to one on another: a negative time, possibly.
      throw new ProfileNotRegisteredError(
        `Profiling token ${token.id} was opened on stream ${window.id}, not on stream ${id}`,
      );
    }
    this.#windows.delete(token.id);
    if (window.kernels !== undefined) this.#perKernel--;
    const { start } = window;
    const end = this.#record(stream);
    await waitForEvent(this.#driver, end, { ...this.#wait, what: "the profiling window's end" });
    const milliseconds = this.#elapsed(start, end);
    this.#free.push(start, end);
    if (window.kernels === undefined) return { milliseconds, timing: "device" };
    const kernels: KernelTiming[] = [];
    for (const timed of window.kernels) {
      if (timed.after !== null) {
        const from = window.startedAt + this.#elapsed(start, timed.before);
        const to = window.startedAt + this.#elapsed(start, timed.after);
        const { kernel, stream, workgroups } = timed;
        kernels.push({ kernel, stream, start: from, end: Math.max(from, to), workgroups });
      }
      this.#release(timed);
    }
    return { milliseconds, timing: "device", kernels };
  }

  /** Drops one reference to a launch's events; the last returns them to the pool. */
  #release(timed: TimedLaunch): void {
    if (--timed.refs > 0) return;
    this.#free.push(timed.before);
    if (timed.after !== null) this.#free.push(timed.after);
  }

  #elapsed(from: Deno.PointerValue, to: Deno.PointerValue): number {
    // Called after host waits, from the event loop: a wait that saw its event complete resumes
    // after a destroy() made meanwhile, which destroyed the events (a use after free otherwise).
    if (this.#wait.owner?.destroyed) {
      throw new DestroyedError("The CUDA server was destroyed during a host wait");
    }
    this.#wait.owner?.bind();
    const ms = new Float32Array(1);
    const { symbols } = this.#driver;
    const elapsed = symbols.cuEventElapsedTime_v2 ?? symbols.cuEventElapsedTime;
    this.#driver.check(elapsed(ms, from, to), "cuEventElapsedTime");
    return ms[0];
  }

  /** Destroys every timing event. */
  destroy(): void {
    for (const event of this.#all) this.#driver.symbols.cuEventDestroy_v2(event);
    this.#all.length = 0;
    this.#free.length = 0;
    this.#windows.clear();
    this.#perKernel = 0;
    this.#trace = undefined;
  }

  #record(stream: CudaStream): Deno.PointerValue {
    const { symbols, out64 } = this.#driver;
    let event = this.#free.pop();
    if (event === undefined) {
      this.#driver.check(symbols.cuEventCreate(out64, 0), "cuEventCreate(timing)");
      event = this.#driver.pointerAt();
      this.#all.push(event);
    }
    const result = symbols.cuEventRecord(event, stream.handle);
    if (result !== CUDA_SUCCESS) {
      this.#free.push(event);
      // A stream after a sticky fault refuses the window as it refuses launches and copies.
      const health = symbols.cuStreamQuery(stream.handle);
      if (health !== CUDA_SUCCESS && health !== CUDA_ERROR_NOT_READY) {
        throw unhealthy(
          stream.index,
          this.#driver.error(health, `cuStreamQuery(stream ${stream.index})`),
        );
      }
      throw this.#driver.error(result, `cuEventRecord(timing, stream ${stream.index})`);
    }
    return event;
  }
}
