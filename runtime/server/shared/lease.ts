/**
 * {@linkcode leaseResource}: the lease `getResource` returns, the same on every backend.
 *
 * @module
 */

import type { HandleRef } from "../../core/handles/handle_ref.ts";
import type { ResourceLease, ResourceRange } from "../server.ts";

/**
 * A lease over `at`, the resource and range of `ref`: it pins `ref`'s memory until released
 * (idempotently, also by `using`), so the memory is not reused even if every handle is disposed.
 * `INVALID_HANDLE` when the memory was already released.
 *
 * @example
 * ```ts
 * import { Handle, leaseResource, SliceHandle, SliceRecord } from "@gpucompute/runtime/backend";
 * using handle = new Handle(new SliceHandle(new SliceRecord()), { stream: 0, cursor: 0, size: 8 });
 * const ref = handle.ref();
 * const lease = leaseResource({ resource: "page 0", offset: 0, size: 8 }, ref);
 * console.log(ref.slice.record.pins, lease.released); // 1 false
 * lease.release();
 * console.log(ref.slice.record.pins, lease.released); // 0 true
 * ```
 */
export function leaseResource<R>(at: ResourceRange<R>, ref: HandleRef): ResourceLease<R> {
  const pin = ref.slice.record.pin();
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
