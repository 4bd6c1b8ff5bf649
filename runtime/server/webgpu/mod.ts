/**
 * The WebGPU backend: a {@linkcode WebGpuServer} over Deno's built-in `navigator.gpu`, with its
 * device wrapper, pooled storage, pipeline cache and timestamp-query profiler. Most programs use
 * `createClient()` from the package root instead; import this to build a server by hand or adopt
 * an existing `GPUDevice`.
 *
 * @example Adopt a device you already have
 * ```ts
 * import { WebGpuServer } from "@gpucompute/runtime/webgpu";
 * const adapter = await navigator.gpu.requestAdapter();
 * const device = await adapter!.requestDevice();
 * using server = await WebGpuServer.create({ device });
 * console.log(server.properties.deviceName);
 * ```
 *
 * @module
 */

export { WebGpuServer, type WebGpuServerOptions, type WebGpuServerStats } from "./server.ts";
export { WebGpuDevice, type WebGpuDeviceOptions } from "./device.ts";
export { listWebGpuAdapters, requestListedAdapter, type WebGpuDeviceInfo } from "./adapters.ts";
export { WebGpuStorage } from "./memory/storage.ts";
export type { WgslKernel } from "./kernel.ts";
export { WebGpuProfiler } from "./profile/profiler.ts";
export { INFO_SCALAR_ORDER, type InfoLayout, packInfo } from "./launch/_info_layout.ts";
export { webgpuBackend } from "./backend.ts";
