/**
 * How a compiled kernel settles once WebGPU validated it: `ready`, `failed` with the compiler's
 * message, or running the unwidened pipeline of a kernel whose widened module does not compile.
 *
 * A kernel with `var<storage, read>` bindings is compiled widened to `read_write`
 * (`widenReadOnlyStorage`), so that pool slices of one page may be bound read-only and writable
 * in one dispatch. Some valid modules no longer compile widened: Chrome's Tint takes a load from
 * `read_write` storage as non-uniform (a barrier under a branch on a read-only value is then an
 * error), and an explicit `ptr<storage, T, read>` to a widened variable has the wrong type on
 * every compiler. When the widened module fails and the declared one compiles, the kernel runs
 * the declared module instead, with `read-only-storage` layouts; the launcher then copies a
 * read-only binding that shares its `GPUBuffer` with a writable binding of the same dispatch into
 * a scratch buffer first (`launch/_read_only_copies.ts`).
 *
 * @module
 */

import { CompilationError } from "../../../core/errors.ts";
import type { WgslKernel } from "../kernel.ts";
import type { CompiledKernel } from "./pipeline_cache.ts";
import type { KernelReflection } from "./_reflect.ts";
import { layoutEntry } from "./_binding_kinds.ts";
import { compilerMessage, wgslErrorLine } from "./_device_verdict.ts";

/** The buffer bindings of a kernel that runs its declared (unwidened) module, by {@linkcode bindingKey}. */
export interface ReadOnlyFallback {
  /** The `var<storage, read>` bindings. */
  readonly readOnly: ReadonlySet<number>;
  /** The `var<storage, read_write>` bindings. */
  readonly writable: ReadonlySet<number>;
}

/** A binding's key in {@linkcode ReadOnlyFallback}. */
export function bindingKey(group: number, binding: number): number {
  return group * 65536 + binding;
}

/** What the declared module's pipeline replaces in a compiled kernel. */
export interface FallbackPipeline {
  readonly pipeline: GPUComputePipeline;
  readonly layouts: GPUBindGroupLayout[];
  readonly fallback: ReadOnlyFallback;
}

/**
 * Creates the pipeline of the declared `module` (valid, its widened form is not) with read-only
 * storage laid out as `read-only-storage`. Resolves with the pipeline, or the device's message.
 */
async function fallbackPipeline(
  device: GPUDevice,
  reflection: KernelReflection,
  module: GPUShaderModule,
  constants: Record<string, number> | undefined,
): Promise<FallbackPipeline | string> {
  const label = reflection.name;
  const readOnly = new Set<number>(), writable = new Set<number>();
  for (const b of reflection.bindings) {
    if (b.space !== "storage") continue;
    (b.access === "read" ? readOnly : writable).add(bindingKey(b.group, b.binding));
  }
  device.pushErrorScope("validation");
  const layouts: GPUBindGroupLayout[] = [];
  for (let group = 0; group < reflection.groups; group++) {
    const entries = reflection.bindings.filter((b) => b.group === group).map((b) => {
      const entry = layoutEntry(b);
      if (b.space === "storage" && b.access === "read") {
        entry.buffer = { type: "read-only-storage" };
      }
      return entry;
    });
    layouts.push(device.createBindGroupLayout({ label, entries }));
  }
  const pipeline = device.createComputePipeline({
    label,
    layout: device.createPipelineLayout({ bindGroupLayouts: layouts }),
    compute: { module, entryPoint: reflection.entryPoint, constants },
  });
  const error = await device.popErrorScope().then((e) => e?.message, String);
  return error ?? { pipeline, layouts, fallback: { readOnly, writable } };
}

/**
 * Settles a kernel with read-only storage: the declared module's error first; where only the
 * widened module failed, the kernel runs the declared module ({@linkcode fallbackPipeline}).
 */
export async function settleDeclared(
  device: GPUDevice,
  entry: CompiledKernel,
  module: GPUShaderModule,
  declared: Promise<string | undefined>,
  widened: string | undefined,
): Promise<void> {
  const error = await declared;
  if (error !== undefined || widened === undefined || entry.required !== undefined) {
    return settle(entry, error);
  }
  const fallback = await fallbackPipeline(device, entry.reflection, module, entry.constants);
  if (typeof fallback === "string") return settle(entry, fallback);
  entry.pipeline = fallback.pipeline;
  entry.layouts = fallback.layouts;
  entry.layout = fallback.layouts[0];
  entry.fallback = fallback.fallback;
  settle(entry, undefined);
}

/** Settles a compiled kernel: `ready`, or `failed` with the compiler's `message`. */
export function settle(entry: CompiledKernel, message: string | undefined): void {
  if (message === undefined) {
    entry.state = "ready";
    return;
  }
  entry.state = "failed";
  const text = compilerMessage(message);
  entry.error = new CompilationError(entry.reflection.name, text, wgslErrorLine(text));
}

/** The cache entry of a program that failed before it had a pipeline. */
export function failed(kernel: WgslKernel, error: CompilationError): CompiledKernel {
  return {
    kernel,
    reflection: undefined as unknown as KernelReflection,
    pipeline: undefined as unknown as GPUComputePipeline,
    layout: undefined as unknown as GPUBindGroupLayout,
    layouts: [],
    state: "failed",
    error,
    fallback: undefined,
    settled: Promise.resolve(),
    folded: undefined,
    foldBinding: -1,
    constants: undefined,
    variants: new Map(),
    memo: undefined,
    required: undefined,
  };
}
