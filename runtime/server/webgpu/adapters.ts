/**
 * The WebGPU adapters of this machine, as far as `navigator.gpu` tells: WebGPU has no list of
 * adapters, only `requestAdapter` with a power preference or the fallback adapter, so the list is
 * what those requests return, in that order (high performance, low power, fallback), without
 * duplicates. A machine with more GPUs than that offers no way to reach the others from WebGPU
 * (use the CUDA backend there). Several devices may be requested from one adapter: each gets its
 * own queue, which is how two clients run on one GPU (or on the CPU fallback adapter).
 *
 * @module
 */

import { NoAdapterError } from "../../core/errors.ts";
import type { DeviceEntry } from "../backend_descriptor.ts";

/**
 * A WebGPU adapter found by {@linkcode listWebGpuAdapters}; `createClient({ device: info })`
 * requests a new device from it.
 *
 * @example
 * ```ts
 * import { listWebGpuAdapters } from "@gpucompute/runtime/webgpu";
 * for (const info of await listWebGpuAdapters()) {
 *   console.log(info.index, info.name, info.isFallbackAdapter ? "(fallback)" : "");
 * }
 * ```
 */
export interface WebGpuDeviceInfo extends DeviceEntry {
  /** Always `"webgpu"`. */
  readonly backend: "webgpu";
  /** `"webgpu:<index>"`, accepted by `createClient({ device })`. */
  readonly id: `webgpu:${number}`;
  /** Position in the list. */
  readonly index: number;
  /** The adapter's description, else its vendor and architecture. */
  readonly name: string;
  /** `GPUAdapterInfo.vendor`, as the implementation reports it (a name, or a number in text). */
  readonly vendor: string;
  /**
   * The PCI vendor id, where `vendor` is a number in text (Deno reports `"65541"`, 0x10005, for
   * Mesa's software adapters): `undefined` where it is a name.
   */
  readonly vendorId: number | undefined;
  /** `GPUAdapterInfo.architecture`. */
  readonly architecture: string;
  /** `GPUAdapterInfo.device`. */
  readonly device: string;
  /** A software adapter (llvmpipe, SwiftShader, WARP). */
  readonly isFallbackAdapter: boolean;
  /** The `requestAdapter` options that return this adapter. */
  readonly request: GPURequestAdapterOptions;
  /** `maxBufferSize` of the adapter, in bytes. */
  readonly maxBufferSize: number;
  /** Whether the adapter has `timestamp-query` (device time in profiles). */
  readonly timestamps: boolean;
}

/** The requests that can return distinct adapters, in the order of the list. */
const REQUESTS: readonly GPURequestAdapterOptions[] = [
  { powerPreference: "high-performance" },
  { powerPreference: "low-power" },
  { forceFallbackAdapter: true },
];

/**
 * The adapters `navigator.gpu` offers (see the module doc); empty where there is no WebGPU.
 *
 * @example
 * ```ts
 * import { listWebGpuAdapters } from "@gpucompute/runtime/webgpu";
 * console.log((await listWebGpuAdapters()).map((info) => info.name));
 * ```
 */
export async function listWebGpuAdapters(): Promise<WebGpuDeviceInfo[]> {
  const gpu = (globalThis.navigator as { gpu?: GPU } | undefined)?.gpu;
  if (gpu === undefined) return [];
  const found: WebGpuDeviceInfo[] = [];
  const seen = new Set<string>();
  for (const request of REQUESTS) {
    const adapter = await gpu.requestAdapter(request);
    if (adapter === null) continue;
    const key = identity(adapter);
    if (seen.has(key)) continue;
    seen.add(key);
    const info = adapter.info;
    found.push({
      backend: "webgpu",
      id: `webgpu:${found.length}`,
      index: found.length,
      name: info.description || [info.vendor, info.architecture].filter(Boolean).join(" ") ||
        "WebGPU adapter",
      vendor: info.vendor,
      vendorId: /^(0x[0-9a-f]+|[0-9]+)$/i.test(info.vendor) ? Number(info.vendor) : undefined,
      architecture: info.architecture,
      device: info.device,
      isFallbackAdapter: isFallback(adapter),
      request,
      maxBufferSize: adapter.limits.maxBufferSize,
      timestamps: adapter.features.has("timestamp-query"),
    });
  }
  return found;
}

/**
 * The adapter of a listed `info`, requested again (a browser's adapter makes one device only):
 * `NO_ADAPTER` when the same request no longer returns that adapter.
 *
 * @example
 * ```ts
 * import { listWebGpuAdapters, requestListedAdapter } from "@gpucompute/runtime/webgpu";
 * const [first] = await listWebGpuAdapters();
 * const device = await (await requestListedAdapter(first)).requestDevice();
 * ```
 */
export async function requestListedAdapter(info: WebGpuDeviceInfo): Promise<GPUAdapter> {
  if (info?.backend !== "webgpu" || typeof info.request !== "object") {
    throw new TypeError("info must be a WebGpuDeviceInfo from listWebGpuAdapters()");
  }
  const gpu = (globalThis.navigator as { gpu?: GPU } | undefined)?.gpu;
  const adapter = await gpu?.requestAdapter(info.request);
  const found = adapter?.info;
  if (
    !adapter || found === undefined || found.vendor !== info.vendor ||
    found.architecture !== info.architecture || found.device !== info.device ||
    isFallback(adapter) !== info.isFallbackAdapter
  ) {
    throw new NoAdapterError(
      `The WebGPU adapter "${info.name}" (${JSON.stringify(info.request)}) is no longer offered`,
    );
  }
  return adapter;
}

function isFallback(adapter: GPUAdapter): boolean {
  const info = adapter.info as GPUAdapterInfo & { isFallbackAdapter?: boolean };
  return info.isFallbackAdapter ??
    (adapter as GPUAdapter & { isFallbackAdapter?: boolean }).isFallbackAdapter ?? false;
}

/** What tells two adapters apart: vendor, architecture, device, fallback, description. */
function identity(adapter: GPUAdapter): string {
  const info = adapter.info;
  return [info.vendor, info.architecture, info.device, isFallback(adapter), info.description]
    .join("|");
}
