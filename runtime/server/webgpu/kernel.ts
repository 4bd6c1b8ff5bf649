/**
 * The kernel type of the WebGPU backend: a WGSL compute shader. Everything else comes from the
 * WGSL itself (reflected with `wgsl_reflect`):
 *
 * - the entry point (the only `@compute` function, or the one named by `entryPoint`);
 * - the workgroup size (`@workgroup_size`, override defaults resolved);
 * - the bindings, all in `@group(0)`: the launch's `buffers` fill the `var<storage>` bindings in
 *   binding order, `params` fill the `var<uniform>` ones by name (see `ExecuteOptions.params`).
 *   `var<storage, read>` and `var<storage, read_write>` both work, on any handles.
 *
 * The pipeline cache keys on the id, the entry point AND the source: a kernel object built anew
 * for each launch costs a map lookup, and reusing an id with other WGSL compiles the new source.
 *
 * Generated kernels may instead take CubeCL's info buffer (metadata and scalars by type, see
 * `packInfo` in `@gpucompute/runtime/webgpu`): it is bound to the module's LAST binding, after
 * the buffers, which must be an array of words (`var<storage, read> info: array<u32>`).
 *
 * @module
 */

import type { KernelMetadata } from "../../core/kernel.ts";

/**
 * A compute kernel written in WGSL.
 *
 * @example SAXPY with a read-only input and named parameters
 * ```ts
 * import type { WgslKernel } from "@gpucompute/runtime";
 * const saxpy: WgslKernel = {
 *   source: `
 * struct Params { a: f32, n: u32 }
 * @group(0) @binding(0) var<storage, read> x: array<f32>;
 * @group(0) @binding(1) var<storage, read_write> y: array<f32>;
 * @group(0) @binding(2) var<uniform> p: Params;
 * @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) {
 *   if (id.x < p.n) { y[id.x] = p.a * x[id.x] + y[id.x]; }
 * }`,
 * };
 * ```
 */
export interface WgslKernel extends KernelMetadata {
  /** WGSL source with at least one `@compute` entry point. */
  readonly source: string;
  /**
   * The `@compute` function to run; required only when the WGSL declares several.
   * @default {the only @compute entry point}
   */
  readonly entryPoint?: string;
  /**
   * Name in errors, logs and pipeline labels.
   * @default {the entry point}
   */
  readonly id?: string;
  /**
   * The `@workgroup_size` you expect, checked against the WGSL (`KERNEL_ARGUMENT` when they
   * differ). Not needed: the runtime reads it from the WGSL.
   * @default {the WGSL's}
   */
  readonly workgroupSize?: readonly number[];
}
