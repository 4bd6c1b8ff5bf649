/**
 * Copies between CUDA servers of one driver, enqueued on the devices with no host round trip
 * (the servers' `enqueueCopy`):
 *
 * - **One server**: one order of the destination stream over both refs (the multi-stream orders
 *   it after the source's writers and records the read), then `cuMemcpyDtoDAsync`.
 * - **Two servers, with peer access** (the same device, or `cuDeviceCanAccessPeer` allows it and
 *   `cuCtxEnablePeerAccess` succeeded once per pair): the source stream records an event after
 *   the source's writers, the destination stream waits on it and copies (`cuMemcpyDtoDAsync` on
 *   one device, `cuMemcpyPeerAsync` across two), records an event that the source stream waits
 *   on in turn, so later work there cannot overwrite the source under the copy (PyTorch's
 *   cross-device copy synchronizes both streams the same way). The source memory stays pinned
 *   until the copy completed.
 * - **Two devices without peer access**: staged through a pinned buffer of the destination's
 *   pool: device to host on the source stream, an event, the destination stream waits on it and
 *   copies host to device; the buffer returns to its pool once that copy completed. (Pinned
 *   memory is accessible to every context under unified addressing: cuda.h, `cuMemAllocHost`.)
 *
 * Each side is a server's parts (`CudaParts`), passed explicitly: nothing here calls back into a
 * server.
 *
 * @module
 */

import type { CopyDescriptor } from "../../../core/allocation.ts";
import type { Handle } from "../../../core/handles/handle.ts";
import type { CopyStreams } from "../../server.ts";
import { type CopySide, copyWithinDevice, orderOn, rangeOf } from "./_copy.ts";
import { CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, CUDA_SUCCESS } from "../_ffi.ts";
import { copyLayout } from "./_copy_layout.ts";
import { type CudaEvent, type CudaStream, type EventPool, waitForEvent } from "../queue/streams.ts";
import { copyOnDevice } from "./_write.ts";
import type { CudaDevice } from "../device.ts";
import { DestroyedError } from "../../../core/errors.ts";

/** A copy of `source` into `target` (contiguous, as many bytes). */
export interface CopyRequest {
  readonly source: CopyDescriptor;
  readonly target: CopyDescriptor;
  readonly streams: CopyStreams;
  /** Disposed once the source side completed on the device; `fail`: it failed there. */
  readonly settled?: Disposable & { fail(error: unknown): void };
}

/** How the last copy between two servers went (for tests and benchmarks). */
export type CopyRoute = "same-server" | "same-device" | "peer" | "staged";

/**
 * Peer access from one server's context to other devices' contexts: asked once per device
 * (`cuDeviceCanAccessPeer`), enabled once per peer context (`cuCtxEnablePeerAccess`; "already
 * enabled" counts as enabled, since another user of the primary context may have done it).
 */
export class PeerAccess {
  readonly #reach = new WeakMap<CudaDevice, boolean>();

  /** Whether `self`'s context reaches `peer`'s memory directly; enables it the first time. */
  reaches(self: CudaDevice, peer: CudaDevice): boolean {
    const known = this.#reach.get(peer);
    if (known !== undefined) return known;
    const { symbols, out32 } = self.driver;
    self.driver.check(
      symbols.cuDeviceCanAccessPeer(out32, self.ordinal, peer.ordinal),
      `cuDeviceCanAccessPeer(${self.ordinal}, ${peer.ordinal})`,
    );
    let reach = out32[0] === 1;
    if (reach) {
      self.makeCurrent();
      const result = symbols.cuCtxEnablePeerAccess(peer.context, 0);
      // Anything else (no mapping resources left, say) leaves the staged path, which works.
      reach = result === CUDA_SUCCESS || result === CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
    }
    this.#reach.set(peer, reach);
    return reach;
  }
}

/**
 * The contract's `copyTo` on the devices: within one device (`_copy.ts`), or across two devices
 * of one driver; `undefined` where it must go through the host (another driver library, a
 * strided source across devices).
 */
export async function copyOnDevices(
  from: CopySide,
  to: CopySide,
  source: CopyDescriptor,
  streams: CopyStreams,
): Promise<Handle | undefined> {
  if (to.device.driver !== from.device.driver) return undefined;
  if (to.device.ordinal === from.device.ordinal) {
    return await copyWithinDevice(from, to, source, streams);
  }
  return await copyAcrossDevices(from, to, source, streams);
}

/**
 * The contract's `copyTo` between two devices of one driver: a new contiguous allocation of `to`
 * on `streams.destination`, filled by {@linkcode enqueueCopyBetween}, returned once the copy
 * completed; `undefined` for a strided source (nothing allocated: copy through the host).
 */
export async function copyAcrossDevices(
  from: CopySide,
  to: CopySide,
  source: CopyDescriptor,
  streams: CopyStreams,
): Promise<Handle | undefined> {
  const layout = copyLayout(source);
  if (layout.rows !== 1) return undefined;
  const handle = to.memory.allocate(layout.bytes, streams.destination);
  try {
    const target = handle.copyDescriptor([layout.bytes], [1], 1);
    enqueueCopyBetween(from, to, { source, target, streams });
    to.bind(); // the copy ends in the source's context
    const done = to.events.record(to.streams.stream(streams.destination));
    await waitForEvent(to.device.driver, done, to.wait("a device-to-device copy"));
    to.events.release(done);
  } catch (error) {
    handle.dispose();
    throw error;
  }
  return handle;
}

/**
 * Enqueues the copy (see the module doc) and returns the route it took; `undefined` for another
 * driver library or a strided source across servers (not copied: the caller goes through the
 * host).
 */
export function enqueueCopyBetween(
  from: CopySide,
  to: CopySide,
  request: CopyRequest,
): CopyRoute | undefined {
  if (from.device.driver !== to.device.driver) return undefined;
  if (request.settled !== undefined) request = { ...request, settled: untilEnded(from, request) };
  const { source, target } = request;
  const layout = copyLayout(source);
  const bytes = layout.bytes;
  const into = copyLayout(target);
  if (into.rows !== 1 || into.bytes !== bytes) {
    throw new RangeError(
      `A device copy of ${bytes} bytes needs a contiguous target of as many bytes, got ` +
        `${into.bytes} bytes in ${into.rows} row(s)`,
    );
  }
  if (from === to) {
    to.bind();
    const at = rangeOf(from, source);
    using ordered = orderOn(to, request.streams.destination, [source.ref, target.ref]);
    copyOnDevice(to.device.driver, at, rangeOf(to, target), layout, ordered.stream);
    if (request.settled !== undefined) ordered.gc(request.settled);
    return "same-server";
  }
  if (layout.rows !== 1) return undefined;
  const sameDevice = from.device.ordinal === to.device.ordinal;
  if (sameDevice || to.peers.reaches(to.device, from.device)) {
    copyDirect(from, to, request, sameDevice);
    return sameDevice ? "same-device" : "peer";
  }
  copyStaged(from, to, request);
  return "staged";
}

/** A copy the destination stream runs, reading the source's memory directly. */
function copyDirect(from: CopySide, to: CopySide, request: CopyRequest, sameDevice: boolean): void {
  const { source, target, streams } = request;
  const driver = to.device.driver;
  const layout = copyLayout(source);
  const pin = source.ref.slice.record.pin();
  let handedOver = false;
  let ready: CudaEvent | undefined;
  try {
    from.bind();
    const at = rangeOf(from, source);
    {
      using ordered = orderOn(from, streams.source, [source.ref]);
      ready = from.events.record(ordered.stream);
      if (request.settled !== undefined) ordered.gc(request.settled);
    }
    to.bind();
    let done: CudaEvent;
    {
      using ordered = orderOn(to, streams.destination, [target.ref]);
      const stream = ordered.stream;
      waitOn(to, stream, ready, from.events);
      ready = undefined;
      const into = rangeOf(to, target);
      if (sameDevice) copyOnDevice(driver, at, into, layout, stream);
      else {
        driver.check(
          driver.symbols.cuMemcpyPeerAsync(
            into.resource + BigInt(into.offset),
            to.device.context,
            at.resource + BigInt(at.offset),
            from.device.context,
            BigInt(layout.bytes),
            stream.handle,
          ),
          `cuMemcpyPeerAsync(${layout.bytes} bytes, device ${from.device.ordinal} to ` +
            `${to.device.ordinal}, stream ${stream.index})`,
        );
      }
      done = to.events.record(stream);
      ordered.gc(pin); // released once the copy completed
      handedOver = true;
    }
    from.bind();
    waitOn(from, from.streams.stream(streams.source), done, to.events);
  } finally {
    if (ready !== undefined) from.events.release(ready);
    if (!handedOver) pin.release();
  }
}

/** A copy through a pinned buffer of the destination: source to host, then host to target. */
function copyStaged(from: CopySide, to: CopySide, request: CopyRequest): void {
  const { source, target, streams } = request;
  const driver = to.device.driver;
  const bytes = copyLayout(source).bytes;
  const staging = to.pinned.acquire(bytes);
  let written = false;
  let ready: CudaEvent | undefined;
  try {
    from.bind();
    const at = rangeOf(from, source);
    {
      using ordered = orderOn(from, streams.source, [source.ref]);
      const stream = ordered.stream;
      driver.check(
        driver.symbols.cuMemcpyDtoHAsync_v2(
          staging.pointer,
          at.resource + BigInt(at.offset),
          BigInt(bytes),
          stream.handle,
        ),
        `cuMemcpyDtoHAsync_v2(${bytes} bytes, device ${from.device.ordinal}, stream ` +
          `${stream.index})`,
      );
      written = true;
      ready = from.events.record(stream);
      if (request.settled !== undefined) ordered.gc(request.settled);
    }
    to.bind();
    using ordered = orderOn(to, streams.destination, [target.ref]);
    const stream = ordered.stream;
    waitOn(to, stream, ready, from.events);
    ready = undefined;
    const into = rangeOf(to, target);
    driver.check(
      driver.symbols.cuMemcpyHtoDAsync_v2(
        into.resource + BigInt(into.offset),
        staging.pointer,
        BigInt(bytes),
        stream.handle,
      ),
      `cuMemcpyHtoDAsync_v2(${bytes} bytes, device ${to.device.ordinal}, stream ${stream.index})`,
    );
    ordered.gc({ [Symbol.dispose]: () => to.pinned.release(staging) });
  } finally {
    if (ready !== undefined) from.events.release(ready);
    // Once the source-side copy was enqueued it may still write the buffer: a failure after that
    // keeps it (the context's release reclaims it) rather than reusing it.
    if (!written) to.pinned.release(staging);
  }
}

/**
 * `request.settled`, told the source side's verdict: a GC task that the source's `destroy` cut
 * short (`DESTROYED`) takes how the source's work ended (`CudaParts.ended`), since the copy may
 * have run behind a fault that no poll saw (its bytes are then undefined).
 */
function untilEnded(from: CopySide, request: CopyRequest): CopyRequest["settled"] {
  const settled = request.settled!;
  return {
    [Symbol.dispose]: () => settled[Symbol.dispose](),
    fail(error: unknown) {
      if (!(error instanceof DestroyedError)) return settled.fail(error);
      from.ended.then(() => settled[Symbol.dispose](), (fault) => settled.fail(fault));
    },
  };
}

/** `stream` (of `side`, whose context is current) waits on `event`, which returns to `pool`. */
function waitOn(side: CopySide, stream: CudaStream, event: CudaEvent, pool: EventPool): void {
  const { driver } = side.device;
  const result = driver.symbols.cuStreamWaitEvent(stream.handle, event.handle, 0);
  pool.release(event); // the wait captured the record
  driver.check(result, `cuStreamWaitEvent(copy, stream ${stream.index})`);
}
