/**
 * Coalesced read-back: every source is copied into ONE staging buffer that is mapped once, so
 * reading K ranges costs one map round trip (~11 ms in Deno, which polls the device every ~10 ms).
 *
 * Copies work in 4-byte units, so each source is copied as the 4-aligned range that covers it and
 * trimmed on the host. That superset never leaves the page: pages are multiples of 4 bytes.
 *
 * @module
 */

import type { CopyDescriptor } from "../../../core/allocation.ts";
import type { HandleRef } from "../../../core/handles/handle_ref.ts";
import type { ResourceRange } from "../../server.ts";
import { type CopyExtent, copyTarget } from "../../shared/copy_target.ts";
import type { BufferCopy, CopyTask } from "../queue/_tasks.ts";
import { BufferUsage } from "./_buffer_usage.ts";

/** A read being prepared: the copy task to register, then the mapping. */
export interface PendingRead {
  /** Copies every source into the staging buffer. */
  readonly task: CopyTask;
  /** The refs read, in order (the task only reads them). */
  readonly refs: readonly HandleRef[];
  /** Bytes read. */
  readonly bytes: number;
  /** Maps the staging buffer (once) after the task was submitted; destroys it. */
  result(): Promise<Uint8Array[]>;
  /** Destroys the staging buffer when the task could not be registered. */
  cancel(): void;
}

/** Sources of one buffer closer than this are copied as one range (gap bytes included). */
const MERGE_GAP = 4096;

/** The reads of one server: their staging buffers and map counter. */
export class WebGpuReads {
  readonly #device: GPUDevice;
  /** Reads whose staging buffer is not destroyed yet (destroy settles their maps). */
  readonly #pending = new Set<GPUBuffer>();
  /** `mapAsync` calls made. */
  maps = 0;

  constructor(device: GPUDevice) {
    this.#device = device;
  }

  /**
   * Checks the descriptors (see `copyTarget`) and plans one staging buffer for every source.
   * Sources in the same buffer (slices of one page) whose 4-aligned ranges overlap or lie within
   * {@linkcode MERGE_GAP} bytes are merged into one copy: each `copyBufferToBuffer` costs more on
   * the host than copying a small gap.
   */
  prepare(
    descriptors: readonly CopyDescriptor[],
    layout: (descriptor: CopyDescriptor) => CopyExtent,
    locate: (ref: HandleRef) => ResourceRange<GPUBuffer>,
  ): PendingRead {
    if (!Array.isArray(descriptors)) throw new TypeError("descriptors must be an array");
    const targets = descriptors.map((d) => copyTarget(d, { layout, locate }));
    const sources = targets.map((target) => target.at);
    const { copies, placed, total } = plan(sources);
    const staging = this.#device.createBuffer({
      size: Math.max(4, total),
      usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST,
    });
    this.#pending.add(staging);
    const pending = this.#pending;
    const done = () => {
      pending.delete(staging);
      staging.destroy();
    };
    const counted = () => this.maps++;
    return {
      task: { kind: "copy", copies: copies.map((copy) => ({ ...copy, destination: staging })) },
      refs: targets.map((target) => target.ref),
      bytes: sources.reduce((sum, source) => sum + source.size, 0),
      async result(): Promise<Uint8Array[]> {
        try {
          counted();
          await staging.mapAsync(GPUMapMode.READ);
          const mapped = new Uint8Array(staging.getMappedRange());
          const out = placed.map((p) => mapped.slice(p.at, p.at + p.size));
          staging.unmap();
          return out;
        } finally {
          done();
        }
      },
      cancel: done,
    };
  }

  /** Destroys the staging buffers of pending reads: their maps fail, their reads settle. */
  destroy(): void {
    for (const staging of this.#pending) staging.destroy();
    this.#pending.clear();
  }
}

/** The merged copies of `sources` into one staging buffer and where each source lands. */
function plan(sources: readonly ResourceRange<GPUBuffer>[]) {
  const placed: { at: number; size: number }[] = sources.map(() => ({ at: 0, size: 0 }));
  const byBuffer = new Map<GPUBuffer, number[]>();
  sources.forEach((source, i) => {
    if (source.size === 0) return;
    const list = byBuffer.get(source.resource);
    if (list === undefined) byBuffer.set(source.resource, [i]);
    else list.push(i);
  });
  const copies: Omit<BufferCopy, "destination">[] = [];
  let total = 0;
  const begin = (i: number) => sources[i].offset - (sources[i].offset % 4);
  const finish = (i: number) => Math.ceil((sources[i].offset + sources[i].size) / 4) * 4;
  for (const [buffer, members] of byBuffer) {
    members.sort((a, b) => begin(a) - begin(b));
    let run = { start: begin(members[0]), end: finish(members[0]), members: [members[0]] };
    const emit = () => {
      for (const i of run.members) {
        placed[i] = { at: total + sources[i].offset - run.start, size: sources[i].size };
      }
      copies.push({
        source: buffer,
        sourceOffset: run.start,
        destinationOffset: total,
        size: run.end - run.start,
      });
      total += run.end - run.start;
    };
    for (const i of members.slice(1)) {
      if (begin(i) <= run.end + MERGE_GAP) {
        run.end = Math.max(run.end, finish(i));
        run.members.push(i);
      } else {
        emit();
        run = { start: begin(i), end: finish(i), members: [i] };
      }
    }
    emit();
  }
  return { copies, placed, total };
}
