/**
 * Coalesced read-back: every source is copied into ONE staging buffer that is mapped once, so
 * reading K ranges costs one map round trip (~11 ms in Deno, which polls the device every ~10 ms).
 *
 * Copies work in 4-byte units, so each source is copied as the 4-aligned range that covers it and
 * trimmed on the host. That superset never leaves the page: pages are multiples of 4 bytes.
 *
 * @module
 */

import type { BindingResource } from "../server.ts";
import type { CopyTask } from "./_encoder_stream.ts";

const MAP_READ = 0x1;
const COPY_DST = 0x8;

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

/** Plans one staging buffer for every source. */
export function prepareRead(
  device: GPUDevice,
  sources: readonly BindingResource<GPUBuffer>[],
  stats: ReadStats,
): PendingRead {
  const placed: { at: number; skip: number; size: number }[] = [];
  const copies = [];
  let total = 0;
  for (const source of sources) {
    const start = source.offset - (source.offset % 4);
    const end = Math.ceil((source.offset + source.size) / 4) * 4;
    placed.push({ at: total, skip: source.offset - start, size: source.size });
    if (source.size > 0) {
      copies.push({
        source: source.resource,
        sourceOffset: start,
        destination: undefined as unknown as GPUBuffer,
        destinationOffset: total,
        size: end - start,
      });
      total += end - start;
    }
  }
  const staging = device.createBuffer({ size: Math.max(4, total), usage: MAP_READ | COPY_DST });
  for (const copy of copies) copy.destination = staging;
  return {
    task: { kind: "copy", copies },
    async result(): Promise<Uint8Array[]> {
      try {
        stats.mapAsync++;
        await staging.mapAsync(GPUMapMode.READ);
        const mapped = new Uint8Array(staging.getMappedRange());
        const out = placed.map((p) => mapped.slice(p.at + p.skip, p.at + p.skip + p.size));
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
