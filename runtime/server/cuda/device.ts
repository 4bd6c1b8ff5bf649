/**
 * A CUDA device and its primary context (`cuDevicePrimaryCtxRetain`), with the attributes and
 * memory figures the server reports.
 *
 * The primary context is the one the runtime API uses too, so memory and modules interoperate
 * with other CUDA users in the process. The current context is per thread in CUDA, and several
 * servers (devices) share the thread the backend calls the driver from: every operation of a
 * server first makes its device's context current ({@linkcode CudaDevice.makeCurrent}, one
 * `cuCtxGetCurrent` when it already is, as cudarc's `bind_to_thread`), and a destroyed device
 * does not leave its released context current.
 *
 * @module
 */

import { BackendUnavailableError, DestroyedError } from "../../core/errors.ts";
import { CUDA_ERROR_NO_DEVICE, CudaDriver, type CudaDriverOptions } from "./_ffi.ts";
import { cudaVersionName } from "./_ptx_version.ts";
import { unrefCall } from "./_ffi.ts";

/**
 * Options of {@linkcode CudaDevice.open}.
 *
 * @example
 * ```ts
 * import type { CudaDeviceOptions } from "@gpucompute/runtime/cuda";
 * const second: CudaDeviceOptions = { ordinal: 1 };
 * ```
 */
export interface CudaDeviceOptions extends CudaDriverOptions {
  /**
   * Device ordinal.
   * @default {0}
   */
  ordinal?: number;
}

/**
 * The device attributes the backend uses.
 *
 * @example
 * ```ts
 * import type { CudaDeviceAttributes } from "@gpucompute/runtime/cuda";
 * const sm = (a: CudaDeviceAttributes) => `sm_${a.computeCapability.join("")}`;
 * ```
 */
export interface CudaDeviceAttributes {
  /** Compute capability, major and minor. */
  readonly computeCapability: readonly [number, number];
  /** Streaming multiprocessors. */
  readonly multiprocessors: number;
  /** Threads per block. */
  readonly maxThreadsPerBlock: number;
  /** Block dimensions x, y, z. */
  readonly maxBlockDim: readonly [number, number, number];
  /** Grid dimensions x, y, z. */
  readonly maxGridDim: readonly [number, number, number];
  /** Shared memory per block in bytes without opting in (48 KiB). */
  readonly maxSharedMemoryPerBlock: number;
  /** Shared memory per block in bytes a function may opt in to (`cuFuncSetAttribute`). */
  readonly maxSharedMemoryPerBlockOptin: number;
  /** Threads per warp. */
  readonly warpSize: number;
  /** Whether `cuMemAllocAsync` (stream-ordered memory pools) is supported. */
  readonly memoryPools: boolean;
}

// CU_DEVICE_ATTRIBUTE_* values from cuda.h.
const ATTR = {
  maxThreadsPerBlock: 1,
  blockX: 2,
  blockY: 3,
  blockZ: 4,
  gridX: 5,
  gridY: 6,
  gridZ: 7,
  sharedPerBlock: 8,
  sharedPerBlockOptin: 97,
  warpSize: 10,
  multiprocessors: 16,
  ccMajor: 75,
  ccMinor: 76,
  memoryPools: 115,
} as const;

/**
 * `cuInit` results that mean the backend cannot run here, with what they usually mean. Every
 * other failure of `cuInit` is unavailability too, with the driver's text alone.
 */
const INIT_FAILURES: Readonly<Record<number, string>> = {
  34: "the library is NVIDIA's stub libcuda (from a toolkit's stubs folder), not a driver",
  35: "the installed driver is too old",
  46: "the device is busy or unavailable (exclusive-process or prohibited compute mode)",
  [CUDA_ERROR_NO_DEVICE]: "no CUDA device was found",
  304: "an operating-system call failed (are the /dev/nvidia* device files accessible?)",
  803: "the driver library and the loaded kernel module are of different versions",
  804: "forward compatibility is not supported on this device",
  999: "the driver failed with an unknown error",
};

/**
 * A device with its retained primary context.
 *
 * @example
 * ```ts ignore
 * import { CudaDevice } from "@gpucompute/runtime/cuda";
 * using device = CudaDevice.open();
 * console.log(device.name, device.attributes.computeCapability, device.memoryInfo());
 * ```
 */
export class CudaDevice implements Disposable {
  /** The driver library. */
  readonly driver: CudaDriver;
  /** The device ordinal. */
  readonly ordinal: number;
  /** `cuDeviceGetName`. */
  readonly name: string;
  /** Attributes. */
  readonly attributes: CudaDeviceAttributes;
  /** `cuDeviceTotalMem` in bytes. */
  readonly totalMemory: number;
  /** The driver's CUDA version (`cuDriverGetVersion`, e.g. 12020 for CUDA 12.2). */
  readonly driverVersion: number;
  /** The primary context. */
  readonly context: Deno.PointerValue;
  readonly #address: bigint;
  readonly #current = new BigUint64Array(1);
  #destroyed = false;

  private constructor(driver: CudaDriver, ordinal: number, context: Deno.PointerValue) {
    this.driver = driver;
    this.ordinal = ordinal;
    this.context = context;
    this.#address = BigInt(Deno.UnsafePointer.value(context));
    const facts = readDevice(driver, ordinal);
    this.name = facts.name;
    this.attributes = facts.attributes;
    this.totalMemory = facts.totalMemory;
    this.driverVersion = driver.version;
  }

  /**
   * Resolves once the background drains of destroyed servers of the device `options` name ended
   * and released the context (each at most its wait timeout), so that a server opened next gets
   * a context of its own rather than sharing the draining one. Never rejects: a missing library
   * or device is for {@linkcode CudaDevice.open} to report.
   */
  static async drainsSettled(options: CudaDeviceOptions = {}): Promise<void> {
    let key: string;
    try {
      key = drainKey(initDriver(options), options.ordinal ?? 0);
    } catch {
      return;
    }
    await Promise.all((drains.get(key) ?? []).map((drain) => drain.settled));
  }

  /**
   * Opens the driver, initialises it, retains the device's primary context and makes it current.
   * `BACKEND_UNAVAILABLE` when the library is missing, `cuInit` fails (no device, a stub or
   * mismatched driver, ...: the message has the driver's text) or the ordinal does not exist;
   * `DRIVER` for any later driver failure.
   */
  static open(options: CudaDeviceOptions = {}): CudaDevice {
    const ordinal = options.ordinal ?? 0;
    if (!Number.isInteger(ordinal) || ordinal < 0) {
      throw new RangeError(`ordinal must be a non-negative integer, got ${ordinal}`);
    }
    const driver = initDriver(options);
    const { symbols, out64, out32 } = driver;
    driver.check(symbols.cuDeviceGetCount(out32), "cuDeviceGetCount");
    if (ordinal >= out32[0]) {
      throw new BackendUnavailableError(
        "cuda",
        `device ${ordinal} was asked for but the driver reports ${out32[0]} device(s)`,
        [`${driver.path} device ${ordinal}`],
      );
    }
    driver.check(symbols.cuDeviceGet(out32, ordinal), `cuDeviceGet(${ordinal})`);
    const device = out32[0];
    // A destroyed server of this device still draining in the background: finish its drain
    // and release first, so that this server gets a fresh context (not one a fault left sticky).
    const pending = drains.get(drainKey(driver, device)) ?? [];
    drains.delete(drainKey(driver, device));
    for (const drain of pending) drain.finish();
    driver.check(symbols.cuDevicePrimaryCtxRetain(out64, device), "cuDevicePrimaryCtxRetain");
    const context = driver.pointerAt();
    try {
      driver.check(symbols.cuCtxSetCurrent(context), "cuCtxSetCurrent");
      return new CudaDevice(driver, device, context);
    } catch (error) {
      symbols.cuDevicePrimaryCtxRelease_v2(device);
      throw error;
    }
  }

  /** True after {@linkcode destroy}. */
  get destroyed(): boolean {
    return this.#destroyed;
  }

  /**
   * Makes the device's context current on the calling thread unless it already is: call before
   * driver calls that act in the current context (allocations, streams, modules, launches). The
   * current context is per thread, and another device (or CUDA user) may have changed it.
   */
  makeCurrent(): void {
    const { symbols } = this.driver;
    this.driver.check(symbols.cuCtxGetCurrent(this.#current), "cuCtxGetCurrent");
    if (this.#current[0] === this.#address) return;
    this.driver.check(
      symbols.cuCtxSetCurrent(this.context),
      `cuCtxSetCurrent(device ${this.ordinal})`,
    );
  }

  /**
   * Makes no context current if this device's is (before its release: the driver would act in
   * a released context on this thread's next call); another device's current context stays.
   */
  leaveCurrent(): void {
    const { symbols } = this.driver;
    if (symbols.cuCtxGetCurrent(this.#current) === 0 && this.#current[0] === this.#address) {
      symbols.cuCtxSetCurrent(null);
    }
  }

  /**
   * Registers the background drain of a destroyed server of this device: `finish` ends it
   * synchronously (the next {@linkcode CudaDevice.open} of the device calls it first), `settled`
   * resolves once it ended and released ({@linkcode CudaDevice.drainsSettled} awaits it). Returns
   * the function that unregisters it (once the drain finished).
   */
  pendingDrain(finish: () => void, settled: Promise<void>): () => void {
    const key = drainKey(this.driver, this.ordinal);
    const drain = { finish, settled };
    drains.set(key, [...drains.get(key) ?? [], drain]);
    return () => {
      const left = (drains.get(key) ?? []).filter((other) => other !== drain);
      if (left.length > 0) drains.set(key, left);
      else drains.delete(key);
    };
  }

  /** Free and total device memory in bytes (`cuMemGetInfo`). */
  memoryInfo(): { free: number; total: number } {
    this.assertUsable();
    this.makeCurrent();
    const free = new BigUint64Array(1);
    const total = new BigUint64Array(1);
    this.driver.check(this.driver.symbols.cuMemGetInfo_v2(free, total), "cuMemGetInfo_v2");
    return { free: Number(free[0]), total: Number(total[0]) };
  }

  /** Throws `DESTROYED` after {@linkcode destroy}. */
  assertUsable(): void {
    if (this.#destroyed) throw new DestroyedError("The CUDA device was destroyed");
  }

  /**
   * Releases the primary context, first making no context current if it is (the driver would
   * otherwise act in a released context on this thread's next call). Idempotent. The driver
   * library stays loaded.
   */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.leaveCurrent();
    this.driver.symbols.cuDevicePrimaryCtxRelease_v2(this.ordinal);
  }

  /**
   * {@linkcode destroy}, with the release (`cuDevicePrimaryCtxRelease`, which waits for the
   * context's streams) made on a thread of Deno's blocking pool: for a device whose work may
   * never complete (a hung kernel, a wait on another device's event that never completes). The
   * call does not keep the process alive; the promise resolves when the driver returns.
   */
  async releaseInBackground(): Promise<void> {
    const waits = this.driver.waits;
    if (this.#destroyed || waits === undefined) return this.destroy();
    this.#destroyed = true;
    this.leaveCurrent();
    await unrefCall(waits.cuDevicePrimaryCtxRelease_v2(this.ordinal));
  }

  /** Same as {@linkcode destroy}. */
  [Symbol.dispose](): void {
    this.destroy();
  }
}

/** Background drains of destroyed servers, by driver path and ordinal. */
const drains = new Map<string, { finish(): void; settled: Promise<void> }[]>();
const drainKey = (driver: CudaDriver, ordinal: number) => `${driver.path}#${ordinal}`;

/**
 * Opens the driver library and initialises it (`cuInit(0)`): `BACKEND_UNAVAILABLE` when the
 * library is missing or `cuInit` fails (no device, a stub or mismatched driver...: the message
 * has the driver's text). Initialising again is harmless.
 */
export function initDriver(options: CudaDriverOptions = {}): CudaDriver {
  const driver = CudaDriver.open(options);
  const init = driver.symbols.cuInit(0);
  if (init !== 0) {
    const cause = driver.error(init, "cuInit(0)");
    const meaning = INIT_FAILURES[init];
    let version = "";
    try {
      version = `, ${cudaVersionName(driver.version)} driver`;
    } catch { /* cuDriverGetVersion failed too */ }
    throw new BackendUnavailableError(
      "cuda",
      `${meaning ?? "cuInit failed"}: cuInit returned ${cause.errorName} (${init}), ` +
        `"${cause.errorString}"${version}`,
      [driver.path],
      { cause },
    );
  }
  return driver;
}

/** Name, attributes and memory of device `ordinal` (no context needed). */
export function readDevice(
  driver: CudaDriver,
  ordinal: number,
): { name: string; attributes: CudaDeviceAttributes; totalMemory: number } {
  const { symbols, out64, out32 } = driver;
  const bytes = new Uint8Array(256);
  driver.check(symbols.cuDeviceGetName(bytes, bytes.length, ordinal), "cuDeviceGetName");
  const name = new TextDecoder().decode(bytes.subarray(0, bytes.indexOf(0)));
  const attr = (id: number) => {
    driver.check(symbols.cuDeviceGetAttribute(out32, id, ordinal), `cuDeviceGetAttribute(${id})`);
    return out32[0];
  };
  const attributes: CudaDeviceAttributes = {
    computeCapability: [attr(ATTR.ccMajor), attr(ATTR.ccMinor)],
    multiprocessors: attr(ATTR.multiprocessors),
    maxThreadsPerBlock: attr(ATTR.maxThreadsPerBlock),
    maxBlockDim: [attr(ATTR.blockX), attr(ATTR.blockY), attr(ATTR.blockZ)],
    maxGridDim: [attr(ATTR.gridX), attr(ATTR.gridY), attr(ATTR.gridZ)],
    maxSharedMemoryPerBlock: attr(ATTR.sharedPerBlock),
    maxSharedMemoryPerBlockOptin: attr(ATTR.sharedPerBlockOptin),
    warpSize: attr(ATTR.warpSize),
    memoryPools: attr(ATTR.memoryPools) === 1 && symbols.cuMemAllocAsync !== null,
  };
  driver.check(symbols.cuDeviceTotalMem_v2(out64, ordinal), "cuDeviceTotalMem_v2");
  return { name, attributes, totalMemory: Number(out64[0]) };
}
