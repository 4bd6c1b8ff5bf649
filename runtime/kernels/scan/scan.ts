/**
 * Scans (prefix sums, running max/min/products) of a handle, whole or along an axis of a
 * `[rows, cols]` shape; the result stays on the device. The kernel text is `_scan_wgsl.ts`.
 *
 * @module
 */

import type { ComputeClient } from "../../client/client.ts";
import type { Handle } from "../../core/handles/handle.ts";
import type { StreamId } from "../../core/stream_id.ts";
import type { ElementType } from "../elementwise.ts";
import { cached, elementTypeOf, type GeneratedKernel, type Layout, layoutOf } from "../_grid.ts";
import { backendOf, backendTexts, launch as launchOn } from "../_backend_kernels.ts";
import {
  SCAN_ROW_MAX,
  type ScanOp,
  scanPassKernel,
  scanRowsKernel,
  scanRun,
} from "./_scan_wgsl.ts";
import { scanPassCuda } from "./_scan_cuda.ts";
import { checkCall } from "../_inputs.ts";
import { optionalBoolean } from "../../core/_argument_checks.ts";

export type { ScanOp } from "./_scan_wgsl.ts";

/**
 * Options of {@linkcode scan}.
 *
 * @example Running maxima of each column of a 100 x 8 handle
 * ```ts
 * import type { ScanOptions } from "@gpucompute/runtime";
 * const options: ScanOptions = { op: "max", shape: [100, 8], axis: 0 };
 * ```
 */
export interface ScanOptions {
  /**
   * The operator.
   * @default {"sum"}
   */
  op?: ScanOp;
  /**
   * Whether element `i` of the result leaves out element `i` of the input (the first is then
   * the identity: 0 for sum, 1 for prod, -Infinity/+Infinity for f32 max/min, the type's
   * extremes for integers).
   * @default {false}
   */
  exclusive?: boolean;
  /**
   * The input's shape `[rows, cols]` (row-major), to scan each row or column.
   * @default {undefined} (the whole handle as one sequence)
   */
  shape?: readonly [number, number];
  /**
   * With `shape`: `1` scans along each row, `0` down each column.
   * @default {1}
   */
  axis?: 0 | 1;
  /**
   * The stream to run on.
   * @default {currentStreamId()}
   */
  stream?: StreamId;
}

const OPS: readonly ScanOp[] = ["sum", "max", "min", "prod"];
/** The short-rows kernels (WebGPU only), by op, type and exclusivity. */
const kernels = new Map<string, GeneratedKernel>();

/** The two passes' texts by backend, keyed `pass:op:type:exclusive:vector`. */
const texts = backendTexts({
  webgpu: (key) => passOf(key, scanPassKernel),
  cuda: (key) => passOf(key, scanPassCuda),
});

function passOf<T>(
  key: string,
  make: (
    op: ScanOp,
    type: ElementType,
    pass: "totals" | "scan",
    exclusive: boolean,
    vector: boolean,
  ) => T,
): T {
  const [pass, op, type, exclusive, vector] = key.split(":");
  return make(
    op as ScanOp,
    type as ElementType,
    pass as "totals" | "scan",
    exclusive === "true",
    vector === "true",
  );
}

/**
 * Scans a handle of f32, i32 or u32 elements: element `i` of the result folds elements `0..i`
 * (inclusive) or `0..i-1` (`exclusive`) of its sequence with `op`. Integer sums and products
 * wrap around as the type does (the result keeps the input's type: NumPy's `cumsum` of int32
 * gives int64); f32 max and min propagate NaN (as NumPy's
 * `maximum.accumulate`) and order -0 below +0 on every backend (the running max of -0 then +0
 * is +0, the running min -0). f32 sums are added in runs of 16 to 64 elements, each run starting from
 * the sum of the runs' totals before it, not left to right: rounding may differ from a
 * sequential sum in the last bits.
 *
 * @example Prefix sums, and running maxima of each row
 * ```ts
 * import { createClient, scan } from "@gpucompute/runtime";
 * using client = await createClient();
 * using x = client.createWithData(new Int32Array([3, 1, 4, 1, 5, 9]));
 * using sums = scan(client, x);
 * using before = scan(client, x, { exclusive: true });
 * using peaks = scan(client, x, { op: "max", shape: [2, 3] });
 * console.log(await client.readMany([sums, before, peaks]));
 * // [Int32Array [3, 4, 8, 9, 14, 23], Int32Array [0, 3, 4, 8, 9, 14], Int32Array [3, 3, 4, 1, 5, 9]]
 * ```
 */
export function scan<D extends ElementType | "bytes">(
  client: ComputeClient,
  x: Handle<D>,
  options: ScanOptions = {},
): Handle<D extends "bytes" ? "f32" : D> {
  checkCall("scan", client, options, ["op", "exclusive", "shape", "axis", "stream"]);
  const op = options.op ?? "sum";
  if (!OPS.includes(op)) {
    throw new RangeError(`scan: op must be one of ${OPS.join(", ")}, got ${JSON.stringify(op)}`);
  }
  const exclusive = optionalBoolean(options.exclusive, "scan: options.exclusive");
  const type = elementTypeOf(x, "scan", "x");
  const n = x.size() / 4;
  const layout = layoutOf("scan", n, options.shape, options.axis);
  const { stream } = options;
  const y = client.empty(n, type, { stream });
  try {
    scanInto(client, x, y, layout, { op, type, exclusive, stream });
  } catch (error) {
    y.dispose();
    throw error;
  }
  return y as Handle<D extends "bytes" ? "f32" : D>;
}

/**
 * The inclusive prefix sums of a handle (f32, i32 or u32), whole or along an axis of `shape`:
 * `scan` with `op: "sum"`.
 *
 * @example
 * ```ts
 * import { createClient, cumsum } from "@gpucompute/runtime";
 * using client = await createClient();
 * using x = client.createWithData(new Float32Array([1, 2, 3, 4]));
 * using y = cumsum(client, x, { shape: [2, 2], axis: 0 });
 * console.log(await client.read(y)); // Float32Array [1, 2, 4, 6]
 * ```
 */
export function cumsum<D extends ElementType | "bytes">(
  client: ComputeClient,
  x: Handle<D>,
  options: Omit<ScanOptions, "op" | "exclusive"> = {},
): Handle<D extends "bytes" ? "f32" : D> {
  checkCall("cumsum", client, options, ["shape", "axis", "stream"]);
  const { shape, axis, stream } = options;
  return scan(client, x, { shape, axis, stream });
}

/** What one scan computes. */
export interface ScanSpec {
  readonly op: ScanOp;
  readonly type: ElementType;
  readonly exclusive: boolean;
  readonly stream?: StreamId;
}

/**
 * Scans `x` into `y` (both checked, `layout` elements): a pass of run totals, the exclusive
 * scan of the totals (the same, recursively), then each run scanned from its offset.
 */
export function scanInto(
  client: ComputeClient,
  x: Handle,
  y: Handle,
  layout: Layout,
  spec: ScanSpec,
): void {
  const { op, type, exclusive, stream } = spec;
  const { count, inner, segments } = layout;
  if (count === 0 || segments === 0) return;
  // Short rows (WebGPU): one invocation each; CUDA takes the general passes.
  if (count <= SCAN_ROW_MAX && segments > 1 && backendOf(client, "scan") === "webgpu") {
    // Many short segments: one invocation scans each.
    const kernel = cached(
      kernels,
      `r:${op}:${type}:${exclusive}`,
      () => scanRowsKernel(op, type, exclusive),
    );
    const params = { count, inner, runs: 1, offsets: 0, threads: segments };
    launchOn(client, kernel, { threads: segments, buffers: [x, y], params, stream });
    return;
  }
  // Contiguous segments of whole vec4s move as vec4s (bindings are 256-byte aligned).
  const vector = inner === 1 && count % 4 === 0;
  const runs = Math.ceil(count / scanRun(vector));
  const threads = segments * runs;
  const params = { count, inner, runs, offsets: runs > 1 ? 1 : 0, threads };
  using totals = runs > 1 ? client.empty(threads, type, { stream }) : undefined;
  // With one run per segment, no offset is read: a one-element stand-in fills the binding.
  using offsets = client.empty(runs > 1 ? threads : 1, type, { stream });
  if (totals !== undefined) {
    const kernel = texts(client, "scan", `totals:${op}:${type}:false:${vector}`);
    launchOn(client, kernel, { threads, buffers: [x, totals], params, stream });
    const over = { outer: segments, count: runs, inner: 1, segments };
    scanInto(client, totals, offsets, over, { op, type, exclusive: true, stream });
  }
  const kernel = texts(client, "scan", `scan:${op}:${type}:${exclusive}:${vector}`);
  launchOn(client, kernel, { threads, buffers: [x, y, offsets], params, stream });
}
