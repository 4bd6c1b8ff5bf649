/**
 * Server-to-server copy within one device (one context), and what every copy between CUDA
 * servers works with: each server's parts ({@linkcode CopySide}, a `CudaParts`), passed
 * explicitly, nothing calling back into a server.
 *
 * Within one device: the source stream records an event after the work that produced the data
 * (its multi-stream having ordered it after other streams' writes), the destination stream waits
 * on it, then copies device to device into a new contiguous allocation. The source memory is
 * pinned until the copy completed, and for good if the wait fails or times out (the copy may
 * still read it).
 *
 * @module
 */

import type { CopyDescriptor } from "../../../core/allocation.ts";
import type { Handle } from "../../../core/handles/handle.ts";
import type { HandleRef } from "../../../core/handles/handle_ref.ts";
import type { StreamId } from "../../../core/stream_id.ts";
import type { MultiStream } from "../../../stream/event.ts";
import type { OrderedStream } from "../../../stream/ordered_stream.ts";
import type { CopyStreams, ResourceRange } from "../../server.ts";
import { copyTarget } from "../../shared/copy_target.ts";
import { copyLayout } from "./_copy_layout.ts";
import type { StreamMemory } from "./memory.ts";
import type { PeerAccess } from "./_peer.ts";
import type { PinnedPool } from "./_staging.ts";
import {
  type CudaEvent,
  type CudaStream,
  type EventPool,
  type HostWaitOptions,
  waitForEvent,
} from "../queue/streams.ts";
import { copyOnDevice } from "./_write.ts";
import type { CudaDevice } from "../device.ts";

/** The parts of a server that a copy works with (a `CudaParts`). */
export interface CopySide {
  readonly device: CudaDevice;
  readonly events: EventPool;
  readonly pinned: PinnedPool;
  readonly memory: StreamMemory;
  readonly streams: MultiStream<CudaStream, CudaEvent>;
  /** Which peers the server's context reaches directly. */
  readonly peers: PeerAccess;
  /** Makes the server's context current. */
  readonly bind: () => void;
  /** After `destroy`: resolves once the work enqueued before it drained, rejects with its fault. */
  readonly ended: Promise<void>;
  /** The options of a host wait for `what`. */
  wait(what: string): HostWaitOptions;
}

/** The device range of a copy descriptor of `side`'s memory, checked against its ref. */
export function rangeOf(side: CopySide, descriptor: CopyDescriptor): ResourceRange<bigint> {
  return copyTarget(descriptor, { layout: copyLayout, locate: (ref) => side.memory.locate(ref) })
    .at;
}

/** `stream` of `side` ordered after the other streams' work on `refs` (healthy streams only). */
export function orderOn(
  side: CopySide,
  stream: StreamId,
  refs: readonly HandleRef[],
): OrderedStream<CudaStream, CudaEvent> {
  return side.streams.order(stream, refs, { enforceHealthy: true });
}

/**
 * Copies `source` (memory of `from`) into a new contiguous allocation of `to` on the same device
 * (see the module doc) and resolves with the new handle once the copy completed.
 */
export async function copyWithinDevice(
  from: CopySide,
  to: CopySide,
  source: CopyDescriptor,
  streams: CopyStreams,
): Promise<Handle> {
  const { driver } = from.device;
  const events = from.events; // the destination's events share the context
  const at = rangeOf(from, source);
  const layout = copyLayout(source);
  const pin = source.ref.slice.record.pin();
  let handle: Handle | undefined;
  try {
    let ready: CudaEvent;
    {
      using ordered = orderOn(from, streams.source, [source.ref]);
      ready = events.record(ordered.stream);
    }
    handle = to.memory.allocate(layout.bytes, streams.destination);
    const ref = handle.ref();
    const into = to.memory.locate(ref);
    let done: CudaEvent;
    {
      using ordered = orderOn(to, streams.destination, [ref]);
      const stream = ordered.stream;
      const waited = driver.symbols.cuStreamWaitEvent(stream.handle, ready.handle, 0);
      events.release(ready); // the wait captured the record
      driver.check(waited, `cuStreamWaitEvent(copy, stream ${stream.index})`);
      copyOnDevice(driver, at, into, layout, stream);
      done = events.record(stream);
    }
    await waitForEvent(driver, done, to.wait("a device-to-device copy"));
    events.release(done);
  } catch (error) {
    handle?.dispose();
    throw error; // the source stays pinned
  }
  pin.release();
  return handle;
}
