/**
 * Checks of a launch built by hand, made before anything is ordered or enqueued: a malformed
 * launch throws `TypeError`/`RangeError` from `execute` and changes nothing (the driver would
 * otherwise see garbage, or FFI would throw its own untyped error halfway).
 *
 * @module
 */

import { CompilationError, KernelArgumentError, UnsupportedError } from "../../../core/errors.ts";
import { HandleRef } from "../../../core/handles/handle_ref.ts";
import { KernelArguments } from "../../../core/kernel_arguments.ts";
import { CubeCount } from "../../../core/cube_count.ts";
import {
  assertNonNegativeInteger,
  assertPositiveInteger,
  describe,
} from "../../../core/_argument_checks.ts";
import type { KernelLaunch } from "../../server.ts";
import type { CudaDeviceAttributes } from "../device.ts";
import { type CudaKernel, kernelName } from "../kernel.ts";

const MODES: readonly unknown[] = ["checked", "unchecked", undefined];

/** Checks the launch object, its arguments and buffers, its cube count and its mode. */
function checkLaunchShape(launch: KernelLaunch<CudaKernel>): void {
  if (typeof launch !== "object" || launch === null) {
    throw new TypeError(`launch must be a KernelLaunch, got ${describe(launch)}`);
  }
  if (!(launch.args instanceof KernelArguments)) {
    throw new TypeError(`launch.args must be a KernelArguments, got ${describe(launch.args)}`);
  }
  const buffers = launch.args.buffers;
  for (let i = 0; i < buffers.length; i++) {
    if (!(buffers[i] instanceof HandleRef)) {
      throw new TypeError(`buffers[${i}] must be a HandleRef, got ${describe(buffers[i])}`);
    }
  }
  CubeCount.check(launch.count);
  if (!MODES.includes(launch.mode)) {
    throw new RangeError(`mode must be "checked" or "unchecked", got ${describe(launch.mode)}`);
  }
}

/** Checks the shape of a launch and of its kernel (`TypeError` / `RangeError`). */
export function checkLaunch(launch: KernelLaunch<CudaKernel>): void {
  checkLaunchShape(launch);
  checkCompile(launch.kernel, launch.overrides);
  // No samplers (`[]`) binds none, as an empty `overrides` sets none: code written for both
  // backends may pass them.
  if (launch.samplers !== undefined && launch.samplers.length > 0) {
    throw new UnsupportedError(
      `Kernel '${kernelName(launch.kernel)}': the CUDA backend has no samplers (WGSL)`,
    );
  }
}

/**
 * Checks a kernel to compile, and refuses override constants (`compile` and `execute`); an empty
 * `overrides` object sets none, so code written for both backends may pass one.
 */
export function checkCompile(kernel: CudaKernel, overrides: unknown): void {
  checkKernel(kernel);
  if (overrides === undefined) return;
  if (typeof overrides !== "object" || overrides === null || Array.isArray(overrides)) {
    // A malformed argument first, as the WebGPU backend refuses it.
    throw new TypeError(
      `overrides must be an object of override values, got ${describe(overrides)}`,
    );
  }
  if (Object.keys(overrides).length > 0) {
    throw new UnsupportedError(
      `Kernel '${kernelName(kernel)}': the CUDA backend has no override constants (WGSL)`,
    );
  }
}

/** WGSL's marks: a compute entry point or a binding. */
const WGSL = /@compute\b|@group\s*\(|@binding\s*\(|@workgroup_size\b/;

/** The verdicts of {@linkcode isWgsl} by source text (a pure function of it), at most 64. */
const wgslVerdicts = new Map<string, boolean>();

/**
 * Whether a source is WGSL rather than CUDA C: its text is scanned once, not at every launch (a
 * source of a few KiB took a launch's JavaScript again).
 */
function isWgsl(source: string): boolean {
  let verdict = wgslVerdicts.get(source);
  if (verdict === undefined) {
    verdict = WGSL.test(source) && !/__global__/.test(source);
    if (wgslVerdicts.size >= 64) wgslVerdicts.clear();
    wgslVerdicts.set(source, verdict);
  }
  return verdict;
}

/** Checks a kernel built by hand. */
export function checkKernel(kernel: CudaKernel): void {
  if (typeof kernel !== "object" || kernel === null) {
    throw new TypeError(`kernel must be a CudaKernel, got ${describe(kernel)}`);
  }
  if (kernel.id !== undefined && typeof kernel.id !== "string") {
    throw new TypeError(`kernel.id must be a string when given, got ${describe(kernel.id)}`);
  }
  if (
    kernel.entryPoint !== undefined &&
    (typeof kernel.entryPoint !== "string" || kernel.entryPoint === "")
  ) {
    throw new TypeError(
      `kernel.entryPoint must be a non-empty string when given, got ${describe(kernel.entryPoint)}`,
    );
  }
  if (typeof kernel.ptx !== "string" && typeof kernel.source !== "string") {
    throw new TypeError(`Kernel '${kernelName(kernel)}' needs a ptx or a source string`);
  }
  if (typeof kernel.ptx !== "string" && isWgsl(kernel.source!)) {
    throw new KernelArgumentError(
      kernelName(kernel),
      "kernel",
      "is a WGSL kernel (a WebGPU kernel): the CUDA backend runs CUDA C ({ source } with an " +
        'extern "C" __global__ function) or PTX ({ ptx }); run it on a WebGPU client',
    );
  }
  if (kernel.compileOptions !== undefined) checkCompileOptions(kernel);
  const size = kernel.blockSize;
  if (size !== undefined && (!Array.isArray(size) || size.length !== 3)) {
    throw new TypeError(
      `Kernel '${kernelName(kernel)}': blockSize must be [x, y, z], got ${describe(size)}`,
    );
  }
  if (size !== undefined) {
    for (let i = 0; i < 3; i++) {
      const n = size[i]; // the name is built only for a bad size: this runs on every launch
      if (!Number.isSafeInteger(n) || n <= 0) {
        assertPositiveInteger(n, `Kernel '${kernelName(kernel)}' blockSize`);
      }
    }
  }
  const shared = kernel.sharedMemoryBytes;
  if (shared !== undefined && !(Number.isSafeInteger(shared) && shared >= 0)) {
    assertNonNegativeInteger(
      kernel.sharedMemoryBytes,
      `Kernel '${kernelName(kernel)}' sharedMemoryBytes`,
    );
  }
}

/** NVRTC's architecture options, which the runtime sets to the device's. */
const ARCH_OPTION = /^(?:--gpu-architecture|-arch)(?:=|$)/;
/** NVRTC's link-time optimization, whose output is LTO IR (`nvrtcGetLTOIR`), not PTX. */
const LTO_OPTION = /^(?:--dlink-time-opt|-dlto)(?:=true)?$/;

/** Checks `compileOptions`: strings for NVRTC, none naming the architecture. */
function checkCompileOptions(kernel: CudaKernel): void {
  const options: unknown = kernel.compileOptions;
  if (!Array.isArray(options)) {
    throw new TypeError(
      `Kernel '${kernelName(kernel)}': compileOptions must be an array of strings, got ${
        describe(options)
      }`,
    );
  }
  for (let i = 0; i < options.length; i++) {
    const option: unknown = options[i];
    if (typeof option === "string" && ACCEPTED_OPTIONS.has(option)) continue; // checked before
    if (typeof option !== "string" || option === "" || option.includes("\0")) {
      throw new TypeError(
        `Kernel '${kernelName(kernel)}': compileOptions[${i}] must be a non-empty string ` +
          `without NUL, got ${describe(option)}`,
      );
    }
    if (ARCH_OPTION.test(option)) {
      throw new KernelArgumentError(
        kernelName(kernel),
        "compileOptions",
        `names the architecture (${option}): the runtime compiles for the device's own`,
      );
    }
    if (LTO_OPTION.test(option)) { // NVRTC then writes LTO IR, which no driver loads as PTX
      throw new KernelArgumentError(
        kernelName(kernel),
        "compileOptions",
        `asks for link-time optimization (${option}): NVRTC then writes LTO IR, not the PTX ` +
          "the runtime loads; leave it out",
      );
    }
    if (ACCEPTED_OPTIONS.size >= 256) ACCEPTED_OPTIONS.clear();
    ACCEPTED_OPTIONS.add(option);
  }
}

/** Options the checks above accepted (a pure function of the text): not tested again. */
const ACCEPTED_OPTIONS = new Set<string>();

/**
 * `COMPILATION` for blocks beyond the device's limits, with the WebGPU backend's words for a
 * workgroup size beyond them: a kernel that cannot run on this device, refused by `compile` (a
 * `blockSize` given) and at the call, the same on both backends.
 */
export function checkBlockLimits(
  name: string,
  block: readonly [number, number, number],
  attributes: Pick<CudaDeviceAttributes, "maxBlockDim" | "maxThreadsPerBlock">,
): void {
  const { maxBlockDim, maxThreadsPerBlock } = attributes;
  block.forEach((n, i) => {
    if (n > maxBlockDim[i]) {
      throw new CompilationError(
        name,
        `block size ${"xyz"[i]}=${n} exceeds the device limit ${maxBlockDim[i]}`,
      );
    }
  });
  const threads = block[0] * block[1] * block[2];
  if (threads > maxThreadsPerBlock) {
    throw new CompilationError(
      name,
      `${threads} threads per block exceed the device limit ${maxThreadsPerBlock}`,
    );
  }
}
