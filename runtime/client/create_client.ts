/**
 * The one-call entry point: a {@linkcode ComputeClient} on the chosen backend, loaded with a
 * dynamic `import()` so a program never loads the code of a backend it does not use.
 *
 * @module
 */

import { ComputeClient } from "./client.ts";
import { deno } from "../core/_platform.ts";
import { BackendUnavailableError } from "../core/errors.ts";
import type { WgslKernel } from "../server/webgpu/kernel.ts";
import type { WebGpuServerOptions } from "../server/webgpu/server.ts";
import type { CudaKernel } from "../server/cuda/kernel.ts";
import type { CudaServerOptions } from "../server/cuda/server.ts";
import type { WebGpuDeviceInfo } from "../server/webgpu/adapters.ts";
import type { CudaDeviceInfo } from "../server/cuda/devices.ts";

/**
 * A client on the WebGPU backend: kernels are WGSL ({@linkcode WgslKernel}).
 *
 * @example
 * ```ts ignore
 * import { createClient, type WebGpuClient } from "@gpucompute/runtime";
 * const client: WebGpuClient = await createClient();
 * ```
 */
export type WebGpuClient = ComputeClient<WgslKernel>;

/**
 * A client on the CUDA backend: kernels are PTX or CUDA C ({@linkcode CudaKernel}).
 *
 * @example
 * ```ts ignore
 * import { createClient, type CudaClient } from "@gpucompute/runtime";
 * const client: CudaClient = await createClient({ backend: "cuda" });
 * ```
 */
export type CudaClient = ComputeClient<CudaKernel>;

/**
 * Options of {@linkcode createClient} for WebGPU: the backend and its server options.
 *
 * @example
 * ```ts
 * import type { CreateClientOptions } from "@gpucompute/runtime";
 * const options: CreateClientOptions = { powerPreference: "high-performance" };
 * ```
 */
export interface CreateClientOptions extends Omit<WebGpuServerOptions, "device"> {
  /**
   * The backend: WebGPU, or `"cuda"` (see {@linkcode CreateCudaClientOptions}).
   * @default {"webgpu"}
   */
  backend?: "webgpu";
  /**
   * A device to adopt (the runtime never destroys it), or an adapter that `listDevices()` found:
   * a new device is requested from it (several clients may share one adapter, each with its own
   * device and queue).
   * @default {undefined} (a device of the default adapter)
   */
  device?: GPUDevice | WebGpuDeviceInfo;
}

/**
 * Options of {@linkcode createClient} for CUDA: the driver library is opened through FFI only
 * now (`--allow-ffi`), and a missing library or device is `BACKEND_UNAVAILABLE`.
 *
 * @example
 * ```ts
 * import type { CreateCudaClientOptions } from "@gpucompute/runtime";
 * const options: CreateCudaClientOptions = { backend: "cuda", ordinal: 0 };
 * ```
 */
export interface CreateCudaClientOptions extends CudaServerOptions {
  /**
   * The CUDA backend (may be left out when `device` is a CUDA device).
   * @default {"cuda"}
   */
  backend?: "cuda";
  /**
   * A device that `listDevices()` found: its ordinal and driver library (over `ordinal` and
   * `library`).
   * @default {undefined}
   */
  device?: CudaDeviceInfo;
}

/** Creates a client on a new CUDA server (kernels are PTX or CUDA C). */
export function createClient(
  options: CreateCudaClientOptions & ({ backend: "cuda" } | { device: CudaDeviceInfo }),
): Promise<CudaClient>;
/**
 * Creates a client on a new server of the chosen backend (WebGPU on the default adapter unless
 * options say otherwise). Destroying the client destroys the server. (The WebGPU overload comes
 * last, so `Awaited<ReturnType<typeof createClient>>` is the {@linkcode WebGpuClient}.)
 *
 * @example
 * ```ts ignore
 * import { createClient } from "@gpucompute/runtime";
 * using client = await createClient({ powerPreference: "high-performance" });
 * console.log(client.server.properties.deviceName);
 * using cuda = await createClient({ backend: "cuda" }); // kernels are PTX (CudaKernel)
 * ```
 */
export function createClient(options?: CreateClientOptions): Promise<WebGpuClient>;
export async function createClient(
  options: CreateClientOptions | CreateCudaClientOptions = {},
): Promise<WebGpuClient | CudaClient> {
  const device = options.device;
  const listed = isDeviceInfo(device) ? device : undefined;
  const backend = options.backend ?? listed?.backend ?? "webgpu";
  if (listed !== undefined && listed.backend !== backend) {
    throw new RangeError(
      `options.device is a ${listed.backend} device but backend is ${JSON.stringify(backend)}`,
    );
  }
  // Loaded on demand so that importing the package loads no backend code it does not use.
  if (backend === "cuda") {
    if (deno === undefined) {
      throw new BackendUnavailableError(
        "cuda",
        "it needs Deno's FFI, and this host is not Deno",
        [],
      );
    }
    const { CudaServer } = await import("../server/cuda/server.ts");
    const at = listed as CudaDeviceInfo | undefined;
    const where = at === undefined ? {} : { ordinal: at.ordinal, library: at.library };
    const { device: _, ...rest } = options as CreateCudaClientOptions;
    const serverOptions: CudaServerOptions = { ...rest, ...where };
    return new ComputeClient(CudaServer.create(serverOptions));
  }
  if (backend !== "webgpu") {
    throw new RangeError(`backend must be "webgpu" or "cuda", got ${JSON.stringify(backend)}`);
  }
  const { WebGpuServer } = await import("../server/webgpu/server.ts");
  if (listed === undefined) {
    return new ComputeClient(await WebGpuServer.create(options as WebGpuServerOptions));
  }
  const { requestListedAdapter } = await import("../server/webgpu/adapters.ts");
  const adapter = await requestListedAdapter(listed as WebGpuDeviceInfo);
  const serverOptions = { ...options, device: undefined, adapter } as WebGpuServerOptions;
  return new ComputeClient(await WebGpuServer.create(serverOptions));
}

/** Whether `device` is a `listDevices()` entry (a `GPUDevice` has no `backend`). */
function isDeviceInfo(device: unknown): device is WebGpuDeviceInfo | CudaDeviceInfo {
  if (typeof device !== "object" || device === null || !("backend" in device)) return false;
  const { backend } = device as { backend: unknown };
  if (backend !== "webgpu" && backend !== "cuda") {
    throw new TypeError(
      `options.device must be a GPUDevice or a listDevices() entry, got backend ${
        JSON.stringify(backend)
      }`,
    );
  }
  return true;
}
