/**
 * Coalesced read-back: every source is copied into ONE staging buffer that is mapped once, so
 * reading K ranges costs one map round trip (~11 ms in Deno, which polls the device every ~10 ms).
 *
 * Copies work in 4-byte units, so each source is copied as the 4-aligned range that covers it and
 * trimmed on the host. That superset never leaves the page: pages are multiples of 4 bytes.
 *
 * @module
 */

import type { ResourceRange } from "../server.ts";
import type { BufferCopy, CopyTask } from "./_stream.ts";
import { BufferUsage } from "./_buffer_usage.ts";

/** A read being prepared: the copy task to register, then the mapping. */
export interface PendingRead {
  /** Copies every source into the staging buffer. */
  readonly task: CopyTask;
  /** Maps the staging buffer (once) after the task was submitted; destroys it. */
  result(): Promise<Uint8Array[]>;
  /** Destroys the staging buffer when the task could not be registered. */
  cancel(): void;
}

/** Map counters, for tests and benchmarks. */
export interface ReadStats {
  mapAsync: number;
}

/** Sources of one buffer closer than this are copied as one range (gap bytes included). */
const MERGE_GAP = 4096;

/**
 * Plans one staging buffer for every source. Sources in the same buffer (slices of one page) whose
 * 4-aligned ranges overlap or lie within {@linkcode MERGE_GAP} bytes are merged into one copy:
 * each `copyBufferToBuffer` costs more on the host than copying a small gap.
 */
export function prepareRead(
  device: GPUDevice,
  sources: readonly ResourceRange<GPUBuffer>[],
  stats: ReadStats,
): PendingRead {
  const placed: { at: number; size: number }[] = sources.map(() => ({ at: 0, size: 0 }));
  const byBuffer = new Map<GPUBuffer, number[]>();
  sources.forEach((source, i) => {
    if (source.size === 0) return;
    const list = byBuffer.get(source.resource);
    if (list === undefined) byBuffer.set(source.resource, [i]);
    else list.push(i);
  });
  const runs: Omit<BufferCopy, "destination">[] = [];
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
      runs.push({
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
  const staging = device.createBuffer({
    size: Math.max(4, total),
    usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST,
  });
  const copies: BufferCopy[] = runs.map((copy) => ({ ...copy, destination: staging }));
  return {
    task: { kind: "copy", copies },
    async result(): Promise<Uint8Array[]> {
      try {
        stats.mapAsync++;
        await staging.mapAsync(GPUMapMode.READ);
        const mapped = new Uint8Array(staging.getMappedRange());
        const out = placed.map((p) => mapped.slice(p.at, p.at + p.size));
        staging.unmap();
        return out;
      } finally {
        staging.destroy();
      }
    },
    cancel(): void {
      staging.destroy();
    },
  };
}
