/**
 * Several devices in one process: {@linkcode listDevices} finds them (WebGPU adapters, CUDA
 * devices), {@linkcode createClients} opens one client per device. Clients then exchange data
 * with `copyTo` and order their work with `waitFor` on each other's `timeline` (see
 * `docs/devices.md`).
 *
 * @module
 */

import type { RuntimeOptions } from "../core/config.ts";
import { ComputeError } from "../core/errors.ts";
import type { DeviceEntry } from "../server/backend_descriptor.ts";
import { backendNames, loadBackend } from "./registry.ts";
import type { WebGpuDeviceInfo } from "../server/webgpu/adapters.ts";
import type { CudaDeviceInfo } from "../server/cuda/devices.ts";
import { createClient, type CudaClient, type WebGpuClient } from "./create_client.ts";
import { assertKnownKeys } from "../core/_argument_checks.ts";

/**
 * A device {@linkcode listDevices} found: a WebGPU adapter or a CUDA device. Pass it to
 * `createClient({ device })`; `backend` tells which.
 *
 * @example
 * ```ts
 * import { listDevices } from "@gpucompute/runtime";
 * for (const device of await listDevices()) console.log(device.backend, device.name);
 * ```
 */
export type DeviceInfo = WebGpuDeviceInfo | CudaDeviceInfo;

/**
 * Options of {@linkcode listDevices}.
 *
 * @example
 * ```ts
 * import type { ListDevicesOptions } from "@gpucompute/runtime";
 * const options: ListDevicesOptions = { backend: "cuda", library: "/usr/lib/wsl/lib/libcuda.so.1" };
 * ```
 */
export interface ListDevicesOptions {
  /**
   * One backend only; its unavailability is then an error (`BACKEND_UNAVAILABLE`) instead of an
   * empty part of the list.
   * @default {undefined} (every registered backend: WebGPU adapters, then CUDA devices where the
   * driver loads)
   */
  backend?: string;
  /**
   * The CUDA driver library (see `CudaDriverOptions.library`).
   * @default {undefined}
   */
  library?: string;
}

/**
 * The devices of this machine: the WebGPU adapters `navigator.gpu` offers (by power preference,
 * then the fallback adapter) and the CUDA devices by ordinal. One GPU may appear once per
 * backend: pick one backend (`options.backend`) to spread work over the GPUs. Without a backend
 * named, a backend that cannot run here (no WebGPU, no CUDA driver, no `--allow-ffi`) adds
 * nothing.
 *
 * @example Open a client on every CUDA device
 * ```ts ignore
 * import { createClients, listDevices } from "@gpucompute/runtime";
 * using clients = await createClients(await listDevices({ backend: "cuda" }));
 * console.log(clients.map((client) => client.server.properties.deviceName));
 * ```
 */
export function listDevices(
  options: ListDevicesOptions & { backend: "webgpu" },
): Promise<WebGpuDeviceInfo[]>;
/** The CUDA devices (see above). */
export function listDevices(
  options: ListDevicesOptions & { backend: "cuda" },
): Promise<CudaDeviceInfo[]>;
/** The devices of a shipped backend (see above). */
export function listDevices(
  options: ListDevicesOptions & { backend: "webgpu" | "cuda" },
): Promise<DeviceInfo[]>;
/** The devices of one registered backend (see above). */
export function listDevices(
  options: ListDevicesOptions & { backend: string },
): Promise<DeviceEntry[]>;
/** The devices of every backend (see above). */
export function listDevices(options?: ListDevicesOptions): Promise<DeviceInfo[]>;
export async function listDevices(options: ListDevicesOptions = {}): Promise<DeviceEntry[]> {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(`options must be an object, got ${String(options)}`);
  }
  const { backend } = options;
  // A misspelt option (`backed`) was ignored: every backend's devices came back. A registered
  // backend may take options of its own.
  if (backend === undefined || backend === "webgpu" || backend === "cuda") {
    assertKnownKeys(options, ["backend", "library"], "listDevices");
  }
  if (backend !== undefined) {
    if (typeof backend !== "string") {
      throw new TypeError(`options.backend must be a backend name, got ${String(backend)}`);
    }
    return [
      ...await (await loadBackend(backend)).listDevices(
        options as Readonly<Record<string, unknown>>,
      ),
    ];
  }
  const devices: DeviceEntry[] = [];
  for (const name of backendNames()) {
    try {
      devices.push(
        ...await (await loadBackend(name)).listDevices(
          options as Readonly<Record<string, unknown>>,
        ),
      );
    } catch (error) {
      // Not here: no driver, no device, no permission. Anything else is a real failure.
      if (!(error instanceof ComputeError && error.code === "BACKEND_UNAVAILABLE")) throw error;
    }
  }
  return devices;
}

/**
 * One client per device, in the order given, as an array that `using` disposes (every client is
 * destroyed). If one fails to open, those already open are destroyed and the error is thrown.
 * The same device may be listed twice: each client gets its own device (WebGPU) or its own
 * streams on the device's context (CUDA).
 *
 * @example Two clients on the fallback adapter of a machine without a GPU
 * ```ts
 * import { createClients, listDevices } from "@gpucompute/runtime";
 * const [adapter] = await listDevices({ backend: "webgpu" });
 * using clients = await createClients([adapter, adapter]);
 * const [a, b] = clients;
 * using x = a.createWithData(new Float32Array([1, 2, 3]));
 * using y = a.copyTo(x, b);
 * console.log(await b.read(y)); // Float32Array [1, 2, 3]
 * ```
 */
export function createClients(
  devices: readonly WebGpuDeviceInfo[],
  options?: RuntimeOptions,
): Promise<WebGpuClient[] & Disposable>;
/** One client per CUDA device (see above). */
export function createClients(
  devices: readonly CudaDeviceInfo[],
  options?: RuntimeOptions,
): Promise<CudaClient[] & Disposable>;
/** One client per device of either backend (see above). */
export function createClients(
  devices: readonly DeviceInfo[],
  options?: RuntimeOptions,
): Promise<(WebGpuClient | CudaClient)[] & Disposable>;
export async function createClients(
  devices: readonly DeviceInfo[],
  options: RuntimeOptions = {},
): Promise<(WebGpuClient | CudaClient)[] & Disposable> {
  if (!Array.isArray(devices)) {
    throw new TypeError(`devices must be an array of listDevices() entries, got ${devices}`);
  }
  const clients: (WebGpuClient | CudaClient)[] = [];
  const destroyAll = () => {
    for (const client of clients) client.destroy();
  };
  try {
    for (const device of devices) {
      clients.push(
        await createClient({ ...options, device } as { device: WebGpuDeviceInfo }),
      );
    }
  } catch (error) {
    destroyAll();
    throw error;
  }
  return Object.assign(clients, { [Symbol.dispose]: destroyAll });
}
