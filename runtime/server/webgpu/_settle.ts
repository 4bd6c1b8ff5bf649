/**
 * How the server's calls end: deferred errors thrown per stream, device promises that outlive a
 * destroy or a device loss, and resource leases.
 *
 * @module
 */

import { ComputeError, DeviceLostError } from "../../core/errors.ts";
import type { SlicePin } from "../../core/slice_record.ts";
import type { StreamId } from "../../core/stream_id.ts";
import type { ResourceLease, ResourceRange } from "../server.ts";

/**
 * Throws the deferred errors of a stream, all at once, and clears them: the first one alone, or a
 * `ComputeError` with the first one's code and every message (the first as `cause`).
 */
export function throwDeferred(errors: ComputeError[], stream: StreamId): void {
  if (errors.length === 0) return;
  const [first, ...rest] = errors.splice(0);
  if (rest.length === 0) throw first;
  throw new ComputeError(
    first.code,
    `${first.message} (and ${rest.length} more deferred error(s) on stream ${stream}: ` +
      `${rest.map((e) => e.message).join("; ")})`,
    { cause: first },
  );
}

/**
 * Awaits a device promise, then fails with the server's closed error (`DESTROYED`,
 * `DEVICE_LOST`) if it closed meanwhile. It waits for the promise to settle rather than racing
 * it (a map or a work-done callback settles soon after destroy or loss, and a read's staging
 * buffer is destroyed with the server), so no device operation outlives the call.
 */
export async function settle<T>(
  promise: Promise<T>,
  closed: (cause?: unknown) => ComputeError | undefined,
): Promise<T> {
  let value: T;
  try {
    value = await promise;
  } catch (error) {
    if (error instanceof ComputeError) throw error;
    // A map of our own staging buffer fails only when it was destroyed or the device is gone.
    throw closed(error) ??
      new DeviceLostError(`The WebGPU device was lost (${error})`, { cause: error });
  }
  const error = closed();
  if (error !== undefined) throw error;
  return value;
}

/** A lease over a resource that holds `pin` until released. */
export function lease<R>(at: ResourceRange<R>, pin: SlicePin): ResourceLease<R> {
  return {
    resource: at.resource,
    offset: at.offset,
    size: at.size,
    get released() {
      return pin.record === undefined;
    },
    release: () => pin.release(),
    [Symbol.dispose]: () => pin.release(),
  };
}
