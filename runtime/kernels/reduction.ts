/**
 * Custom reductions from WGSL expressions, in the spirit of CuPy's `ReductionKernel`: a `map`
 * of the inputs' elements, a `combine` of two values, an `identity`, and a `finish` of the folded
 * value. They reduce a whole handle, or a `[rows, cols]` handle along an axis.
 *
 * @module
 */

import type { ComputeClient } from "../client/client.ts";
import type { Handle } from "../core/handles/handle.ts";
import type { KernelParams } from "../core/kernel.ts";
import type { StreamId } from "../core/stream_id.ts";
import { checkName, type ElementType, elementTypes } from "./elementwise.ts";
import {
  checkCall,
  checkExpression,
  checkNoOverlap,
  checkOutput,
  commonLength,
  namedInputs,
  overlaps,
} from "./_inputs.ts";
import { assertKnownKeys } from "../core/_argument_checks.ts";

/** The keys of a {@linkcode ReductionSpec}. */
const SPEC_KEYS = ["inputs", "map", "combine", "identity", "finish", "output", "params", "name"];
import {
  COLUMN_CHUNK,
  LOOP_LIMIT,
  partialsProgram,
  REDUCE_WORKGROUP,
  reductionKernel,
  type ReductionProgram,
  type ReductionShape,
  RESERVED_NAMES,
} from "./_reduce_kernels.ts";
import { backendOf, type BackendText, launch as launchOn } from "./_backend_kernels.ts";
import { reductionCuda } from "./_reduce_cuda.ts";

/**
 * What a custom reduction computes. `map` reads each input's element by the input's name (and
 * the index as `i`, params by name); `combine` folds `a` and `b`; `finish` turns the folded `r`
 * over `count` elements into the output (`r` unchanged by default). `neg_inf()`, `pos_inf()` and
 * `nan()` give those f32 values (WGSL has no infinite constants).
 *
 * @example Sum of squares, then its square root: the L2 norm
 * ```ts
 * import type { ReductionSpec } from "@gpucompute/runtime";
 * const norm: ReductionSpec = {
 *   inputs: ["x"],
 *   map: "x * x",
 *   combine: "a + b",
 *   identity: "0.0",
 *   finish: "sqrt(r)",
 * };
 * ```
 */
export interface ReductionSpec<T extends ElementType = "f32"> {
  /**
   * Input names (all f32) or names with their element types. Names, here and in `params`, are
   * WGSL identifiers other than those the generated code uses (`i`, `n`, `out`, `params`,
   * `main`, `value`, `combine`, `finish`, `folded`, `neg_inf`, `pos_inf`, `nan`, `per_group`,
   * `cols`, `rows`, `count`, `chunks`) and C++ keywords (`long`, `or`): a `RangeError` naming
   * them otherwise.
   */
  readonly inputs: readonly string[] | { readonly [name: string]: ElementType };
  /**
   * The value of element `i`, converted to the output type as WGSL's `T(e)` does (`combine`,
   * `identity` and `finish` must have that type themselves).
   * @default {the single input's name}
   */
  readonly map?: string;
  /** Folds two values `a` and `b` (associative and commutative: the order is not fixed). */
  readonly combine: string;
  /**
   * The value folding starts from (the result over no element, before `finish`): the neutral
   * element of `combine` (`combine(identity, v)` is `v`: `0.0` for a sum), since each thread
   * and partial starts from it (`1.0` for a sum adds one per thread: 32 over no element).
   */
  readonly identity: string;
  /**
   * The output from the folded value `r` and the number of elements `count` (a u32).
   * @default {"r"}
   */
  readonly finish?: string;
  /**
   * The type of the values and of the output.
   * @default {"f32"}
   */
  readonly output?: T;
  /**
   * Scalar params by name with their types, readable in every expression.
   * @default {{}}
   */
  readonly params?: { readonly [name: string]: ElementType };
  /**
   * Name in errors and logs.
   * @default {"reduction"}
   */
  readonly name?: string;
}

/**
 * Options of {@linkcode ReductionKernel.run}.
 *
 * @example Sums of each row of a 3 x 4 handle
 * ```ts
 * import type { ReductionRunOptions } from "@gpucompute/runtime";
 * const rows: ReductionRunOptions = { shape: [3, 4], axis: 1 };
 * ```
 */
export interface ReductionRunOptions {
  /**
   * The inputs' shape `[rows, cols]` (row-major) for an axis reduction.
   * @default {undefined} (the whole handle to one value)
   */
  shape?: readonly [number, number];
  /**
   * With `shape`: `1` reduces each row (`rows` outputs), `0` each column (`cols` outputs).
   * @default {1}
   */
  axis?: 0 | 1;
  /**
   * Values of the params.
   * @default {{}}
   */
  params?: KernelParams;
  /**
   * Where to write; a new handle of the output type when absent (the caller disposes it). It may
   * be longer than the outputs (only the first elements are written), but may not share memory
   * with an input (a `RangeError`: outputs would be written while inputs are read).
   * @default {undefined}
   */
  out?: Handle;
  /**
   * The stream to run on.
   * @default {currentStreamId()}
   */
  stream?: StreamId;
}

/**
 * A reduction built by {@linkcode reduction}.
 *
 * @example
 * ```ts
 * import { reduction, type ReductionKernel } from "@gpucompute/runtime";
 * const max: ReductionKernel = reduction({ inputs: ["x"], combine: "max(a, b)", identity: "-1e38" });
 * console.log(max.name); // reduction
 * ```
 */
export interface ReductionKernel<T extends ElementType = ElementType> {
  /** The name in errors and logs. */
  readonly name: string;
  /**
   * Reduces the inputs (by name, all of one length) and returns the output on the device: one
   * element, or one per row or column with `shape` and `axis`. `RangeError` for a missing input
   * or one the spec does not declare.
   */
  run(
    client: ComputeClient,
    inputs: { readonly [name: string]: Handle },
    options?: ReductionRunOptions,
  ): Handle<T>;
}

/** Most workgroups of a whole reduction's first pass. */
const MAX_GROUPS = 256;

/**
 * Builds a custom reduction.
 *
 * @example Row maxima of a 2 x 3 handle
 * ```ts
 * import { createClient, reduction } from "@gpucompute/runtime";
 * const rowMax = reduction({ inputs: ["x"], combine: "max(a, b)", identity: "-3.4e38" });
 * using client = await createClient();
 * using x = client.createWithData(new Float32Array([1, 5, 2, 7, 0, 3]));
 * using top = rowMax.run(client, { x }, { shape: [2, 3], axis: 1 });
 * console.log(await client.read(top)); // Float32Array [5, 7]
 * ```
 */
export function reduction<T extends ElementType = "f32">(
  spec: ReductionSpec<T>,
): ReductionKernel<T> {
  if (typeof spec !== "object" || spec === null) throw new TypeError("spec must be an object");
  assertKnownKeys(spec, SPEC_KEYS, "reduction", "spec"); // a misspelt `finish` was a silent sum
  // combine and identity are required, map and finish optional; none may be blank.
  ["combine", "identity", "map", "finish"].forEach((f, i) => checkExpression(spec, f, i > 1));
  const name = spec.name ?? "reduction";
  const inputs = elementTypes(spec.inputs, "input");
  const params = elementTypes(spec.params ?? {}, "param");
  for (const [input] of [...inputs, ...params]) checkName(input, RESERVED_NAMES);
  if (inputs.length === 0) throw new RangeError("A reduction needs at least one input");
  if (spec.map === undefined && inputs.length > 1) {
    throw new RangeError("spec.map is required with several inputs");
  }
  const type = elementTypes({ output: spec.output ?? "f32" }, "output")[0][1];
  return reductionOf<T>({
    name,
    inputs,
    params,
    map: spec.map ?? inputs[0][0],
    combine: spec.combine,
    identity: spec.identity,
    finish: spec.finish ?? "r",
    type,
  });
}

/** The reduction kernel of a checked program (the built-in operators' path). */
export function reductionOf<T extends ElementType>(program: ReductionProgram): ReductionKernel<T> {
  const { name, inputs, type } = program;
  // The second pass of a whole reduction folds the first pass's partials (already mapped).
  const partials = partialsProgram(program);
  const cache = new Map<string, BackendText>();
  const kernelOn =
    (cuda: boolean) =>
    (of: ReductionProgram, shape: ReductionShape, finishes: boolean): BackendText => {
      const key = `${cuda}:${of === partials}:${shape}:${finishes}`;
      let found = cache.get(key);
      if (found === undefined) {
        found = cuda ? reductionCuda(of, shape, finishes) : reductionKernel(of, shape, finishes);
        cache.set(key, found);
      }
      return found;
    };
  return {
    name,
    run(client, given, options = {}) {
      checkCall(name, client, options, ["shape", "axis", "params", "out", "stream"]);
      const handles = namedInputs(name, inputs, given);
      checkOutput(name, options.out, type);
      const out_ = options.out;
      if (out_ !== undefined && handles.some((handle) => overlaps(out_, handle))) {
        const read = inputs.map(([input], k) => [`input "${input}"`, handles[k]] as const);
        checkNoOverlap(name, ["out", out_], read);
      }
      const n = commonLength(name, inputs.map(([input], k) => [input, handles[k]] as const), 0);
      const plan = planOf(n, options);
      const { stream } = options;
      const out = options.out ?? client.empty(plan.outputs, type, { stream });
      if (options.out !== undefined && out.size() < plan.outputs * 4) {
        throw new RangeError(`${name} output has ${out.size()} bytes, needs ${plan.outputs * 4}`);
      }
      try {
        if (plan.outputs > 0) {
          const kernel = kernelOn(backendOf(client, name) === "cuda");
          const launch = { client, kernel, program, partials, handles, out, plan, options };
          run(launch);
        }
      } catch (error) {
        if (options.out === undefined) out.dispose();
        throw error;
      }
      return out as Handle<T>;
    },
  };
}

/** The launches of one reduction. */
interface Plan {
  readonly shape: ReductionShape | "whole";
  readonly rows: number;
  readonly cols: number;
  readonly outputs: number;
}

function planOf(n: number, options: ReductionRunOptions): Plan {
  if (options.shape === undefined) {
    if (options.axis !== undefined) throw new RangeError("axis needs a shape [rows, cols]");
    return { shape: "whole", rows: 1, cols: n, outputs: 1 };
  }
  const [rows, cols] = options.shape;
  for (const [what, value] of [["rows", rows], ["cols", cols]] as const) {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new RangeError(`shape ${what} must be a non-negative integer, got ${value}`);
    }
  }
  if (rows * cols !== n) {
    throw new RangeError(`shape [${rows}, ${cols}] has ${rows * cols} elements, the inputs ${n}`);
  }
  const axis = options.axis ?? 1;
  if (axis !== 0 && axis !== 1) throw new RangeError(`axis must be 0 or 1, got ${axis}`);
  return axis === 1
    ? { shape: "rows", rows, cols, outputs: rows }
    : { shape: "columns", rows, cols, outputs: cols };
}

interface Launch {
  readonly client: ComputeClient;
  readonly kernel: (of: ReductionProgram, s: ReductionShape, f: boolean) => BackendText;
  readonly program: ReductionProgram;
  readonly partials: ReductionProgram;
  readonly handles: Handle[];
  readonly out: Handle;
  readonly plan: Plan;
  readonly options: ReductionRunOptions;
}

function run(launch: Launch): void {
  const { client, program, plan, options } = launch;
  const { stream } = options;
  const n = plan.rows * plan.cols;
  // A storage binding holds at least one element: with no element, bind a dummy one.
  using dummy = n === 0 ? client.zeros(1, program.inputs[0][1], { stream }) : undefined;
  const handles = dummy === undefined ? launch.handles : launch.handles.map(() => dummy);
  // The caller's params (`user`) beside the plan's own, which a graph replay may not change:
  // named fields (an object spread into each launch's options took a slow path every launch).
  const params: Params = { user: options.params === undefined ? {} : options.params };
  const base = { n, per_group: 0, cols: plan.cols, rows: plan.rows, count: 0, chunks: 1 };
  if (plan.shape === "columns") return columns(launch, handles, params, base);
  rowsPasses(launch, handles, params, base);
}

/**
 * Chunks per row: enough that no invocation loops more than `LOOP_LIMIT` times (llvmpipe's quirk),
 * and, for few rows, enough workgroups to use the device (about {@linkcode MAX_GROUPS}).
 */
function chunksOf(rows: number, cols: number): { chunks: number; perGroup: number } {
  if (cols === 0) return { chunks: 1, perGroup: 0 };
  const needed = Math.ceil(cols / (REDUCE_WORKGROUP * LOOP_LIMIT));
  const wanted = Math.min(Math.ceil(cols / REDUCE_WORKGROUP), Math.ceil(MAX_GROUPS / rows));
  const perGroup = Math.ceil(cols / Math.max(1, needed, wanted) / REDUCE_WORKGROUP) *
    REDUCE_WORKGROUP;
  return { chunks: Math.ceil(cols / perGroup), perGroup };
}

/** A row (or whole) reduction: one pass when each row is one chunk, else a second over them. */
function rowsPasses(
  launch: Launch,
  inputs: readonly Handle[],
  params: Params,
  base: Record<string, number>,
): void {
  const { client, kernel, program, partials, out, plan, options } = launch;
  const { stream } = options;
  const { rows, cols } = plan;
  const { chunks, perGroup } = chunksOf(rows, cols);
  const one = chunks === 1;
  using partial = one ? undefined : client.empty(rows * chunks, program.type, { stream });
  launchOn(client, kernel(program, "rows", one), {
    count: { kind: "static", x: rows * chunks, y: 1, z: 1 },
    buffers: [...inputs, partial ?? out],
    params: { ...base, per_group: perGroup, chunks, count: cols },
    user: params.user,
    stream,
  });
  if (partial === undefined) return;
  launchOn(client, kernel(partials, "rows", true), {
    count: { kind: "static", x: rows, y: 1, z: 1 },
    buffers: [partial, out],
    params: { ...base, n: rows * chunks, cols: chunks, per_group: chunks, count: cols },
    user: params.user,
    stream,
  });
}

/** The caller's params of a reduction's launches. */
type Params = { readonly user: KernelParams };

/**
 * A column reduction: passes of at most {@linkcode COLUMN_CHUNK} rows per invocation, each over
 * the previous pass's partials (one row per chunk), until one row is left.
 */
function columns(
  launch: Launch,
  inputs: readonly Handle[],
  params: Params,
  base: Record<string, number>,
): void {
  const { client, kernel, program, partials, out, plan, options } = launch;
  const { stream } = options;
  const { cols } = plan;
  let rows = plan.rows;
  let source: readonly Handle[] = inputs;
  let first = true;
  const owned: Handle[] = [];
  try {
    while (true) {
      const chunks = Math.max(1, Math.ceil(rows / COLUMN_CHUNK));
      const last = chunks === 1;
      const target = last ? out : client.empty(chunks * cols, program.type, { stream });
      if (!last) owned.push(target);
      launchOn(client, kernel(first ? program : partials, "columns", last), {
        threads: chunks * cols,
        buffers: [...source, target],
        params: { ...base, n: rows * cols, rows, chunks, count: plan.rows },
        user: params.user,
        stream,
      });
      if (last) return;
      source = [target];
      rows = chunks;
      first = false;
    }
  } finally {
    for (const handle of owned) handle.dispose(); // pinned by the launches that use them
  }
}
