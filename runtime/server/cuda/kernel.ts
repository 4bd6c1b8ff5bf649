/**
 * The kernel type of the CUDA backend and the shipped kernels.
 *
 * A {@linkcode CudaKernel} is PTX text (`{ ptx }`), CUDA C for NVRTC (`{ source }`), or both.
 * The entry point is the module's only `extern "C"` `__global__` function (or, without one, its
 * only C++ `__global__` function, found under its mangled name; or `.entry`) unless named; the
 * block size defaults to 256 threads (fewer under `__launch_bounds__`). A launch passes
 * `buffers` to the pointer parameters in order and `params` to the scalar ones, by name (CUDA C)
 * or by position (PTX), each checked against its declared type (`launch/_params.ts`). Generated
 * kernels may use the internal layout instead (metadata and scalars, `./backend`): a pointer per
 * buffer; with `bufferLengths`, a `u32` byte length per buffer; the metadata words as `u32`s;
 * then the scalars, type by type in insertion order. The PTX runs on any
 * driver that accepts its version and target: the shipped PTX is `.target sm_75` at PTX ISA 7.0
 * (`deno task ptx` lowers nvcc's `.version` and checks the result with ptxas), so drivers from
 * r450 (CUDA 11.0) load it; the shipped kernels carry their CUDA C too, for NVRTC on a driver
 * that refuses the PTX anyway. The simulated driver runs their PTX through its interpreter.
 *
 * @module
 */

import type { KernelMetadata } from "../../core/kernel.ts";
import { PTX_MODULES } from "./kernels/ptx.ts";

/**
 * A CUDA kernel: CUDA C (compiled by NVRTC) or PTX.
 *
 * @example SAXPY in CUDA C: `execute(saxpy, { threads: n, buffers: [x, y], params: { a, n } })`
 * ```ts
 * import type { CudaKernel } from "@gpucompute/runtime/cuda";
 * const saxpy: CudaKernel = {
 *   source: `extern "C" __global__ void saxpy(const float* x, float* y, float a, unsigned n) {
 *   unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
 *   if (i < n) y[i] = a * x[i] + y[i];
 * }`,
 * };
 * ```
 */
export interface CudaKernel extends KernelMetadata {
  /**
   * Name in errors, logs and profiles; the entry point when omitted. Functions are cached by
   * program (PTX or source, and entry point), so reusing an id for another program is safe.
   * @default {undefined}
   */
  readonly id?: string;
  /** PTX text (what `nvcc -ptx` writes). Give this, {@linkcode source}, or both. */
  readonly ptx?: string;
  /**
   * CUDA C with `__global__` entry points (`extern "C"`, C++ functions, or templates launched
   * by an instance's name), compiled at run time by NVRTC (`libnvrtc.so`,
   * optional: without it a kernel with no PTX is `UNSUPPORTED`). With {@linkcode ptx} too, the
   * PTX is loaded and this is the fallback when the driver refuses the PTX's version or has no
   * binary for the device.
   */
  readonly source?: string;
  /**
   * Options for NVRTC when it compiles {@linkcode source}, as `nvcc` takes them:
   * `--include-path=/usr/local/cuda/include` (the runtime gives NVRTC no include path, so a
   * `<cuda_fp16.h>` or a project header needs one), `-DTILE=32`, `--use_fast_math`,
   * `-std=c++17`. The runtime picks the architecture (the device's): `--gpu-architecture`/`-arch`
   * are refused. Programs are cached per source and options.
   * @default {[]}
   */
  readonly compileOptions?: readonly string[];
  /**
   * The kernel to launch (an `extern "C"` name, a C++ `__global__` function's name, a template
   * `__global__` function's instance such as `"sum<float>"`, which NVRTC instantiates, or a PTX
   * `.entry`, with or without a parameter list); required only when the module has several.
   * @default {the module's only entry point}
   */
  readonly entryPoint?: string;
  /**
   * Threads per block (the cube dimension). Blocks beyond the device's limits are a
   * `COMPILATION` error from `compile` and `execute`, as a WGSL workgroup size beyond them is. A
   * PTX kernel with `.reqntid` (Triton writes it) takes exactly that block, and one under
   * `__launch_bounds__` / `.maxntid` no more threads than it allows: another one is a
   * `RangeError` from `compile` and at the call (the same error).
   * @default {[256, 1, 1], or fewer under __launch_bounds__ / .maxntid or the device's limit; .reqntid's}
   */
  readonly blockSize?: readonly [number, number, number];
  /**
   * Pass each buffer's byte length (`u32`) after the pointers.
   * @default {false}
   */
  readonly bufferLengths?: boolean;
  /**
   * Dynamic shared memory per block in bytes. Above 48 KiB the function is first allowed more
   * (`cuFuncSetAttribute`), up to the device's opt-in limit less the kernel's static shared
   * memory.
   * @default {0}
   */
  readonly sharedMemoryBytes?: number;
}

/**
 * A shipped kernel: a {@linkcode CudaKernel} whose entry point and block size are given.
 *
 * @example
 * ```ts
 * import { CUDA_KERNELS, type ShippedCudaKernel } from "@gpucompute/runtime/cuda";
 * const fill: ShippedCudaKernel = CUDA_KERNELS.fillF32;
 * console.log(fill.entryPoint, fill.blockSize); // fill_f32 [ 256, 1, 1 ]
 * ```
 */
export interface ShippedCudaKernel extends CudaKernel {
  /** The `.entry` to launch. */
  readonly entryPoint: string;
  /** Threads per block. */
  readonly blockSize: readonly [number, number, number];
}

const shipped = (
  id: string,
  module: string,
  blockSize: readonly [number, number, number] = [256, 1, 1],
  bufferLengths = false,
): ShippedCudaKernel => ({
  id: `cuda.${id}`,
  ptx: PTX_MODULES[module].ptx,
  source: PTX_MODULES[module].source,
  entryPoint: id,
  blockSize,
  bufferLengths,
});

/**
 * The kernels the CUDA backend ships (CUDA C in `kernels/*.cu`, PTX generated by `deno task ptx`).
 * Signatures in ABI order; `n` is metadata word 0, other values are scalars.
 *
 * @example
 * ```ts ignore
 * import { KernelArguments, CubeCount } from "@gpucompute/runtime/backend";
 * import { CUDA_KERNELS, CudaServer } from "@gpucompute/runtime/cuda";
 * using server = CudaServer.create();
 * using out = server.createWithData(new Uint8Array(4 * 1000), 0);
 * server.execute({
 *   kernel: CUDA_KERNELS.fillF32,
 *   count: CubeCount.new1d(4),
 *   args: new KernelArguments().withBuffer(out.ref())
 *     .withMetadata({ data: new Uint32Array([1000]), staticLength: 1 }).withScalar("f32", [1.5]),
 * }, 0);
 * ```
 */
export const CUDA_KERNELS: {
  /** `fill_f32(out, n, value: f32)`. */
  readonly fillF32: ShippedCudaKernel;
  /** `fill_u32(out, n, value: u32)`. */
  readonly fillU32: ShippedCudaKernel;
  /** `add_f32(a, b, out, n)`. */
  readonly addF32: ShippedCudaKernel;
  /** `scale_add_f32(a, b, out, n, s: f32)`: `out = a * s + b`. */
  readonly scaleAddF32: ShippedCudaKernel;
  /** `copy_u32(src, dst, n)`. */
  readonly copyU32: ShippedCudaKernel;
  /** `scale_f32(v, n, s: f32)`: `v *= s`. */
  readonly scaleF32: ShippedCudaKernel;
  /** `increment_u32(a, bytes)` with buffer lengths: `a[i] += 1` over the whole buffer. */
  readonly incrementU32: ShippedCudaKernel;
  /** `slow_f32(v, n, micros: u32)`: sleeps about `micros` µs, then `v += 1` (tests). */
  readonly slowF32: ShippedCudaKernel;
  /** `sum_f32(in, partial, n)`: one tree sum per 256-thread block. */
  readonly sumF32: ShippedCudaKernel;
  /** `matmul_f32(a, b, c, m, k, n)` (metadata `[m, k, n]`), 16 x 16 blocks. */
  readonly matmulF32: ShippedCudaKernel;
  /** `matmul_tiled_f32(a, b, c, m, k, n)`, shared-memory tiles, 16 x 16 blocks. */
  readonly matmulTiledF32: ShippedCudaKernel;
} = {
  fillF32: shipped("fill_f32", "elementwise"),
  fillU32: shipped("fill_u32", "elementwise"),
  addF32: shipped("add_f32", "elementwise"),
  scaleAddF32: shipped("scale_add_f32", "elementwise"),
  copyU32: shipped("copy_u32", "elementwise"),
  scaleF32: shipped("scale_f32", "elementwise"),
  incrementU32: shipped("increment_u32", "elementwise", [256, 1, 1], true),
  slowF32: shipped("slow_f32", "elementwise"),
  sumF32: shipped("sum_f32", "reduce"),
  matmulF32: shipped("matmul_f32", "matmul", [16, 16, 1]),
  matmulTiledF32: shipped("matmul_tiled_f32", "matmul", [16, 16, 1]),
};

const inferred = new WeakMap<CudaKernel, string>();
/** A `__global__` function's name, past its launch attributes (`__launch_bounds__`, ...). */
const ATTRIBUTE = String.raw`(?:__launch_bounds__|__maxnreg__|__cluster_dims__)\s*\([^)]*\)\s*`;
// specifiers in any order C++ takes (`void __global__ k`, `__global__ inline void k`)
const SPECIFIER = String
  .raw`(?:(?:__global__|static|inline|__inline__|__forceinline__|__noinline__|void)\s+|${ATTRIBUTE})`;
const GLOBAL = String
  .raw`(?<!\w)(?=${SPECIFIER}*__global__\b)(?=${SPECIFIER}*void\b)${SPECIFIER}+(\w+)\s*\(`;
const FIRST_GLOBAL = new RegExp(GLOBAL);
/** The entry point a kernel without one is inferred as: the `extern "C"` one (`_resolve_kernel.ts`). */
const FIRST_EXTERN_C = new RegExp(String.raw`extern\s+"C"\s+` + GLOBAL);

/**
 * The name of a kernel in messages: its id, else its entry point (the first `extern "C"` one
 * declared, which a kernel without an entry point launches; else the first one).
 */
export function kernelName(kernel: CudaKernel): string {
  const named = kernel.id ?? kernel.entryPoint;
  if (named !== undefined) return named;
  let name = inferred.get(kernel);
  if (name === undefined) {
    const text = typeof kernel.source === "string" // not a `#define`'s parameter
      ? kernel.source.replace(/^[ \t]*#(?:[^\n]*\\\r?\n)*[^\n]*/gm, "")
      : String(kernel.ptx ?? "");
    const match = FIRST_EXTERN_C.exec(text) ?? FIRST_GLOBAL.exec(text) ??
      /\.entry\s+([\w$]+)/.exec(text);
    inferred.set(kernel, name = match?.[1] ?? "cuda kernel");
  }
  return name;
}
