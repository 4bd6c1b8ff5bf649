/**
 * Writes in stream order: the bytes of every entry go into ONE staging buffer, mapped at
 * creation, and are copied into place by a copy task. Never `queue.writeBuffer` into pool memory:
 * it would run ahead of tasks still buffered or encoded but not submitted.
 *
 * Every rule WebGPU checks at submit is checked here first (ranges), so a write can never make a
 * submission fail. Copies move whole 4-byte words: bytes that fill a word in part (an `u8` or
 * `f16` element at an odd position) are patched on the device (`_patch_words.ts`).
 *
 * @module
 */

import type { CopyDescriptor } from "../../../core/allocation.ts";
import type { HandleRef } from "../../../core/handles/handle_ref.ts";
import type { ResourceRange, WriteEntry } from "../../server.ts";
import { type CopyExtent, writeTargets } from "../../shared/copy_target.ts";
import type { CopyTask } from "../queue/_tasks.ts";
import { BufferUsage } from "./_buffer_usage.ts";
import { encodePatches, partialWords } from "./_patch_words.ts";
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
  // A copy moves whole 4-byte words: the words a write covers in part are patched on the device
  // (`_patch_words.ts`), unless the part is the slice's last word (padded: the rest is padding).
  const plans = targets.map(({ at, ref, data }) => {
    const slice = parts.memory.slice(ref.slice.record);
    const end = at.offset + at.size;
    const endsSlice = end === slice.offset + slice.size;
    const from = Math.ceil(at.offset / 4) * 4;
    const to = endsSlice ? Math.ceil(end / 4) * 4 : Math.floor(end / 4) * 4;
    const words: number[] = [];
    if (at.offset % 4 !== 0) words.push(at.offset - (at.offset % 4));
    if (!endsSlice && end % 4 !== 0 && end - (end % 4) !== words[0]) words.push(end - (end % 4));
    const patches = at.size === 0 ? [] : partialWords(at.resource, at.offset, data, words);
    return { from, size: Math.max(0, to - from), patches };
  });
  const total = plans.reduce((sum, plan) => sum + plan.size, 0);
  const patches = plans.flatMap((plan) => plan.patches);
  if (total === 0 && patches.length === 0) return undefined;
  const staging = total === 0 ? undefined : device.createBuffer({
    size: total,
    usage: BufferUsage.COPY_SRC,
    mappedAtCreation: true,
  });
  const bytes = staging === undefined ? undefined : new Uint8Array(staging.getMappedRange());
  let offset = 0;
  const copies = [];
  for (let i = 0; i < targets.length; i++) {
    const { from, size } = plans[i];
    if (size === 0) continue;
    const { at, data } = targets[i];
    bytes!.set(
      data.subarray(from - at.offset, Math.min(data.length, from - at.offset + size)),
      offset,
    );
    copies.push({
      source: staging!,
      sourceOffset: offset,
      destination: at.resource,
      destinationOffset: from,
      size,
    });
    offset += size;
  }
  staging?.unmap();
  let patched: GPUBuffer | undefined;
  const encode = patches.length === 0
    ? undefined
    : (encoder: GPUCommandEncoder) => void (patched = encodePatches(device, encoder, patches));
  const done = () => {
    staging?.destroy();
    patched?.destroy();
  };
  return {
    task: { kind: "copy", copies, encode, done },
    refs: targets.map((target) => target.ref),
    bytes: targets.reduce((sum, target) => sum + target.data.byteLength, 0),
    cancel: done,
  };
}
