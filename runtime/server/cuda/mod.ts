/**
 * The CUDA backend: a {@linkcode CudaServer} over the CUDA driver (`libcuda.so.1`) through Deno
 * FFI, with its device and primary context, stream-ordered pooled storage, PTX module cache,
 * timing-event profiler, and the kernels it ships as PTX. Importing this module opens no library
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
export { CudaStorage, type CudaStorageOptions } from "./storage.ts";
export { CUDA_KERNELS, type CudaKernel, ModuleCache } from "./kernel.ts";
export { CudaProfiler } from "./profiler.ts";
export {
  CUDA_LIBRARY_ENV,
  CudaDriver,
  CudaDriverError,
  type CudaDriverOptions,
  libraryCandidates,
} from "./_ffi.ts";
