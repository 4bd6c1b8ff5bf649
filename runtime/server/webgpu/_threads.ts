/**
 * The cube count of a `threads` launch.
 *
 * Each axis gets `ceil(threads / workgroupSize)` workgroups. WebGPU allows at most
 * `maxComputeWorkgroupsPerDimension` (65,535 by default) per axis, so a one-dimensional launch
 * (threads `[n, 1, 1]` on a workgroup `[w, 1, 1]`) that needs more is folded into y and then z:
 * `[gx, gy, gz]` with `gx * gy * gz >= ceil(n / w)`. A kernel that may be launched that large
 * computes its element index from the linear workgroup id:
 *
 * ```wgsl
 * @compute @workgroup_size(64)
 * fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
 *         @builtin(local_invocation_index) lid: u32) {
 *   let i = (wid.x + nwg.x * (wid.y + nwg.y * wid.z)) * 64u + lid;
 *   if (i >= arrayLength(&out)) { return; } // the last workgroups may run past n
 * ```
 *
 * Below the limit this is `global_invocation_id.x`. Invocations past `n` always run (the last
 * workgroup is partial), so every kernel checks its bound.
 *
 * @module
 */

import { KernelArgumentError } from "../../core/errors.ts";

/** Workgroups to dispatch for `threads` invocations of a kernel of `workgroupSize`. */
export function cubesForThreads(
  kernel: string,
  threads: readonly [number, number, number],
  workgroupSize: readonly [number, number, number],
  maxPerDimension: number,
): [number, number, number] {
  const groups: [number, number, number] = [
    Math.ceil(threads[0] / workgroupSize[0]),
    Math.ceil(threads[1] / workgroupSize[1]),
    Math.ceil(threads[2] / workgroupSize[2]),
  ];
  if (
    groups[0] <= maxPerDimension && groups[1] <= maxPerDimension && groups[2] <= maxPerDimension
  ) {
    return groups;
  }
  const linear = threads[1] === 1 && threads[2] === 1 && workgroupSize[1] === 1 &&
    workgroupSize[2] === 1;
  const total = groups[0];
  if (linear && total <= maxPerDimension ** 3) {
    const z = Math.ceil(total / maxPerDimension ** 2);
    const y = Math.ceil(total / (maxPerDimension * z));
    const x = Math.ceil(total / (y * z));
    return [x, y, z];
  }
  throw new KernelArgumentError(
    kernel,
    "threads",
    `[${threads.join(", ")}] needs [${groups.join(", ")}] workgroups of ` +
      `[${workgroupSize.join(", ")}]; at most ${maxPerDimension} per dimension (only a ` +
      `one-dimensional launch on a one-dimensional workgroup is folded into y and z)`,
  );
}
