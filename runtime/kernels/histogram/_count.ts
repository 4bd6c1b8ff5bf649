/**
 * The launch shared by {@linkcode histogram} and {@linkcode bincount}: zeroed u32 counts, then one
 * counting kernel over the input (the workgroup-memory one when the bins fit).
 *
 * @module
 */

import type { ComputeClient } from "../../client/client.ts";
import type { Handle } from "../../core/handles/handle.ts";
import type { StreamId } from "../../core/stream_id.ts";
import { CubeCount } from "../../core/cube_count.ts";
import { BufferTooBigError } from "../../core/errors/request_errors.ts";
import { withOutput } from "../_shape.ts";
import { backendTexts, launch } from "../_backend_kernels.ts";
import { countCuda } from "./_histogram_cuda.ts";
import {
  type CountKind,
  countWgsl,
  SHARED_BINS,
  SHARED_PER_INVOCATION,
} from "./_histogram_wgsl.ts";

const text = backendTexts({
  webgpu: (key) => countWgsl(kind(key), key.endsWith(":shared")),
  cuda: (key) => countCuda(kind(key), key.endsWith(":shared")),
});

const kind = (key: string) => key.split(":")[0] as CountKind;

/**
 * Most u32 counts a histogram or bincount makes on `client`'s device: as many as its largest
 * buffer holds (the counts, and `histogram`'s edges, one per bin, are such buffers), at most
 * 2^32 - 1 (the kernels' u32 bin index). The same rule on every backend.
 */
export function maxCounts(client: ComputeClient): number {
  return Math.min(Math.floor(client.server.properties.maxAllocationSize / 4), 2 ** 32 - 1);
}

/** `BufferTooBigError` naming `argument` and the maximum when `n` counts do not fit. */
export function checkCounts(
  client: ComputeClient,
  what: string,
  argument: string,
  n: number,
): void {
  const most = maxCounts(client);
  if (n > most) {
    const limit = client.server.properties.maxAllocationSize;
    throw new BufferTooBigError(n * 4, limit, {
      detail: `${what}: ${argument} must be at most ${most} on this device (u32 counts in its ` +
        `largest buffer), got ${n}`,
    });
  }
}

/** Counts the `n` elements of `x` into `bins` new u32 counts. */
export function countInto(
  client: ComputeClient,
  what: string,
  kind: CountKind,
  x: Handle,
  bins: number,
  params: { low: number; high: number; width: number; top?: number },
  stream: StreamId | undefined,
  edgeKeys?: () => Uint32Array,
): Handle<"u32"> {
  const n = x.size() / 4;
  return withOutput(client, bins, "u32", { stream, zero: true }, (counts) => {
    if (n === 0 || bins === 0) return;
    const shared = bins <= SHARED_BINS;
    // zero: keeps the WGSL's edge product from fusing into an FMA (_histogram_wgsl.ts)
    const all = { n, bins, top: 0, ...params, zero: 0 };
    // `histogram_edges`: the edges' keys ride along (released once the kernel no longer needs them),
    // computed once the counts are allocated (a count too many for the device fails at once)
    using edges = edgeKeys === undefined
      ? undefined
      : client.createWithData(edgeKeys(), { stream });
    const buffers = edges === undefined ? [x, counts] : [x, counts, edges];
    if (shared) {
      const groups = Math.ceil(n / (64 * SHARED_PER_INVOCATION));
      launch(client, text(client, what, `${kind}:shared`), {
        count: CubeCount.new1d(groups),
        buffers,
        params: all,
        stream,
      });
    } else {
      launch(client, text(client, what, `${kind}:global`), {
        threads: n,
        buffers,
        params: all,
        stream,
      });
    }
  });
}
