/**
 * The public face of the WebGPU profiler: per-stream windows measured with `timestamp-query`
 * (or the wall clock without it) and trace recordings. A {@linkcode WebGpuServer} owns one and
 * drives it from `startProfile` / `endProfile` / `startTrace` / `stopTrace`; a profiler built by
 * hand measures only the passes an encoder asks it to time, so most programs use
 * `client.profile()` and `client.trace()` instead. The design (one stream's work per compute
 * pass, query slots recycled per window, clock alignment) is documented in `_profile_windows.ts`.
 *
 * @module
 */

import type { StreamId } from "../../../core/stream_id.ts";
import type { Trace } from "../../../core/trace.ts";
import type { ProfileDuration, ProfilingToken, StartProfileOptions } from "../../server.ts";
import { ProfilerCore } from "./_profile_windows.ts";

/**
 * Opens and closes per-stream profiling windows and trace recordings; reports device or
 * wall-clock durations in milliseconds.
 *
 * @example
 * ```ts
 * import { WebGpuProfiler } from "@gpucompute/runtime/webgpu";
 * const device = await (await navigator.gpu.requestAdapter())!.requestDevice();
 * using profiler = new WebGpuProfiler(device, { timestamps: false });
 * const token = profiler.start(0);
 * const duration = await profiler.end(token);
 * console.log(duration.milliseconds, duration.timing);
 * ```
 */
export class WebGpuProfiler implements Disposable {
  readonly #core: ProfilerCore;

  /** Creates the profiler; `timestamps` requires the device's `timestamp-query` feature. */
  constructor(device: GPUDevice, options: { timestamps: boolean }) {
    this.#core = new ProfilerCore(device, options);
  }

  /** True when durations come from the device timer. */
  get deviceTimer(): boolean {
    return this.#core.deviceTimer;
  }

  /** Number of open windows (a trace counts as one). */
  get open(): number {
    return this.#core.open;
  }

  /** Buffers mapped to read timestamps. */
  get maps(): number {
    return this.#core.maps;
  }

  /** Timestamp query sets created (bounded by the passes in flight, not by history). */
  get querySets(): number {
    return this.#core.querySets;
  }

  /** True after {@linkcode destroy}. */
  get destroyed(): boolean {
    return this.#core.destroyed;
  }

  /** Opens a window on `stream`. Per-kernel mode needs the device timer (`UNSUPPORTED`). */
  start(stream: StreamId, options?: StartProfileOptions): ProfilingToken {
    return this.#core.start(stream, options);
  }

  /** Closes a window and measures it; `PROFILE_NOT_REGISTERED` for an unknown token. */
  end(token: ProfilingToken): Promise<ProfileDuration> {
    return this.#core.end(token);
  }

  /** Starts a trace recording (`TRACE_ACTIVE` if one runs). */
  startTrace(): void {
    this.#core.startTrace();
  }

  /** Stops the recording (`PROFILE_NOT_REGISTERED` if none runs) and returns it. */
  stopTrace(info: Pick<Trace, "backend" | "device">): Promise<Trace> {
    return this.#core.stopTrace(info);
  }

  /** Destroys the query sets. Idempotent. */
  destroy(): void {
    this.#core.destroy();
  }

  /** Same as {@linkcode destroy}. */
  [Symbol.dispose](): void {
    this.destroy();
  }
}
