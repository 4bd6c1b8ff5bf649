/**
 * The CUDA backend, described once for the registry (`runtime/backends/builtin.ts`): its devices
 * are the driver's ordinals, its servers order streams with the event multi-stream (CUDA streams
 * and events), its kernels are PTX or CUDA C. It needs Deno's FFI (`--allow-ffi`).
 *
 * @module
 */

import type { BackendDescriptor } from "../backend_descriptor.ts";
import type { CudaKernel } from "./kernel.ts";
import { type CudaDeviceInfo, listCudaDevices } from "./devices.ts";
import { CudaServer, type CudaServerOptions } from "./server.ts";
import { CudaDevice } from "./device.ts";
import { assertKnownKeys } from "../../core/_argument_checks.ts";

/**
 * The CUDA backend's description.
 *
 * @example
 * ```ts ignore
 * import { cudaBackend } from "@gpucompute/runtime/cuda";
 * const [first] = await cudaBackend.listDevices({});
 * using server = await cudaBackend.openServer({}, first);
 * ```
 */
export const cudaBackend: BackendDescriptor<CudaKernel, CudaServerOptions, CudaDeviceInfo> = {
  name: "cuda",
  streamEngine: "event",
  kernels: "PTX or CUDA C ({ ptx } or { source })",
  requiresDeno: true,
  listDevices(options) {
    const library = options.library;
    if (library !== undefined && typeof library !== "string") {
      return Promise.reject(new TypeError(`options.library must be a string, got ${library}`));
    }
    try {
      return Promise.resolve(listCudaDevices(library === undefined ? {} : { library }));
    } catch (error) {
      return Promise.reject(error);
    }
  },
  openServer(options, device) {
    // The options of `createClient` (less `backend`): a misspelt one was ignored.
    try {
      assertKnownKeys(options, OPTION_KEYS, "createClient (cuda)");
    } catch (error) {
      return Promise.reject(error);
    }
    const where = device === undefined ? {} : { ordinal: device.ordinal, library: device.library };
    // A destroyed client of the device still draining: its drain ends first, so that the new
    // server gets a context of its own (`runtime/server/cuda/_drain.ts`).
    return CudaDevice.drainsSettled({ ...options, ...where })
      .then(() => CudaServer.create({ ...options, ...where }));
  },
};

/** The keys of the server options `createClient` passes on (`backend` taken out). */
const OPTION_KEYS = [
  "memory",
  "timeoutMs",
  "maxPendingGc",
  "nvrtcLibrary",
  "memoryPools",
  "waitSpinUs",
  "ordinal",
  "library",
  "maxStreams",
  "maxTasks",
  "strategy",
];
