/**
 * The WebGPU backend, described once for the registry (`runtime/backends/builtin.ts`): its devices
 * are the adapters `navigator.gpu` offers, its servers order streams with the task scheduler (one
 * queue per device), its kernels are WGSL.
 *
 * @module
 */

import type { BackendDescriptor } from "../backend_descriptor.ts";
import { listWebGpuAdapters, requestListedAdapter, type WebGpuDeviceInfo } from "./adapters.ts";
import type { WgslKernel } from "./kernel.ts";
import { WebGpuServer, type WebGpuServerOptions } from "./server.ts";
import { assertKnownKeys } from "../../core/_argument_checks.ts";

/**
 * The WebGPU backend's description.
 *
 * @example
 * ```ts
 * import { webgpuBackend } from "@gpucompute/runtime/webgpu";
 * const [adapter] = await webgpuBackend.listDevices({});
 * using server = await webgpuBackend.openServer({}, adapter);
 * ```
 */
export const webgpuBackend: BackendDescriptor<WgslKernel, WebGpuServerOptions, WebGpuDeviceInfo> = {
  name: "webgpu",
  streamEngine: "scheduler",
  kernels: "WGSL source ({ source })",
  requiresDeno: false,
  listDevices: () => listWebGpuAdapters(),
  async openServer(options, device) {
    // The options of `createClient` (less `backend`): a misspelt one was ignored.
    assertKnownKeys(options, OPTION_KEYS, "createClient (webgpu)");
    if (device === undefined) return await WebGpuServer.create(options);
    const adapter = await requestListedAdapter(device);
    return await WebGpuServer.create({ ...options, device: undefined, adapter });
  },
};

/** The keys of the server options `createClient` passes on (`backend` taken out). */
const OPTION_KEYS = [
  "memory",
  "device",
  "adapter",
  "powerPreference",
  "requiredLimits",
  "features",
  "maxStreams",
  "maxTasks",
  "strategy",
];
