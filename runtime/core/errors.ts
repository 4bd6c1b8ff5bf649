/**
 * Error classes of the runtime. Every domain error extends {@linkcode ComputeError} and carries a
 * literal `code`, so callers can branch with `instanceof` or with `switch (error.code)`. Bad
 * arguments (wrong type, out of range) are plain `TypeError` / `RangeError`, as in the platform.
 *
 * The I/O codes mirror CubeCL's `IoError` kinds (`BUFFER_TOO_BIG`, `UNSUPPORTED_STRIDES`,
 * `INVALID_HANDLE`, `UNKNOWN`, `UNSUPPORTED`); the rest are server, profiling,
 * device and autotuning (`TUNE_FAILED`, `TUNE_MISMATCH`) errors.
 *
 * @module
 */

import { formatBytes } from "./format_bytes.ts";

/** Every literal error code the runtime raises. */
export type ComputeErrorCode =
  | "BUFFER_TOO_BIG"
  | "UNSUPPORTED_STRIDES"
  | "INVALID_HANDLE"
  | "UNKNOWN"
  | "UNSUPPORTED"
  | "OUT_OF_MEMORY"
  | "STREAM_UNHEALTHY"
  | "RESOLVE_IN_PROGRESS"
  | "PROFILE_NOT_REGISTERED"
  | "TRACE_ACTIVE"
  | "DEVICE_LOST"
  | "NO_ADAPTER"
  | "COMPILATION"
  | "KERNEL_ARGUMENT"
  | "TIMEOUT"
  | "ABORTED"
  | "NOT_READY"
  | "DESTROYED"
  | "DRIVER"
  | "BACKEND_UNAVAILABLE"
  | "TUNE_FAILED"
  | "TUNE_MISMATCH";

/**
 * Base class of the runtime's domain errors.
 *
 * @example Branch on the code
 * ```ts
 * import { ComputeError } from "@gpucompute/runtime/backend";
 * try {
 *   throw new ComputeError("UNSUPPORTED", "Tensor maps are not supported by WebGPU");
 * } catch (error) {
 *   if (error instanceof ComputeError && error.code === "UNSUPPORTED") console.log(error.message);
 * }
 * ```
 */
export class ComputeError extends Error {
  /** The literal code of this error. */
  readonly code: ComputeErrorCode;

  /** Creates an error with a code, a message and an optional cause. */
  constructor(code: ComputeErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.name = "ComputeError";
  }
}

/**
 * A buffer larger than the device or pool allows was asked for.
 *
 * @example
 * ```ts
 * import { BufferTooBigError } from "@gpucompute/runtime/backend";
 * const error = new BufferTooBigError(9 * 2 ** 30, 2 ** 31);
 * console.log(error.message); // Cannot allocate 9 GiB as the limit is 2 GiB
 * ```
 */
export class BufferTooBigError extends ComputeError {
  /** Always `"BUFFER_TOO_BIG"`. */
  declare readonly code: "BUFFER_TOO_BIG";
  /** Bytes asked for. */
  readonly requested: number;
  /** The largest size allowed, in bytes. */
  readonly limit: number;

  /** Creates the error from the size asked for and the limit, both in bytes. */
  constructor(requested: number, limit: number, options?: ErrorOptions) {
    super(
      "BUFFER_TOO_BIG",
      `Cannot allocate ${formatBytes(requested)} as the limit is ${formatBytes(limit)}`,
      options,
    );
    this.name = "BufferTooBigError";
    this.requested = requested;
    this.limit = limit;
  }
}

/**
 * The storage behind a pool could not provide more memory.
 *
 * @example
 * ```ts
 * import { OutOfMemoryError } from "@gpucompute/runtime/backend";
 * console.log(new OutOfMemoryError("Cannot reserve 1 MiB: storage exhausted").code);
 * ```
 */
export class OutOfMemoryError extends ComputeError {
  /** Always `"OUT_OF_MEMORY"`. */
  declare readonly code: "OUT_OF_MEMORY";
  /** Creates the error with a message that names the size asked for. */
  constructor(message: string, options?: ErrorOptions) {
    super("OUT_OF_MEMORY", message, options);
    this.name = "OutOfMemoryError";
  }
}

/**
 * A handle or binding was used after its memory was released, or never belonged to this server.
 *
 * @example
 * ```ts
 * import { InvalidHandleError } from "@gpucompute/runtime/backend";
 * console.log(new InvalidHandleError("The handle was disposed").code); // INVALID_HANDLE
 * ```
 */
export class InvalidHandleError extends ComputeError {
  /** Always `"INVALID_HANDLE"`. */
  declare readonly code: "INVALID_HANDLE";
  /** Creates the error with a message that says which handle and why. */
  constructor(message: string, options?: ErrorOptions) {
    super("INVALID_HANDLE", message, options);
    this.name = "InvalidHandleError";
  }
}

/**
 * An optional operation, layout or feature that this backend does not implement.
 *
 * @example
 * ```ts
 * import { UnsupportedError } from "@gpucompute/runtime/backend";
 * console.log(new UnsupportedError("Strided reads are not supported").code); // UNSUPPORTED
 * ```
 */
export class UnsupportedError extends ComputeError {
  /** Creates the error; pass `"UNSUPPORTED_STRIDES"` for a layout the copy cannot handle. */
  constructor(
    message: string,
    code: "UNSUPPORTED" | "UNSUPPORTED_STRIDES" = "UNSUPPORTED",
    options?: ErrorOptions,
  ) {
    super(code, message, options);
    this.name = "UnsupportedError";
  }
}

/**
 * A stream refused work because an earlier error left it unhealthy. `cause` holds that earlier
 * error when it is known (for example the failed wait that poisoned the stream).
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
      options?.message ?? `Cannot resolve stream ${stream} since it is currently in an error state`,
      options,
    );
    this.name = "StreamUnhealthyError";
    this.stream = stream;
  }
}

/**
 * A backend called `MultiStream.resolve` while the streams of an earlier resolve were not
 * finished: resolve, enqueue and finish must run without another resolve in between.
 *
 * @example
 * ```ts
 * import { ResolveInProgressError } from "@gpucompute/runtime/backend";
 * console.log(new ResolveInProgressError(2, 1).code); // RESOLVE_IN_PROGRESS
 * ```
 */
export class ResolveInProgressError extends ComputeError {
  /** Always `"RESOLVE_IN_PROGRESS"`. */
  declare readonly code: "RESOLVE_IN_PROGRESS";
  /** The stream whose resolve was refused. */
  readonly stream: number;
  /** The stream whose resolve is still unfinished. */
  readonly openStream: number;
  /** Creates the error for the refused stream and the stream of the unfinished resolve. */
  constructor(stream: number, openStream: number, options?: ErrorOptions) {
    super(
      "RESOLVE_IN_PROGRESS",
      `Cannot resolve stream ${stream} while the resolve of stream ${openStream} is unfinished: ` +
        "enqueue its work and call finish() (or dispose it) first",
      options,
    );
    this.name = "ResolveInProgressError";
    this.stream = stream;
    this.openStream = openStream;
  }
}

/**
 * A shader or kernel failed to compile; `line` is set when the compiler reported one.
 *
 * @example
 * ```ts
 * import { CompilationError } from "@gpucompute/runtime/backend";
 * const error = new CompilationError("scale", "expected identifier", 3);
 * console.log(error.line, error.message);
 * ```
 */
export class CompilationError extends ComputeError {
  /** Always `"COMPILATION"`. */
  declare readonly code: "COMPILATION";
  /** The kernel id that failed. */
  readonly kernel: string;
  /** The compiler's message, unchanged. */
  readonly compilerMessage: string;
  /** The 1-based source line of the first error, when known. */
  readonly line: number | undefined;
  /** Creates the error from the kernel id, the compiler's message and its line. */
  constructor(kernel: string, compilerMessage: string, line?: number, options?: ErrorOptions) {
    const at = line === undefined ? "" : ` at line ${line}`;
    super("COMPILATION", `Kernel '${kernel}' failed to compile${at}: ${compilerMessage}`, options);
    this.name = "CompilationError";
    this.kernel = kernel;
    this.compilerMessage = compilerMessage;
    this.line = line;
  }
}

/**
 * A launch does not match what its kernel declares: a storage buffer missing or too small for
 * the WGSL type, a named parameter missing, unknown or out of range, a thread count the kernel
 * cannot cover. `argument` names the offending part (`"params.n"`, `"buffers[2]"`, `"threads"`).
 * Raised before anything is enqueued.
 *
 * @example
 * ```ts
 * import { KernelArgumentError } from "@gpucompute/runtime";
 * const error = new KernelArgumentError("saxpy", "params.n", "is missing (u32 at byte 4)");
 * console.log(error.argument, error.message); // params.n Kernel 'saxpy': params.n is missing (u32 at byte 4)
 * ```
 */
export class KernelArgumentError extends ComputeError {
  /** Always `"KERNEL_ARGUMENT"`. */
  declare readonly code: "KERNEL_ARGUMENT";
  /** The kernel id (or entry point when the kernel has no id). */
  readonly kernel: string;
  /** The offending argument, e.g. `"params.n"` or `"buffers[1]"`. */
  readonly argument: string;
  /** Creates the error: `Kernel '<kernel>': <argument> <problem>`. */
  constructor(kernel: string, argument: string, problem: string, options?: ErrorOptions) {
    super("KERNEL_ARGUMENT", `Kernel '${kernel}': ${argument} ${problem}`, options);
    this.name = "KernelArgumentError";
    this.kernel = kernel;
    this.argument = argument;
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
 * Any other runtime failure with a code: `DEVICE_LOST`, `NO_ADAPTER`, `TIMEOUT`, `ABORTED` (a
 * wait that a stream was held by failed), `DESTROYED`,
 * `DRIVER`, `PROFILE_NOT_REGISTERED`, `TRACE_ACTIVE` or `UNKNOWN`.
 *
 * @example
 * ```ts
 * import { RuntimeError } from "@gpucompute/runtime/backend";
 * const error = new RuntimeError("DESTROYED", "The server was destroyed");
 * console.log(error.code);
 * ```
 */
export class RuntimeError extends ComputeError {
  /** Creates the error with its code and message. */
  constructor(
    code:
      | "DEVICE_LOST"
      | "NO_ADAPTER"
      | "TIMEOUT"
      | "ABORTED"
      | "NOT_READY"
      | "DESTROYED"
      | "DRIVER"
      | "PROFILE_NOT_REGISTERED"
      | "TRACE_ACTIVE"
      | "UNKNOWN",
    message: string,
    options?: ErrorOptions,
  ) {
    super(code, message, options);
    this.name = "RuntimeError";
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
