/**
 * Writes in stream order: the bytes of every entry go into ONE staging buffer, mapped at
 * creation, and are copied into place by a copy task. Never `queue.writeBuffer` into pool memory:
 * it would run ahead of tasks still buffered or encoded but not submitted.
 *
 * Every rule WebGPU checks at submit is checked here first (4-byte units, ranges), so a write can
 * never make a submission fail.
 *
 * @module
 */

import type { CopyDescriptor } from "../../../core/allocation.ts";
import type { HandleRef } from "../../../core/handles/handle_ref.ts";
import type { ResourceRange, WriteEntry } from "../../server.ts";
import { type CopyExtent, writeTargets } from "../../shared/copy_target.ts";
import type { CopyTask } from "../queue/_tasks.ts";
import { BufferUsage } from "./_buffer_usage.ts";
import type { WebGpuMemory } from "./memory.ts";

/** A write being prepared: the copy task to register. */
export interface PendingWrite {
  /** Copies the staged bytes into place, then destroys the staging buffer. */
  readonly task: CopyTask;
  /** The refs written. */
  readonly refs: readonly HandleRef[];
  /** Bytes written. */
  readonly bytes: number;
  /** Destroys the staging buffer when the task could not be registered. */
  cancel(): void;
}

/** Checks the writes and stages their bytes; `undefined` when there is nothing to copy. */
export function prepareWrite(
  device: GPUDevice,
  entries: readonly WriteEntry[],
  parts: {
    readonly layout: (descriptor: CopyDescriptor) => CopyExtent;
    readonly locate: (ref: HandleRef) => ResourceRange<GPUBuffer>;
    readonly memory: WebGpuMemory;
  },
): PendingWrite | undefined {
  const targets = writeTargets(entries, parts);
  const padded = targets.map(({ at, ref }) => {
    // A copy moves 4-byte units: an unaligned tail may only be padded where the slice ends.
    const slice = parts.memory.slice(ref.slice.record);
    const endsSlice = at.offset + at.size === slice.offset + slice.size;
    if (at.offset % 4 !== 0 || (at.size % 4 !== 0 && !endsSlice)) {
      throw new RangeError(
        `WebGPU copies 4-byte units: cannot write ${at.size} bytes at byte ${at.offset}`,
      );
    }
    return Math.ceil(at.size / 4) * 4;
  });
  const total = padded.reduce((sum, n) => sum + n, 0);
  if (total === 0) return undefined;
  const staging = device.createBuffer({
    size: total,
    usage: BufferUsage.COPY_SRC,
    mappedAtCreation: true,
  });
  const bytes = new Uint8Array(staging.getMappedRange());
  let offset = 0;
  const copies = [];
  for (let i = 0; i < targets.length; i++) {
    if (padded[i] === 0) continue;
    bytes.set(targets[i].data, offset);
    copies.push({
      source: staging,
      sourceOffset: offset,
      destination: targets[i].at.resource,
      destinationOffset: targets[i].at.offset,
      size: padded[i],
    });
    offset += padded[i];
  }
  staging.unmap();
  return {
    task: { kind: "copy", copies, done: () => staging.destroy() },
    refs: targets.map((target) => target.ref),
    bytes: targets.reduce((sum, target) => sum + target.data.byteLength, 0),
    cancel: () => staging.destroy(),
  };
}
