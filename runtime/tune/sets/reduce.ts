/**
 * The kernel helpers' reductions (`reduce` and `dot` of `runtime/kernels/`), tunable: the same
 * WGSL and the same two launches (partials per workgroup, then one workgroup over the partials),
 * with the workgroup width and the number of partials as the candidates' parameters. The helpers
 * fix those at values measured on llvmpipe; the tuner finds them per device and length. On a CUDA
 * client the candidates run the helpers' CUDA C (`_reduce_cuda.ts`) with the same launches.
 *
 * @module
 */

import type { ComputeClient } from "../../client/client.ts";
import { CubeCount } from "../../core/cube_count.ts";
import type { Handle } from "../../core/handles/handle.ts";
// The helpers' kernel generators: tuning them means running exactly their WGSL or CUDA C.
import { backendOf, type BackendText, launch } from "../../kernels/_backend_kernels.ts";
import { reductionCuda } from "../../kernels/_reduce_cuda.ts";
import { withOutput } from "../../kernels/_shape.ts";
import {
  LOOP_LIMIT,
  operatorProgram,
  partialsProgram,
  type ReduceOp,
  reductionKernel,
} from "../../kernels/_reduce_kernels.ts";
import { anchor } from "../key.ts";
import { type Tunable, TunableSet } from "../tunable_set.ts";

/**
 * Inputs of {@linkcode reduceSet}: f32 values `x`, and `y` for a dot product.
 *
 * @example
 * ```ts
 * import { createClient } from "@gpucompute/runtime";
 * import type { ReduceInputs } from "@gpucompute/runtime/tune";
 * using client = await createClient();
 * using x = client.createWithData(new Float32Array([1, 2, 3]));
 * const inputs: ReduceInputs = { x };
 * ```
 */
export interface ReduceInputs {
  /** The values (f32). */
  readonly x: Handle;
  /** With `y`, the set reduces `x[i] * y[i]` (a dot product; `sum` only). */
  readonly y?: Handle;
}

/**
 * The key of a reduction: the anchored length, the operator, and whether it is a dot product.
 *
 * @example
 * ```ts
 * import type { ReduceKey } from "@gpucompute/runtime/tune";
 * const key: ReduceKey = { n: 65536, op: "sum", dot: true };
 * ```
 */
export type ReduceKey = { readonly n: number; readonly op: ReduceOp; readonly dot: boolean };

/**
 * A reduction variant: workgroup width and most partials of the first launch (1: one launch).
 *
 * @example
 * ```ts
 * import type { ReduceVariant } from "@gpucompute/runtime/tune";
 * const v: ReduceVariant = { name: "wg32_g256", workgroup: 32, maxGroups: 256 };
 * ```
 */
export interface ReduceVariant {
  /** Candidate name. */
  readonly name: string;
  /** Invocations per workgroup (a power of two). */
  readonly workgroup: number;
  /** Most workgroups of the first launch. */
  readonly maxGroups: number;
}

/**
 * The variants of {@linkcode reduceSet}, in candidate order; `wg32_g256` is what the helpers use.
 *
 * @example
 * ```ts
 * import { REDUCE_VARIANTS } from "@gpucompute/runtime/tune";
 * console.log(REDUCE_VARIANTS.map((v) => v.name));
 * ```
 */
export const REDUCE_VARIANTS: readonly ReduceVariant[] = [
  { name: "wg32_g256", workgroup: 32, maxGroups: 256 },
  { name: "single_32", workgroup: 32, maxGroups: 1 },
  { name: "single_64", workgroup: 64, maxGroups: 1 },
  { name: "wg32_g64", workgroup: 32, maxGroups: 64 },
  { name: "wg32_g1024", workgroup: 32, maxGroups: 1024 },
  { name: "wg64_g256", workgroup: 64, maxGroups: 256 },
  { name: "wg64_g1024", workgroup: 64, maxGroups: 1024 },
  { name: "wg128_g256", workgroup: 128, maxGroups: 256 },
  { name: "wg256_g256", workgroup: 256, maxGroups: 256 },
];

/**
 * The reduction set on a client for one operator: candidates return a new 4-byte handle with
 * the result (the caller disposes it). Pass `y` in the inputs for a dot product (`sum` only).
 *
 * @example
 * ```ts
 * import { createClient } from "@gpucompute/runtime";
 * import { reduceSet, Tuner } from "@gpucompute/runtime/tune";
 * using client = await createClient();
 * using x = client.createWithData(new Float32Array(10_000).fill(0.5));
 * using total = await new Tuner(client).execute(reduceSet(client, "sum"), { x });
 * console.log(await client.read(total, Float32Array)); // Float32Array [5000]
 * ```
 */
export function reduceSet(
  client: ComputeClient,
  op: ReduceOp = "sum",
): TunableSet<ReduceKey, ReduceInputs, Handle> {
  if (!["sum", "max", "min", "mean"].includes(op)) {
    throw new RangeError(`op must be "sum", "max", "min" or "mean", got ${JSON.stringify(op)}`);
  }
  const cuda = backendOf(client, "reduceSet") === "cuda";
  const make = cuda ? reductionCuda : reductionKernel;
  const kernels = new Map<string, BackendText>();
  /** The first pass (partials of chunks, or a whole fold when it finishes) or the partials' fold. */
  const kernel = (product: boolean, pass: "first" | "whole" | "fold", workgroup: number) => {
    const id = `${product}:${pass}:${workgroup}`;
    let found = kernels.get(id);
    if (found === undefined) {
      const program = operatorProgram(op, "f32", product);
      found = pass === "fold"
        ? make(partialsProgram(program), "rows", true, workgroup)
        : make(program, "rows", pass === "whole", workgroup);
      kernels.set(id, found);
    }
    return found;
  };
  const candidates = REDUCE_VARIANTS.map((v): Tunable<ReduceKey, ReduceInputs, Handle> => ({
    name: v.name,
    run({ x, y }) {
      const n = length(x, y, op);
      // At least enough chunks that no invocation loops more than LOOP_LIMIT times (llvmpipe
      // stops longer loops silently: a variant must never be fast by being wrong).
      const fewest = Math.ceil(n / (v.workgroup * LOOP_LIMIT));
      const groups = Math.max(1, fewest, Math.min(v.maxGroups, Math.ceil(n / v.workgroup)));
      // Chunks are whole multiples of the workgroup width, as in the helpers.
      const perGroup = Math.ceil(n / groups / v.workgroup) * v.workgroup;
      const partials = Math.ceil(n / perGroup);
      const inputs = y === undefined ? [x] : [x, y];
      const product = y !== undefined;
      const row = { n, per_group: perGroup, cols: n, rows: 1, count: n, chunks: partials };
      // Disposed if a launch is refused (another client's handle...).
      return withOutput(client, 1, "f32", {}, (out) => {
        if (partials === 1) {
          launch(client, kernel(product, "whole", v.workgroup), {
            count: CubeCount.newSingle(),
            buffers: [...inputs, out],
            params: row,
          });
          return;
        }
        using partial = client.empty(partials, "f32"); // freed after launch: the server pins it
        launch(client, kernel(product, "first", v.workgroup), {
          count: CubeCount.new1d(partials),
          buffers: [...inputs, partial],
          params: row,
        });
        launch(client, kernel(product, "fold", v.workgroup), {
          count: CubeCount.newSingle(),
          buffers: [partial, out],
          params: {
            n: partials,
            per_group: partials,
            cols: partials,
            rows: 1,
            count: n,
            chunks: 1,
          },
        });
      });
    },
  }));
  return new TunableSet(`reduce_${op}`, {
    candidates,
    key: ({ x, y }) => ({
      n: anchor(length(x, y, op), { min: 64, max: 1 << 26 }),
      op,
      dot: y !== undefined,
    }),
    inputs: (key, inputs) => {
      // The length that arrived (capped at the key's), as for matmul: the tail of the last
      // chunk is part of what is being tuned.
      const n = Math.min(length(inputs.x, inputs.y, op), key.n);
      const random = () => Float32Array.from({ length: n }, () => Math.random());
      const x = client.createWithData(random());
      return key.dot ? { x, y: client.createWithData(random()) } : { x };
    },
    reference: "wg32_g256",
    fallback: "wg32_g256",
    // Sums of up to 2^26 values in [0, 1) in different orders: f32 rounding differs.
    tolerance: { absolute: 1e-3, relative: 1e-4 },
    work: ({ n }) => n,
  });
}

/** The number of f32 elements to reduce; throws for an empty input or mismatched lengths. */
function length(x: Handle, y: Handle | undefined, op: ReduceOp): number {
  const n = x.size() / 4;
  if (!Number.isInteger(n) || n < 1) {
    throw new RangeError(`A reduction needs at least one f32 element, got ${x.size()} bytes`);
  }
  if (y !== undefined && (op !== "sum" || y.size() !== x.size())) {
    throw new RangeError(
      `A dot product needs op "sum" and two inputs of one length, got ${op}, ${x.size()} and ${y.size()} bytes`,
    );
  }
  return n;
}
