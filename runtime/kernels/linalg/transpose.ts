/**
 * The transpose of a row-major `[rows, cols]` handle on the device (WebGPU or CUDA).
 *
 * @module
 */

import type { ComputeClient } from "../../client/client.ts";
import { CubeCount } from "../../core/cube_count.ts";
import type { Handle } from "../../core/handles/handle.ts";
import type { StreamId } from "../../core/stream_id.ts";
import type { ElementType } from "../elementwise.ts";
import type { ResultType } from "../reduce.ts";
import { count, elementType, withOutput } from "../_shape.ts";
import { backendTexts, launch } from "../_backend_kernels.ts";
import { TILE, transposeWgsl } from "./_layout_wgsl.ts";
import { transposeCuda } from "./_layout_cuda.ts";
import { checkCall } from "../_inputs.ts";

/**
 * Options of {@linkcode transpose}.
 *
 * @example
 * ```ts
 * import type { TransposeOptions } from "@gpucompute/runtime";
 * const options: TransposeOptions = { shape: [1000, 3] };
 * ```
 */
export interface TransposeOptions {
  /** The input's shape `[rows, cols]` (row-major); `rows * cols` must be its length. */
  shape: readonly [number, number];
  /**
   * The stream to run on.
   * @default {currentStreamId()}
   */
  stream?: StreamId;
}

/** The kernel texts by backend, keyed by element type. */
const texts = backendTexts({
  webgpu: (type) => transposeWgsl(type as ElementType),
  cuda: (type) => transposeCuda(type as ElementType),
});

/**
 * The transpose of a row-major `[rows, cols]` handle of f32, i32 or u32: a new `[cols, rows]`
 * handle of the same type on the device (the caller disposes it). Elements are moved, never
 * converted, so the bits are kept (NaN payloads, -0).
 *
 * `TypeError` for another element type; `RangeError` naming `shape` when it is not two integers
 * >= 0 whose product is the input's length.
 *
 * @example
 * ```ts
 * import { createClient, transpose } from "@gpucompute/runtime";
 * using client = await createClient();
 * using x = client.createWithData(new Float32Array([1, 2, 3, 4, 5, 6])); // [[1, 2, 3], [4, 5, 6]]
 * using t = transpose(client, x, { shape: [2, 3] });
 * console.log(await client.read(t)); // Float32Array [1, 4, 2, 5, 3, 6]
 * ```
 */
export function transpose<D extends ElementType | "bytes">(
  client: ComputeClient,
  x: Handle<D>,
  options: TransposeOptions,
): Handle<ResultType<D>> {
  checkCall("transpose", client, options, ["shape", "stream"]);
  const what = "transpose";
  const type = elementType(x, "x", what, ["f32", "i32", "u32"]);
  const [rows, cols] = shapeOf(options?.shape, x.size() / 4, what);
  const { stream } = options;
  const out = withOutput(client, rows * cols, type, { stream }, (out) => {
    launchTranspose(client, x, out, rows, cols, stream);
  });
  return out as Handle<ResultType<D>>;
}

/** Launches the transpose of `[rows, cols]` `x` into `out` (also matmul's). */
export function launchTranspose(
  client: ComputeClient,
  x: Handle,
  out: Handle,
  rows: number,
  cols: number,
  stream: StreamId | undefined,
): void {
  if (rows === 0 || cols === 0) return;
  const tilesC = Math.ceil(cols / TILE);
  launch(client, texts(client, "transpose", out.dtype === "bytes" ? "f32" : out.dtype), {
    count: CubeCount.new1d(Math.ceil(rows / TILE) * tilesC),
    buffers: [x, out],
    params: { rows, cols, tiles_c: tilesC },
    stream,
  });
}

/** `[rows, cols]` checked against `length` elements. */
export function shapeOf(shape: unknown, length: number, what: string): [number, number] {
  if (!Array.isArray(shape) || shape.length !== 2) {
    throw new RangeError(`${what}: shape must be [rows, cols], got ${String(shape)}`);
  }
  const rows = count(shape[0], "shape[0] (rows)", what);
  const cols = count(shape[1], "shape[1] (cols)", what);
  if (rows * cols !== length) {
    throw new RangeError(
      `${what}: shape [${rows}, ${cols}] has ${rows * cols} elements, x has ${length}`,
    );
  }
  return [rows, cols];
}
