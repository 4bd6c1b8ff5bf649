/**
 * `client.copyTo(handle, other)`: a new handle on `other`'s device with the bytes of `handle`,
 * ordered after the writes of `handle` made before the call and before every later use of the new
 * handle, with no wait for the caller.
 *
 * - **On the devices** where the servers can (`enqueueCopy`: CUDA servers of one driver, across
 *   devices through peer access or pinned staging): nothing waits on the host.
 * - **Through the host** otherwise (two WebGPU devices, CUDA <-> WebGPU): the source is read in
 *   chunks, every chunk's read enqueued at once (so later writes of the source cannot leak into
 *   the copy), and each chunk is written into the new handle as soon as its bytes arrive, while
 *   the others are still in flight. On WebGPU a read maps a staging buffer and a write fills a
 *   mapped one, so a chunk crosses the host in one copy out and one copy in.
 *
 * The source side runs in the source stream's order: now, or, when the client holds that stream
 * (`waitFor`) or the handle's memory, when the held calls before it have run. Until the copy is
 * enqueued (device route) or has landed (host route), the destination client holds its stream and
 * the new handle's memory like `waitFor` does: later calls that use them run after it, and a
 * failure (a read that failed, a destroyed source) fails them with that error.
 *
 * @module
 */

import { type CopyDescriptor, copyDescriptor } from "../core/allocation.ts";
import type { Handle, HandleKind } from "../core/handles/handle.ts";
import { InvalidHandleError } from "../core/errors.ts";
import type { StreamId } from "../core/stream_id.ts";
import type { ComputeServer } from "../server/server.ts";
import type { HeldStreams } from "./timeline/_held_streams.ts";
import { narrowRef } from "./_host_data.ts";
import { checkOptions } from "./_checks.ts";
import { assertNonNegativeInteger } from "../core/_argument_checks.ts";

/** One client's end of a copy. */
export interface CopyEnd {
  readonly server: ComputeServer;
  readonly held: HeldStreams;
  readonly stream: StreamId;
}

/** Options of {@linkcode copyBetween}. */
export interface CopyBetweenOptions {
  /** The kind of the new handle (its element type, label, maker). */
  readonly kind: HandleKind;
  /** Bytes per chunk of a host copy. */
  readonly chunkBytes: number;
}

/** What the source side started: `done` settles once a host copy landed (device copy: none). */
interface Started {
  readonly done: Promise<void> | undefined;
}

/** Copies `handle` (of `from`'s server) into a new handle of `to`'s server; see the module doc. */
export function copyBetween(
  handle: Handle,
  from: CopyEnd,
  to: CopyEnd,
  options: CopyBetweenOptions,
): Handle {
  checkSource(from.server, handle);
  const bytes = handle.size();
  const source = copyDescriptor(handle.ref(), [bytes], [1], 1);
  const target = to.server.empty(bytes, to.stream, options.kind);
  // The caller may dispose `target` at once; the copy writes through its own owner until done.
  const into = target.clone();
  try {
    const start = (): Started => {
      const destination = into.copyDescriptor([bytes], [1], 1);
      const streams = { source: from.stream, destination: to.stream };
      // What the source's bytes wait on that the destination's device does not: the source
      // side's own completion, and any device dependency of the source client's (see
      // `_device_deps.ts`).
      const earlier = from.held.deps.pending(from.stream, [source.ref.slice.record]);
      const copied = Promise.withResolvers<void>();
      const settled = {
        [Symbol.dispose]: () => copied.resolve(),
        fail: (error: unknown) => copied.reject(error),
      };
      copied.promise.catch(() => {});
      let device = false;
      try {
        device = sameBackend(from.server, to.server) &&
          from.server.enqueueCopy?.(to.server, source, destination, streams, settled) === true;
      } finally {
        if (device) into.dispose(); // enqueued: the servers keep what the copy uses
      }
      if (!device) {
        const done = hostCopy(from, to, source, into, options.chunkBytes);
        if (earlier === undefined) return { done };
        return { done: Promise.all([done, ...earlier.map((dep) => dep.settled)]).then(() => {}) };
      }
      const verdicts = [copied.promise, ...(earlier ?? []).map((dep) => dep.settled)];
      to.held.deps.copyInto(to.stream, [target.slice.record], Promise.all(verdicts));
      return { done: undefined };
    };
    const started = from.held.run(from.stream, [source.ref.slice.record], [handle], start);
    if (!(started instanceof Promise) && started.done === undefined) return target;
    const landed = Promise.resolve(started).then((s) => s.done);
    landed.catch(() => into.dispose()); // idempotent; covers a start that never ran
    to.held.hold(to.stream, landed);
    // A failed copy leaves the new handle undefined: it fails the calls held on it, any stream.
    to.held.define(to.stream, [target.slice.record]);
    // The same on the new handle's memory, for later calls on other streams of `to`.
    to.held.runVoid(to.stream, [target.slice.record], [target], () => {});
    return target;
  } catch (error) {
    into.dispose();
    target.dispose();
    throw error;
  }
}

/**
 * `options.chunkBytes`, 4 MiB by default, once `options` is checked to be an object; `RangeError`
 * unless a positive multiple of 4 (WebGPU copies 4-byte units, so only a handle's last chunk may
 * end between them).
 */
export function chunkBytesOf(
  options: { readonly chunkBytes?: number; readonly destinationStream?: number },
): number {
  checkOptions(options, ["stream", "label", "destinationStream", "chunkBytes"], "copyTo");
  if (options.destinationStream !== undefined) {
    // Named here: the stream check further on calls any stream a "Stream id".
    assertNonNegativeInteger(options.destinationStream, "destinationStream");
  }
  const chunkBytes = options.chunkBytes ?? 4 * 1024 * 1024;
  if (!Number.isSafeInteger(chunkBytes) || chunkBytes <= 0 || chunkBytes % 4 !== 0) {
    throw new RangeError(
      `chunkBytes must be a positive multiple of 4 bytes, got ${String(chunkBytes)}`,
    );
  }
  return chunkBytes;
}

/**
 * `INVALID_HANDLE` at the call, naming the handle, unless `handle` is live memory of `server`
 * (the client `copyTo` was called on): another client's handle is refused before anything is
 * created or held, on every backend and path.
 */
function checkSource(server: ComputeServer, handle: Handle): void {
  const ref = handle.ref(); // INVALID_HANDLE after dispose()
  try {
    server.checkRef?.(ref);
  } catch (error) {
    if (!(error instanceof InvalidHandleError) || handle.disposed) throw error;
    throw new InvalidHandleError(
      `handle: ${handle.describe()} belongs to another client: call copyTo on the client that ` +
        `made it (owner.copyTo(handle, destination))`,
      { cause: error },
    );
  }
}

function sameBackend(a: ComputeServer, b: ComputeServer): boolean {
  return Object.getPrototypeOf(a) === Object.getPrototypeOf(b);
}

/**
 * Reads every chunk of `source` now (in the source stream's order) and writes each into `into`
 * once it arrives; settles when every chunk was written (enqueued in the destination's order),
 * then disposes `into`.
 */
function hostCopy(
  from: CopyEnd,
  to: CopyEnd,
  source: CopyDescriptor,
  into: Handle,
  chunkBytes: number,
): Promise<void> {
  const bytes = source.ref.size();
  const writes: Promise<void>[] = [];
  for (let offset = 0; offset < bytes; offset += chunkBytes) {
    const length = Math.min(chunkBytes, bytes - offset);
    const piece = copyDescriptor(narrowRef(source.ref, offset, length), [length], [1], 1);
    const read = from.server.read([piece], from.stream);
    writes.push(read.then(([data]) => {
      const at = narrowRef(into.ref(), offset, length);
      to.server.write([{ descriptor: copyDescriptor(at, [length], [1], 1), data }], to.stream);
    }));
  }
  // Every chunk settles before `into` goes (a late one would find it disposed); the first
  // failure is the copy's.
  return Promise.allSettled(writes).then((results) => {
    into.dispose();
    const failed = results.find((result) => result.status === "rejected");
    if (failed !== undefined) throw (failed as PromiseRejectedResult).reason;
  });
}
