/**
 * Every error class of the runtime. Each failure has its own class under
 * {@linkcode ComputeError}, with a literal `code` (the API for `switch` statements):
 *
 * - requests the runtime cannot serve as asked (`request_errors.ts`): `BUFFER_TOO_BIG`,
 *   `OUT_OF_MEMORY`, `INVALID_HANDLE`, `UNSUPPORTED` / `UNSUPPORTED_STRIDES`, `COMPILATION`,
 *   `KERNEL_ARGUMENT`;
 * - the state of the runtime and its devices (`state_errors.ts`): `DESTROYED`, `DEVICE_LOST`,
 *   `NO_ADAPTER`, `BACKEND_UNAVAILABLE`, `TIMEOUT`, `ABORTED`, `NOT_READY`, `DRIVER`, `UNKNOWN`,
 *   `STREAM_UNHEALTHY`, `ORDER_IN_PROGRESS`, `PROFILE_NOT_REGISTERED`, `TRACE_ACTIVE`;
 * - autotuning (`runtime/tune/errors.ts`): `TUNE_FAILED`, `TUNE_MISMATCH`.
 *
 * Bad arguments (wrong type, out of range) are plain `TypeError` / `RangeError`.
 *
 * @module
 */

export { ComputeError, type ComputeErrorCode } from "./errors/compute_error.ts";
export * from "./errors/request_errors.ts";
export * from "./errors/state_errors.ts";
