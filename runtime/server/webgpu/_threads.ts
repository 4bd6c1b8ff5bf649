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

/** Workgroups to dispatch for `threads` invocations of a kernel of `workgroupSize`, into `out`. */
export function cubesForThreads(
  kernel: string,
  threads: { readonly x: number; readonly y: number; readonly z: number },
  workgroupSize: readonly [number, number, number],
  maxPerDimension: number,
  out: [number, number, number] = [1, 1, 1],
): [number, number, number] {
  const gx = Math.ceil(threads.x / workgroupSize[0]);
  const gy = Math.ceil(threads.y / workgroupSize[1]);
  const gz = Math.ceil(threads.z / workgroupSize[2]);
  if (gx <= maxPerDimension && gy <= maxPerDimension && gz <= maxPerDimension) {
    out[0] = gx;
    out[1] = gy;
    out[2] = gz;
    return out;
  }
  const linear = threads.y === 1 && threads.z === 1 && workgroupSize[1] === 1 &&
    workgroupSize[2] === 1;
  if (linear && gx <= maxPerDimension ** 3) {
    const z = Math.ceil(gx / maxPerDimension ** 2);
    const y = Math.ceil(gx / (maxPerDimension * z));
    out[0] = Math.ceil(gx / (y * z));
    out[1] = y;
    out[2] = z;
    return out;
  }
  throw new KernelArgumentError(
    kernel,
    "threads",
    `[${threads.x}, ${threads.y}, ${threads.z}] needs [${gx}, ${gy}, ${gz}] workgroups of ` +
      `[${workgroupSize.join(", ")}]; at most ${maxPerDimension} per dimension (only a ` +
      `one-dimensional launch on a one-dimensional workgroup is folded into y and z)`,
  );
}
