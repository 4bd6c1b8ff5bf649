/**
 * The CUDA devices of this machine, from the driver alone: no context is created (a context
 * costs device memory and time), so listing is cheap and leaves every device as it was.
 *
 * @module
 */

import type { DeviceEntry } from "../backend_descriptor.ts";
import type { CudaDriverOptions } from "./_ffi.ts";
import { initDriver, readDevice } from "./device.ts";

/**
 * A CUDA device found by {@linkcode listCudaDevices}; `createClient({ device: info })` opens a
 * client on it.
 *
 * @example
 * ```ts ignore
 * import { listCudaDevices } from "@gpucompute/runtime/cuda";
 * for (const info of listCudaDevices()) {
 *   console.log(info.ordinal, info.name, `sm_${info.computeCapability.join("")}`, info.peers);
 * }
 * ```
 */
export interface CudaDeviceInfo extends DeviceEntry {
  /** Always `"cuda"`. */
  readonly backend: "cuda";
  /** `"cuda:<ordinal>"`, accepted by `createClient({ device })`. */
  readonly id: `cuda:${number}`;
  /** Position in the list: the ordinal. */
  readonly index: number;
  /** The device ordinal. */
  readonly ordinal: number;
  /** `cuDeviceGetName`. */
  readonly name: string;
  /** `cuDeviceTotalMem`, in bytes. */
  readonly totalMemory: number;
  /** Compute capability, major and minor. */
  readonly computeCapability: readonly [number, number];
  /** Streaming multiprocessors. */
  readonly multiprocessors: number;
  /**
   * The ordinals of the devices whose memory this one reads and writes directly
   * (`cuDeviceCanAccessPeer`): copies from them run as peer copies, others are staged through
   * pinned host memory.
   */
  readonly peers: readonly number[];
  /** The driver library the device was found through. */
  readonly library: string;
}

/**
 * The devices the driver reports, by ordinal. `BACKEND_UNAVAILABLE` when the library cannot be
 * loaded or `cuInit` fails (as `createClient({ backend: "cuda" })`); needs `--allow-ffi`.
 *
 * @example
 * ```ts ignore
 * import { listCudaDevices } from "@gpucompute/runtime/cuda";
 * console.log(listCudaDevices().map((device) => device.name));
 * ```
 */
export function listCudaDevices(options: CudaDriverOptions = {}): CudaDeviceInfo[] {
  const driver = initDriver(options);
  const { symbols, out32 } = driver;
  driver.check(symbols.cuDeviceGetCount(out32), "cuDeviceGetCount");
  const count = out32[0];
  const devices: CudaDeviceInfo[] = [];
  for (let ordinal = 0; ordinal < count; ordinal++) {
    const { name, attributes, totalMemory } = readDevice(driver, ordinal);
    const peers: number[] = [];
    for (let peer = 0; peer < count; peer++) {
      if (peer === ordinal) continue;
      driver.check(
        symbols.cuDeviceCanAccessPeer(out32, ordinal, peer),
        `cuDeviceCanAccessPeer(${ordinal}, ${peer})`,
      );
      if (out32[0] === 1) peers.push(peer);
    }
    devices.push({
      backend: "cuda",
      id: `cuda:${ordinal}`,
      index: ordinal,
      ordinal,
      name,
      totalMemory,
      computeCapability: attributes.computeCapability,
      multiprocessors: attributes.multiprocessors,
      peers,
      library: driver.path,
    });
  }
  return devices;
}
