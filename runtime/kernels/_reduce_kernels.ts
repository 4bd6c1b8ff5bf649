/**
 * The WGSL of reductions, generated from a {@linkcode ReductionProgram}: `map` turns the inputs'
 * elements at index `i` into a value, `combine` folds two values `a` and `b`, `identity` starts
 * the fold, `finish` turns the folded `r` over `count` elements into the output.
 *
 * Two shapes:
 *
 * - `rows`: a `[rows, cols]` input reduced along its last axis (a whole reduction is one row).
 *   Each workgroup folds a chunk of `per_group` elements of one row (each invocation a strided
 *   run, then a tree in workgroup memory); with several chunks per row, a second `rows` launch
 *   folds the chunks' partials. 32-wide workgroups: on llvmpipe barriers are slow, and 32- and
 *   64-wide groups beat 256-wide ones several times (bench/kernels_bench.ts).
 * - `columns`: reduced along its first axis, one invocation per column and chunk of at most
 *   {@linkcode COLUMN_CHUNK} rows (neighbouring invocations read neighbouring columns); with
 *   several chunks, passes over the chunks' partials follow.
 *
 * Device quirk: Mesa's llvmpipe stops a shader invocation's loops after 65,535 iterations in all
 * (silently: a loop of 70,000 additions returns 65,535), so no invocation here loops more than
 * {@linkcode LOOP_LIMIT} times: chunks are sized for it.
 *
 * @module
 */

import type { ElementType } from "./elementwise.ts";

/** A generated WGSL kernel (the WebGPU backend's kernel shape). */
export interface GeneratedKernel {
  readonly id: string;
  readonly source: string;
}

/** What a reduction computes (see the module doc). */
export interface ReductionProgram {
  /** Name in errors and logs. */
  readonly name: string;
  /** Inputs by name with their element types, in binding order. */
  readonly inputs: readonly (readonly [string, ElementType])[];
  /** Uniform params by name with their types. */
  readonly params: readonly (readonly [string, ElementType])[];
  /** The value of element `i` (reads inputs by name, params by name, `i`). */
  readonly map: string;
  /** Folds `a` and `b` (values of `type`). */
  readonly combine: string;
  /** The value folding starts from. */
  readonly identity: string;
  /** The output from the folded `r` and the element count `count` (u32). */
  readonly finish: string;
  /** The type of values and of the output. */
  readonly type: ElementType;
}

/**
 * Infinities and NaN for identities and results. Quirk: an infinite (or NaN) constant
 * expression is a shader-creation error in WGSL (Chrome's Tint refuses
 * `bitcast<f32>(0xff800000u)`, naga lets it through), so they are bitcast from a variable, at
 * run time. Custom reductions may call them too.
 */
const SPECIAL_VALUES = `fn neg_inf() -> f32 { var bits = 0xff800000u; return bitcast<f32>(bits); }
fn pos_inf() -> f32 { var bits = 0x7f800000u; return bitcast<f32>(bits); }
fn nan() -> f32 { var bits = 0x7fc00000u; return bitcast<f32>(bits); }`;

/**
 * Names the generated code defines besides the inputs' and params' (the launch's own params
 * among them: a user param `cols` made the kernel fail to compile at the first read).
 */
export const RESERVED_NAMES: readonly string[] = [
  "value",
  "combine",
  "finish",
  "folded",
  "neg_inf",
  "pos_inf",
  "nan",
  "per_group",
  "cols",
  "rows",
  "count",
  "chunks",
];

/** The kernel shapes of {@linkcode reductionKernel}. */
export type ReductionShape = "rows" | "columns";

/** Workgroup width of the folding kernels. */
export const REDUCE_WORKGROUP = 32;
/** Workgroup width of the column kernel (no workgroup memory). */
export const COLUMN_WORKGROUP = 64;
/** Most loop iterations of one invocation (under llvmpipe's limit of 65,535, see above). */
export const LOOP_LIMIT = 4096;
/** Rows one invocation of the column kernel folds. */
export const COLUMN_CHUNK = LOOP_LIMIT;

/**
 * The kernel of one shape. KernelArguments: the inputs (read-only), `out`, the uniform `params`
 * (`n`: elements, `per_group`: elements per workgroup, `cols`, `rows`, `count`: the elements each
 * output folds, for `finish`, `chunks`: of the column kernel; then the user's params).
 * `finishes`: whether this launch applies `finish` (a pass that leaves partials does not).
 */
export function reductionKernel(
  program: ReductionProgram,
  shape: ReductionShape,
  finishes: boolean,
  workgroup: number = REDUCE_WORKGROUP,
): GeneratedKernel {
  const { inputs, params, type } = program;
  const declarations = [
    ...inputs.map(([name, t], b) =>
      `@group(0) @binding(${b}) var<storage, read> in_${name}: array<${t}>;`
    ),
    `@group(0) @binding(${inputs.length}) var<storage, read_write> out: array<${type}>;`,
    `struct Params { n: u32, per_group: u32, cols: u32, rows: u32, count: u32, chunks: u32${
      params.map(([name, t]) => `, ${name}: ${t}`).join("")
    } }`,
    `@group(0) @binding(${inputs.length + 1}) var<uniform> params: Params;`,
  ].join("\n");
  const value = `fn value(i: u32) -> ${type} {
${inputs.map(([name]) => `  let ${name} = in_${name}[i];`).join("\n")}
${params.map(([name]) => `  let ${name} = params.${name};`).join("\n")}
  return ${type}(${program.map});
}
fn combine(a: ${type}, b: ${type}) -> ${type} { return ${program.combine}; }
${SPECIAL_VALUES}
fn finish(r: ${type}, count: u32) -> ${type} { return ${finishes ? program.finish : "r"}; }`;
  const id = `${program.name}_${shape}${finishes ? "" : "_partial"}_${workgroup}`;
  if (shape === "columns") {
    return {
      id,
      source: `${declarations}
${value}
@compute @workgroup_size(${COLUMN_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u) {
  // Invocation g folds column g % cols over chunk g / cols of ${COLUMN_CHUNK} rows into out[g].
  if (gid.x >= params.cols * params.chunks) { return; }
  let col = gid.x % params.cols;
  let first = (gid.x / params.cols) * ${COLUMN_CHUNK}u;
  let last = min(first + ${COLUMN_CHUNK}u, params.rows);
  var acc: ${type} = ${program.identity};
  for (var row = first; row < last; row = row + 1u) {
    acc = combine(acc, value(row * params.cols + col));
  }
  out[gid.x] = finish(acc, params.count);
}`,
    };
  }
  // Workgroup g folds chunk g % chunks (per_group elements) of row g / chunks into out[g].
  const w = workgroup;
  const range = `let row = group / params.chunks; let part = group % params.chunks;
  let start = row * params.cols + part * params.per_group;
  let end = row * params.cols + min(params.cols, (part + 1u) * params.per_group);`;
  return {
    id,
    source: `${declarations}
${value}
var<workgroup> folded: array<${type}, ${w}>;
@compute @workgroup_size(${w})
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lid: u32) {
  let group = wid.x;
  ${range}
  var acc: ${type} = ${program.identity};
  for (var i = start + lid; i < end; i = i + ${w}u) { acc = combine(acc, value(i)); }
  folded[lid] = acc;
  workgroupBarrier();
  for (var stride = ${w / 2}u; stride > 0u; stride = stride / 2u) {
    if (lid < stride) { folded[lid] = combine(folded[lid], folded[lid + stride]); }
    workgroupBarrier();
  }
  if (lid == 0u) { out[group] = finish(folded[0], params.count); }
}`,
  };
}

/** The program that folds a first pass's partials (already mapped) the way `program` does. */
export function partialsProgram(program: ReductionProgram): ReductionProgram {
  return { ...program, inputs: [["partial", program.type]], map: "partial" };
}

/**
 * A built-in reduction operator (`mean` needs f32 elements).
 *
 * @example
 * ```ts
 * import type { ReduceOp } from "@gpucompute/runtime";
 * const op: ReduceOp = "max";
 * ```
 */
export type ReduceOp = "sum" | "max" | "min" | "mean";

/** Identities as WGSL expressions: the type's lowest and highest values for max and min. */
const IDENTITY: Record<ElementType, Record<"sum" | "max" | "min", string>> = {
  f32: { sum: "0.0", max: "neg_inf()", min: "pos_inf()" },
  i32: { sum: "0i", max: "bitcast<i32>(0x80000000u)", min: "bitcast<i32>(0x7fffffffu)" },
  u32: { sum: "0u", max: "0u", min: "0xffffffffu" },
};

const COMBINE = { sum: "a + b", max: "max(a, b)", min: "min(a, b)" } as const;

/** Whether the f32 `v` is NaN, by its bits (WGSL may assume no NaN in float comparisons). */
const isNan = (v: string) => `(bitcast<u32>(${v}) & 0x7fffffffu) > 0x7f800000u`;

/**
 * `combine` of an operator: f32 max and min propagate NaN, as NumPy's and `scan`'s (WGSL's `max`
 * and `min`, and CUDA's, may return the other operand), and order -0 below +0 (`PICK_F32`), as
 * `segmentReduce` orders them and IEEE 754's `maximum` does. The text is valid WGSL and CUDA C++.
 */
function combineOf(op: "sum" | "max" | "min", type: ElementType): string {
  if (type !== "f32" || op === "sum") return COMBINE[op];
  return `select(${PICK_F32[op]}, a + b, ${isNan("a")} || ${isNan("b")})`;
}

/**
 * The f32 `v`'s bits as a u32 that orders as the floats do, -0 just below +0 (NaN aside): the sign
 * bit set flips every bit, else only the sign.
 */
const orderedBits = (v: string) =>
  `(bitcast<u32>(${v}) ^ select(0x80000000u, 0xffffffffu, bitcast<u32>(${v}) >= 0x80000000u))`;

/**
 * f32 max and min of two numbers picked by their ordered bits, not by `max`/`min`/`==`: a device
 * may flush subnormal operands of float instructions to zero (NVIDIA's Vulkan driver does; WGSL
 * allows it), which made the maximum of one subnormal 0 on an H200; a selection moves the bits
 * unchanged. Of -0 and +0, max picks +0 and min -0 (WGSL's `max` and `min` leave a zero's sign to
 * the device: llvmpipe returns the second operand); equal bits pick `a`.
 * Valid WGSL and CUDA C++ (the CUDA prelude's `select` and `bitcast`).
 */
export const PICK_F32 = {
  max: `select(a, b, ${orderedBits("b")} > ${orderedBits("a")})`,
  min: `select(a, b, ${orderedBits("b")} < ${orderedBits("a")})`,
} as const;

/**
 * The program of a built-in operator over `type` (with `product`: the dot product of inputs `a`
 * and `b`, else input `x`): what `reduce` and `dot` run and the tuner's reduce set times.
 */
export function operatorProgram(
  op: ReduceOp,
  type: ElementType,
  product: boolean,
): ReductionProgram {
  const fold = op === "mean" ? "sum" : op;
  return {
    name: product ? `dot_${type}` : `${op}_${type}`,
    inputs: product ? [["a", type], ["b", type]] : [["x", type]],
    params: [],
    map: product ? "a * b" : "x",
    combine: combineOf(fold, type),
    identity: IDENTITY[type][fold],
    // The mean of no element is NaN (no division by zero).
    finish: op === "mean" ? "select(nan(), r / f32(count), count > 0u)" : "r",
    type,
  };
}
