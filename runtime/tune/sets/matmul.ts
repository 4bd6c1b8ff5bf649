/**
 * A real tunable set: f32 matmul `c = a b` in several WGSL variants (naive, shared-memory tiles,
 * scalar register tiles, vec4 register tiles) with different tile and workgroup shapes; on a
 * CUDA client, the same shapes in CUDA C (`_matmul_cuda.ts`: naive, shared and register tiles).
 *
 * @module
 */

import type { ComputeClient } from "../../client/client.ts";
import { CubeCount } from "../../core/cube_count.ts";
import type { Handle } from "../../core/handles/handle.ts";
import { anchor } from "../key.ts";
import { type MatmulVariant, matmulWgsl } from "./_matmul_wgsl.ts";
import { CUDA_MATMUL_KINDS, matmulCuda } from "./_matmul_cuda.ts";
import { backendOf, launch } from "../../kernels/_backend_kernels.ts";
import { count, elementType, withOutput } from "../../kernels/_shape.ts";
import { type Tunable, TunableSet } from "../tunable_set.ts";

/**
 * Inputs of {@linkcode matmulSet}: row-major f32 `a` (m x k) and `b` (k x n).
 *
 * @example
 * ```ts
 * import { createClient } from "@gpucompute/runtime";
 * import type { MatmulInputs } from "@gpucompute/runtime/tune";
 * using client = await createClient();
 * using a = client.createWithData(new Float32Array(6));
 * const inputs: MatmulInputs = { a, b: a, m: 2, n: 2, k: 3 };
 * ```
 */
export interface MatmulInputs {
  /** The left matrix, m x k. */
  readonly a: Handle;
  /** The right matrix, k x n. */
  readonly b: Handle;
  /** Rows of `a` and `c`. */
  readonly m: number;
  /** Columns of `b` and `c`. */
  readonly n: number;
  /** Columns of `a`, rows of `b`. */
  readonly k: number;
}

/**
 * The key of a matmul: anchored sizes and whether vec4 variants apply.
 *
 * @example
 * ```ts
 * import type { MatmulKey } from "@gpucompute/runtime/tune";
 * const key: MatmulKey = { m: 1024, n: 1024, k: 16, vec4: true };
 * ```
 */
export type MatmulKey = {
  readonly m: number;
  readonly n: number;
  readonly k: number;
  readonly vec4: boolean;
};

/**
 * The variants of {@linkcode matmulSet}, in candidate order.
 *
 * @example
 * ```ts
 * import { MATMUL_VARIANTS } from "@gpucompute/runtime/tune";
 * console.log(MATMUL_VARIANTS.map((v) => v.name));
 * ```
 */
export const MATMUL_VARIANTS: readonly MatmulVariant[] = [
  { name: "naive_8x8", kind: "naive", workgroup: [8, 8], rows: 1, cols: 1 },
  { name: "shared_16x16", kind: "shared", workgroup: [16, 16], rows: 1, cols: 1 },
  { name: "shared_8x8", kind: "shared", workgroup: [8, 8], rows: 1, cols: 1 },
  { name: "reg_4x4_wg8x8", kind: "register", workgroup: [8, 8], rows: 4, cols: 4 },
  { name: "reg_2x4_wg16x4", kind: "register", workgroup: [16, 4], rows: 2, cols: 4 },
  { name: "vec4_8x8_wg8x8", kind: "vec4", workgroup: [8, 8], rows: 8, cols: 8 },
  { name: "vec4_8x8_wg64x1", kind: "vec4", workgroup: [64, 1], rows: 8, cols: 8 },
  { name: "vec4_4x16_wg8x8", kind: "vec4", workgroup: [8, 8], rows: 4, cols: 16 },
  { name: "vec4_16x4_wg32x2", kind: "vec4", workgroup: [32, 2], rows: 16, cols: 4 },
  { name: "vec4_8x4_wg64x1", kind: "vec4", workgroup: [64, 1], rows: 8, cols: 4 },
  { name: "vec4_16x8_wg32x2", kind: "vec4", workgroup: [32, 2], rows: 16, cols: 8 },
  { name: "vec4_16x16_wg64x1", kind: "vec4", workgroup: [64, 1], rows: 16, cols: 16 },
  { name: "vec4i_8x16_wg16x4", kind: "vec4i", workgroup: [16, 4], rows: 8, cols: 16 },
];

/** The largest anchored size; bigger shapes share the key of 4096. */
const MAX_ANCHOR = 4096;
/** Below this many multiply-adds the naive kernel is worth measuring. */
const SMALL_WORK = 1 << 18;

/**
 * The WGSL kernel of a variant: buffers `a`, `b`, `c`; params `{ M, N, K }`. The `vec4` and
 * `vec4i` variants read `a`, `b` and `c` as `vec4f`: launch them only with N and K multiples of 4
 * (otherwise the product is wrong; `matmulSet` and `matmul` never pick them then).
 *
 * @example
 * ```ts
 * import { MATMUL_VARIANTS, matmulKernel } from "@gpucompute/runtime/tune";
 * console.log(matmulKernel(MATMUL_VARIANTS[0]).id); // tune.matmul.naive_8x8
 * ```
 */
export function matmulKernel(variant: MatmulVariant): { id: string; source: string } {
  return { id: `tune.matmul.${variant.name}`, source: matmulWgsl(variant) };
}

/**
 * The matmul set on a client. Candidates return a new handle `c` (m x n) that the caller owns.
 * The plan: register tiles first (vec4 ones only when `n` and `k` are multiples of 4), with the
 * naive kernel for small products; shared-memory tiles only if all of those failed; the naive
 * kernel last for large products. The naive kernel is the reference of output checks. (Register
 * tiles are the better bet on most devices and far better on CPU adapters; a device where shared
 * tiles win would give them the first group.) On a CUDA client the candidates are the naive,
 * shared and register variants in CUDA C (compiled by NVRTC once per device), shared tiles in the
 * first group with the register tiles (the classic CUDA kernel; GPUs run shared memory well).
 *
 * @example
 * ```ts
 * import { createClient } from "@gpucompute/runtime";
 * import { matmulSet, Tuner } from "@gpucompute/runtime/tune";
 * using client = await createClient();
 * const set = matmulSet(client);
 * console.log(set.names.length, set.key({ a: undefined!, b: undefined!, m: 1000, n: 1000, k: 3 }));
 * ```
 */
export function matmulSet(
  client: ComputeClient,
): TunableSet<MatmulKey, MatmulInputs, Handle> {
  const cuda = backendOf(client, "matmulSet") === "cuda";
  const variants = cuda
    ? MATMUL_VARIANTS.filter((variant) => CUDA_MATMUL_KINDS.has(variant.kind))
    : MATMUL_VARIANTS;
  const candidates = variants.map((variant): Tunable<MatmulKey, MatmulInputs, Handle> => {
    const kernel = cuda ? matmulCuda(variant) : matmulKernel(variant);
    const [wx, wy] = variant.workgroup;
    return {
      name: variant.name,
      priority: (key) => cuda && variant.kind === "shared" ? 2 : priority(variant, key),
      run(inputs) {
        const { a, b, m, n, k } = checked(inputs);
        checkLoops(client, k);
        // Disposed if the launch is refused (another client's handle...).
        return withOutput(client, m * n, "f32", {}, (c) =>
          launch(client, kernel, {
            count: CubeCount.new2d(
              Math.max(1, Math.ceil(n / (variant.cols * wx))),
              Math.max(1, Math.ceil(m / (variant.rows * wy))),
            ),
            buffers: [a, b, c],
            params: { M: m, N: n, K: k },
          }));
      },
    };
  });
  return new TunableSet("matmul", {
    candidates,
    key: (inputs) => {
      const { m, n, k } = checked(inputs, false);
      return {
        m: anchor(m, { min: 16, max: MAX_ANCHOR }),
        n: anchor(n, { min: 16, max: MAX_ANCHOR }),
        k: anchor(k, { min: 16, max: MAX_ANCHOR }),
        vec4: n % 4 === 0 && k % 4 === 0,
      };
    },
    inputs: (key, inputs) => {
      // Benchmark on the shape that arrived (the key's first), not on its anchor: how well a
      // tile fits the edges decides between close candidates (33x47x65 tuned on its anchor
      // 64x64x128 picked a kernel 6% slower). Sizes above the largest anchor are benchmarked at
      // it. Fresh random values in [-1, 1): the caller may dispose its inputs while a background
      // tuning still runs.
      const m = Math.min(inputs.m, key.m), n = Math.min(inputs.n, key.n);
      const k = Math.min(inputs.k, key.k);
      const random = (length: number) => Float32Array.from({ length }, () => Math.random() * 2 - 1);
      return {
        a: client.createWithData(random(m * k)),
        b: client.createWithData(random(k * n)),
        m,
        n,
        k,
      };
    },
    reference: "naive_8x8",
    fallback: "reg_4x4_wg8x8",
    tolerance: { absolute: 1e-4, relative: 1e-3 },
    work: ({ m, n, k }) => 2 * m * n * k,
  });
}

/**
 * The inputs, checked: f32 handles of `m * k` and `k * n` elements, sizes integers >= 1. A
 * handle shorter or longer than its sizes would be read out of bounds or in part: a wrong
 * product, silently. `TypeError` / `RangeError` naming the argument. Without `handles` (the
 * key), `a` and `b` are checked only when given: a key can be had from the sizes alone.
 */
function checked(inputs: MatmulInputs, handles = true): MatmulInputs {
  const what = "matmulSet";
  if (inputs === null || typeof inputs !== "object") {
    throw new TypeError(`${what}: inputs { a, b, m, n, k } are required`);
  }
  const { a, b } = inputs;
  const [m, n, k] = (["m", "n", "k"] as const).map((name) => count(inputs[name], name, what, 1));
  for (const [name, handle, rows, cols] of [["a", a, m, k], ["b", b, k, n]] as const) {
    if (!handles && handle === undefined) continue;
    elementType(handle, name, what, ["f32"]);
    if (handle.size() / 4 !== rows * cols) {
      throw new RangeError(
        `${what}: ${name} has ${handle.size() / 4} elements, ${rows} x ${cols} needs ${
          rows * cols
        }`,
      );
    }
  }
  return inputs;
}

/**
 * Every variant loops `k` times per invocation in all. Quirk: Mesa's llvmpipe stops an
 * invocation's loops after 65,535 iterations, silently: refuse rather than return a wrong product.
 */
function checkLoops(client: ComputeClient, k: number): void {
  if (k > 65_535 && /llvmpipe/i.test(client.server.properties.deviceName)) {
    throw new RangeError(
      `A matmul with k = ${k} cannot run right on llvmpipe, which stops a shader invocation's ` +
        "loops after 65,535 iterations: split k into chunks and add the partial products",
    );
  }
}

function priority(variant: MatmulVariant, key: MatmulKey): number {
  switch (variant.kind) {
    case "vec4":
    case "vec4i":
      return key.vec4 ? 2 : -1; // vec4 loads need n and k multiples of 4
    case "register":
      return 2;
    case "shared":
      return 1; // only if every register tile failed
    case "naive":
      return key.m * key.n * key.k <= SMALL_WORK ? 2 : 0;
  }
}
