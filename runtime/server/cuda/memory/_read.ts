/**
 * Device-to-host reads: every descriptor of one call is copied into one pinned buffer, one event
 * is recorded, the host polls it, then copies the bytes out. One round trip for any number of
 * descriptors. A read that fails or times out leaves its staging buffer pinned until the event
 * completes (the copies may still be writing into it).
 *
 * @module
 */

import type { CopyDescriptor } from "../../../core/allocation.ts";
import type { HandleRef } from "../../../core/handles/handle_ref.ts";
import type { ResourceRange } from "../../server.ts";
import { copyTarget } from "../../shared/copy_target.ts";
import { type CopyLayout, copyLayout, memcpy2d } from "./_copy_layout.ts";
import {
  type CudaStream,
  type HostWaitOptions,
  markComplete,
  waitForEvent,
} from "../queue/streams.ts";
import type { CopyContext } from "./_write.ts";

/** One source of a read. */
export interface ReadSource {
  readonly at: ResourceRange<bigint>;
  readonly layout: CopyLayout;
}

const struct = new DataView(new ArrayBuffer(128));

/**
 * The sources of a read, each descriptor checked against its handle (the shared layer's
 * `copyTarget`, as WebGPU's reads do) and located in device memory.
 */
export function readSources(
  descriptors: readonly CopyDescriptor[],
  locate: (ref: HandleRef) => ResourceRange<bigint>,
): ReadSource[] {
  return descriptors.map((descriptor) => {
    const { at, extent } = copyTarget(descriptor, { layout: copyLayout, locate });
    return { at, layout: extent };
  });
}

/** Enqueues the copies of `sources` on `stream` and resolves with their bytes. */
export async function read(
  ctx: CopyContext,
  sources: readonly ReadSource[],
  stream: CudaStream,
  wait: HostWaitOptions,
): Promise<Uint8Array[]> {
  const { driver, pinned, events } = ctx;
  const total = sources.reduce((sum, s) => sum + s.layout.bytes, 0);
  if (total === 0) return sources.map(() => new Uint8Array(0));
  const staging = pinned.acquire(total);
  const offsets: number[] = [];
  let offset = 0;
  let event;
  try {
    for (const { at, layout } of sources) {
      offsets.push(offset);
      if (layout.bytes === 0) continue;
      const device = at.resource + BigInt(at.offset);
      const host = staging.address + BigInt(offset);
      if (layout.rows === 1) {
        driver.check(
          driver.symbols.cuMemcpyDtoHAsync_v2(
            Deno.UnsafePointer.create(host),
            device,
            BigInt(layout.bytes),
            stream.handle,
          ),
          `cuMemcpyDtoHAsync_v2(${layout.bytes} bytes, stream ${stream.index})`,
        );
      } else {
        memcpy2d(struct, {
          src: { host: false, address: device, pitch: layout.pitch },
          dst: { host: true, address: host, pitch: layout.rowBytes },
          widthInBytes: layout.rowBytes,
          height: layout.rows,
        });
        driver.check(
          driver.symbols.cuMemcpy2DAsync_v2(new Uint8Array(struct.buffer), stream.handle),
          `cuMemcpy2DAsync_v2(${layout.rows} rows of ${layout.rowBytes} bytes, stream ${stream.index})`,
        );
      }
      offset += layout.bytes;
    }
    event = events.record(stream);
  } catch (error) {
    // Copies enqueued before the failure still write into the staging buffer: keep it pinned
    // behind an event when one can be recorded, else leave it allocated.
    try {
      pinned.retire(staging, events.record(stream));
    } catch { /* sticky error: the buffer stays allocated */ }
    throw error;
  }
  try {
    await waitForEvent(driver, event.handle, wait);
    markComplete(event);
  } catch (error) {
    pinned.retire(staging, event);
    throw error;
  }
  ctx.bind(); // resumed from the event loop: releasing may free the buffer (cuMemFreeHost)
  const result = sources.map((s, i) =>
    staging.bytes.slice(offsets[i], offsets[i] + s.layout.bytes)
  );
  events.release(event);
  pinned.release(staging);
  return result;
}

/**
 * Finishes the order of a read started on it (`read` enqueues up to its first await): the
 * finish's error is thrown (a sticky fault), and the read's own rejection then never dangles.
 */
export function finishAfter(ordered: { finish(): void }, pending: Promise<unknown>): void {
  try {
    ordered.finish();
  } catch (error) {
    pending.catch(() => {});
    throw error;
  }
}
