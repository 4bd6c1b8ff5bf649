/**
 * The pipeline cache: each kernel compiled once, with its validity tracked.
 *
 * A kernel's buffers map in order to `@group(0) @binding(i)`; when the launch has metadata or
 * scalars, ONE info buffer is bound right after them (see {@linkcode packInfo} for its layout).
 * The bind-group layout is built from the declarations in the source, not `"auto"`, so unused
 * bindings still count. Buffer bindings must be `var<storage, read_write>`: slices of one pool
 * page share a `GPUBuffer`, and WebGPU forbids read-only and writable use of one buffer within a
 * dispatch. The info binding may be `var<storage, read>` or `var<uniform>`.
 *
 * Compilation runs inside a validation error scope. WebGPU reports the result asynchronously,
 * so a pipeline first used by a synchronous `execute` is `pending` until the scope pops (a few
 * microtasks); the stream backend submits a pending pipeline's dispatch in its own command buffer
 * so that a failure cannot invalidate other work. {@linkcode PipelineCache.compile} awaits it.
 *
 * @module
 */

import { CompilationError } from "../../core/errors.ts";
import type { WgslKernel } from "./kernel.ts";
import {
  parseWgslBindings,
  type WgslBinding,
  WgslBindingError,
  wgslErrorLine,
} from "./_wgsl_bindings.ts";

/** A cached pipeline and what is known about its validity. */
export interface CompiledKernel {
  /** The kernel. */
  readonly kernel: WgslKernel;
  /** The pipeline (invalid if `state` becomes `failed`). */
  readonly pipeline: GPUComputePipeline;
  /** The explicit bind-group layout. */
  readonly layout: GPUBindGroupLayout;
  /** Declared group-0 bindings, in binding order, with their access and source line. */
  readonly bindings: readonly {
    readonly binding: number;
    readonly access: "read" | "read_write" | "uniform";
    readonly line: number;
  }[];
  /** `pending` until the validation scope pops. */
  state: "pending" | "ready" | "failed";
  /** The failure, once `failed`. */
  error: CompilationError | undefined;
  /** Settles (never rejects) when `state` leaves `pending`. */
  readonly settled: Promise<void>;
}

const LAYOUT_TYPE = {
  read: "read-only-storage",
  read_write: "storage",
  uniform: "uniform",
} as const;

/**
 * Compiles kernels once per id and counts cache hits and misses.
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
   * cached `CompilationError` for a kernel known to fail; `RangeError` for a workgroup size
   * beyond the device limits; `TypeError` for a malformed kernel.
   */
  get(kernel: WgslKernel): CompiledKernel {
    const cached = this.#entries.get(kernel?.id);
    if (cached !== undefined) {
      this.#hits++;
      if (cached.error !== undefined) throw cached.error;
      return cached;
    }
    this.#misses++;
    checkKernel(kernel, this.#device.limits);
    let bindings: WgslBinding[];
    try {
      bindings = parseWgslBindings(kernel.source);
    } catch (cause) {
      if (!(cause instanceof WgslBindingError)) throw cause;
      const error = new CompilationError(kernel.id, cause.message, cause.line, { cause });
      this.#entries.set(kernel.id, failed(kernel, error));
      throw error;
    }
    const entry = this.#compile(kernel, bindings);
    this.#entries.set(kernel.id, entry);
    return entry;
  }

  /** Compiles (or finds) a kernel and waits for validation; rejects with `CompilationError`. */
  async compile(kernel: WgslKernel): Promise<CompiledKernel> {
    const entry = this.get(kernel);
    await entry.settled;
    if (entry.error !== undefined) throw entry.error;
    return entry;
  }

  /** Forgets every pipeline. */
  clear(): void {
    this.#entries.clear();
  }

  #compile(kernel: WgslKernel, bindings: WgslBinding[]): CompiledKernel {
    const device = this.#device;
    device.pushErrorScope("validation");
    const module = device.createShaderModule({ code: kernel.source, label: kernel.id });
    const layout = device.createBindGroupLayout({
      label: kernel.id,
      entries: bindings.map((entry) => ({
        binding: entry.binding,
        visibility: GPUShaderStage.COMPUTE,
        buffer: { type: LAYOUT_TYPE[entry.access] },
      })),
    });
    const pipeline = device.createComputePipeline({
      label: kernel.id,
      layout: device.createPipelineLayout({ bindGroupLayouts: [layout] }),
      compute: { module, entryPoint: kernel.entryPoint },
    });
    const entry: CompiledKernel = {
      kernel,
      pipeline,
      layout,
      bindings,
      state: "pending",
      error: undefined,
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
  entry.error = new CompilationError(entry.kernel.id, message.trim(), wgslErrorLine(message));
}

function failed(kernel: WgslKernel, error: CompilationError): CompiledKernel {
  return {
    kernel,
    pipeline: undefined as unknown as GPUComputePipeline,
    layout: undefined as unknown as GPUBindGroupLayout,
    bindings: [],
    state: "failed",
    error,
    settled: Promise.resolve(),
  };
}

function checkKernel(kernel: WgslKernel, limits: GPUSupportedLimits): void {
  if (typeof kernel !== "object" || kernel === null) {
    throw new TypeError("kernel must be an object");
  }
  for (const field of ["id", "source", "entryPoint"] as const) {
    if (typeof kernel[field] !== "string") throw new TypeError(`kernel.${field} must be a string`);
  }
  const size = kernel.workgroupSize;
  if (
    !Array.isArray(size) || size.length !== 3 || !size.every((n) => Number.isInteger(n) && n > 0)
  ) {
    throw new TypeError(`kernel.workgroupSize must be three positive integers, got ${size}`);
  }
  const max = [
    limits.maxComputeWorkgroupSizeX,
    limits.maxComputeWorkgroupSizeY,
    limits.maxComputeWorkgroupSizeZ,
  ];
  size.forEach((n, i) => {
    if (n > max[i]) {
      throw new RangeError(
        `Kernel '${kernel.id}' workgroup size ${"xyz"[i]}=${n} exceeds the device limit ${max[i]}`,
      );
    }
  });
  const invocations = size[0] * size[1] * size[2];
  if (invocations > limits.maxComputeInvocationsPerWorkgroup) {
    throw new RangeError(
      `Kernel '${kernel.id}' has ${invocations} invocations per workgroup, the device limit is ${limits.maxComputeInvocationsPerWorkgroup}`,
    );
  }
}
