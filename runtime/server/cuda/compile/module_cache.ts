/**
 * The module cache of one context: loads each distinct PTX text once (`cuModuleLoadDataEx`, with
 * the JIT's error log) and looks up each program (PTX or CUDA C, and entry point) once
 * (`cuModuleGetFunction`), whatever its id. A module the driver rejects is a `COMPILATION` error
 * with the driver's message and ptxas's log, cached so later launches of that program fail at
 * once. A kernel object seen before is found by identity (its strings compared by reference),
 * without building the program key again.
 *
 * **Drivers older than the PTX.** When the driver refuses a kernel's PTX for its version or
 * architecture (`CUDA_ERROR_UNSUPPORTED_PTX_VERSION`, `CUDA_ERROR_NO_BINARY_FOR_GPU`) and the
 * kernel has CUDA C too (`source`, as the shipped kernels do), NVRTC compiles that for this
 * driver, preferring an NVRTC no newer than the driver. Otherwise the error names the driver's
 * CUDA version and what the PTX needs.
 *
 * **Dynamic shared memory above 48 KiB** needs the function's
 * `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` raised first: done once per function, up to
 * the device's opt-in limit (beyond it the launch is a `RangeError` before anything runs).
 *
 * @module
 */

import {
  CompilationError,
  type ComputeError,
  KernelArgumentError,
  UnsupportedError,
} from "../../../core/errors.ts";
import { CUDA_SUCCESS, type CudaDriver } from "../_ffi.ts";

/** `CUDA_ERROR_NOT_FOUND`: `cuModuleGetFunction` found no function of the name. */
const CUDA_ERROR_NOT_FOUND = 500;
import { Nvrtc } from "./_nvrtc.ts";
import { ptxEntryName, ptxParamSizes } from "./_cxx_entry.ts";
import { kernelName } from "../kernel.ts";
import { cudaVersionName, isaName, maxPtxIsa } from "../_ptx_version.ts";
import { isMismatch, type Loaded, loadError, loadModule } from "./_module_load.ts";
import type { CudaKernel } from "../kernel.ts";
import { type ResolvedKernel, resolveKernel, sameOptions } from "./_resolve_kernel.ts";
import { sourceVariant } from "./_source_variants.ts";

export type { ResolvedKernel } from "./_resolve_kernel.ts";

const CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1;
const CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;

/** What the cache knows of one program. */
interface Program {
  fn?: Deno.PointerValue;
  error?: ComputeError;
  signature?: { sizes: number[] | undefined };
  /** Static shared bytes of the function, and the dynamic bytes it may use now. */
  shared?: { static: number; dynamicLimit: number };
}

/** A kernel object's strings when its program was looked up. */
interface Seen {
  readonly ptx?: string;
  readonly source?: string;
  readonly entryPoint?: string;
  /** A copy of `compileOptions`: an array changed in place is another program. */
  readonly list: readonly string[] | undefined;
  readonly program: Program;
  resolved: ResolvedKernel;
}

/** A kernel's `compileOptions`, joined for keys. */
const optionsKey = (kernel: CudaKernel): string =>
  kernel.compileOptions === undefined ? "" : kernel.compileOptions.join("\0");

/**
 * Options of {@linkcode ModuleCache}.
 *
 * @example
 * ```ts
 * import type { ModuleCacheOptions } from "@gpucompute/runtime/cuda";
 * const options: ModuleCacheOptions = {
 *   nvrtcLibrary: "/usr/local/cuda/lib64/libnvrtc.so.12",
 *   computeCapability: [9, 0],
 * };
 * ```
 */
export interface ModuleCacheOptions {
  /**
   * NVRTC's path, or paths in order of preference, for `source` kernels; else
   * `$GPUCOMPUTE_NVRTC_LIBRARY`, else `libnvrtc.so.<driver's major>` down to `.so.11`, then
   * `libnvrtc.so` (an NVRTC no newer than the driver is preferred).
   * @default {undefined}
   */
  readonly nvrtcLibrary?: string | readonly string[];
  /**
   * The device's compute capability: NVRTC compiles for it, and messages name it.
   * @default {[7, 5]}
   */
  readonly computeCapability?: readonly [number, number];
  /**
   * `CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN`: the most shared memory (static and
   * dynamic) a block may use once its function opted in.
   * @default {49152}
   */
  readonly maxSharedMemoryPerBlockOptin?: number;
  /**
   * The driver's `cuDriverGetVersion`, for NVRTC's choice and the messages.
   * @default {driver.version}
   */
  readonly driverVersion?: number;
}

/**
 * Loaded modules and functions of one context. The context must be current for every call.
 *
 * @example
 * ```ts ignore
 * import { CUDA_KERNELS, CudaDevice, ModuleCache } from "@gpucompute/runtime/cuda";
 * using device = CudaDevice.open();
 * const cache = new ModuleCache(device.driver);
 * console.log(cache.function(CUDA_KERNELS.fillF32)); // a CUfunction pointer
 * cache.clear();
 * ```
 */
export class ModuleCache {
  readonly #driver: CudaDriver;
  readonly #options: ModuleCacheOptions;
  readonly #cc: readonly [number, number];
  readonly #version: number;
  /** NVRTC's PTX by template instance and source. */
  readonly #compiled = new Map<string, { ptx: string; nvrtc: Nvrtc; lowered?: string }>();
  readonly #modules = new Map<string, Deno.PointerValue>();
  /** Per program key. */
  #programs = new Map<string, Program>();
  /** Per kernel object, with the strings its program was found by. */
  #seen = new WeakMap<CudaKernel, Seen>();
  #lastKernel: CudaKernel | undefined;
  #lastSeen: Seen | undefined;
  /** Modules loaded (`cuModuleLoadDataEx` calls). */
  loads = 0;

  /** Creates an empty cache. */
  constructor(driver: CudaDriver, options: ModuleCacheOptions = {}) {
    this.#driver = driver;
    this.#options = options;
    this.#cc = options.computeCapability ?? [7, 5];
    this.#version = options.driverVersion ?? driver.version;
  }

  /** The PTX of a kernel: its own, or its CUDA C compiled by NVRTC (cached by source). */
  ptx(kernel: CudaKernel): string {
    if (typeof kernel.ptx === "string") return kernel.ptx;
    return this.#compile(kernel).ptx;
  }

  /**
   * The function of a kernel, ready for a launch with the kernel's `sharedMemoryBytes`;
   * `COMPILATION` when the driver rejects its module (`KERNEL_ARGUMENT` naming `entryPoint` when
   * the module has no kernel of that name), `RangeError` for more
   * shared memory than the device allows.
   */
  function(kernel: CudaKernel): Deno.PointerValue {
    const program = this.#program(kernel);
    if (program.error !== undefined) throw program.error;
    if (program.fn === undefined) {
      try {
        program.fn = this.#load(kernel, program);
      } catch (error) {
        if (
          error instanceof CompilationError || error instanceof UnsupportedError ||
          error instanceof KernelArgumentError
        ) {
          program.error = error;
        }
        throw error;
      }
    }
    const bytes = kernel.sharedMemoryBytes;
    if (bytes !== undefined && bytes > program.shared!.dynamicLimit) {
      this.#allowShared(kernel, program, bytes);
    }
    return program.fn;
  }

  /**
   * The byte sizes of a kernel's parameters, read from its PTX `.entry` declaration, or
   * `undefined` when the PTX does not declare them in the form `nvcc` writes.
   */
  signature(kernel: CudaKernel): readonly number[] | undefined {
    const program = this.#program(kernel);
    if (program.signature === undefined) {
      program.signature = { sizes: ptxParamSizes(this.ptx(kernel), this.#entryName(kernel)) };
    }
    return program.signature.sizes;
  }

  /**
   * The kernel's entry point (inferred when the module has one) and its signature; a
   * `TypeError` when no entry point is given and the module has none or several.
   */
  resolve(kernel: CudaKernel): ResolvedKernel {
    return this.#seenOf(kernel).resolved;
  }

  /** Unloads every module. */
  clear(): void {
    for (const module of this.#modules.values()) this.#driver.symbols.cuModuleUnload(module);
    this.#modules.clear();
    this.#programs = new Map();
    this.#seen = new WeakMap();
    this.#lastKernel = this.#lastSeen = undefined;
  }

  #program(kernel: CudaKernel): Program {
    return this.#seenOf(kernel).program;
  }

  #seenOf(kernel: CudaKernel): Seen {
    // A launch asks three times for one kernel: the last one is kept beside the WeakMap.
    const seen = kernel === this.#lastKernel ? this.#lastSeen : this.#seen.get(kernel);
    if (
      seen !== undefined && seen.ptx === kernel.ptx && seen.source === kernel.source &&
      seen.entryPoint === kernel.entryPoint && sameOptions(seen.list, kernel.compileOptions)
    ) {
      this.#lastKernel = kernel;
      this.#lastSeen = seen;
      return seen;
    }
    const resolved = resolveKernel(kernel);
    const entry = resolved.entryPoint;
    const options = optionsKey(kernel);
    const key = typeof kernel.ptx === "string"
      ? `ptx\0${entry}\0${kernel.ptx}`
      : `cu\0${entry}\0${options}\0\0${kernel.source}`;
    let program = this.#programs.get(key);
    if (program === undefined) this.#programs.set(key, program = {});
    const { ptx, source, entryPoint } = kernel;
    const list = kernel.compileOptions === undefined ? undefined : [...kernel.compileOptions];
    const fresh = { ptx, source, entryPoint, list, program, resolved };
    this.#seen.set(this.#lastKernel = kernel, this.#lastSeen = fresh);
    // `#if` variants of the entry: the PTX (compiled now, with `fresh` seen) picks one
    fresh.resolved = sourceVariant(kernel, resolved, () => this.ptx(kernel));
    return fresh;
  }

  #compile(kernel: CudaKernel): { ptx: string; nvrtc: Nvrtc; lowered?: string } {
    const source = kernel.source;
    if (typeof source !== "string") {
      throw new TypeError(`Kernel '${kernelName(kernel)}' needs a ptx or a source string`);
    }
    const { entryPoint, signature } = this.resolve(kernel);
    const instance = signature?.template === true ? entryPoint : "";
    const options = kernel.compileOptions ?? [];
    const key = `${instance}\0${optionsKey(kernel)}\0\0${source}`;
    let compiled = this.#compiled.get(key);
    if (compiled === undefined) {
      const nvrtc = Nvrtc.open(this.#options.nvrtcLibrary, {
        driverVersion: this.#version,
      });
      const name = kernelName(kernel), arch = nvrtc.archFor(name, this.#cc);
      const { ptx, lowered } = nvrtc.compileNamed(
        name,
        source,
        `${name}.cu`,
        arch,
        [instance]
          .filter((e) => e !== ""),
        options,
      );
      compiled = { ptx, nvrtc, lowered: lowered.get(instance) };
      this.#compiled.set(key, compiled);
    }
    return compiled;
  }

  /** The PTX `.entry` name of the kernel's entry point (mangled for a C++-linkage kernel). */
  #entryName(kernel: CudaKernel): string {
    const { entryPoint, signature } = this.resolve(kernel);
    if (signature?.template === true && typeof kernel.source === "string") {
      return this.#compile(kernel).lowered ?? entryPoint;
    }
    if (signature?.cxx !== true && !entryPoint.includes("::")) return entryPoint;
    return ptxEntryName(this.ptx(kernel), entryPoint, true, kernelName(kernel));
  }

  /** Loads the kernel's module (through NVRTC when needed) and finds its function. */
  #load(kernel: CudaKernel, program: Program): Deno.PointerValue {
    const module = typeof kernel.ptx === "string"
      ? this.#loadPtx(kernel)
      : this.#loadSource(kernel, undefined);
    const { symbols, out64, out32 } = this.#driver;
    const entry = this.#entryName(kernel);
    const name = new TextEncoder().encode(entry + "\0");
    const result = symbols.cuModuleGetFunction(out64, module, name);
    if (result !== CUDA_SUCCESS) {
      const cause = this.#driver.error(result, `cuModuleGetFunction(${entry})`);
      if (result === CUDA_ERROR_NOT_FOUND) {
        // The module loaded, but has no kernel of that name: the caller's entryPoint is wrong.
        throw new KernelArgumentError(
          kernelName(kernel),
          "entryPoint",
          `is '${entry}' but the module has no kernel of that name (${cause.message})`,
          { cause },
        );
      }
      throw new CompilationError(kernelName(kernel), cause.message, undefined, { cause });
    }
    const fn = this.#driver.pointerAt();
    const attribute = (id: number) => {
      this.#driver.check(symbols.cuFuncGetAttribute(out32, id, fn), `cuFuncGetAttribute(${id})`);
      return out32[0];
    };
    program.shared = {
      static: attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES),
      dynamicLimit: attribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES),
    };
    return fn;
  }

  /** Loads a kernel's own PTX; its CUDA C through NVRTC when the driver is too old for it. */
  #loadPtx(kernel: CudaKernel): Deno.PointerValue {
    const ptx = kernel.ptx!;
    const loaded = this.#loadCached(ptx, kernel);
    if ("module" in loaded) return loaded.module;
    const failure = {
      kernel: kernelName(kernel),
      ptx,
      loaded,
      driverVersion: this.#version,
      computeCapability: this.#cc,
    };
    if (!isMismatch(loaded.error.result)) throw loadError(failure);
    if (typeof kernel.source !== "string") {
      const max = isaName(maxPtxIsa(this.#version).isa);
      throw loadError({
        ...failure,
        note: `give the kernel's CUDA C as \`source\` too (NVRTC then compiles it for this ` +
          `driver), or PTX of .version ${max} or lower (lowerPtxIsa(ptx, "${max}") of ./cuda ` +
          `lowers the header; the JIT then refuses anything the older ISA lacks)`,
      });
    }
    try {
      return this.#loadSource(kernel, loadError(failure));
    } catch (error) {
      if (!(error instanceof UnsupportedError)) throw error;
      throw loadError({
        ...failure,
        note: `no NVRTC to compile its CUDA C instead: ${error.message}`,
      });
    }
  }

  /** Compiles the kernel's CUDA C with NVRTC and loads it (`refused`: why its PTX was not). */
  #loadSource(kernel: CudaKernel, refused: CompilationError | undefined): Deno.PointerValue {
    const { ptx, nvrtc } = this.#compile(kernel);
    const loaded = this.#loadCached(ptx, kernel);
    if ("module" in loaded) return loaded.module;
    const from = `${cudaVersionName(nvrtc.version).replace("CUDA", "NVRTC")} (${nvrtc.path})`;
    throw loadError({
      kernel: kernelName(kernel),
      ptx,
      loaded,
      driverVersion: this.#version,
      computeCapability: this.#cc,
      note: (refused ? `its own PTX was refused too (${refused.compilerMessage}); ` : "") +
        `the PTX came from ${from}` +
        (nvrtc.newerThanDriver
          ? `, newer than the driver: install the NVRTC of ${
            cudaVersionName(this.#version)
          } or older`
          : ""),
    });
  }

  #loadCached(ptx: string, kernel: CudaKernel): Loaded {
    const module = this.#modules.get(ptx);
    if (module !== undefined) return { module };
    this.loads++;
    const loaded = loadModule(this.#driver, ptx, kernelName(kernel));
    if ("module" in loaded) this.#modules.set(ptx, loaded.module);
    return loaded;
  }

  /** Raises the function's dynamic shared memory limit to `bytes` (`cuFuncSetAttribute`). */
  #allowShared(kernel: CudaKernel, program: Program, bytes: number): void {
    const shared = program.shared!;
    const optin = this.#options.maxSharedMemoryPerBlockOptin ?? 49152;
    if (bytes + shared.static > optin) {
      throw new RangeError(
        `Kernel '${kernelName(kernel)}' asks for ${bytes} bytes of dynamic shared memory; with ` +
          `its ${shared.static} static bytes the device allows ${optin - shared.static} ` +
          `(${optin} per block, opt-in)`,
      );
    }
    this.#driver.check(
      this.#driver.symbols.cuFuncSetAttribute(
        program.fn!,
        CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        bytes,
      ),
      `cuFuncSetAttribute(${kernelName(kernel)}, MAX_DYNAMIC_SHARED_SIZE_BYTES, ${bytes})`,
    );
    shared.dynamicLimit = bytes;
  }
}
