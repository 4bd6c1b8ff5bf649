/**
 * The one-call entry point: a {@linkcode ComputeClient} on the chosen backend, found in the
 * backend registry (`registry.ts`) and loaded with a dynamic `import()` so a program never loads
 * the code of a backend it does not use.
 *
 * @module
 */

import { ComputeClient } from "../client/client.ts";
import type { KernelMetadata } from "../core/kernel.ts";
import type { DeviceEntry } from "../server/backend_descriptor.ts";
import { DEFAULT_BACKEND, deviceById, isDeviceEntry, loadBackend } from "./registry.ts";
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
 * ```ts
 * import { createClient, type WebGpuClient } from "@gpucompute/runtime";
 * using client: WebGpuClient = await createClient();
 * ```
 */
export type WebGpuClient = ComputeClient<WgslKernel>;

/**
 * A client on the CUDA backend: kernels are PTX or CUDA C ({@linkcode CudaKernel}).
 *
 * @example
 * ```ts ignore
 * import { createClient, type CudaClient } from "@gpucompute/runtime";
 * using client: CudaClient = await createClient({ backend: "cuda" });
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
   * A device to adopt (the runtime never destroys it), or an adapter that `listDevices()` found
   * (its entry or its `id`, `"webgpu:0"`): a new device is requested from it (several clients
   * may share one adapter, each with its own device and queue).
   * @default {undefined} (a device of the default adapter)
   */
  device?: GPUDevice | WebGpuDeviceInfo | `webgpu:${number}`;
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
   * A device that `listDevices()` found, or its `id` (`"cuda:1"`): its ordinal and driver
   * library (over `ordinal` and `library`).
   * @default {undefined}
   */
  device?: CudaDeviceInfo | `cuda:${number}`;
}

/**
 * Options of {@linkcode createClient} for a backend registered with `registerBackend` (see
 * `./backend`): its name, a device entry or id, and the options its description understands.
 *
 * @example
 * ```ts
 * import type { CreateRegisteredClientOptions } from "@gpucompute/runtime";
 * const options: CreateRegisteredClientOptions = { backend: "sim", maxStreams: 4 };
 * ```
 */
export interface CreateRegisteredClientOptions {
  /** The registered backend's name. */
  backend: string;
  /**
   * One of its `listDevices()` entries, or an entry's `id`.
   * @default {undefined} (the backend's default device)
   */
  device?: DeviceEntry | string;
  /** The backend's own options. */
  [option: string]: unknown;
}

/** Creates a client on a new CUDA server (kernels are PTX or CUDA C). */
export function createClient(
  options:
    & CreateCudaClientOptions
    & ({ backend: "cuda" } | { device: CudaDeviceInfo | `cuda:${number}` }),
): Promise<CudaClient>;
/** Creates a client on a new WebGPU server, named explicitly. */
export function createClient(
  options: CreateClientOptions & { backend: "webgpu" },
): Promise<WebGpuClient>;
/** Creates a client on a backend registered with `registerBackend` (see `./backend`). */
export function createClient(
  options: CreateRegisteredClientOptions,
): Promise<ComputeClient<KernelMetadata>>;
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
 * using cuda = await createClient({ backend: "cuda" }); // PTX or CUDA C kernels (CudaKernel)
 * using second = await createClient({ device: "cuda:1" }); // a device by its listDevices() id
 * ```
 */
export function createClient(options?: CreateClientOptions): Promise<WebGpuClient>;
export async function createClient(
  options: CreateClientOptions | CreateCudaClientOptions | CreateRegisteredClientOptions = {},
): Promise<ComputeClient<KernelMetadata>> {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(`options must be an object, got ${String(options)}`);
  }
  const { backend: named, device, ...rest } = options as CreateRegisteredClientOptions;
  if (named !== undefined && typeof named !== "string") {
    throw new TypeError(`options.backend must be a backend name, got ${String(named)}`);
  }
  const listed = typeof device === "string"
    ? await deviceById(device, rest)
    : isDeviceEntry(device)
    ? device
    : undefined;
  if (device !== undefined && listed === undefined && !isAdoptable(device)) {
    throw new TypeError(
      `options.device must be a listDevices() entry, its id, or a GPUDevice to adopt, got ${
        describe(device)
      }`,
    );
  }
  const name = named ?? listed?.backend ?? DEFAULT_BACKEND;
  if (listed !== undefined && listed.backend !== name) {
    throw new RangeError(
      `options.device is a ${listed.backend} device but backend is ${JSON.stringify(name)}`,
    );
  }
  const backend = await loadBackend(name);
  // A device that is not a listed entry (a GPUDevice) stays in the options: the backend adopts it.
  const serverOptions = listed === undefined && device !== undefined ? { ...rest, device } : rest;
  return new ComputeClient(await backend.openServer(serverOptions, listed));
}

/** A device object a backend may adopt (a `GPUDevice`): an object that is not a listed entry. */
function isAdoptable(device: unknown): boolean {
  return typeof device === "object" && device !== null && !("backend" in device);
}

function describe(value: unknown): string {
  if (typeof value === "object" && value !== null && "backend" in value) {
    return `an entry of backend ${
      JSON.stringify((value as { backend: unknown }).backend)
    } with no id`;
  }
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}
