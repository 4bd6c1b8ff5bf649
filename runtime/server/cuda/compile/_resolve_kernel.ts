/**
 * A kernel's entry point and signature, read from its CUDA C (preferred) or PTX: the one it names,
 * or the module's only one (`KernelArgumentError` naming `entryPoint` otherwise, as on WebGPU).
 *
 * @module
 */

import { KernelArgumentError } from "../../../core/errors.ts";
import { type CudaKernel, kernelName } from "../kernel.ts";
import { cudaSignatures, type KernelSignature, pickSignature, ptxSignatures } from "./signature.ts";

/**
 * What a kernel's text says of it: its entry point and that entry's signature.
 *
 * @example
 * ```ts ignore
 * import { CudaDevice, ModuleCache, type ResolvedKernel } from "@gpucompute/runtime/cuda";
 * using device = CudaDevice.open();
 * const cache = new ModuleCache(device.driver);
 * const resolved: ResolvedKernel = cache.resolve({
 *   source: `extern "C" __global__ void scale(float* v, float s, unsigned n) {}`,
 * });
 * console.log(resolved.entryPoint, resolved.signature?.language); // scale cuda
 * ```
 */
export interface ResolvedKernel {
  /** The entry point: the kernel's own, or the module's only one. */
  readonly entryPoint: string;
  /** Its parameters (from the CUDA C when given, else the PTX), when they could be read. */
  readonly signature: KernelSignature | undefined;
}

/** The entry point and signature of a kernel, read from its CUDA C (preferred) or PTX. */
export function resolveKernel(kernel: CudaKernel): ResolvedKernel {
  const given = kernel.entryPoint;
  const fromSource = typeof kernel.source === "string" ? cudaSignatures(kernel.source) : [];
  const fromPtx = typeof kernel.ptx === "string" ? ptxSignatures(kernel.ptx) : [];
  const all = typeof kernel.source === "string" && (fromSource.length > 0 || fromPtx.length === 0)
    ? fromSource
    : fromPtx;
  const signature = pickSignature(fromSource, given) ??
    (typeof kernel.ptx === "string" ? pickSignature(fromPtx, given) : undefined);
  if (given !== undefined) return { entryPoint: given, signature };
  if (signature === undefined) {
    const what = all === fromSource ? 'extern "C" __global__ functions' : ".entry functions";
    const names = all.map((s) => s.name);
    throw new KernelArgumentError(
      kernelName(kernel),
      "entryPoint",
      names.length === 0
        ? `cannot be found: the kernel declares no ${what}` +
          (all === fromSource ? ' (a __global__ function needs extern "C" to keep its name)' : "")
        : `is required: the kernel declares ${names.length} ${what} (${names.join(", ")})`,
    );
  }
  return { entryPoint: signature.name, signature };
}
