/**
 * Server-to-server copy within one device (one context): the source stream records an event
 * after the work that produced the data (its multi-stream having ordered it after other streams'
 * writes), the destination stream waits on it, then copies device to device into a new
 * contiguous allocation. The source memory is pinned until the copy completed, and for good if
 * the wait fails or times out (the copy may still read it).
 *
 * @module
 */

import type { CopyDescriptor } from "../../core/allocation.ts";
import type { Handle, HandleRef } from "../../core/handle.ts";
import type { OrderedStream } from "../../stream/event.ts";
import type { ResourceRange } from "../server.ts";
import type { CudaDriver } from "./_ffi.ts";
import { copyLayout } from "./_layout.ts";
import {
  type CudaEvent,
  type CudaStream,
  type EventPool,
  type HostWaitOptions,
  pollEvent,
} from "./_stream.ts";
import { copyOnDevice } from "./_write.ts";

/** What the copy needs from the two servers. */
export interface DeviceCopy {
  readonly source: CopyDescriptor;
  /** The source's device range. */
  readonly from: ResourceRange<bigint>;
  /** Orders the source stream for the ref and records an event after its work. */
  orderSource(): CudaEvent;
  /** Allocates the destination on the destination stream. */
  allocate(bytes: number): Handle;
  /** The destination range, and its stream ordered (finish it once the copy is enqueued). */
  resolveTarget(binding: HandleRef): {
    at: ResourceRange<bigint>;
    resolved: OrderedStream<CudaStream, CudaEvent>;
  };
  readonly driver: CudaDriver;
  /** The pool `orderSource`'s events come from (the destination's events share the context). */
  readonly events: EventPool;
  readonly wait: HostWaitOptions;
}

/** Copies and resolves with the new handle once the copy completed. */
export async function copyWithinDevice(copy: DeviceCopy): Promise<Handle> {
  const { driver, events } = copy;
  const layout = copyLayout(copy.source);
  const pin = copy.source.ref.slice.record.pin();
  let handle: Handle | undefined;
  try {
    const ready = copy.orderSource();
    handle = copy.allocate(layout.bytes);
    const target = copy.resolveTarget(handle.ref());
    let done: CudaEvent;
    {
      using resolved = target.resolved;
      const stream = resolved.stream;
      const waited = driver.symbols.cuStreamWaitEvent(stream.handle, ready.handle, 0);
      events.release(ready); // the wait captured the record
      driver.check(waited, `cuStreamWaitEvent(copy, stream ${stream.index})`);
      copyOnDevice(driver, copy.from, target.at, layout, stream);
      done = events.record(stream);
    }
    await pollEvent(driver, done, copy.wait);
    events.release(done);
  } catch (error) {
    handle?.dispose();
    throw error; // the source stays pinned
  }
  pin.release();
  return handle;
}
