/**
 * Workgroup counts of a launch, and how launches beyond the device's per-dimension limit stay
 * right.
 *
 * WebGPU dispatches at most `maxComputeWorkgroupsPerDimension` (65,535 by default) workgroups per
 * axis. A launch of `[G, 1, 1]` workgroups with `G` above that (a one-dimensional `threads`
 * launch, or a static count) is dispatched as a folded grid `[x, y, z]` with `x * y * z >= G`,
 * running the kernel's *folded variant* (`_fold.ts`): its entry point sees exactly what the
 * unfolded launch would show — `global_invocation_id`, `workgroup_id` and `num_workgroups` as
 * for `[G, 1, 1]` — and the extra workgroups of the grid return at once. So a kernel written
 * with `global_invocation_id.x` is right at every size, and runs as many workgroups as asked.
 *
 * A launch needing more than the limit on y or z is refused (`KernelArgumentError`).
 *
 * @module
 */

import { KernelArgumentError } from "../../../core/errors.ts";
import { HandleRef } from "../../../core/handles/handle_ref.ts";
import { describe } from "../../../core/_argument_checks.ts";
import type { MutableRange, WebGpuMemory } from "../memory/memory.ts";

/** Where a dynamic cube count's ref lives (in `at`), checked: 12 bytes at a multiple of 4. */
export function locateCount(memory: WebGpuMemory, ref: unknown, at: MutableRange): MutableRange {
  if (!(ref instanceof HandleRef)) {
    throw new TypeError(`A dynamic cube count needs a HandleRef, got ${describe(ref)}`);
  }
  memory.locate(ref, at);
  if (at.size < 12) {
    throw new RangeError(`A dynamic cube count needs 12 bytes, the ref has ${at.size}`);
  }
  if (at.offset % 4 !== 0) {
    throw new RangeError(`An indirect cube count must start at a multiple of 4, got ${at.offset}`);
  }
  return at;
}

/**
 * The workgroups of a `threads` launch: `ceil(threads / workgroupSize)` per axis, into `out`.
 */
export function cubesForThreads(
  threads: { readonly x: number; readonly y: number; readonly z: number },
  workgroupSize: readonly [number, number, number],
  out: [number, number, number],
): [number, number, number] {
  out[0] = Math.ceil(threads.x / workgroupSize[0]);
  out[1] = Math.ceil(threads.y / workgroupSize[1]);
  out[2] = Math.ceil(threads.z / workgroupSize[2]);
  return out;
}

/**
 * Fits `cubes` (workgroups per axis) into the device limit in place. Returns the number of
 * workgroups the folded variant must run (`G`) when the launch had to be folded, else 0.
 * `what` names the argument in errors (`threads` or `count`).
 */
export function fitCubes(
  kernel: string,
  what: "threads" | "count",
  cubes: [number, number, number],
  maxPerDimension: number,
): number {
  const [gx, gy, gz] = cubes;
  if (gx <= maxPerDimension && gy <= maxPerDimension && gz <= maxPerDimension) return 0;
  if (gy === 1 && gz === 1 && gx <= maxPerDimension ** 3) {
    const z = Math.ceil(gx / maxPerDimension ** 2);
    const y = Math.ceil(gx / (maxPerDimension * z));
    cubes[0] = Math.ceil(gx / (y * z));
    cubes[1] = y;
    cubes[2] = z;
    return gx;
  }
  throw new KernelArgumentError(
    kernel,
    what,
    `needs [${gx}, ${gy}, ${gz}] workgroups; the device runs at most ${maxPerDimension} per ` +
      `dimension, and only a launch of [G, 1, 1] workgroups is folded: launch more threads ` +
      `along x (one dimension) and compute the 2-D index from it`,
  );
}
