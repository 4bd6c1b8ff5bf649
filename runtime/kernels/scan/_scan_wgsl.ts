/**
 * The WGSL of scans (the kernel text, apart from the launch in `scan.ts`, so another backend can
 * give its own text for the same two passes).
 *
 * A reduce-then-scan with no workgroup memory and no barrier (on llvmpipe a barrier switches
 * between the workgroup's invocations, and that cost more than the memory traffic). A segment of
 * `count` elements (see `_grid.ts` for layouts) is cut into runs of {@linkcode scanRun}
 * elements; invocation `t` works on run `t % runs` of segment `t / runs`, a loop of at most
 * {@linkcode SCAN_UNITS} units (far below llvmpipe's loop limit). A unit is a vec4 where a
 * segment is contiguous and whole vec4s (`inner` 1, `count` divisible by 4: one load or store
 * moves four elements, and on llvmpipe the count of loads and stores is what costs), else one
 * element.
 *
 * - `totals`: each run's fold into `partial[t]` (reads the input once).
 * - `scan`: each run scanned from `offsets[t]` (the exclusive scan of the run totals, when a
 *   segment has several runs), inclusive or exclusive (reads the input once more and writes the
 *   output once: 12 bytes of traffic an element, a copy's 8).
 * - `rows`: segments of at most {@linkcode SCAN_ROW_MAX} elements, one invocation scanning each
 *   in order (a workgroup per short row would mostly wait at barriers: 70,000 rows of 3 took
 *   ~2.5 s on llvmpipe that way).
 *
 * @module
 */

import type { ElementType } from "../elementwise.ts";
import { BITS_F32, bitsOf, type GeneratedKernel, SEGMENT_INDEX } from "../_grid.ts";
import { PICK_F32 } from "../_reduce_kernels.ts";

/**
 * A scan operator.
 *
 * @example
 * ```ts
 * import type { ScanOp } from "@gpucompute/runtime";
 * const op: ScanOp = "max";
 * ```
 */
export type ScanOp = "sum" | "max" | "min" | "prod";

/** Invocations per workgroup (the passes share no workgroup memory). */
export const SCAN_WORKGROUP = 64;
/** Units (vec4s, or single elements) per run: one invocation's work. */
export const SCAN_UNITS = 16;

/** Elements per run: 64 with vec4 units, 16 with single elements. */
export function scanRun(vector: boolean): number {
  return SCAN_UNITS * (vector ? 4 : 1);
}

/** The longest segment that the `rows` kernel scans in one invocation. */
export const SCAN_ROW_MAX = 64;

/** Identity bit patterns: the type's extremes for max and min, -Infinity/+Infinity for f32. */
const IDENTITY_BITS: Record<ElementType, Record<ScanOp, number>> = {
  f32: { sum: 0, prod: 0x3f800000, max: 0xff800000, min: 0x7f800000 },
  i32: { sum: 0, prod: 1, max: 0x80000000, min: 0x7fffffff },
  u32: { sum: 0, prod: 1, max: 0, min: 0xffffffff },
};

/** The bit pattern of the identity of `op` over `type` (the CUDA text uses it too). */
export function scanIdentityBits(op: ScanOp, type: ElementType): number {
  return IDENTITY_BITS[type][op];
}

/** The identity of `op` over `type` (what an exclusive scan starts with). */
export function scanIdentity(op: ScanOp, type: ElementType): number {
  const bits = IDENTITY_BITS[type][op];
  if (type === "u32") return bits >>> 0;
  if (type === "i32") return bits | 0;
  return new Float32Array(new Uint32Array([bits]).buffer)[0];
}

/**
 * `combine(a, b)`: f32 max and min propagate NaN (WGSL's `max` and `min` need not) and order -0
 * below +0 (`PICK_F32`).
 */
function combineOf(op: ScanOp, type: ElementType): string {
  if (op === "sum") return "a + b";
  if (op === "prod") return "a * b";
  if (type !== "f32") return `${op}(a, b)`;
  return `select(${PICK_F32[op]}, a + b, is_nan(a) || is_nan(b))`;
}

function header(op: ScanOp, type: ElementType): string {
  return `struct Params { count: u32, inner: u32, runs: u32, offsets: u32, threads: u32 }
@group(0) @binding(2) var<uniform> params: Params;
${SEGMENT_INDEX}
${BITS_F32}
fn is_nan(v: f32) -> bool { return (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u; }
fn identity() -> ${type} { return ${bitsOf(type, IDENTITY_BITS[type][op])}; }
fn combine(a: ${type}, b: ${type}) -> ${type} { return ${combineOf(op, type)}; }`;
}

/**
 * The `rows` pass: bindings x (read), y (out), params, where `params.threads` is the number of
 * segments (each at most {@linkcode SCAN_ROW_MAX} elements), one invocation each.
 */
export function scanRowsKernel(op: ScanOp, type: ElementType, exclusive: boolean): GeneratedKernel {
  const write = exclusive
    ? "let i = base + k * params.inner; let v = x[i]; y[i] = acc; acc = combine(acc, v);"
    : "let i = base + k * params.inner; acc = combine(acc, x[i]); y[i] = acc;";
  return {
    id: `scan_rows_${op}_${type}${exclusive ? "_exclusive" : ""}`,
    source: `@group(0) @binding(0) var<storage, read> x: array<${type}>;
@group(0) @binding(1) var<storage, read_write> y: array<${type}>;
${header(op, type)}
@compute @workgroup_size(${SCAN_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let segment = gid.x;
  if (segment >= params.threads) { return; }
  let base = at(segment, 0u);
  var acc = identity();
  for (var k = 0u; k < min(params.count, ${SCAN_ROW_MAX}u); k = k + 1u) { ${write} }
}`,
  };
}

/**
 * The `totals` pass (bindings x (read), partial (one per run), params) or the `scan` pass (x, y
 * (out), params, offsets (one per run, read when `params.offsets` is 1)); `params.threads` is
 * the number of runs in all. `vector`: units are vec4s (`inner` must be 1 and `count` divisible
 * by 4).
 */
export function scanPassKernel(
  op: ScanOp,
  type: ElementType,
  pass: "totals" | "scan",
  exclusive: boolean,
  vector: boolean,
): GeneratedKernel {
  const unit = vector ? `vec4<${type}>` : type;
  const loop = vector
    ? "for (var q = first / 4u; q < end / 4u; q = q + 1u) { let i = base / 4u + q;"
    : "for (var k = first; k < end; k = k + 1u) { let i = base + k * params.inner;";
  // Each run folds left to right in the totals and the scan alike.
  const body = pass === "totals"
    ? `var acc = identity();
  ${loop} let v = x[i]; acc = ${
      vector ? "combine(combine(combine(combine(acc, v.x), v.y), v.z), v.w)" : "combine(acc, v)"
    }; }
  partial[t] = acc;`
    : `var acc = identity();
  if (params.offsets == 1u) { acc = offsets[t]; }
  ${loop}
    let v = x[i];
    ${
      vector
        ? `let s0 = combine(acc, v.x);
    let s1 = combine(s0, v.y);
    let s2 = combine(s1, v.z);
    let s3 = combine(s2, v.w);
    y[i] = ${exclusive ? "vec4(acc, s0, s1, s2)" : "vec4(s0, s1, s2, s3)"};
    acc = s3;`
        : exclusive
        ? "y[i] = acc;\n    acc = combine(acc, v);"
        : "acc = combine(acc, v);\n    y[i] = acc;"
    }
  }`;
  const bindings = pass === "totals"
    ? `@group(0) @binding(1) var<storage, read_write> partial: array<${type}>;`
    : `@group(0) @binding(1) var<storage, read_write> y: array<${unit}>;
@group(0) @binding(3) var<storage, read> offsets: array<${type}>;`;
  const name = pass === "totals" ? "totals" : `runs${exclusive ? "_exclusive" : ""}`;
  const run = scanRun(vector);
  return {
    id: `scan_${name}_${op}_${type}${vector ? "_vec4" : ""}`,
    source: `@group(0) @binding(0) var<storage, read> x: array<${unit}>;
${bindings}
${header(op, type)}
@compute @workgroup_size(${SCAN_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let t = gid.x;
  if (t >= params.threads) { return; }
  let segment = t / params.runs;
  let base = at(segment, 0u);
  let first = (t % params.runs) * ${run}u;
  let end = min(first + ${run}u, params.count);
  ${body}
}`,
  };
}
