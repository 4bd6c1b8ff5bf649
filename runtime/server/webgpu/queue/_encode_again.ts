/**
 * Dispatches encoded on their own, each in a pass of its own after the copies it needs: a graph's
 * dispatches validated at capture, and the dispatches of an isolated submission encoded again
 * once their kernel settled on its declared (unwidened) module (`compile/_settle.ts`): encoded
 * while it was pending, they name the widened pipeline, which the device refused.
 *
 * @module
 */

import {
  type DispatchTask,
  encodeCopies,
  type EncodedDispatch,
  type PassGroup,
  type PooledTask,
} from "./_tasks.ts";

/** Makes a task's bind groups again for its kernel's declared module; what frees its copies. */
export type Replan = (task: PooledTask) => (() => void) | undefined;

/**
 * Encodes `task` in a pass of its own (timed as `group`), after its copies and its indirect
 * count's; or in `pass`, when given and the task copies nothing. Returns the pass, still open.
 */
export function encodeDispatch(
  encoder: GPUCommandEncoder,
  task: DispatchTask,
  group: PassGroup | null = null,
  pass?: GPUComputePassEncoder,
): GPUComputePassEncoder {
  const indirect = task.indirect;
  if (pass !== undefined && (task.copies !== undefined || indirect !== undefined)) {
    pass.end();
    pass = undefined;
  }
  if (task.copies !== undefined) encodeCopies(encoder, task.copies);
  if (indirect !== undefined) {
    encoder.copyBufferToBuffer(indirect.buffer, indirect.offset, indirect.scratch, 0, 12);
  }
  pass ??= encoder.beginComputePass({ timestampWrites: group?.timestampWrites });
  pass.setPipeline(task.kernel.pipeline);
  pass.setBindGroup(0, task.bindGroup);
  const groups = task.groups ?? [];
  for (let g = 0; g < groups.length; g++) pass.setBindGroup(g + 1, groups[g]);
  if (indirect === undefined) pass.dispatchWorkgroups(task.x, task.y, task.z);
  else pass.dispatchWorkgroupsIndirect(indirect.scratch, 0);
  return pass;
}

/**
 * The command buffer of `tasks` encoded again after `replan` (see the module doc), in passes timed
 * as they were first, and what gives back their scratch copies once it was submitted.
 */
export function encodeAgain(
  device: GPUDevice,
  tasks: readonly EncodedDispatch[],
  replan: Replan,
): { buffer: GPUCommandBuffer; release: () => void } {
  const encoder = device.createCommandEncoder();
  const releases: (() => void)[] = [];
  let pass: GPUComputePassEncoder | undefined;
  let current: PassGroup | null = null;
  for (const { task, group } of tasks) {
    const release = replan(task as PooledTask);
    if (release !== undefined) releases.push(release);
    if (pass !== undefined && group !== current) {
      pass.end();
      pass = undefined;
    }
    pass = encodeDispatch(encoder, task, group, pass);
    current = group;
  }
  pass?.end();
  return {
    buffer: encoder.finish(),
    release: () => {
      for (const release of releases) release();
    },
  };
}
