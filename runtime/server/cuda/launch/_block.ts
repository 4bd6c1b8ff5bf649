/**
 * A launch's block: the kernel's `blockSize`, else its PTX's `.reqntid`, else 256 threads (fewer
 * under `__launch_bounds__` / `.maxntid` or the device's limit), checked against `.reqntid`, the
 * device's limits and the kernel's bound. `compile` and every launch check it here, so a block a
 * kernel cannot take is refused with the same error by both.
 *
 * @module
 */

import type { CudaDeviceAttributes } from "../device.ts";
import type { CudaKernel } from "../kernel.ts";
import { kernelName } from "../kernel.ts";
import type { ModuleCache } from "../compile/module_cache.ts";
import { ptxSignatures } from "../compile/signature.ts";
import { checkBlockLimits } from "./_check_launch.ts";

/** The block size when the kernel names none: 256 threads, or fewer where declared or allowed. */
const DEFAULT_BLOCK = 256;

/**
 * The block a launch of `kernel` runs, or a `RangeError` when `.reqntid` requires another or its
 * `__launch_bounds__` / `.maxntid` allows fewer threads, and `COMPILATION` when the device cannot
 * run it ({@linkcode checkBlockLimits}).
 */
export function launchBlock(
  modules: ModuleCache,
  attributes: Pick<CudaDeviceAttributes, "maxBlockDim" | "maxThreadsPerBlock">,
  kernel: CudaKernel,
): readonly [number, number, number] {
  const name = kernelName(kernel);
  const { signature, entryPoint } = modules.resolve(kernel);
  const { maxThreadsPerBlock } = attributes;
  const limits = compiledLimits(modules, kernel, entryPoint, signature?.language === "ptx");
  const bound = signature?.maxThreads ?? limits.bound;
  const required = signature?.requiredBlock ?? limits.required;
  const block = kernel.blockSize ?? required ?? [
    Math.min(DEFAULT_BLOCK, bound ?? DEFAULT_BLOCK, maxThreadsPerBlock),
    1,
    1,
  ] as const;
  const [bx, by, bz] = block;
  if (required !== undefined && block.some((n, i) => n !== required[i])) {
    // PTX ISA: each dimension "is required to be equal"; the driver refuses the launch
    // (CUDA_ERROR_INVALID_VALUE on an H200): refused at the call instead, saying why.
    throw new RangeError(
      `Kernel '${name}' requires blocks of exactly [${required}] (.reqntid) but the launch ` +
        `gives [${block}]: leave blockSize out (it defaults to [${required}]) or give that`,
    );
  }
  checkBlockLimits(name, block, attributes);
  if (bound !== undefined && bx * by * bz > bound) { // PTX ISA: a launch failure on the device
    throw new RangeError(
      `Kernel '${name}' has blocks of [${block}] (${bx * by * bz} threads) but its ` +
        `__launch_bounds__ (.maxntid) allows ${bound}: give a blockSize within it`,
    );
  }
  return block;
}

/**
 * What the launched PTX says beyond the signature read: the `.maxntid` NVRTC wrote for a
 * `__launch_bounds__` the source's text does not spell as a number (a macro, a constant, a
 * template parameter), and a given PTX's `.maxntid` / `.reqntid` where the signature came from
 * the CUDA C beside it (`{ ptx, source }`, as the shipped kernels are), not from the PTX.
 */
function compiledLimits(
  modules: ModuleCache,
  kernel: CudaKernel,
  entry: string,
  fromPtx: boolean,
): Limits {
  // Kept per kernel object: scanning the source on every launch was a fifth of a launch's
  // JavaScript (a shipped kernel's source is a few KiB).
  const known = compiledBounds.get(kernel);
  if (
    known !== undefined && known.entry === entry && known.source === kernel.source &&
    known.ptx === kernel.ptx
  ) {
    return known.limits;
  }
  let limits: Limits = {};
  const ptxGiven = typeof kernel.ptx === "string" && !fromPtx;
  if (
    ptxGiven || (typeof kernel.source === "string" && kernel.source.includes("__launch_bounds__"))
  ) {
    const entries = ptxSignatures(modules.ptx(kernel));
    const found = entries.find((e) => e.name === entry) ??
      (entries.length === 1 ? entries[0] : undefined);
    limits = { bound: found?.maxThreads, required: found?.requiredBlock };
  }
  compiledBounds.set(kernel, { entry, source: kernel.source, ptx: kernel.ptx, limits });
  return limits;
}
type Limits = { bound?: number; required?: readonly [number, number, number] };
const compiledBounds = new WeakMap<
  CudaKernel,
  { entry: string; source: unknown; ptx: unknown; limits: Limits }
>();
