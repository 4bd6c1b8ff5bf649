/**
 * Errors of a request the runtime cannot serve as asked: a size over the limit, memory exhausted,
 * a handle used after dispose, an operation a backend lacks, a kernel that does not compile or a
 * launch that does not match its kernel. The codes mirror CubeCL's `IoError` kinds where they
 * exist (`BUFFER_TOO_BIG`, `UNSUPPORTED_STRIDES`, `INVALID_HANDLE`, `UNSUPPORTED`).
 *
 * @module
 */

import { ComputeError } from "./compute_error.ts";
import { formatBytes } from "../format_bytes.ts";

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

  /**
   * Creates the error from the size asked for and the limit, both in bytes (exact where the
   * rounded sizes read alike), and optionally what the caller asked for in its own terms.
   */
  constructor(requested: number, limit: number, options?: ErrorOptions & { detail?: string }) {
    const [a, b] = [formatBytes(requested), formatBytes(limit)];
    const sizes = a === b ? [`${requested} bytes`, `${limit} bytes`] : [a, b];
    super(
      "BUFFER_TOO_BIG",
      `Cannot allocate ${sizes[0]} as the limit is ${sizes[1]}` +
        (options?.detail === undefined ? "" : `: ${options.detail}`),
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
 * A handle or its ref was used after its memory was released, or never belonged to this server.
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
  /**
   * Creates the error; pass `"UNSUPPORTED_STRIDES"` for a layout the copy cannot handle,
   * `"CAPTURE_UNSUPPORTED"` for a call a launch capture refuses (`ComputeClient.capture`).
   */
  constructor(
    message: string,
    code: "UNSUPPORTED" | "UNSUPPORTED_STRIDES" | "CAPTURE_UNSUPPORTED" = "UNSUPPORTED",
    options?: ErrorOptions,
  ) {
    super(code, message, options);
    this.name = "UnsupportedError";
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
