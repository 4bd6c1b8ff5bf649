/**
 * The kernel type of the WebGPU backend: a WGSL compute shader and what identifies it.
 *
 * A kernel's buffers map in order to `@group(0) @binding(i)`; when the launch has metadata or
 * scalars, ONE info buffer is bound right after them. Buffer bindings must be
 * `var<storage, read_write>`: slices of one pool page share a `GPUBuffer`, and WebGPU forbids
 * read-only and writable use of one buffer within a dispatch. The info binding may be
 * `var<storage, read>` or `var<uniform>`.
 *
 * @module
 */

import type { KernelMetadata } from "../../core/kernel.ts";

/**
 * A compute kernel written in WGSL.
 *
 * @example
 * ```ts
 * import type { WgslKernel } from "@gpucompute/runtime";
 * const double: WgslKernel = {
 *   id: "double_f32",
 *   entryPoint: "main",
 *   workgroupSize: [64, 1, 1],
 *   source: `@group(0) @binding(0) var<storage, read_write> a: array<f32>;
 * @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) {
 *   if (id.x < arrayLength(&a)) { a[id.x] *= 2.0; }
 * }`,
 * };
 * ```
 */
export interface WgslKernel extends KernelMetadata {
  /** Stable id: the pipeline cache key. */
  readonly id: string;
  /** WGSL source. */
  readonly source: string;
  /** Name of the `@compute` entry point. */
  readonly entryPoint: string;
  /** The `@workgroup_size` of the entry point, checked against the device limits. */
  readonly workgroupSize: readonly [number, number, number];
}
