/**
 * Kernel vocabulary shared by every layer: what a kernel exposes to a server, how it runs, and
 * how new allocations are placed.
 *
 * @module
 */

/**
 * Whether kernels run with bounds checks (`checked`) or may read and write out of bounds.
 *
 * @example
 * ```ts
 * import type { ExecutionMode } from "@gpucompute/runtime/backend";
 * const mode: ExecutionMode = "checked";
 * ```
 */
export type ExecutionMode = "checked" | "unchecked";

/**
 * How new allocations are placed: `auto` uses the dynamic pools; `persistent` places them in a
 * pool that automatic cleanup never shrinks (for long-lived data such as weights).
 *
 * @example
 * ```ts
 * import type { MemoryAllocationMode } from "@gpucompute/runtime/backend";
 * const mode: MemoryAllocationMode = "persistent";
 * ```
 */
export type MemoryAllocationMode = "auto" | "persistent";

/**
 * What every kernel type exposes to the server: an optional id that names it in errors, logs and
 * profiles. Backends identify a compiled program by its source as well, so reusing an id with
 * another program never runs the old one.
 *
 * @example
 * ```ts
 * import type { KernelMetadata } from "@gpucompute/runtime/backend";
 * const kernel: KernelMetadata = { id: "scale_f32" };
 * ```
 */
export interface KernelMetadata {
  /** Name of the kernel in errors and logs. */
  readonly id?: string;
}

/**
 * One value of a named kernel parameter: a number (or a bigint for an integer) for a scalar, an array
 * (or a typed array) for a vector, matrix (column-major) or array, an object for a nested struct. A
 * CUDA struct or vector type by value also takes its exact bytes (a `Uint8Array` of its size), and a
 * CUDA `bool` takes `true` or `false` (WGSL has no bool a host can write: a number there).
 *
 * @example
 * ```ts
 * import type { ParamValue } from "@gpucompute/runtime/backend";
 * const color: ParamValue = [1, 0.5, 0, 1]; // a vec4f
 * ```
 */
export type ParamValue =
  | number
  | bigint
  | boolean
  | readonly ParamValue[]
  | ArrayBufferView
  | { readonly [field: string]: ParamValue };

/**
 * Named kernel parameters: the fields of the kernel's uniform struct by name (or, when a kernel
 * declares several uniforms or a non-struct one, the uniform variables by name).
 *
 * @example
 * ```ts
 * import type { KernelParams } from "@gpucompute/runtime";
 * const params: KernelParams = { a: 2.5, n: 1024 };
 * ```
 */
export type KernelParams = { readonly [name: string]: ParamValue };
