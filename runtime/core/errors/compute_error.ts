/**
 * The base of the runtime's domain errors: {@linkcode ComputeError} and its literal codes. Every
 * failure has a class of its own (see `errors.ts`), so callers can branch with `instanceof` or
 * with `switch (error.code)`. Bad arguments (wrong type, out of range) are plain `TypeError` /
 * `RangeError`, as in the platform.
 *
 * @module
 */

/**
 * Every literal error code the runtime raises.
 *
 * @example
 * ```ts
 * import { type ComputeErrorCode, InvalidHandleError } from "@gpucompute/runtime/backend";
 * const code: ComputeErrorCode = new InvalidHandleError("The handle was disposed").code;
 * console.log(code); // INVALID_HANDLE
 * ```
 */
export type ComputeErrorCode =
  | "BUFFER_TOO_BIG"
  | "UNSUPPORTED_STRIDES"
  | "INVALID_HANDLE"
  | "UNKNOWN"
  | "UNSUPPORTED"
  | "CAPTURE_UNSUPPORTED"
  | "OUT_OF_MEMORY"
  | "STREAM_UNHEALTHY"
  | "ORDER_IN_PROGRESS"
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
