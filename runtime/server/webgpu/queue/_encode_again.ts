/**
 * Dispatches encoded on their own, each in a pass of its own after the copies it needs: a graph's
 * dispatches validated at capture, and the dispatches of an isolated submission encoded again
 * once their kernel settled on its declared (unwidened) module (`compile/_settle.ts`): encoded
 * while it was pending, they name the widened pipeline, which the device refused.
 *
 * @module
 */

import { type DispatchTask, encodeCopies, type PooledTask } from "./_tasks.ts";

/** Makes a task's bind groups again for its kernel's declared module; what frees its copies. */
export type Replan = (task: PooledTask) => (() => void) | undefined;

/** Encodes `task` in a pass of its own, after its copies and its indirect count's. */
export function encodeDispatch(encoder: GPUCommandEncoder, task: DispatchTask): void {
  if (task.copies !== undefined) encodeCopies(encoder, task.copies);
  const indirect = task.indirect;
  if (indirect !== undefined) {
    encoder.copyBufferToBuffer(indirect.buffer, indirect.offset, indirect.scratch, 0, 12);
  }
  const pass = encoder.beginComputePass();
  pass.setPipeline(task.kernel.pipeline);
  pass.setBindGroup(0, task.bindGroup);
  const groups = task.groups ?? [];
  for (let g = 0; g < groups.length; g++) pass.setBindGroup(g + 1, groups[g]);
  if (indirect === undefined) pass.dispatchWorkgroups(task.x, task.y, task.z);
  else pass.dispatchWorkgroupsIndirect(indirect.scratch, 0);
  pass.end();
}

/**
 * The command buffer of `tasks` encoded again after `replan` (see the module doc), and what gives
 * back their scratch copies once it was submitted.
 */
export function encodeAgain(
  device: GPUDevice,
  tasks: readonly DispatchTask[],
  replan: Replan,
): { buffer: GPUCommandBuffer; release: () => void } {
  const encoder = device.createCommandEncoder();
  const releases: (() => void)[] = [];
  for (const task of tasks) {
    const release = replan(task as PooledTask);
    if (release !== undefined) releases.push(release);
    encodeDispatch(encoder, task);
  }
  return {
    buffer: encoder.finish(),
    release: () => {
      for (const release of releases) release();
    },
  };
}
