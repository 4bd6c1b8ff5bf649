/**
 * {@linkcode copyThroughHost}: a server-to-server copy where the two servers cannot share memory
 * (two WebGPU devices, two CUDA devices without peer access): a read on the source, then a new
 * allocation with the bytes on the destination.
 *
 * @module
 */

import { type Allocation, contiguousStrides, type CopyDescriptor } from "../../core/allocation.ts";
import type { ComputeServer, CopyStreams } from "../server.ts";

/**
 * Copies `source` (on `from`) into a new contiguous allocation of `to` through the host: one read
 * on `streams.source`, then `createWithData` on `streams.destination` (ordered after the work
 * queued there, as every write is).
 *
 * @example
 * ```ts ignore
 * import { copyThroughHost } from "@gpucompute/runtime/backend";
 * const copy = await copyThroughHost(serverA, serverB, handle.copyDescriptor([n], [1], 4), {
 *   source: 0,
 *   destination: 0,
 * });
 * ```
 */
export async function copyThroughHost(
  from: ComputeServer,
  to: ComputeServer,
  source: CopyDescriptor,
  streams: CopyStreams,
): Promise<Allocation> {
  const [bytes] = await from.read([source], streams.source);
  const handle = to.createWithData(bytes, streams.destination);
  return { handle, strides: contiguousStrides(source.shape) };
}
