/**
 * A GPU compute runtime for Deno: run compute kernels through one API on WebGPU (Deno's built-in
 * `navigator.gpu`, the default) or CUDA (Deno FFI to `libcuda.so.1`). The backends share one core
 * ported from CubeCL's runtime: handles and bindings, memory pools, logical streams with
 * automatic cross-stream synchronization, profiling and typed errors.
 *
 * @example
 * ```ts
 * import { CubeCount, formatBytes } from "@gpucompute/runtime";
 * console.log(CubeCount.new1d(4), formatBytes(4096));
 * ```
 *
 * @module
 */

export * from "./runtime/server/errors.ts";
export * from "./runtime/server/handle.ts";
export * from "./runtime/server/bindings.ts";
export * from "./runtime/server/server.ts";
export * from "./runtime/memory/managed_memory.ts";
export * from "./runtime/memory/slice.ts";
export * from "./runtime/memory/storage.ts";
export * from "./runtime/memory/memory_usage.ts";
export * from "./runtime/stream/stream_id.ts";
export * from "./runtime/stream/stream_pool.ts";
export * from "./runtime/config.ts";
export * from "./runtime/logging.ts";
export * from "./runtime/stream/scheduler.ts";
export * from "./runtime/memory/memory_management.ts";
export * from "./runtime/stream/event.ts";
export * from "./runtime/server/webgpu/server.ts";
export * from "./runtime/server/webgpu/device.ts";
export * from "./runtime/server/webgpu/storage.ts";
export * from "./runtime/server/webgpu/kernel.ts";
export * from "./runtime/server/webgpu/info_layout.ts";
export * from "./runtime/server/webgpu/profiler.ts";
export * from "./runtime/client.ts";
export * from "./runtime/create_client.ts";
