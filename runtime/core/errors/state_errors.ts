/**
 * Errors of the runtime's state and its devices: something destroyed, a device lost or missing,
 * a wait that timed out or was aborted, a driver failure, a stream left unhealthy, a profiling
 * token or a trace used out of turn. One class per failure, each with its literal `code`.
 *
 * @module
 */

import { ComputeError } from "./compute_error.ts";

/**
 * A server, client, device or signal was used (or was being waited on) after `destroy()`.
 *
 * @example
 * ```ts
 * import { DestroyedError } from "@gpucompute/runtime";
 * const error = new DestroyedError("The WebGPU server was destroyed");
 * console.log(error.code); // DESTROYED
 * ```
 */
export class DestroyedError extends ComputeError {
  /** Always `"DESTROYED"`. */
  declare readonly code: "DESTROYED";
  /** Creates the error with a message that names what was destroyed. */
  constructor(message: string, options?: ErrorOptions) {
    super("DESTROYED", message, options);
    this.name = "DestroyedError";
  }
}

/**
 * The device went away (WebGPU device loss, or a device destroyed by its owner): pending
 * reads, syncs and profiles settle with it, and later calls throw it.
 *
 * @example
 * ```ts
 * import { DeviceLostError } from "@gpucompute/runtime";
 * const error = new DeviceLostError("The WebGPU device was lost (destroyed)");
 * console.log(error.code); // DEVICE_LOST
 * ```
 */
export class DeviceLostError extends ComputeError {
  /** Always `"DEVICE_LOST"`. */
  declare readonly code: "DEVICE_LOST";
  /** Creates the error with a message that gives the reason the device reported. */
  constructor(message: string, options?: ErrorOptions) {
    super("DEVICE_LOST", message, options);
    this.name = "DeviceLostError";
  }
}

/**
 * No WebGPU adapter is available on this machine (`navigator.gpu.requestAdapter()` gave none), or
 * the adapter asked for (a `listDevices()` entry) is no longer offered.
 *
 * @example
 * ```ts
 * import { NoAdapterError } from "@gpucompute/runtime";
 * const error = new NoAdapterError("No WebGPU adapter is available on this machine");
 * console.log(error.code); // NO_ADAPTER
 * ```
 */
export class NoAdapterError extends ComputeError {
  /** Always `"NO_ADAPTER"`. */
  declare readonly code: "NO_ADAPTER";
  /** Creates the error with a message that says what was asked for. */
  constructor(message: string, options?: ErrorOptions) {
    super("NO_ADAPTER", message, options);
    this.name = "NoAdapterError";
  }
}

/**
 * A backend cannot be used on this machine: its library is missing, or it found no device.
 * `tried` lists what was looked for (library paths, device ordinals), in order.
 *
 * @example
 * ```ts
 * import { BackendUnavailableError } from "@gpucompute/runtime/backend";
 * const error = new BackendUnavailableError("cuda", "no CUDA driver library", ["libcuda.so.1"]);
 * console.log(error.code, error.tried); // BACKEND_UNAVAILABLE [ "libcuda.so.1" ]
 * ```
 */
export class BackendUnavailableError extends ComputeError {
  /** Always `"BACKEND_UNAVAILABLE"`. */
  declare readonly code: "BACKEND_UNAVAILABLE";
  /** The backend asked for. */
  readonly backend: string;
  /** What was looked for, in order. */
  readonly tried: readonly string[];
  /** Creates the error: the backend, why it is unavailable, and what was tried. */
  constructor(backend: string, reason: string, tried: readonly string[], options?: ErrorOptions) {
    const looked = tried.length === 0 ? "" : ` (looked for ${tried.join(", ")})`;
    super(
      "BACKEND_UNAVAILABLE",
      `The ${backend} backend is unavailable: ${reason}${looked}`,
      options,
    );
    this.name = "BackendUnavailableError";
    this.backend = backend;
    this.tried = [...tried];
  }
}

/**
 * A wait gave up: `what` was asked for, `limitMs` is the timeout it ran under, and `current`
 * describes where things stood when it gave up.
 *
 * @example
 * ```ts
 * import { TimeoutError } from "@gpucompute/runtime/sync";
 * const error = new TimeoutError("timeline value 10", 50, "the signal is at 3");
 * console.log(error.message); // Timed out after 50 ms waiting for timeline value 10: the signal is at 3
 * ```
 */
export class TimeoutError extends ComputeError {
  /** Always `"TIMEOUT"`. */
  declare readonly code: "TIMEOUT";
  /** The timeout, in milliseconds. */
  readonly limitMs: number;
  /** Creates the error from what was awaited, the timeout and the state reached. */
  constructor(what: string, limitMs: number, current: string, options?: ErrorOptions) {
    super("TIMEOUT", `Timed out after ${limitMs} ms waiting for ${what}: ${current}`, options);
    this.name = "TimeoutError";
    this.limitMs = limitMs;
  }
}

/**
 * A call held by `waitFor` did not run: the wait that held its stream failed (a timeout, an
 * abort, the producer's error). `cause` holds that failure.
 *
 * @example
 * ```ts
 * import { AbortedError } from "@gpucompute/runtime";
 * const error = new AbortedError("The wait of stream 1 for timeline value 3 failed");
 * console.log(error.code); // ABORTED
 * ```
 */
export class AbortedError extends ComputeError {
  /** Always `"ABORTED"`. */
  declare readonly code: "ABORTED";
  /** Creates the error with a message that names the stream and the value waited for. */
  constructor(message: string, options?: ErrorOptions) {
    super("ABORTED", message, options);
    this.name = "AbortedError";
  }
}

/**
 * The operation cannot be served yet: work it depends on has not reached the device (WebGPU
 * holds submissions back until a kernel's validation arrives). Await `sync` and retry.
 *
 * @example
 * ```ts
 * import { NotReadyError } from "@gpucompute/runtime/backend";
 * const error = new NotReadyError("Submissions wait for the validation of a kernel");
 * console.log(error.code); // NOT_READY
 * ```
 */
export class NotReadyError extends ComputeError {
  /** Always `"NOT_READY"`. */
  declare readonly code: "NOT_READY";
  /** Creates the error with a message that says what to wait for. */
  constructor(message: string, options?: ErrorOptions) {
    super("NOT_READY", message, options);
    this.name = "NotReadyError";
  }
}

/**
 * The driver (the WebGPU implementation, the CUDA driver or NVRTC) rejected or failed an
 * operation; the message names the operation and gives the driver's own text.
 *
 * @example
 * ```ts
 * import { DriverError } from "@gpucompute/runtime";
 * const error = new DriverError("A WebGPU submission was rejected: invalid bind group");
 * console.log(error.code); // DRIVER
 * ```
 */
export class DriverError extends ComputeError {
  /** Always `"DRIVER"`. */
  declare readonly code: "DRIVER";
  /** Creates the error with a message that names the operation and the driver's text. */
  constructor(message: string, options?: ErrorOptions) {
    super("DRIVER", message, options);
    this.name = "DriverError";
  }
}

/**
 * A failure the runtime could not classify (a non-runtime error thrown by a backend callback,
 * for example); `cause` holds the original.
 *
 * @example
 * ```ts
 * import { UnknownError } from "@gpucompute/runtime/backend";
 * const error = new UnknownError("A GC wait failed: boom");
 * console.log(error.code); // UNKNOWN
 * ```
 */
export class UnknownError extends ComputeError {
  /** Always `"UNKNOWN"`. */
  declare readonly code: "UNKNOWN";
  /** Creates the error with a message and the original failure as `cause`. */
  constructor(message: string, options?: ErrorOptions) {
    super("UNKNOWN", message, options);
    this.name = "UnknownError";
  }
}

/**
 * A stream refused work because an earlier error left it unhealthy: a kernel fault the driver
 * keeps (CUDA's sticky errors) or a failed wait on its work. `cause` holds that earlier error
 * when it is known.
 *
 * @example
 * ```ts
 * import { StreamUnhealthyError } from "@gpucompute/runtime/backend";
 * console.log(new StreamUnhealthyError(3).message);
 * ```
 */
export class StreamUnhealthyError extends ComputeError {
  /** Always `"STREAM_UNHEALTHY"`. */
  declare readonly code: "STREAM_UNHEALTHY";
  /** The stream that refused the work. */
  readonly stream: number;
  /** Creates the error for a stream id; `options.message` replaces the default message. */
  constructor(stream: number, options?: ErrorOptions & { message?: string }) {
    super(
      "STREAM_UNHEALTHY",
      options?.message ?? `Stream ${stream} is unhealthy: an earlier error on it refuses new work`,
      options,
    );
    this.name = "StreamUnhealthyError";
    this.stream = stream;
  }
}

/**
 * A backend called `MultiStream.order` while the stream of an earlier `order` was not finished:
 * order, enqueue and finish must run without another `order` in between.
 *
 * @example
 * ```ts
 * import { OrderInProgressError } from "@gpucompute/runtime/backend";
 * console.log(new OrderInProgressError(2, 1).code); // ORDER_IN_PROGRESS
 * ```
 */
export class OrderInProgressError extends ComputeError {
  /** Always `"ORDER_IN_PROGRESS"`. */
  declare readonly code: "ORDER_IN_PROGRESS";
  /** The stream whose order was refused. */
  readonly stream: number;
  /** The stream whose order is still unfinished. */
  readonly openStream: number;
  /** Creates the error for the refused stream and the stream of the unfinished order. */
  constructor(stream: number, openStream: number, options?: ErrorOptions) {
    super(
      "ORDER_IN_PROGRESS",
      `Cannot order stream ${stream} while the order of stream ${openStream} is unfinished: ` +
        "enqueue its work and call finish() (or dispose it) first",
      options,
    );
    this.name = "OrderInProgressError";
    this.stream = stream;
    this.openStream = openStream;
  }
}

/**
 * A profiling token that is unknown or already closed was passed to `endProfile`, or
 * `stopTrace` was called while no trace was being recorded.
 *
 * @example
 * ```ts
 * import { ProfileNotRegisteredError } from "@gpucompute/runtime/backend";
 * const error = new ProfileNotRegisteredError("Profiling token 7 is unknown or already closed");
 * console.log(error.code); // PROFILE_NOT_REGISTERED
 * ```
 */
export class ProfileNotRegisteredError extends ComputeError {
  /** Always `"PROFILE_NOT_REGISTERED"`. */
  declare readonly code: "PROFILE_NOT_REGISTERED";
  /** Creates the error with a message that names the token. */
  constructor(message: string, options?: ErrorOptions) {
    super("PROFILE_NOT_REGISTERED", message, options);
    this.name = "ProfileNotRegisteredError";
  }
}

/**
 * A trace was started while another one was being recorded on the same server: one recording
 * at a time.
 *
 * @example
 * ```ts
 * import { TraceActiveError } from "@gpucompute/runtime/backend";
 * const error = new TraceActiveError("A trace is already being recorded on this server");
 * console.log(error.code); // TRACE_ACTIVE
 * ```
 */
export class TraceActiveError extends ComputeError {
  /** Always `"TRACE_ACTIVE"`. */
  declare readonly code: "TRACE_ACTIVE";
  /** Creates the error with a message that says a recording runs. */
  constructor(message: string, options?: ErrorOptions) {
    super("TRACE_ACTIVE", message, options);
    this.name = "TraceActiveError";
  }
}
