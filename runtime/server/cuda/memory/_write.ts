/**
 * Host-to-device writes through pinned staging (see `_staging.ts`). All entries of one call share
 * one staging buffer and one event; a write whose bytes already lie in a `staging()` buffer is
 * copied straight from it, and that buffer stays referenced until the copy completed.
 *
 * @module
 */

import type { HandleRef } from "../../../core/handles/handle_ref.ts";
import type { ResourceRange, WriteEntry } from "../../server.ts";
import { writeTargets } from "../../shared/copy_target.ts";
import type { CudaDriver } from "../_ffi.ts";
import { type CopyLayout, copyLayout, memcpy2d } from "./_copy_layout.ts";
import type { Pinned, PinnedPool } from "./_staging.ts";
import type { CudaStream, EventPool } from "../queue/streams.ts";

/** One destination of a write. */
export interface WriteTarget {
  /** The device memory (pointer, the ref's offset, the copy's span). */
  readonly at: ResourceRange<bigint>;
  /** How the bytes land on the device. */
  readonly layout: CopyLayout;
  /** The bytes, packed rows. */
  readonly data: Uint8Array;
}

/**
 * The targets of a write, each entry checked against its handle (the shared layer's
 * `writeTargets`, as WebGPU's writes do) and located in device memory.
 */
export function writeTargetsOf(
  entries: readonly WriteEntry[],
  locate: (ref: HandleRef) => ResourceRange<bigint>,
): WriteTarget[] {
  return writeTargets(entries, { layout: copyLayout, locate })
    .map(({ at, extent, data }) => ({ at, layout: extent, data }));
}

/** What a write needs from the server. */
export interface CopyContext {
  readonly driver: CudaDriver;
  readonly pinned: PinnedPool;
  readonly events: EventPool;
  /** Makes the server's context current (after an `await`). */
  readonly bind: () => void;
}

const struct = new DataView(new ArrayBuffer(128));

/** Enqueues the copies of `targets` on `stream`. */
export function enqueueWrite(
  ctx: CopyContext,
  targets: readonly WriteTarget[],
  stream: CudaStream,
): void {
  const { driver, pinned } = ctx;
  const direct = targets.map((t) => pinned.addressOf(t.data));
  const staged = targets.filter((_, i) => direct[i] === undefined);
  const total = staged.reduce((sum, t) => sum + t.data.byteLength, 0);
  let staging: Pinned | undefined;
  if (total > 0) staging = pinned.acquire(total);
  let offset = 0;
  try {
    targets.forEach((target, i) => {
      const { at, layout, data } = target;
      if (data.byteLength === 0) return;
      let source = direct[i];
      if (source === undefined) {
        staging!.bytes.set(data, offset);
        source = staging!.address + BigInt(offset);
        offset += data.byteLength;
      }
      const device = at.resource + BigInt(at.offset);
      if (layout.rows === 1) {
        driver.check(
          driver.symbols.cuMemcpyHtoDAsync_v2(
            device,
            Deno.UnsafePointer.create(source),
            BigInt(data.byteLength),
            stream.handle,
          ),
          `cuMemcpyHtoDAsync_v2(${data.byteLength} bytes, stream ${stream.index})`,
        );
      } else {
        memcpy2d(struct, {
          src: { host: true, address: source, pitch: layout.rowBytes },
          dst: { host: false, address: device, pitch: layout.pitch },
          widthInBytes: layout.rowBytes,
          height: layout.rows,
        });
        driver.check(
          driver.symbols.cuMemcpy2DAsync_v2(new Uint8Array(struct.buffer), stream.handle),
          `cuMemcpy2DAsync_v2(${layout.rows} rows of ${layout.rowBytes} bytes, stream ${stream.index})`,
        );
      }
    });
  } finally {
    // Whatever was enqueued reads the staging buffer (and the caller's staging() buffers) until
    // the event recorded now completes.
    const keep = targets.filter((_, i) => direct[i] !== undefined).map((t) => t.data.buffer);
    pinned.retire(staging, ctx.events.record(stream), keep);
  }
}

/** Enqueues a device-to-device copy of `layout` from `from` into contiguous `to`. */
export function copyOnDevice(
  driver: CudaDriver,
  from: ResourceRange<bigint>,
  to: ResourceRange<bigint>,
  layout: CopyLayout,
  stream: CudaStream,
): void {
  if (layout.bytes === 0) return;
  const source = from.resource + BigInt(from.offset);
  const target = to.resource + BigInt(to.offset);
  if (layout.rows === 1) {
    driver.check(
      driver.symbols.cuMemcpyDtoDAsync_v2(target, source, BigInt(layout.bytes), stream.handle),
      `cuMemcpyDtoDAsync_v2(${layout.bytes} bytes, stream ${stream.index})`,
    );
    return;
  }
  memcpy2d(struct, {
    src: { host: false, address: source, pitch: layout.pitch },
    dst: { host: false, address: target, pitch: layout.rowBytes },
    widthInBytes: layout.rowBytes,
    height: layout.rows,
  });
  driver.check(
    driver.symbols.cuMemcpy2DAsync_v2(new Uint8Array(struct.buffer), stream.handle),
    `cuMemcpy2DAsync_v2(device to device, stream ${stream.index})`,
  );
}
