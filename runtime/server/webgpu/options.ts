/**
 * The options and counters of `WebGpuServer`.
 *
 * @module
 */

import type { RuntimeOptions } from "../../core/config.ts";
import type { MemoryManagementOptions } from "../../memory/memory_management.ts";
import type { WebGpuDeviceOptions } from "./device.ts";

/**
 * Options of `WebGpuServer.create`: device choice, runtime options, memory pools.
 *
 * @example
 * ```ts
 * import { WebGpuServer, type WebGpuServerOptions } from "@gpucompute/runtime/webgpu";
 * const options: WebGpuServerOptions = { powerPreference: "high-performance", maxStreams: 4 };
 * using server = await WebGpuServer.create(options);
 * console.log(server.properties.backend); // webgpu
 * ```
 */
export interface WebGpuServerOptions extends WebGpuDeviceOptions, RuntimeOptions {
  /**
   * Memory pool options; `maxAllocationSize` defaults to the device's largest page.
   * @default {{}}
   */
  memory?: MemoryManagementOptions;
}

/**
 * Counters of a server, for tests and benchmarks.
 *
 * @example
 * ```ts
 * import { WebGpuServer, type WebGpuServerStats } from "@gpucompute/runtime/webgpu";
 * using server = await WebGpuServer.create();
 * using handle = server.createWithData(new Uint8Array([1, 2, 3, 4]), 0);
 * await server.read([handle.copyDescriptor([4], [1], 1)], 0);
 * const stats: WebGpuServerStats = server.stats();
 * console.log(stats.mapAsync > 0); // true: the read mapped a staging buffer
 * ```
 */
export interface WebGpuServerStats {
  /** `mapAsync` calls made by reads. */
  readonly mapAsync: number;
  /** Command buffers submitted by streams. */
  readonly submits: number;
  /** Compute passes begun. */
  readonly passes: number;
  /** Pipeline cache hits and misses. */
  readonly pipelineHits: number;
  /** Pipeline cache misses (compilations). */
  readonly pipelineMisses: number;
  /** Dispatches that reused a cached bind group. */
  readonly bindGroupHits: number;
  /** `mapAsync` calls made to read timestamps. */
  readonly profileMaps: number;
  /** Submissions of unvalidated launches, each in a command buffer of its own. */
  readonly isolatedSubmits: number;
  /**
   * Submissions parked until a new kernel with read-only bindings was validated (it might write
   * one: see `queue/encoder.ts`).
   */
  readonly parkedSubmits: number;
  /** Timestamp query sets the profiler holds. */
  readonly querySets: number;
}
