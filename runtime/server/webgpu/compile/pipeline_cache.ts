/**
 * The pipeline cache: each kernel compiled once, with its validity tracked.
 *
 * A kernel is identified by its id, entry point and source (a kernel object seen before is found
 * in a `WeakMap` without hashing its source). Its WGSL is reflected first (`compile/_reflect.ts`): the
 * bind-group layout is built from every declared binding, not `"auto"`, so unused bindings still
 * count. Read-only storage declarations are compiled widened to `read_write` (see
 * {@linkcode widenReadOnlyStorage}); the unwidened module is compiled too, for validation.
 *
 * Compilation runs inside a validation error scope. WebGPU reports the result asynchronously,
 * so a pipeline first used by a synchronous `execute` is `pending` until the scope pops (a few
 * microtasks); the stream backend submits a pending pipeline's dispatch in its own command buffer
 * so that a failure cannot invalidate other work. {@linkcode PipelineCache.compile} awaits it.
 *
 * @module
 */

import { CompilationError, KernelArgumentError } from "../../../core/errors.ts";
import type { WgslKernel } from "../kernel.ts";
import { foldKernel } from "./_fold.ts";
import {
  checkWorkgroupSize,
  compilerMessage,
  type KernelReflection,
  type ReflectedBinding,
  reflectKernel,
  wgslErrorLine,
  widenReadOnlyStorage,
} from "./_reflect.ts";

/** A cached pipeline and what is known about its validity. */
export interface CompiledKernel {
  /** The kernel. */
  readonly kernel: WgslKernel;
  /** What the WGSL declares. */
  readonly reflection: KernelReflection;
  /** The pipeline (invalid if `state` becomes `failed`). */
  readonly pipeline: GPUComputePipeline;
  /** The explicit bind-group layout. */
  readonly layout: GPUBindGroupLayout;
  /** `pending` until the validation scope pops. */
  state: "pending" | "ready" | "failed";
  /** The failure, once `failed`. */
  error: CompilationError | undefined;
  /** Settles (never rejects) when `state` leaves `pending`. */
  readonly settled: Promise<void>;
  /** The folded variant (`_fold.ts`), compiled on the first launch that needs it. */
  folded: CompiledKernel | undefined;
  /** In a folded variant: the binding of the uniform that holds `G`; else -1. */
  readonly foldBinding: number;
}

/**
 * Compiles each program (id, entry point, source) once and counts cache hits and misses.
 *
 * @example
 * ```ts ignore
 * import { PipelineCache } from "@gpucompute/runtime/webgpu";
 * const device = await (await navigator.gpu.requestAdapter())!.requestDevice();
 * const cache = new PipelineCache(device);
 * await cache.compile(kernel); // throws CompilationError with the WGSL line on failure
 * cache.get(kernel);
 * console.log(cache.hits, cache.misses); // 1 1
 * ```
 */
export class PipelineCache {
  readonly #device: GPUDevice;
  readonly #entries = new Map<string, CompiledKernel>();
  /** Per kernel object, its entry and the strings it had when first seen (compared by pointer). */
  #byObject = new WeakMap<WgslKernel, { entry: CompiledKernel; program: Program }>();
  #hits = 0;
  #misses = 0;

  /** Creates an empty cache for a device. */
  constructor(device: GPUDevice) {
    this.#device = device;
  }

  /** Lookups served from the cache. */
  get hits(): number {
    return this.#hits;
  }

  /** Lookups that compiled. */
  get misses(): number {
    return this.#misses;
  }

  /** Number of cached kernels (failed ones included). */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * The compiled kernel, compiling it on first use (its state may be `pending`). Throws the
   * cached `CompilationError` for a kernel known to fail (WGSL the parser rejects, a workgroup
   * size beyond the device limits...); `KernelArgumentError` for an `entryPoint` or
   * `workgroupSize` that contradicts the WGSL; `TypeError` for a malformed kernel.
   */
  get(kernel: WgslKernel): CompiledKernel {
    const seen = this.#byObject.get(kernel);
    if (seen !== undefined && sameProgram(seen.program, kernel)) {
      this.#hits++;
      if (seen.entry.error !== undefined) throw seen.entry.error;
      return seen.entry;
    }
    checkKernel(kernel);
    const key = `${kernel.id ?? ""}\u0000${kernel.entryPoint ?? ""}\u0000${kernel.source}`;
    const cached = this.#entries.get(key);
    if (cached !== undefined) {
      this.#hits++;
      if (cached.error !== undefined) throw cached.error;
      // A new object for a known program: its own workgroupSize must still match the WGSL.
      checkWorkgroupSize(kernel, cached.reflection);
      this.#byObject.set(kernel, { entry: cached, program: programOf(kernel) });
      return cached;
    }
    this.#misses++;
    let entry: CompiledKernel;
    try {
      const reflection = reflectKernel(kernel);
      checkLimits(reflection, this.#device.limits);
      const spaces = reflection.bindings.map((b) => ({
        uniform: b.space === "uniform",
        line: b.line,
      }));
      checkBindingLimits(reflection.name, spaces, this.#device.limits);
      entry = this.#compile(kernel, reflection);
    } catch (error) {
      // Only a compilation failure is a property of the program; argument errors are not cached.
      if (error instanceof CompilationError) this.#entries.set(key, failed(kernel, error));
      throw error;
    }
    this.#entries.set(key, entry);
    this.#byObject.set(kernel, { entry, program: programOf(kernel) });
    return entry;
  }

  /** Compiles (or finds) a kernel and waits for validation; rejects with `CompilationError`. */
  async compile(kernel: WgslKernel): Promise<CompiledKernel> {
    const entry = this.get(kernel);
    await entry.settled;
    if (entry.error !== undefined) throw entry.error;
    return entry;
  }

  /**
   * The folded variant of a compiled kernel (see `_fold.ts`), compiled once. `KernelArgumentError`
   * when the kernel cannot be folded right.
   */
  folded(entry: CompiledKernel): CompiledKernel {
    if (entry.folded !== undefined) return entry.folded;
    const { reflection, kernel } = entry;
    const binding = (reflection.bindings.at(-1)?.binding ?? -1) + 1;
    const { source, uniform } = foldKernel({
      name: reflection.name,
      source: kernel.source,
      entryPoint: reflection.entryPoint,
      workgroupSize: reflection.workgroupSize,
      parameters: reflection.parameters,
      structBuiltins: reflection.structBuiltins,
      binding,
    });
    const fold: ReflectedBinding = {
      binding,
      name: uniform,
      space: "uniform",
      access: "read",
      type: { kind: "vector", name: "vec4<u32>", scalar: "u32", components: 4 },
      minSize: 16,
      scalar: "u32",
      stride: 0,
      line: source.split("\n").length - 1,
    };
    const folded = this.#compile(
      { ...kernel, source },
      { ...reflection, bindings: [...reflection.bindings, fold] },
      binding,
    );
    return entry.folded = folded;
  }

  /** Forgets every pipeline. */
  clear(): void {
    this.#entries.clear();
    this.#byObject = new WeakMap();
  }

  #compile(kernel: WgslKernel, reflection: KernelReflection, foldBinding = -1): CompiledKernel {
    const device = this.#device;
    const label = reflection.name;
    device.pushErrorScope("validation");
    if (reflection.hasReadOnlyStorage) {
      device.createShaderModule({ code: kernel.source, label }); // validates the declared access
    }
    const code = reflection.hasReadOnlyStorage
      ? widenReadOnlyStorage(kernel.source)
      : kernel.source;
    const module = device.createShaderModule({ code, label });
    const layout = device.createBindGroupLayout({
      label,
      entries: reflection.bindings.map((entry) => ({
        binding: entry.binding,
        visibility: GPUShaderStage.COMPUTE,
        buffer: { type: entry.space === "uniform" ? "uniform" : "storage" },
      })),
    });
    const pipeline = device.createComputePipeline({
      label,
      layout: device.createPipelineLayout({ bindGroupLayouts: [layout] }),
      compute: { module, entryPoint: reflection.entryPoint },
    });
    const entry: CompiledKernel = {
      kernel,
      reflection,
      pipeline,
      layout,
      state: "pending",
      error: undefined,
      folded: undefined,
      foldBinding,
      settled: device.popErrorScope().then(
        (error) => settle(entry, error?.message),
        (cause) => settle(entry, String(cause)),
      ),
    };
    return entry;
  }
}

function settle(entry: CompiledKernel, message: string | undefined): void {
  if (message === undefined) {
    entry.state = "ready";
    return;
  }
  entry.state = "failed";
  const text = compilerMessage(message);
  entry.error = new CompilationError(entry.reflection.name, text, wgslErrorLine(text));
}

function failed(kernel: WgslKernel, error: CompilationError): CompiledKernel {
  return {
    kernel,
    reflection: undefined as unknown as KernelReflection,
    pipeline: undefined as unknown as GPUComputePipeline,
    layout: undefined as unknown as GPUBindGroupLayout,
    state: "failed",
    error,
    settled: Promise.resolve(),
    folded: undefined,
    foldBinding: -1,
  };
}

/** What identifies a program. */
type Program = Pick<WgslKernel, "source" | "entryPoint" | "id">;

function programOf(kernel: WgslKernel): Program {
  return { source: kernel.source, entryPoint: kernel.entryPoint, id: kernel.id };
}

function sameProgram(a: Program, b: WgslKernel): boolean {
  return a.source === b.source && a.entryPoint === b.entryPoint && a.id === b.id;
}

function checkKernel(kernel: WgslKernel): void {
  if (typeof kernel !== "object" || kernel === null) {
    throw new TypeError("kernel must be an object");
  }
  const ptx = (kernel as { ptx?: unknown }).ptx;
  if (
    typeof ptx === "string" ||
    (typeof kernel.source === "string" && /__global__/.test(kernel.source) &&
      !/@compute\b/.test(kernel.source))
  ) {
    throw new KernelArgumentError(
      kernel.id ?? kernel.entryPoint ?? "kernel",
      "kernel",
      `is a CUDA kernel (${typeof ptx === "string" ? "PTX" : "CUDA C"}): the WebGPU backend ` +
        "runs WGSL ({ source } with a @compute function); run it on a CUDA client",
    );
  }
  if (typeof kernel.source !== "string") throw new TypeError("kernel.source must be a string");
  for (const field of ["id", "entryPoint"] as const) {
    if (kernel[field] !== undefined && typeof kernel[field] !== "string") {
      throw new TypeError(`kernel.${field} must be a string when given`);
    }
  }
  const size = kernel.workgroupSize;
  if (
    size !== undefined &&
    (!Array.isArray(size) || size.length < 1 || size.length > 3 ||
      !size.every((n) => Number.isInteger(n) && n > 0))
  ) {
    throw new TypeError(`kernel.workgroupSize must be 1 to 3 positive integers, got ${size}`);
  }
}

function checkLimits(reflection: KernelReflection, limits: GPUSupportedLimits): void {
  const size = reflection.workgroupSize;
  const max = [
    limits.maxComputeWorkgroupSizeX,
    limits.maxComputeWorkgroupSizeY,
    limits.maxComputeWorkgroupSizeZ,
  ];
  size.forEach((n, i) => {
    if (n > max[i]) {
      throw new CompilationError(
        reflection.name,
        `workgroup size ${"xyz"[i]}=${n} exceeds the device limit ${max[i]}`,
      );
    }
  });
  const invocations = size[0] * size[1] * size[2];
  if (invocations > limits.maxComputeInvocationsPerWorkgroup) {
    throw new CompilationError(
      reflection.name,
      `${invocations} invocations per workgroup exceed the device limit ${limits.maxComputeInvocationsPerWorkgroup}`,
    );
  }
}

/**
 * Throws `CompilationError` when a kernel declares more storage or uniform buffers than the
 * device allows per shader stage (pipeline creation would fail later, asynchronously).
 */
export function checkBindingLimits(
  kernel: string,
  bindings: readonly { readonly uniform: boolean; readonly line?: number }[],
  limits: GPUSupportedLimits,
): void {
  for (
    const [uniform, limit] of [
      [false, "maxStorageBuffersPerShaderStage"],
      [true, "maxUniformBuffersPerShaderStage"],
    ] as const
  ) {
    const matching = bindings.filter((b) => b.uniform === uniform);
    if (matching.length > limits[limit]) {
      throw new CompilationError(
        kernel,
        `${matching.length} ${uniform ? "uniform" : "storage"} buffers are declared, the ` +
          `device allows ${limits[limit]} per shader stage (${limit})`,
        matching[limits[limit]].line,
      );
    }
  }
}
