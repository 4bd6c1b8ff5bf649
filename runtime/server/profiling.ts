/**
 * The profiling vocabulary of the contract (`server.ts`): window tokens, durations and options.
 *
 * @module
 */

import type { KernelTiming } from "../core/trace.ts";

/**
 * Identifies one profiling window, so that windows can nest and overlap.
 *
 * @example
 * ```ts
 * import type { ProfilingToken } from "@gpucompute/runtime/backend";
 * const token: ProfilingToken = { id: 1 };
 * ```
 */
export interface ProfilingToken {
  /** Unique per server. */
  readonly id: number;
}

/**
 * The measured duration of a profiling window: the work its stream launched inside it.
 *
 * @example
 * ```ts
 * import type { ProfileDuration } from "@gpucompute/runtime/backend";
 * const show = (d: ProfileDuration) => `${d.milliseconds.toFixed(3)} ms (${d.timing})`;
 * ```
 */
export interface ProfileDuration {
  /** Duration in milliseconds. */
  readonly milliseconds: number;
  /**
   * `device`: the device timer. WebGPU sums the window's own compute passes; CUDA measures
   * between two events recorded on the stream when the window opens and closes, so the time the
   * stream sat idle in between (host work or a compile inside the profiled function) counts too
   * (`perKernel` gives each kernel's own time on both). `system`: wall clock from the window's
   * start to the completion of the submitted work, which may include other streams' work where
   * the device cannot tell streams apart (one WebGPU queue).
   */
  readonly timing: "device" | "system";
  /** With {@linkcode StartProfileOptions.perKernel}: each kernel the window launched, in launch order. */
  readonly kernels?: readonly KernelTiming[];
}

/**
 * Options of {@linkcode ComputeServer.startProfile}.
 *
 * @example
 * ```ts
 * import type { StartProfileOptions } from "@gpucompute/runtime/backend";
 * const options: StartProfileOptions = { perKernel: true };
 * ```
 */
export interface StartProfileOptions {
  /**
   * Time each kernel on its own (a compute pass or event pair per dispatch) and list them in
   * {@linkcode ProfileDuration.kernels}. Needs the device timer (`UNSUPPORTED` otherwise).
   * @default {false}
   */
  readonly perKernel?: boolean;
}
