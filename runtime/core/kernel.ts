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
 * What every kernel type exposes to the server: a stable id used to cache compiled pipelines.
 *
 * @example
 * ```ts
 * import type { KernelMetadata } from "@gpucompute/runtime/backend";
 * const kernel: KernelMetadata = { id: "scale_f32" };
 * ```
 */
export interface KernelMetadata {
  /** Stable id; two kernels with the same id must compile to the same program. */
  readonly id: string;
}
