/**
 * The pipeline cache: each kernel compiled once, with its validity tracked.
 *
 * A kernel is identified by its id, entry point and source (a kernel object seen before is found
 * in a `WeakMap` without hashing its source). Its WGSL is reflected first (`compile/_reflect.ts`): the
 * bind-group layouts (one per `@group`) are built from every declared binding, not `"auto"`, so
 * unused bindings still count. Read-only storage declarations are compiled widened to `read_write` (see
 * {@linkcode widenReadOnlyStorage}); the unwidened module is compiled too, for validation, and runs
 * instead where only the widened module fails (`_settle.ts`).
 *
 * Compilation runs inside a validation error scope. WebGPU reports the result asynchronously,
 * so a pipeline first used by a synchronous `execute` is `pending` until the scope pops (a few
 * microtasks); the stream backend submits a pending pipeline's dispatch in its own command buffer
 * so that a failure cannot invalidate other work. {@linkcode PipelineCache.compile} awaits it.
 *
 * @module
 */

import { CompilationError, UnsupportedError } from "../../../core/errors.ts";
import { checkOverrides, resolveWorkgroupSize } from "./_overrides.ts";
import {
  checkBindingLimits,
  checkKernel,
  checkLimits,
  missingOverride,
} from "./_pipeline_checks.ts";
export { checkBindingLimits };
import type { WgslKernel } from "../kernel.ts";
import { foldKernel } from "./_fold.ts";
import { deviceVerdict, isUnsure } from "./_device_verdict.ts";
import { checkGroups, layoutEntry, textureFeatures } from "./_binding_kinds.ts";
import {
  checkWorkgroupSize,
  type KernelReflection,
  type ReflectedBinding,
  reflectKernel,
  widenReadOnlyStorage,
} from "./_reflect.ts";
import { failed, type ReadOnlyFallback, settle, settleDeclared } from "./_settle.ts";

/** A cached pipeline and what is known about its validity. */
export interface CompiledKernel {
  /** The kernel. */
  readonly kernel: WgslKernel;
  /** What the WGSL declares. */
  readonly reflection: KernelReflection;
  /**
   * The pipeline (invalid if `state` becomes `failed`), with its layouts: group 0's, and every
   * group's (`layouts[0] === layout`; groups without bindings are empty). Replaced by the declared
   * module's before `state` leaves `pending` when the widened module fails (see `fallback`).
   */
  pipeline: GPUComputePipeline;
  layout: GPUBindGroupLayout;
  layouts: readonly GPUBindGroupLayout[];
  /** Set when the kernel runs its declared, unwidened module (`_settle.ts`). */
  fallback: ReadOnlyFallback | undefined;
  /** `pending` until the validation scope pops. */
  state: "pending" | "ready" | "failed";
  /**
   * The failure, once `failed`: `UnsupportedError` only for a program without a pipeline (valid
   * WGSL the runtime cannot reflect), so a launched kernel's failure is a `CompilationError`.
   */
  error: CompilationError | UnsupportedError | undefined;
  /** Settles (never rejects) when `state` leaves `pending`. */
  readonly settled: Promise<void>;
  /** The folded variant (`_fold.ts`), compiled on the first launch that needs it. */
  folded: CompiledKernel | undefined;
  /** In a folded variant: the binding of the uniform that holds `G`; else -1. */
  readonly foldBinding: number;
  /** The pipeline constants it was compiled with (an override set), if any. */
  readonly constants: Record<string, number> | undefined;
  /** On a kernel's entry: its override variants by set, compiled once each. */
  readonly variants: Map<string, CompiledKernel>;
  /** On a kernel's entry: the frozen override object seen last and its variant. */
  memo: { readonly overrides: object; readonly variant: CompiledKernel } | undefined;
  /** On a kernel that has overrides without a default: the one a launch must give (no pipeline). */
  readonly required: string | undefined;
}

/** What the cache says about the device in its errors. */
export interface PipelineCacheDevice {
  /** The adapter's name. */
  readonly name: string;
  /** The adapter's features, where known. */
  readonly adapterFeatures?: ReadonlySet<string>;
}

/**
 * Compiles each program (id, entry point, source) once and counts cache hits and misses.
 *
 * @example
 * ```ts
 * import { PipelineCache } from "./pipeline_cache.ts"; // inside the WebGPU server
 * const device = await (await navigator.gpu.requestAdapter())!.requestDevice();
 * const cache = new PipelineCache(device);
 * const double = { source: `@group(0) @binding(0) var<storage, read_write> v: array<f32>;
 * @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) { v[id.x] *= 2.0; }` };
 * await cache.compile(double); // throws CompilationError with the WGSL line on failure
 * console.log(cache.get(double) === cache.get(double), cache.hits, cache.misses); // true 2 1
 * device.destroy();
 * ```
 */
export class PipelineCache {
  readonly #device: GPUDevice;
  readonly #about: PipelineCacheDevice;
  readonly #entries = new Map<string, CompiledKernel>();
  /** Per kernel object, its entry and the strings it had when first seen (compared by pointer). */
  #byObject = new WeakMap<WgslKernel, { entry: CompiledKernel; program: Program }>();
  #hits = 0;
  #misses = 0;
  /** The device's verdicts on cached failures where the reflection was unsure. */
  readonly #verdicts = new WeakMap<Error, Promise<Error>>();

  /** Creates an empty cache for a device (`about` names its adapter in errors). */
  constructor(device: GPUDevice, about: PipelineCacheDevice = { name: "WebGPU device" }) {
    this.#device = device;
    this.#about = about;
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
   * `workgroupSize` that contradicts the WGSL, or `overrides` that do not match its `override`
   * declarations; `UnsupportedError` for a module that enables a feature the device lacks;
   * `TypeError` for a malformed kernel. With `overrides`, the variant compiled with them (once
   * per set; a frozen object is found by identity).
   */
  get(kernel: WgslKernel, overrides?: object): CompiledKernel {
    const entry = this.#entry(kernel);
    if (overrides === undefined) {
      if (entry.required !== undefined) throw missingOverride(entry.reflection, entry.required);
      return entry;
    }
    const memo = entry.memo;
    if (memo !== undefined && memo.overrides === overrides) return memo.variant;
    return this.#variant(entry, overrides);
  }

  #variant(entry: CompiledKernel, overrides: object): CompiledKernel {
    const { reflection, kernel } = entry;
    const set = checkOverrides(reflection.name, reflection.overrides, overrides);
    let variant = set.key === "" && entry.required === undefined
      ? entry
      : entry.variants.get(set.key);
    if (variant === undefined) {
      const workgroupSize = resolveWorkgroupSize(
        reflection.name,
        reflection.entryPoint,
        reflection.size,
        set.values,
      );
      const resolved = { ...reflection, workgroupSize };
      checkWorkgroupSize(kernel, resolved);
      checkLimits(resolved, this.#device.limits);
      variant = this.#compile(kernel, resolved, -1, set.constants);
      entry.variants.set(set.key, variant);
    }
    if (Object.isFrozen(overrides)) entry.memo = { overrides, variant };
    return variant;
  }

  #entry(kernel: WgslKernel): CompiledKernel {
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
      this.#checkFeatures(reflection);
      checkLimits(reflection, this.#device.limits);
      const spaces = reflection.bindings.filter((b) => b.texture === undefined).map((b) => ({
        uniform: b.space === "uniform",
        line: b.line,
      }));
      checkBindingLimits(reflection.name, spaces, this.#device.limits);
      checkGroups(reflection.name, reflection.bindings, this.#device.limits);
      entry = this.#compile(kernel, reflection);
    } catch (error) {
      // Only a compilation failure is a property of the program; argument errors are not cached.
      if (error instanceof CompilationError) {
        const entry = failed(kernel, error);
        if (isUnsure(error)) this.#verdicts.set(error, this.#verdict(entry, error));
        this.#entries.set(key, entry);
      }
      throw error;
    }
    this.#entries.set(key, entry);
    this.#byObject.set(kernel, { entry, program: programOf(kernel) });
    return entry;
  }

  /**
   * Compiles (or finds) a kernel and waits for validation; rejects with `CompilationError`. Where
   * the reflection is unsure, the device decides (`_device_verdict.ts`): `CompilationError` with
   * the compiler's message, or `UnsupportedError` for valid WGSL the runtime cannot reflect.
   */
  async compile(kernel: WgslKernel, overrides?: object): Promise<CompiledKernel> {
    let entry: CompiledKernel;
    try {
      entry = this.get(kernel, overrides);
    } catch (error) {
      if (!isUnsure(error)) throw error;
      throw await (this.#verdicts.get(error) ?? deviceVerdict(this.#device, kernel.source, error));
    }
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
    // The fold's uniform takes a binding number of group 0 the module does not declare.
    const binding = reflection.freeBinding;
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
      group: 0,
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
      entry.constants,
    );
    return entry.folded = folded;
  }

  /** Forgets every pipeline. */
  clear(): void {
    this.#entries.clear();
    this.#byObject = new WeakMap();
  }

  /** The device's verdict on a failed entry; later lookups of the program throw it. */
  async #verdict(entry: CompiledKernel, error: CompilationError): Promise<Error> {
    const verdict = await deviceVerdict(this.#device, entry.kernel.source, error);
    return entry.error = verdict as CompilationError | UnsupportedError;
  }

  /** `UnsupportedError` naming the feature and the adapter for one the device lacks. */
  #checkFeatures(reflection: KernelReflection): void {
    // A module's `enable`s, and a bgra8unorm storage texture (`bgra8unorm-storage`).
    for (const feature of [...reflection.features, ...textureFeatures(reflection.bindings)]) {
      if (this.#device.features.has(feature as GPUFeatureName)) continue;
      const { name, adapterFeatures } = this.#about;
      const offered = adapterFeatures === undefined
        ? ""
        : adapterFeatures.has(feature)
        ? ` (the adapter offers it: create the client without \`features\`, or name it there)`
        : ` (the adapter does not offer it)`;
      throw new UnsupportedError(
        `Kernel '${reflection.name}' ${
          feature === "bgra8unorm-storage"
            ? "declares a bgra8unorm storage texture"
            : `enables ${feature === "shader-f16" ? "f16" : feature}`
        }, ` +
          `which needs the device feature '${feature}', and the device on "${name}" was ` +
          `created without it${offered}`,
      );
    }
  }

  #compile(
    kernel: WgslKernel,
    reflection: KernelReflection,
    foldBinding = -1,
    constants?: Record<string, number>,
  ): CompiledKernel {
    const device = this.#device;
    const label = reflection.name;
    const required = reflection.overrides.find((o) => o.required && constants === undefined);
    let declared: { module: GPUShaderModule; error: Promise<string | undefined> } | undefined;
    if (reflection.hasReadOnlyStorage) {
      device.pushErrorScope("validation"); // validates the declared access
      const module = device.createShaderModule({ code: kernel.source, label });
      declared = { module, error: device.popErrorScope().then((e) => e?.message, String) };
    }
    device.pushErrorScope("validation");
    const code = reflection.hasReadOnlyStorage
      ? widenReadOnlyStorage(kernel.source)
      : kernel.source;
    const module = device.createShaderModule({ code, label });
    // One layout per group up to the highest: a gap between groups gets an empty layout.
    const layouts: GPUBindGroupLayout[] = [];
    for (let group = 0; group < reflection.groups; group++) {
      layouts.push(device.createBindGroupLayout({
        label,
        entries: reflection.bindings.filter((b) => b.group === group).map(layoutEntry),
      }));
    }
    const layout = layouts[0];
    // Without a value for an override that has no default there is no pipeline: only the
    // module is validated, and every launch must name a variant (`get` refuses one that does not).
    const pipeline = required !== undefined
      ? undefined as unknown as GPUComputePipeline
      : device.createComputePipeline({
        label,
        layout: device.createPipelineLayout({ bindGroupLayouts: layouts }),
        compute: { module, entryPoint: reflection.entryPoint, constants },
      });
    const entry: CompiledKernel = {
      kernel,
      reflection,
      pipeline,
      layout,
      layouts,
      state: "pending",
      error: undefined,
      fallback: undefined,
      folded: undefined,
      foldBinding,
      constants,
      variants: new Map(),
      memo: undefined,
      required: required?.name,
      settled: device.popErrorScope().then((e) => e?.message, String).then((widened) =>
        declared === undefined
          ? settle(entry, widened)
          : settleDeclared(device, entry, declared.module, declared.error, widened)
      ),
    };
    return entry;
  }
}

/** What identifies a program. */
type Program = Pick<WgslKernel, "source" | "entryPoint" | "id">;

function programOf(kernel: WgslKernel): Program {
  return { source: kernel.source, entryPoint: kernel.entryPoint, id: kernel.id };
}

function sameProgram(a: Program, b: WgslKernel): boolean {
  return a.source === b.source && a.entryPoint === b.entryPoint && a.id === b.id;
}
