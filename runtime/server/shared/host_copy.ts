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
 * ```ts
 * import { copyThroughHost } from "@gpucompute/runtime/backend";
 * import { WebGpuServer } from "@gpucompute/runtime/webgpu";
 * using a = await WebGpuServer.create();
 * using b = await WebGpuServer.create(); // another device, or another backend's server
 * using handle = a.createWithData(new Uint8Array([1, 2, 3, 4]), 0);
 * const copy = await copyThroughHost(a, b, handle.copyDescriptor([4], [1], 1), {
 *   source: 0,
 *   destination: 0,
 * });
 * using _ = copy.handle; // b's memory
 * const [bytes] = await b.read([copy.handle.copyDescriptor([4], [1], 1)], 0);
 * console.log(bytes, copy.strides); // Uint8Array [1, 2, 3, 4] [1]
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
