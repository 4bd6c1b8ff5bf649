/**
 * Checks of a launch and of a kernel's declarations that WebGPU would otherwise make late (at
 * submit, or in an asynchronous pipeline error): done synchronously so that the call that caused
 * a problem is the one that throws.
 *
 * @module
 */

import { Binding } from "../../core/handle.ts";
import { Bindings } from "../../core/bindings.ts";
import { CubeCount } from "../../core/cube_count.ts";
import { describe } from "../../core/_validate.ts";
import { CompilationError } from "../../core/errors.ts";
import type { KernelLaunch } from "../server.ts";
import type { WgslKernel } from "./kernel.ts";

const MODES = ["checked", "unchecked", undefined];

/** Checks the shape of a launch built by hand (`TypeError` / `RangeError`). */
export function checkLaunch(launch: KernelLaunch<WgslKernel>): void {
  if (typeof launch !== "object" || launch === null) {
    throw new TypeError(`launch must be a KernelLaunch, got ${describe(launch)}`);
  }
  if (!(launch.bindings instanceof Bindings)) {
    throw new TypeError(`launch.bindings must be a Bindings, got ${describe(launch.bindings)}`);
  }
  const buffers = launch.bindings.buffers;
  for (let i = 0; i < buffers.length; i++) {
    if (!(buffers[i] instanceof Binding)) {
      throw new TypeError(`launch buffer ${i} must be a Binding, got ${describe(buffers[i])}`);
    }
  }
  CubeCount.check(launch.count);
  if (!MODES.includes(launch.mode)) {
    throw new RangeError(`mode must be "checked" or "unchecked", got ${describe(launch.mode)}`);
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
