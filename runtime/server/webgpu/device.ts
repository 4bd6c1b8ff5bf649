/**
 * The WebGPU device of a server: requested from `navigator.gpu` (the fallback adapter is accepted,
 * so software adapters such as llvmpipe work) or adopted from the caller.
 *
 * Device quirks handled here: `device.lost` may be `undefined` in Deno, so it is only observed when
 * present; a device we destroy ourselves also resolves `lost` (reason `"destroyed"`), which is not
 * reported as a loss, while an adopted device destroyed by its owner is. An adopted device is
 * never destroyed (`owned` is false).
 *
 * Limits: a device requested without `requiredLimits` gets WebGPU's defaults (8 storage buffers
 * per stage, 256-byte storage offset alignment...) even where the adapter allows more, so every
 * limit the runtime relies on is requested at the adapter's value ({@linkcode RUNTIME_LIMITS}).
 *
 * @module
 */

import { DestroyedError, DeviceLostError, NoAdapterError } from "../../core/errors.ts";

/** How to obtain the device. */
export interface WebGpuDeviceOptions {
  /**
   * Adopt this device instead of requesting one; it is never destroyed by the runtime.
   * @default {undefined}
   */
  device?: GPUDevice;
  /**
   * Request the device from this adapter instead of `navigator.gpu.requestAdapter()`.
   * @default {undefined}
   */
  adapter?: GPUAdapter;
  /**
   * Adapter preference passed to `requestAdapter`.
   * @default {undefined}
   */
  powerPreference?: GPUPowerPreference;
  /**
   * Limits to request instead of the adapter's values (e.g. to test with smaller ones). Ignored
   * for an adopted device.
   * @default {{}}
   */
  requiredLimits?: Record<string, number>;
}

/** The limits the runtime uses, requested at the adapter's value. */
export const RUNTIME_LIMITS: readonly (keyof GPUSupportedLimits)[] = [
  "maxBufferSize",
  "maxStorageBufferBindingSize",
  "maxStorageBuffersPerShaderStage",
  "minStorageBufferOffsetAlignment",
  "maxUniformBufferBindingSize",
  "maxUniformBuffersPerShaderStage",
  "minUniformBufferOffsetAlignment",
  "maxComputeWorkgroupsPerDimension",
  "maxComputeInvocationsPerWorkgroup",
  "maxComputeWorkgroupSizeX",
  "maxComputeWorkgroupSizeY",
  "maxComputeWorkgroupSizeZ",
  "maxComputeWorkgroupStorageSize",
];

/**
 * A GPU device with its ownership, its timer capability and loss tracking.
 *
 * @example
 * ```ts ignore
 * import { WebGpuDevice } from "@gpucompute/runtime/webgpu";
 * using gpu = await WebGpuDevice.request();
 * console.log(gpu.name, gpu.timestamps);
 * ```
 */
export class WebGpuDevice implements Disposable {
  /** The device. */
  readonly device: GPUDevice;
  /** True when the runtime requested the device and so destroys it. */
  readonly owned: boolean;
  /** Adapter description. */
  readonly name: string;
  /** True when the device has `timestamp-query`. */
  readonly timestamps: boolean;
  #lost: string | undefined;
  #destroyed = false;

  /** Wraps a device; prefer {@linkcode WebGpuDevice.request}. */
  constructor(device: GPUDevice, options: { owned: boolean; name: string }) {
    this.device = device;
    this.owned = options.owned;
    this.name = options.name;
    this.timestamps = device.features.has("timestamp-query");
    // Deno may leave `lost` undefined; observe it only when it is a promise.
    const lost = (device as { lost?: Promise<GPUDeviceLostInfo> }).lost;
    lost?.then((info) => {
      if (!this.#destroyed) this.#lost = `${info.reason}: ${info.message}`;
    });
  }

  /**
   * Requests an adapter and a device (with `timestamp-query` when the adapter has it), or adopts
   * `options.device`. Throws `NoAdapterError` (`NO_ADAPTER`) when no adapter exists.
   */
  static async request(options: WebGpuDeviceOptions = {}): Promise<WebGpuDevice> {
    if (options.device !== undefined) {
      const info = (options.device as { adapterInfo?: GPUAdapterInfo }).adapterInfo;
      return new WebGpuDevice(options.device, {
        owned: false,
        name: adapterName(info) ?? "adopted WebGPU device",
      });
    }
    const gpu = (globalThis.navigator as { gpu?: GPU } | undefined)?.gpu;
    const adapter = options.adapter ??
      await gpu?.requestAdapter({ powerPreference: options.powerPreference });
    if (!adapter) {
      throw new NoAdapterError("No WebGPU adapter is available on this machine");
    }
    const requiredFeatures: GPUFeatureName[] = adapter.features.has("timestamp-query")
      ? ["timestamp-query"]
      : [];
    const requiredLimits: Record<string, number> = {};
    for (const name of RUNTIME_LIMITS) requiredLimits[name] = adapter.limits[name];
    Object.assign(requiredLimits, options.requiredLimits);
    const device = await adapter.requestDevice({ requiredFeatures, requiredLimits });
    return new WebGpuDevice(device, {
      owned: true,
      name: adapterName(adapter.info) ?? "WebGPU adapter",
    });
  }

  /** The loss reason once the device was lost, else `undefined`. */
  get lost(): string | undefined {
    return this.#lost;
  }

  /** True after {@linkcode destroy}. */
  get destroyed(): boolean {
    return this.#destroyed;
  }

  /** Throws `DESTROYED` after destroy, `DEVICE_LOST` after a loss. */
  assertUsable(): void {
    if (this.#destroyed) throw new DestroyedError("The WebGPU server was destroyed");
    if (this.#lost !== undefined) {
      throw new DeviceLostError(`The WebGPU device was lost (${this.#lost})`);
    }
  }

  /** Destroys the device if owned. Idempotent. */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    if (this.owned) this.device.destroy();
  }

  /** Same as {@linkcode destroy}. */
  [Symbol.dispose](): void {
    this.destroy();
  }
}

/**
 * The adapter's description, else its vendor and architecture: browsers leave the description
 * empty (Chromium's SwiftShader adapter reads "google swiftshader").
 */
function adapterName(info: GPUAdapterInfo | undefined): string | undefined {
  if (info === undefined) return undefined;
  return info.description || [info.vendor, info.architecture].filter(Boolean).join(" ") ||
    undefined;
}
