/**
 * The CUDA backend: a {@linkcode CudaServer} over the CUDA driver (`libcuda.so.1`) through Deno
 * FFI, with its device and primary context, the PTX module cache, the kernels it ships as PTX,
 * and the driver bindings (for raw calls and benchmarks). Storage, streams, staging and the
 * timing-event profiler are internal to the server. Importing this module opens no library
 * and needs no permission; creating a server needs `--allow-ffi` (and `--allow-env` for
 * `GPUCOMPUTE_CUDA_LIBRARY` to be honoured).
 *
 * @example
 * ```ts ignore
 * import { CudaServer } from "@gpucompute/runtime/cuda";
 * using server = CudaServer.create({ library: "/usr/lib/x86_64-linux-gnu/libcuda.so.1" });
 * console.log(server.properties.deviceName, server.device.attributes.computeCapability);
 * ```
 *
 * @module
 */

export { CudaServer, type CudaServerOptions, type CudaServerStats } from "./server.ts";
export { CudaDevice, type CudaDeviceAttributes, type CudaDeviceOptions } from "./device.ts";
export { type CudaDeviceInfo, listCudaDevices } from "./devices.ts";
export { CUDA_KERNELS, type CudaKernel, type ShippedCudaKernel } from "./kernel.ts";
export {
  ModuleCache,
  type ModuleCacheOptions,
  type ResolvedKernel,
} from "./compile/module_cache.ts";
export type { KernelParam, KernelSignature } from "./compile/signature.ts";
export type { StructEntry, StructField, StructLayout } from "./compile/_struct_layout.ts";
export {
  CUDA_LIBRARY_ENV,
  CUDA_SYMBOLS,
  CudaDriver,
  CudaDriverError,
  type CudaDriverOptions,
  type CudaSymbols,
  libraryCandidates,
} from "./_ffi.ts";
export type { InFlightLaunch } from "./_fault.ts";
export {
  CUDA_SIGNAL_RING_SIZE,
  type CudaSignalEvents,
  type CudaSignalWaitOptions,
  CudaTimelineSignal,
} from "../../../sync/cuda_signal.ts";
export { cudaBackend } from "./backend.ts";
export { lowerPtxIsa } from "./_ptx_version.ts";
