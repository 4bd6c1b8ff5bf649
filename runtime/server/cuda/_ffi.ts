/**
 * The CUDA driver over Deno FFI: `Deno.dlopen` of `libcuda.so.1` with the symbols the backend
 * uses, under the versioned names the driver exports (cuda.h maps `cuMemAlloc` onto
 * `cuMemAlloc_v2` and so on; the unversioned names are the 32-bit ABI of CUDA 3.x). Symbols newer
 * than CUDA 11.2 are optional (`null` when the driver lacks them).
 *
 * Conventions: `CUdeviceptr` and `size_t` travel as `u64`/`usize` (pass `bigint`, Deno's fast
 * path); handles (`CUstream`, `CUevent`, ...) as pointers; out-parameters through small typed
 * arrays reused across calls. Every `CUresult` goes through {@linkcode CudaDriver.check}, which
 * throws a {@linkcode CudaDriverError} naming the call, the result's name and its description.
 *
 * No function here waits on the device on the main thread: host waits call the
 * {@linkcode CudaDriver.waits} symbols, bound a second time as `nonblocking` (Deno runs them on
 * its blocking pool and resolves a promise), see `queue/_host_wait.ts`. The synchronous
 * `cuEventSynchronize` serves a timeline signal's `waitSync` (which blocks by definition) and,
 * with `cuStreamSynchronize`, the raw benchmarks and tests.
 *
 * @module
 */

import { openLibc } from "./_libc.ts";
import { readPermittedEnv } from "../../core/config.ts";
import { BackendUnavailableError, DriverError } from "../../core/errors.ts";
import {
  describeFault,
  type FaultSnapshot,
  faultWitnesses,
  type InFlightLaunch,
  isStickyFault,
} from "./_fault.ts";

const R = "i32" as const;
const P = "pointer" as const;
const B = "buffer" as const;

/**
 * The driver symbols the backend binds, with their FFI signatures (from cuda.h).
 *
 * @example Bind them yourself (what {@linkcode CudaDriver.open} does)
 * ```ts ignore
 * import { CUDA_SYMBOLS } from "@gpucompute/runtime/cuda";
 * const library = Deno.dlopen("libcuda.so.1", CUDA_SYMBOLS);
 * console.log(library.symbols.cuInit(0)); // 0 (CUDA_SUCCESS)
 * ```
 */
export const CUDA_SYMBOLS = {
  cuInit: { parameters: ["u32"], result: R },
  cuDriverGetVersion: { parameters: [B], result: R },
  cuDeviceGetCount: { parameters: [B], result: R },
  cuDeviceGet: { parameters: [B, "i32"], result: R },
  cuDeviceGetName: { parameters: [B, "i32", "i32"], result: R },
  cuDeviceGetAttribute: { parameters: [B, "i32", "i32"], result: R },
  cuDeviceTotalMem_v2: { parameters: [B, "i32"], result: R },
  cuDevicePrimaryCtxRetain: { parameters: [B, "i32"], result: R },
  cuDevicePrimaryCtxRelease_v2: { parameters: ["i32"], result: R },
  cuCtxSetCurrent: { parameters: [P], result: R },
  cuCtxGetCurrent: { parameters: [B], result: R },
  cuCtxSynchronize: { parameters: [], result: R },
  cuDeviceCanAccessPeer: { parameters: [B, "i32", "i32"], result: R },
  cuCtxEnablePeerAccess: { parameters: [P, "u32"], result: R },
  cuMemGetInfo_v2: { parameters: [B, B], result: R },
  cuStreamCreate: { parameters: [B, "u32"], result: R },
  cuStreamDestroy_v2: { parameters: [P], result: R },
  cuStreamQuery: { parameters: [P], result: R },
  cuStreamSynchronize: { parameters: [P], result: R },
  cuStreamWaitEvent: { parameters: [P, P, "u32"], result: R },
  cuEventCreate: { parameters: [B, "u32"], result: R },
  cuEventDestroy_v2: { parameters: [P], result: R },
  cuEventRecord: { parameters: [P, P], result: R },
  cuEventQuery: { parameters: [P], result: R },
  cuEventSynchronize: { parameters: [P], result: R },
  cuEventElapsedTime: { parameters: [B, P, P], result: R },
  cuEventElapsedTime_v2: { parameters: [B, P, P], result: R, optional: true },
  // CUDA 10.0: wakes blocking host waits (`queue/_wake.ts`); without it they poll.
  cuLaunchHostFunc: { parameters: [P, P, P], result: R, optional: true },
  cuMemAlloc_v2: { parameters: [B, "usize"], result: R },
  cuMemFree_v2: { parameters: ["u64"], result: R },
  cuMemAllocAsync: { parameters: [B, "usize", P], result: R, optional: true },
  cuMemFreeAsync: { parameters: ["u64", P], result: R, optional: true },
  cuMemAllocHost_v2: { parameters: [B, "usize"], result: R },
  cuMemFreeHost: { parameters: [P], result: R },
  cuMemcpyHtoDAsync_v2: { parameters: ["u64", P, "usize", P], result: R },
  cuMemcpyDtoHAsync_v2: { parameters: [P, "u64", "usize", P], result: R },
  cuMemcpyDtoDAsync_v2: { parameters: ["u64", "u64", "usize", P], result: R },
  cuMemcpy2DAsync_v2: { parameters: [B, P], result: R },
  cuMemcpyPeerAsync: { parameters: ["u64", P, "u64", P, "usize", P], result: R },
  cuMemsetD8Async: { parameters: ["u64", "u8", "usize", P], result: R },
  cuModuleLoadData: { parameters: [B, B], result: R },
  cuModuleLoadDataEx: { parameters: [B, B, "u32", B, B], result: R },
  cuModuleUnload: { parameters: [P], result: R },
  cuModuleGetFunction: { parameters: [B, P, B], result: R },
  cuFuncGetAttribute: { parameters: [B, "i32", P], result: R },
  cuFuncSetAttribute: { parameters: [P, "i32", "i32"], result: R },
  cuLaunchKernel: {
    parameters: [P, "u32", "u32", "u32", "u32", "u32", "u32", "u32", P, B, P],
    result: R,
  },
  // Graphs (stream capture): a driver without them replays captures launch by launch.
  cuStreamBeginCapture_v2: { parameters: [P, "i32"], result: R, optional: true },
  cuStreamEndCapture: { parameters: [P, B], result: R, optional: true },
  cuGraphInstantiateWithFlags: { parameters: [B, P, "u64"], result: R, optional: true },
  cuGraphLaunch: { parameters: [P, P], result: R, optional: true },
  cuGraphDestroy: { parameters: [P], result: R, optional: true },
  cuGraphExecDestroy: { parameters: [P], result: R, optional: true },
  // Replay params: the node each captured launch recorded, rewritten in the instantiated graph
  // (`CUDA_KERNEL_NODE_PARAMS_v1`, the ABI of the unsuffixed name).
  cuStreamGetCaptureInfo_v2: { parameters: [P, B, B, B, B, B], result: R, optional: true },
  cuGraphExecKernelNodeSetParams: { parameters: [P, P, B], result: R, optional: true },
  cuGetErrorName: { parameters: ["i32", B], result: R },
  cuGetErrorString: { parameters: ["i32", B], result: R },
} as const satisfies Deno.ForeignLibraryInterface;

/** The driver calls that may block, bound a second time as `nonblocking` for host waits. */
const WAIT_SYMBOLS = {
  cuEventSynchronize: { parameters: [P], result: R, nonblocking: true },
  cuDevicePrimaryCtxRelease_v2: { parameters: ["i32"], result: R, nonblocking: true },
} as const satisfies Deno.ForeignLibraryInterface;

/**
 * The bound functions of {@linkcode CUDA_SYMBOLS}.
 *
 * @example
 * ```ts
 * import type { CudaSymbols } from "@gpucompute/runtime/cuda";
 * const version = (symbols: CudaSymbols) => {
 *   const out = new Int32Array(1);
 *   return symbols.cuDriverGetVersion(out) === 0 ? out[0] : undefined;
 * };
 * ```
 */
export type CudaSymbols = Deno.DynamicLibrary<typeof CUDA_SYMBOLS>["symbols"];

/** `CUresult` values the backend branches on. */
export const CUDA_SUCCESS = 0;
/** `CUDA_ERROR_OUT_OF_MEMORY`. */
export const CUDA_ERROR_OUT_OF_MEMORY = 2;
/** `CUDA_ERROR_NO_DEVICE`. */
export const CUDA_ERROR_NO_DEVICE = 100;
/** `CUDA_ERROR_NO_BINARY_FOR_GPU`: no image in the module fits the device. */
export const CUDA_ERROR_NO_BINARY_FOR_GPU = 209;
/** `CUDA_ERROR_INVALID_PTX`. */
export const CUDA_ERROR_INVALID_PTX = 218;
/** `CUDA_ERROR_UNSUPPORTED_PTX_VERSION`: the PTX's `.version` is newer than the driver's. */
export const CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222;
/** `CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED`: `cuCtxEnablePeerAccess` was done before. */
export const CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704;
/** `CUDA_ERROR_NOT_READY`: an event or stream has pending work (not an error). */
export const CUDA_ERROR_NOT_READY = 600;

/**
 * The environment variable that overrides the driver library's path (read only when `--allow-env`
 * grants it).
 *
 * @example
 * ```ts
 * import { CUDA_LIBRARY_ENV } from "@gpucompute/runtime/cuda";
 * console.log(CUDA_LIBRARY_ENV); // GPUCOMPUTE_CUDA_LIBRARY
 * ```
 */
export const CUDA_LIBRARY_ENV = "GPUCOMPUTE_CUDA_LIBRARY";

/**
 * A driver call returned an error. `result` is the `CUresult`, `errorName` its enum name
 * (`CUDA_ERROR_OUT_OF_MEMORY`), `call` the call with its main arguments. For a kernel fault
 * (sticky: `CUDA_ERROR_ILLEGAL_ADDRESS`, `CUDA_ERROR_LAUNCH_FAILED`, ...), which CUDA reports at
 * a later call, `launches` lists the launches in flight when the fault was first seen (newest
 * first, at most 8), and the message names them.
 *
 * @example
 * ```ts
 * import { CudaDriverError } from "@gpucompute/runtime/cuda";
 * const error = new CudaDriverError("cuMemAlloc_v2(1024)", 2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory");
 * console.log(error.code, error.message);
 * ```
 */
export class CudaDriverError extends DriverError {
  /** The failed call. */
  readonly call: string;
  /** The `CUresult`. */
  readonly result: number;
  /** Its name from `cuGetErrorName`. */
  readonly errorName: string;
  /** Its description from `cuGetErrorString`. */
  readonly errorString: string;
  /**
   * For a kernel fault (a sticky result): the launches in flight when it was first seen, newest
   * first, the candidates for the faulting kernel (empty when none was); `undefined` otherwise.
   */
  readonly launches: readonly InFlightLaunch[] | undefined;
  /**
   * Creates the error from the call, the result, its name and its description; for a sticky
   * result, `fault` holds the launches in flight (the message then names them).
   */
  constructor(
    call: string,
    result: number,
    errorName: string,
    errorString: string,
    fault?: FaultSnapshot,
  ) {
    const sticky = isStickyFault(result);
    super(
      `${call} failed with ${errorName} (${result}): ${errorString}` +
        (sticky ? `: ${describeFault(call, fault)}` : ""),
    );
    this.name = "CudaDriverError";
    this.call = call;
    this.result = result;
    this.errorName = errorName;
    this.errorString = errorString;
    this.launches = sticky ? fault?.launches ?? [] : undefined;
  }
}

/**
 * Options of {@linkcode CudaDriver.open}.
 *
 * @example
 * ```ts
 * import type { CudaDriverOptions } from "@gpucompute/runtime/cuda";
 * const options: CudaDriverOptions = { library: "/usr/lib/wsl/lib/libcuda.so.1" };
 * ```
 */
export interface CudaDriverOptions {
  /**
   * Path of the driver library; else `$GPUCOMPUTE_CUDA_LIBRARY` (when readable), else the
   * platform's name (`libcuda.so.1`, `nvcuda.dll`).
   * @default {undefined}
   */
  library?: string;
}

/**
 * The paths {@linkcode CudaDriver.open} tries, in order: the option, else the environment
 * variable, else the platform's library names.
 *
 * @example
 * ```ts
 * import { libraryCandidates } from "@gpucompute/runtime/cuda";
 * console.log(libraryCandidates({ library: "/opt/libcuda.so.1" })); // [ "/opt/libcuda.so.1" ]
 * ```
 */
export function libraryCandidates(options: CudaDriverOptions = {}): string[] {
  if (options.library !== undefined) return [options.library];
  const fromEnv = readPermittedEnv(CUDA_LIBRARY_ENV);
  if (fromEnv) return [fromEnv];
  return Deno.build.os === "windows" ? ["nvcuda.dll"] : ["libcuda.so.1", "libcuda.so"];
}

type Unref = (promise: Promise<unknown>) => void;
/** Deno's `unrefOpPromise` (internal; absent: a parked call keeps the process alive). */
const unref: Unref | undefined = (() => {
  try {
    // deno-lint-ignore no-explicit-any
    const core = (Deno as any)[(Deno as any).internal]?.core;
    return typeof core?.unrefOpPromise === "function" ? core.unrefOpPromise : undefined;
  } catch {
    return undefined;
  }
})();

/** @internal Parks `promise`'s op off the event loop's liveness (no-op where Deno does not allow it). */
export function unrefCall<T>(promise: Promise<T>): Promise<T> {
  try {
    unref?.(promise);
  } catch { /* not an op promise */ }
  return promise;
}

/**
 * Libraries opened so far, by path. A driver library is never closed: libcuda (and the simulator)
 * run threads of their own that may still execute library code after the last context was
 * released, and unloading under them crashes the process. Opening once per path also makes
 * repeated server creation cheap.
 */
const opened = new Map<string, CudaDriver>();

/**
 * An opened driver library (one per path per process, never unloaded). Every call made through {@linkcode check} throws a typed error.
 *
 * @example
 * ```ts ignore
 * import { CudaDriver } from "@gpucompute/runtime/cuda";
 * const driver = CudaDriver.open();
 * driver.check(driver.symbols.cuInit(0), "cuInit(0)");
 * ```
 */
export class CudaDriver {
  /** The path that was opened. */
  readonly path: string;
  /** The bound functions; optional ones are `null` when the driver lacks them. */
  readonly symbols: CudaSymbols;
  /**
   * `cuEventSynchronize` and `cuDevicePrimaryCtxRelease_v2` as non-blocking calls (promises),
   * for host waits that park a thread of Deno's pool instead of polling; `undefined` where the
   * second binding failed (waits then poll).
   */
  readonly waits: {
    /** `cuEventSynchronize`, resolving with its `CUresult`. */
    cuEventSynchronize(event: Deno.PointerValue): Promise<number>;
    /** `cuDevicePrimaryCtxRelease_v2`, resolving with its `CUresult`. */
    cuDevicePrimaryCtxRelease_v2(device: number): Promise<number>;
  } | undefined;
  /** Scratch out-parameters, reused by every call (calls are synchronous). */
  readonly out64: BigUint64Array = new BigUint64Array(2);
  /** Scratch 32-bit out-parameters. */
  readonly out32: Int32Array = new Int32Array(2);

  private constructor(path: string, library: Deno.DynamicLibrary<typeof CUDA_SYMBOLS>) {
    this.path = path;
    this.symbols = library.symbols;
    try {
      this.waits = Deno.dlopen(path, WAIT_SYMBOLS).symbols;
    } catch {
      this.waits = undefined;
    }
    openLibc(); // for the blocking waits the device wakes (`queue/_wake.ts`)
  }

  /**
   * Opens the driver library (the first candidate that loads); `BACKEND_UNAVAILABLE` when none
   * does, naming every path tried and the loader's last message.
   */
  static open(options: CudaDriverOptions = {}): CudaDriver {
    const tried = libraryCandidates(options);
    let last: unknown;
    for (const path of tried) {
      const cached = opened.get(path);
      if (cached !== undefined) return cached;
      try {
        const driver = new CudaDriver(path, Deno.dlopen(path, CUDA_SYMBOLS));
        opened.set(path, driver);
        return driver;
      } catch (error) {
        if (error instanceof Deno.errors.NotCapable) {
          throw new BackendUnavailableError(
            "cuda",
            "loading the CUDA driver library needs Deno's FFI permission: run with --allow-ffi",
            tried,
            { cause: error },
          );
        }
        last = error;
      }
    }
    // Deno's loader repeats its own prefix ("Could not open library: Could not open library: x").
    const reason = (last instanceof Error ? last.message : String(last))
      .replace(/^(Could not open library: )+/, "");
    throw new BackendUnavailableError(
      "cuda",
      `cannot load the CUDA driver library: ${reason}`,
      tried,
      { cause: last },
    );
  }

  /**
   * The CUDA version of the driver (`cuDriverGetVersion`: 1000 * major + 10 * minor, e.g. 12020
   * for CUDA 12.2, what NVIDIA's r535 drivers report). Works before `cuInit`.
   */
  get version(): number {
    const out = new Int32Array(1);
    this.check(this.symbols.cuDriverGetVersion(out), "cuDriverGetVersion");
    return out[0];
  }

  /** Throws a {@linkcode CudaDriverError} for any result other than `CUDA_SUCCESS`. */
  check(result: number, call: string): void {
    if (result !== CUDA_SUCCESS) throw this.error(result, call);
  }

  /** The typed error of a failed call. */
  error(result: number, call: string): CudaDriverError {
    const fault = isStickyFault(result)
      ? faultWitnesses(this).observe((out) => this.symbols.cuCtxGetCurrent(out))
      : undefined;
    return new CudaDriverError(
      call,
      result,
      this.#describe(result, 0),
      this.#describe(result, 1),
      fault,
    );
  }

  /** Reads a pointer out-parameter written at `out64[index]`. */
  pointerAt(index = 0): Deno.PointerValue {
    return Deno.UnsafePointer.create(this.out64[index]);
  }

  #describe(result: number, which: 0 | 1): string {
    const out = new BigUint64Array(1);
    const fn = which === 0 ? this.symbols.cuGetErrorName : this.symbols.cuGetErrorString;
    const pointer = fn(result, out) === CUDA_SUCCESS ? Deno.UnsafePointer.create(out[0]) : null;
    if (pointer === null) return which === 0 ? `CUresult ${result}` : "unknown error";
    return Deno.UnsafePointerView.getCString(pointer);
  }
}
