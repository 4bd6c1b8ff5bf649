/**
 * A kernel's entry point and signature, read from its CUDA C (preferred) or PTX: the one it names,
 * or the module's only one (`KernelArgumentError` naming `entryPoint` otherwise, as on WebGPU).
 * CUDA C's `extern "C"` kernels come first; a source without one (or without the one named) is
 * read for C++-linkage kernels instead (`cxx`: their PTX names are mangled, `_cxx_entry.ts`), and
 * an entry point `k<float>` names an instance of the template `__global__` function `k`, which
 * NVRTC instantiates and names (a name expression, as CuPy's RawModule passes them).
 *
 * @module
 */

import { KernelArgumentError } from "../../../core/errors.ts";
import { type CudaKernel, kernelName } from "../kernel.ts";
import {
  cudaSignatures,
  cxxSignatures,
  type KernelSignature,
  pickSignature,
  ptxSignatures,
  splitTopLevel,
  templateSignatures,
} from "./signature.ts";

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
  /**
   * Why `params` cannot be given by name though the source is CUDA C (its `#if` variants the PTX
   * does not tell apart, `_source_variants.ts`): `signature` is then the PTX's, or none.
   */
  readonly unread?: string;
}

/** The entry point and signature of a kernel, read from its CUDA C (preferred) or PTX. */
export function resolveKernel(given: CudaKernel): ResolvedKernel {
  // the macros `-D` options define are read as the source's own (`-Dreal=int` and the source's
  // `#define real float` are then two definitions: an unknown type, never a misread one)
  const kernel = typeof given.source === "string" && given.compileOptions?.length
    ? { ...given, source: given.source + optionDefines(given.compileOptions) }
    : given;
  return resolveOwn(kernel, given);
}

function resolveOwn(kernel: CudaKernel, original: CudaKernel): ResolvedKernel {
  const given = kernel.entryPoint;
  let fromSource = typeof kernel.source === "string" ? cudaSignatures(kernel.source) : [];
  if (
    typeof kernel.source === "string" &&
    (given === undefined ? fromSource.length === 0 : !fromSource.some((s) => s.name === given))
  ) {
    const cxx = cxxSignatures(kernel.source);
    if (cxx.length > 0) fromSource = cxx;
    // `k<float>`: an instance of the template k, which NVRTC instantiates and names
    const base = given?.match(/^\s*([A-Za-z_][\w:]*)\s*</)?.[1];
    if (base !== undefined) {
      // `ops::k<float>`: a template of a namespace, NVRTC's name expression qualified
      const args = given!.slice(given!.indexOf("<") + 1, given!.lastIndexOf(">"));
      const template = templateSignatures(
        kernel.source,
        args.trim() === "" ? [] : splitTopLevel(args, true),
      ).find((s) => s.name === base.split("::").pop());
      if (template === undefined) {
        throw new KernelArgumentError(
          kernelName(original),
          "entryPoint",
          `is '${given}', but the source declares no template __global__ function '${base}'`,
        );
      }
      return { entryPoint: given!, signature: { ...template, name: given! } };
    }
  }
  const fromPtx = typeof kernel.ptx === "string" ? ptxSignatures(kernel.ptx) : [];
  // One extern "C" kernel defined twice with other parameters (under `#if`/`#else`): which one
  // NVRTC compiles is not known here, so neither signature is used (params are refused).
  const variants = variantNames(fromSource);
  if (given === undefined && fromSource.length > 0 && variants.size === 1) {
    const [name] = variants;
    if (fromSource.every((s) => s.name === name)) return { entryPoint: name, signature: undefined };
  }
  const all = typeof kernel.source === "string" && (fromSource.length > 0 || fromPtx.length === 0)
    ? fromSource
    : fromPtx;
  const picked = pickSignature(fromSource, given);
  const signature = picked !== undefined && variants.has(picked.name) ? undefined : picked ??
    (typeof kernel.ptx === "string" ? pickSignature(fromPtx, given) : undefined);
  if (given !== undefined) return { entryPoint: given, signature };
  if (signature === undefined) {
    const what = all !== fromSource
      ? ".entry functions"
      : fromSource[0]?.cxx
      ? "__global__ functions"
      : 'extern "C" __global__ functions';
    const names = all.map((s) => s.qualified ?? s.name);
    throw new KernelArgumentError(
      kernelName(original),
      "entryPoint",
      names.length === 0
        ? `cannot be found: the kernel declares no ${what}` +
          (all === fromSource && typeof kernel.source === "string"
            ? templateHint(kernel.source)
            : "")
        : `is required: the kernel declares ${names.length} ${what} (${names.join(", ")})`,
    );
  }
  return { entryPoint: signature.name, signature };
}

/** `#define` lines for the `-DNAME=value` (`--define-macro=`) options of NVRTC. */
export function optionDefines(options: readonly string[]): string {
  const lines = options.map((o) => /^(?:-D|--define-macro=)\s*([A-Za-z_]\w*)(?:=(.*))?$/s.exec(o))
    .filter((m) => m !== null).map((m) => `#define ${m![1]} ${m![2] ?? "1"}`);
  return lines.length === 0 ? "" : `\n${lines.join("\n")}\n`;
}

/** How to launch the source's templates (or kernels a `#define` declares), when it has any. */
function templateHint(source: string): string {
  const names = templateSignatures(source).map((s) => `'${s.name}<...>'`);
  if (names.length === 0) return MACRO_HINT.test(source) ? MACRO_KERNELS : "";
  return ` (name an instance of a template __global__ function as ` +
    `entryPoint: ${names.join(", ")})`;
}

/** A `#define` whose body declares a `__global__` function (lines continued with `\\`). */
const MACRO_HINT = /^[ \t]*#[ \t]*define\b(?:[^\n]*\\\r?\n)*[^\n]*__global__/m;

/** Why the parameters of a `{ source }` kernel's entry could not be read, for messages. */
export function unreadHint(source: string, entry: string): string {
  if (variantNames(cudaSignatures(source)).has(entry)) {
    return ` ('${entry}' is defined more than once with other parameters, as under #if/#else: ` +
      "which one NVRTC compiles is not known here; launch it without params, or define it once)";
  }
  return MACRO_HINT.test(source) ? MACRO_KERNELS : "";
}

/** Why the kernels a macro declares are not found, and how to launch one. */
const MACRO_KERNELS = " (the __global__ functions a #define declares are not read from " +
  "the source: give the one to launch as entryPoint, its buffers in order; scalar params " +
  "cannot be named, declare such a kernel without a macro)";

/** The names of the extern "C" kernels the source defines more than once, differently. */
export function variantNames(signatures: readonly KernelSignature[]): Set<string> {
  const key = (s: KernelSignature) =>
    s.params.map((p) =>
      `${p.name}:${p.kind === "pointer" ? `${p.element}x${p.lanes ?? 1}*${p.readOnly}` : p.type}`
    )
      .join();
  const seen = new Map<string, string>(), found = new Set<string>();
  for (const s of signatures) {
    if (s.cxx) continue;
    const before = seen.get(s.name);
    if (before !== undefined && before !== key(s)) found.add(s.name);
    seen.set(s.name, key(s));
  }
  return found;
}

/**
 * Whether `given` (a kernel's `compileOptions` now) holds the options of `seen` (a copy made when
 * it was looked up), in order.
 */
export function sameOptions(
  seen: readonly string[] | undefined,
  given: readonly string[] | undefined,
): boolean {
  if (seen === undefined || given === undefined) return seen === given;
  if (seen.length !== given.length) return false;
  for (let i = 0; i < seen.length; i++) if (seen[i] !== given[i]) return false;
  return true;
}
