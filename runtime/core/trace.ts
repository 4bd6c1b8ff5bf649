/**
 * The timeline vocabulary shared by every backend and by the trace writers: per-kernel timings
 * and the events of a recorded {@linkcode Trace}.
 *
 * Every time is in milliseconds on the host clock (`performance.now()`). Backends convert device
 * timestamps to it: a device time `d` becomes `d - offset`, where `offset` is the smallest
 * `(device begin - host submit)` seen over the timed work (device work never starts before the
 * host submitted it, so the tightest submission is the best bound). Host and device events of one
 * trace therefore share one axis; device times may sit a little late, never early.
 *
 * @module
 */

import type { StreamId } from "./stream_id.ts";

/**
 * One kernel launch timed on its own: the kernel id, its stream, device start and end (aligned to
 * the host clock, in ms) and its workgroup count (`undefined` for an indirect count).
 *
 * @example
 * ```ts
 * import type { KernelTiming } from "@gpucompute/runtime/trace";
 * const show = (k: KernelTiming) => `${k.kernel} on ${k.stream}: ${(k.end - k.start).toFixed(3)} ms`;
 * ```
 */
export interface KernelTiming {
  /** The kernel's id. */
  readonly kernel: string;
  /** The stream that launched it. */
  readonly stream: StreamId;
  /** Device start, in host-clock milliseconds. */
  readonly start: number;
  /** Device end, in host-clock milliseconds. */
  readonly end: number;
  /** Workgroups (cubes) dispatched, or `undefined` for an indirect (device-side) count. */
  readonly workgroups: readonly [number, number, number] | undefined;
}

/**
 * A kernel in a trace: its timing, when the host launched it and the submission that carried it.
 *
 * @example
 * ```ts
 * import type { TraceKernel } from "@gpucompute/runtime/trace";
 * const queued = (k: TraceKernel) => k.start - k.launched;
 * ```
 */
export interface TraceKernel extends KernelTiming {
  /** Discriminant. */
  readonly type: "kernel";
  /** Host time of the launch call. */
  readonly launched: number;
  /** Id of the submission that carried it (`-1` if it was never submitted). */
  readonly submission: number;
}

/**
 * A copy (a write, or the copy of a read into host-visible memory), at the time it was launched.
 * Copies are not timed on the device: WebGPU has no timestamps outside compute passes.
 *
 * @example
 * ```ts
 * import type { TraceCopy } from "@gpucompute/runtime/trace";
 * const label = (c: TraceCopy) => `${c.kind} ${c.bytes} B`;
 * ```
 */
export interface TraceCopy {
  /** Discriminant. */
  readonly type: "copy";
  /** `write` (host to device) or `read` (device to staging). */
  readonly kind: "write" | "read";
  /** The stream that launched it. */
  readonly stream: StreamId;
  /** Bytes copied. */
  readonly bytes: number;
  /** Host time of the launch call. */
  readonly launched: number;
  /** Id of the submission that carried it (`-1` if it was never submitted). */
  readonly submission: number;
}

/**
 * A host span: a read (from the call to the bytes, `mapStart` marks the wait for the mapping) or
 * a sync (from the call to the completion of the work).
 *
 * @example
 * ```ts
 * import type { TraceSpan } from "@gpucompute/runtime/trace";
 * const waited = (s: TraceSpan) => s.end - (s.mapStart ?? s.start);
 * ```
 */
export interface TraceSpan {
  /** Discriminant. */
  readonly type: "read" | "sync";
  /** The stream of the call. */
  readonly stream: StreamId;
  /** Host time of the call. */
  readonly start: number;
  /** Host time the call completed. */
  readonly end: number;
  /** Reads: host time the wait for the mapping began. */
  readonly mapStart?: number;
  /** Reads: bytes read. */
  readonly bytes?: number;
}

/**
 * A cross-stream wait: work launched on `stream` at `at` uses memory that stream `on` used last
 * (read after write, or write after read), so the runtime ordered it after `on`'s work.
 *
 * @example
 * ```ts
 * import type { TraceWait } from "@gpucompute/runtime/trace";
 * const arrow = (w: TraceWait) => `${w.on} -> ${w.stream}`;
 * ```
 */
export interface TraceWait {
  /** Discriminant. */
  readonly type: "wait";
  /** The waiting stream. */
  readonly stream: StreamId;
  /** The stream waited on. */
  readonly on: StreamId;
  /** Host time of the launch that waits. */
  readonly at: number;
}

/**
 * One submission to the device queue and what it carried.
 *
 * @example
 * ```ts
 * import type { TraceSubmit } from "@gpucompute/runtime/trace";
 * const size = (s: TraceSubmit) => s.kernels + s.copies;
 * ```
 */
export interface TraceSubmit {
  /** Discriminant. */
  readonly type: "submit";
  /** Submission id, increasing from 0 within the trace. */
  readonly id: number;
  /** Host time of the submission. */
  readonly at: number;
  /** Streams whose work it carried. */
  readonly streams: readonly StreamId[];
  /** Kernels it carried. */
  readonly kernels: number;
  /** Copies it carried. */
  readonly copies: number;
}

/**
 * A sample of the memory counter.
 *
 * @example
 * ```ts
 * import type { TraceMemory } from "@gpucompute/runtime/trace";
 * const free = (m: TraceMemory) => m.reserved - m.inUse;
 * ```
 */
export interface TraceMemory {
  /** Discriminant. */
  readonly type: "memory";
  /** Host time of the sample. */
  readonly at: number;
  /** Bytes in use by live allocations. */
  readonly inUse: number;
  /** Bytes reserved from the device. */
  readonly reserved: number;
}

/**
 * Any event of a trace.
 *
 * @example
 * ```ts
 * import type { TraceEvent } from "@gpucompute/runtime/trace";
 * const kernels = (events: TraceEvent[]) => events.filter((e) => e.type === "kernel").length;
 * ```
 */
export type TraceEvent =
  | TraceKernel
  | TraceCopy
  | TraceSpan
  | TraceWait
  | TraceSubmit
  | TraceMemory;

/**
 * A recorded timeline: what ran where and when, on the host clock.
 *
 * @example
 * ```ts
 * import type { Trace } from "@gpucompute/runtime/trace";
 * const seconds = (trace: Trace) => (trace.end - trace.start) / 1000;
 * ```
 */
export interface Trace {
  /** The backend that recorded it (`webgpu`, `cuda`...). */
  readonly backend: string;
  /** The device name. */
  readonly device: string;
  /** `device`: kernel times from the device timer; `system`: only host times were known. */
  readonly timing: "device" | "system";
  /** Host time the recording started. */
  readonly start: number;
  /** Host time the recording stopped. */
  readonly end: number;
  /** The events, in the order they were recorded. */
  readonly events: readonly TraceEvent[];
}

/**
 * Options of `ComputeClient.profile`.
 *
 * @example
 * ```ts
 * import type { ProfileOptions } from "@gpucompute/runtime/trace";
 * const options: ProfileOptions = { stream: 2, perKernel: true };
 * ```
 */
export interface ProfileOptions {
  /**
   * The stream to profile; `fn` runs with it as the current stream.
   * @default {currentStreamId()}
   */
  stream?: StreamId;
  /**
   * Time every kernel on its own and list them in `duration.kernels` (one compute pass per
   * dispatch on WebGPU, so the total may grow a little). Needs the device timer.
   * @default {false}
   */
  perKernel?: boolean;
}

/**
 * A running timeline recording, from `ComputeClient.trace`. Stop it to get the
 * {@linkcode Trace}; `await using` stops it (and drops the trace) on scope exit.
 *
 * @example
 * ```ts ignore
 * import { createClient } from "@gpucompute/runtime";
 * import { type TraceRecorder, toChromeTrace } from "@gpucompute/runtime/trace";
 * using client = await createClient();
 * const recorder: TraceRecorder = client.trace();
 * // ... launch work on any streams ...
 * const trace = await recorder.stop();
 * await Deno.writeTextFile("run.trace.json", JSON.stringify(toChromeTrace(trace)));
 * ```
 */
export interface TraceRecorder extends AsyncDisposable {
  /** True until {@linkcode stop} is called. */
  readonly recording: boolean;
  /** Stops recording (once; later calls return the same promise) and returns the trace. */
  stop(): Promise<Trace>;
}
