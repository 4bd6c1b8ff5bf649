/**
 * The checks the pipeline cache makes before compiling: the kernel object's shape, the workgroup
 * size and binding counts against the device limits, and a missing override value.
 *
 * @module
 */

import { CompilationError, KernelArgumentError } from "../../../core/errors.ts";
import type { WgslKernel } from "../kernel.ts";
import type { KernelReflection } from "./_reflect.ts";

/** `KernelArgumentError` for a launch without the override `name`, which has no default. */
export function missingOverride(reflection: KernelReflection, name: string): KernelArgumentError {
  const o = reflection.overrides.find((o) => o.name === name)!;
  return new KernelArgumentError(
    reflection.name,
    `overrides.${o.name}`,
    `is required: 'override ${o.name}: ${o.type}' has no default (pass overrides: { ${o.name}: ... })`,
  );
}

/** `TypeError` for a malformed kernel object. */
export function checkKernel(kernel: WgslKernel): void {
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

/** `CompilationError` for a workgroup size beyond the device limits. */
export function checkLimits(reflection: KernelReflection, limits: GPUSupportedLimits): void {
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
