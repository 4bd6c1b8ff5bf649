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

import type { ResourceRange } from "../server.ts";
import type { CopyTask } from "./_stream.ts";
import { BufferUsage } from "./_buffer_usage.ts";

/** A write being prepared: the copy task to register, or nothing for an empty write. */
export interface PendingWrite {
  /** Copies the staged bytes into place, then destroys the staging buffer. */
  readonly task: CopyTask;
  /** Destroys the staging buffer when the task could not be registered. */
  cancel(): void;
}

/** The bytes of one write entry, where they go, and the slice that holds it (tail rule). */
export interface WriteTarget {
  /** The bytes (checked here to be a `Uint8Array`). */
  readonly data: unknown;
  readonly at: ResourceRange<GPUBuffer>;
  /** Offset and size of the whole slice in its buffer. */
  readonly slice: { readonly offset: number; readonly size: number };
}

/** Checks the writes and stages their bytes; `undefined` when there is nothing to copy. */
export function prepareWrite(
  device: GPUDevice,
  targets: readonly WriteTarget[],
): PendingWrite | undefined {
  const padded = targets.map(({ data, at, slice }, i) => {
    if (!(data instanceof Uint8Array)) {
      throw new TypeError(`entries[${i}].data must be a Uint8Array`);
    }
    if (data.byteLength !== at.size) {
      throw new RangeError(
        `Write of ${data.byteLength} bytes into a descriptor of ${at.size} bytes`,
      );
    }
    // A copy moves 4-byte units: an unaligned tail may only be padded where the slice ends.
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
    bytes.set(targets[i].data as Uint8Array, offset);
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
    cancel: () => staging.destroy(),
  };
}
