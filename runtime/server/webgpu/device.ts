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

import {
  DestroyedError,
  DeviceLostError,
  NoAdapterError,
  UnsupportedError,
} from "../../core/errors.ts";

/**
 * How to obtain the device.
 *
 * @example
 * ```ts
 * import { WebGpuDevice, type WebGpuDeviceOptions } from "@gpucompute/runtime/webgpu";
 * const options: WebGpuDeviceOptions = { powerPreference: "low-power", features: [] };
 * using gpu = await WebGpuDevice.request(options);
 * console.log(gpu.name.length > 0); // true
 * ```
 */
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
  /**
   * The device features to request. Each must be offered by the adapter (`UNSUPPORTED`
   * otherwise). Ignored for an adopted device.
   * @default {every feature of the adapter a compute kernel can use ({@linkcode COMPUTE_FEATURES})}
   */
  features?: readonly string[];
}

/**
 * The features a compute kernel or the runtime can use, requested by default wherever the adapter
 * offers them: `shader-f16` (`enable f16;`), `subgroups`, `timestamp-query` (device timers), and
 * the texture formats and filtering a compute pass may use.
 */
export const COMPUTE_FEATURES: readonly string[] = [
  "shader-f16",
  "subgroups",
  "timestamp-query",
  "float32-filterable",
  "bgra8unorm-storage",
  "texture-formats-tier1",
  "texture-formats-tier2",
];

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
 * ```ts
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
  /** The device's features. */
  readonly features: ReadonlySet<string>;
  /** The adapter's features, when the runtime requested the device (else `undefined`). */
  readonly adapterFeatures: ReadonlySet<string> | undefined;
  #lost: string | undefined;
  #destroyed = false;

  /** Wraps a device; prefer {@linkcode WebGpuDevice.request}. */
  constructor(
    device: GPUDevice,
    options: { owned: boolean; name: string; adapterFeatures?: ReadonlySet<string> },
  ) {
    this.device = device;
    this.owned = options.owned;
    this.name = options.name;
    this.features = new Set(device.features);
    this.adapterFeatures = options.adapterFeatures;
    this.timestamps = device.features.has("timestamp-query");
    // Deno may leave `lost` undefined; observe it only when it is a promise.
    const lost = (device as { lost?: Promise<GPUDeviceLostInfo> }).lost;
    lost?.then((info) => {
      if (!this.#destroyed) this.#lost = `${info.reason}: ${info.message}`;
    });
  }

  /**
   * Requests an adapter and a device (with every {@linkcode COMPUTE_FEATURES} the adapter has, or
   * `options.features`), or adopts `options.device`. Throws `NoAdapterError` (`NO_ADAPTER`) when
   * no adapter exists, `UnsupportedError` for a feature in `options.features` the adapter lacks.
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
      throw new NoAdapterError(
        gpu === undefined
          ? "No WebGPU adapter is available: this runtime has no navigator.gpu"
          : "No WebGPU adapter is available on this machine (requestAdapter() gave none). In " +
            "Deno on Linux, a GPU needs the Vulkan loader (libvulkan.so.1) and its driver's ICD " +
            "(NVIDIA's also loads libglvnd's libGLdispatch.so.0); DENO_WEBGPU_BACKEND=vulkan " +
            "picks Vulkan, and Mesa's lavapipe or llvmpipe give a CPU adapter",
      );
    }
    const name = adapterName(adapter.info) ?? "WebGPU adapter";
    const requiredFeatures = requestedFeatures(adapter, name, options.features);
    const requiredLimits: Record<string, number> = {};
    for (const name of RUNTIME_LIMITS) requiredLimits[name] = adapter.limits[name];
    Object.assign(requiredLimits, options.requiredLimits);
    const device = await adapter.requestDevice({ requiredFeatures, requiredLimits });
    return new WebGpuDevice(device, {
      owned: true,
      name,
      adapterFeatures: new Set(adapter.features),
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

/** The features to request: `wanted` checked against the adapter, else the compute ones it has. */
function requestedFeatures(
  adapter: GPUAdapter,
  name: string,
  wanted: readonly string[] | undefined,
): GPUFeatureName[] {
  if (wanted === undefined) {
    return COMPUTE_FEATURES.filter((f) =>
      adapter.features.has(f as GPUFeatureName)
    ) as GPUFeatureName[];
  }
  if (!Array.isArray(wanted) || !wanted.every((f) => typeof f === "string")) {
    throw new TypeError(`features must be an array of feature names, got ${String(wanted)}`);
  }
  for (const feature of wanted) {
    if (!adapter.features.has(feature as GPUFeatureName)) {
      throw new UnsupportedError(
        `The adapter "${name}" does not offer the feature '${feature}' asked for in features ` +
          `(it offers ${[...adapter.features].sort().join(", ") || "none"})`,
      );
    }
  }
  return [...wanted] as GPUFeatureName[];
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
