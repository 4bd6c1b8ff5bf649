/**
 * The backends this package ships: one registration line each. A backend is its folder under
 * `runtime/server/` (with a `backend.ts` describing it, see `BackendDescriptor`) plus its line
 * here; `createClient` and `listDevices` find it through the registry (`registry.ts`), loading
 * its code with `import()` only when a program uses it (so the CUDA backend, which needs Deno's
 * FFI, never reaches a browser bundle). The typed overloads of `createClient` read
 * {@linkcode BuiltinBackends}.
 *
 * @module
 */

import type { BackendRegistration } from "./registry.ts";
import type { WgslKernel } from "../server/webgpu/kernel.ts";
import type { WebGpuServerOptions } from "../server/webgpu/server.ts";
import type { WebGpuDeviceInfo } from "../server/webgpu/adapters.ts";
import type { CudaKernel } from "../server/cuda/kernel.ts";
import type { CudaServerOptions } from "../server/cuda/server.ts";
import type { CudaDeviceInfo } from "../server/cuda/devices.ts";

/** The shipped backends, in the order `listDevices()` lists their devices; the first is the default. */
export const BUILTIN_BACKENDS: readonly BackendRegistration[] = [
  {
    name: "webgpu",
    requiresDeno: false,
    load: async () => (await import("../server/webgpu/backend.ts")).webgpuBackend,
  },
  {
    name: "cuda",
    requiresDeno: true,
    load: async () => (await import("../server/cuda/backend.ts")).cudaBackend,
  },
];

/**
 * The types of the shipped backends, by name: kernel, server options and device entry.
 *
 * @example
 * ```ts
 * import type { BuiltinBackends } from "@gpucompute/runtime/backend";
 * type Kernel = BuiltinBackends["cuda"]["kernel"]; // CudaKernel
 * ```
 */
export interface BuiltinBackends {
  /** WebGPU: WGSL kernels on `navigator.gpu`. */
  webgpu: { kernel: WgslKernel; options: WebGpuServerOptions; device: WebGpuDeviceInfo };
  /** CUDA: PTX or CUDA C kernels through Deno FFI. */
  cuda: { kernel: CudaKernel; options: CudaServerOptions; device: CudaDeviceInfo };
}
