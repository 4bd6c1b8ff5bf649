/**
 * Matrix products on the device, WebGPU or CUDA: single products through the autotuner's matmul
 * set (its cache included; on CUDA its CUDA C variants), batches through one register-tiled
 * kernel (WGSL or CUDA C).
 *
 * @module
 */

import type { ComputeClient } from "../../client/client.ts";
import { CubeCount } from "../../core/cube_count.ts";
import type { Handle } from "../../core/handles/handle.ts";
import type { StreamId } from "../../core/stream_id.ts";
import { type MatmulInputs, matmulSet } from "../../tune/sets/matmul.ts";
import type { TunableSet } from "../../tune/tunable_set.ts";
import { Tuner } from "../../tune/tuner.ts";
import type { MatmulKey } from "../../tune/sets/matmul.ts";
import { count, elementType, withOutput } from "../_shape.ts";
import { backendTexts, launch } from "../_backend_kernels.ts";
import { BATCH_GROUP, BATCH_TILE, batchedMatmulWgsl } from "./_matmul_wgsl.ts";
import { batchedMatmulCuda } from "./_matmul_cuda.ts";
import { launchTranspose } from "./transpose.ts";
import { checkCall } from "../_inputs.ts";
import { optionalBoolean } from "../../core/_argument_checks.ts";

/**
 * Options of {@linkcode matmul}.
 *
 * @example A batch of 8 products of 64 x 32 by 32 x 16, the second factor stored transposed
 * ```ts
 * import type { MatmulOptions } from "@gpucompute/runtime";
 * const options: MatmulOptions = { m: 64, n: 16, k: 32, batch: 8, transposeB: true };
 * ```
 */
export interface MatmulOptions {
  /** Rows of the product (and of `a`). */
  m: number;
  /** Columns of the product (and of `b`). */
  n: number;
  /** The shared dimension: columns of `a`, rows of `b`. */
  k: number;
  /**
   * Whether `a` is stored transposed, as `[k, m]`.
   * @default {false}
   */
  transposeA?: boolean;
  /**
   * Whether `b` is stored transposed, as `[n, k]`.
   * @default {false}
   */
  transposeB?: boolean;
  /**
   * Products stacked in `a` (`[batch, m, k]`), `b` and the result (no broadcasting).
   * @default {1}
   */
  batch?: number;
  /**
   * `true`: single products run the fastest variant of the matmul set for their shape, tuned on
   * first use by a tuner of this client (persistent cache, name "default"); a `Tuner`: that one
   * (e.g. the demo's, to share its picks; a Tuner of another client is a `TypeError`); `false`:
   * the set's default variant, no tuning.
   * Batches always run one register-tiled kernel.
   * @default {true}
   */
  tune?: boolean | Tuner;
  /**
   * The stream to run on.
   * @default {currentStreamId()}
   */
  stream?: StreamId;
}

const tuners = new WeakMap<ComputeClient, Tuner>();
const sets = new WeakMap<ComputeClient, TunableSet<MatmulKey, MatmulInputs, Handle>>();
/** The batched kernel's texts by backend, keyed by the transposes (`nn`, `nt`, `tn`, `tt`). */
const texts = backendTexts({
  webgpu: (key) => batchedMatmulWgsl(key[0] === "t", key[1] === "t"),
  cuda: (key) => batchedMatmulCuda(key[0] === "t", key[1] === "t"),
});

/**
 * The product `c = a b` of row-major f32 matrices: `a` is `[m, k]` (`[k, m]` with `transposeA`),
 * `b` is `[k, n]` (`[n, k]` with `transposeB`), `c` a new `[m, n]` handle (the caller disposes
 * it); with `batch`, `batch` products stacked one after the other in `a`, `b` and `c`. `k = 0`
 * gives zeros. Resolves once the product is launched (it stays on the device): a single product
 * may first tune its shape (see `tune`), yet it reads `a` and `b` as they are at the call
 * (copies, while its shape is tuned), so later writes do not reach it and the inputs may be
 * disposed right after the call; transposed inputs are first transposed into temporary
 * handles, so the tuned variants apply. f32 at every shape, summed with `fma` in `k` order. On
 * a CUDA client the same call runs CUDA C (compiled by NVRTC once per device): the set's naive,
 * shared-tile and register-tile variants (tuned likewise), and the batched kernel. CUDA's `fma`
 * rounds once; WGSL's need not (llvmpipe rounds the product, then the sum), so the last bits of
 * a product may differ between backends and devices (not between variants of one device).
 *
 * `TypeError` for handles that are not f32; `RangeError` naming the argument for sizes that are
 * not integers, handles whose length is not `batch * m * k` / `batch * k * n`, and for `k` over
 * 65,535 on llvmpipe (which silently stops a shader invocation's loops after 65,535 iterations:
 * split `k` and add the partial products).
 *
 * @example
 * ```ts
 * import { createClient, matmul } from "@gpucompute/runtime";
 * using client = await createClient();
 * using a = client.createWithData(new Float32Array([1, 2, 3, 4, 5, 6])); // 2 x 3
 * using b = client.createWithData(new Float32Array([1, 0, 0, 1, 1, 1])); // 3 x 2
 * using c = await matmul(client, a, b, { m: 2, n: 2, k: 3 });
 * console.log(await client.read(c)); // Float32Array [4, 5, 10, 11]
 * ```
 */
export async function matmul(
  client: ComputeClient,
  a: Handle,
  b: Handle,
  options: MatmulOptions,
): Promise<Handle<"f32">> {
  checkCall("matmul", client, options, [
    "m",
    "n",
    "k",
    "transposeA",
    "transposeB",
    "batch",
    "tune",
    "stream",
  ]);
  const what = "matmul";
  elementType(a, "a", what, ["f32"]);
  elementType(b, "b", what, ["f32"]);
  if (options === null || typeof options !== "object") {
    throw new TypeError("matmul: options { m, n, k } are required");
  }
  const m = count(options.m, "m", what);
  const n = count(options.n, "n", what);
  const k = count(options.k, "k", what);
  const batch = count(options.batch ?? 1, "batch", what, 1);
  // Read as truthy below: a string ("false") would transpose without a word.
  optionalBoolean(options.transposeA, "matmul: options.transposeA");
  optionalBoolean(options.transposeB, "matmul: options.transposeB");
  for (const [name, handle, rows, cols] of [["a", a, m, k], ["b", b, k, n]] as const) {
    if (handle.size() / 4 !== batch * rows * cols) {
      throw new RangeError(
        `matmul: ${name} has ${handle.size() / 4} elements, ${batch} x ${rows} x ${cols} needs ` +
          `${batch * rows * cols}`,
      );
    }
  }
  if (k > 65_535 && /llvmpipe/i.test(client.server.properties.deviceName)) {
    throw new RangeError(
      `matmul: k = ${k} cannot run right on llvmpipe, which stops a shader invocation's loops ` +
        "after 65,535 iterations: split k into chunks and add the partial products",
    );
  }
  const { stream } = options;
  if (m * n === 0 || k === 0 || batch > 1) {
    return withOutput(client, batch * m * n, "f32", { stream, zero: k === 0 }, (c) => {
      if (m * n > 0 && k > 0) batched(client, a, b, c, options, { m, n, k, batch });
    });
  }
  const set = setOf(client);
  const tune = options.tune ?? true;
  const tuner = tune === false ? undefined : tunerOf(client, tune);
  // A product that waits for its shape to be tuned launches later: it must still read the
  // inputs as they are at this call (not after writes that follow it; disposing them right
  // after the call stays safe), so it reads copies made now, ordered on the stream.
  const late = tuner !== undefined && !picked(tuner, set, { a, b, m, n, k });
  let ta: Handle | undefined;
  let tb: Handle | undefined;
  try {
    ta = options.transposeA
      ? transposed(client, a, k, m, stream)
      : late
      ? transposed(client, a, 1, m * k, stream) // a copy
      : undefined;
    tb = options.transposeB
      ? transposed(client, b, n, k, stream)
      : late
      ? transposed(client, b, 1, k * n, stream)
      : undefined;
    const inputs = { a: ta ?? a, b: tb ?? b, m, n, k };
    const run = () =>
      tuner === undefined ? set.fallback(set.key(inputs)).run(inputs) : tuner.execute(set, inputs);
    const c = await (stream === undefined ? run() : client.withStream(stream, run));
    return c as Handle<"f32">;
  } finally {
    ta?.dispose(); // pinned by the launches that read them
    tb?.dispose();
  }
}

function setOf(client: ComputeClient): TunableSet<MatmulKey, MatmulInputs, Handle> {
  let set = sets.get(client);
  if (set === undefined) sets.set(client, set = matmulSet(client));
  return set;
}

/** Whether `tuner` runs these inputs' product at once: its pick for their shape is in memory. */
function picked(
  tuner: Tuner,
  set: TunableSet<MatmulKey, MatmulInputs, Handle>,
  inputs: MatmulInputs,
): boolean {
  const fastest = tuner.fastest(set, inputs);
  return fastest !== undefined && set.candidate(fastest) !== undefined;
}

function tunerOf(client: ComputeClient, tune: true | Tuner): Tuner {
  if (tune !== true) {
    if (!(tune instanceof Tuner) || tune.client !== client) {
      // Another client's tuner would time this client's kernels on its own profiler and share
      // its device's picks with this device.
      throw new TypeError(
        "matmul: tune must be true, false or a Tuner of this client (new Tuner(client)), got " +
          (tune instanceof Tuner ? "a Tuner of another client" : String(tune)),
      );
    }
    return tune;
  }
  let tuner = tuners.get(client);
  if (tuner === undefined) tuners.set(client, tuner = new Tuner(client));
  return tuner;
}

/** A transposed copy of `[rows, cols]` `x`. */
function transposed(
  client: ComputeClient,
  x: Handle,
  rows: number,
  cols: number,
  stream: StreamId | undefined,
): Handle {
  return withOutput(client, rows * cols, "f32", { stream }, (out) => {
    launchTranspose(client, x, out, rows, cols, stream);
  });
}

function batched(
  client: ComputeClient,
  a: Handle,
  b: Handle,
  c: Handle,
  options: MatmulOptions,
  { m, n, k, batch }: { m: number; n: number; k: number; batch: number },
): void {
  const span = BATCH_GROUP * BATCH_TILE;
  const kernel = texts(
    client,
    "matmul",
    `${options.transposeA ? "t" : "n"}${options.transposeB ? "t" : "n"}`,
  );
  launch(client, kernel, {
    count: CubeCount.static(Math.ceil(n / span), Math.ceil(m / span), batch),
    buffers: [a, b, c],
    params: { M: m, N: n, K: k },
    stream: options.stream,
  });
}
