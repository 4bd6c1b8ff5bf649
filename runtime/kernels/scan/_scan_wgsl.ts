/**
 * The WGSL of scans (the kernel text, apart from the launch in `scan.ts`, so another backend can
 * give its own text for the same two passes).
 *
 * A segment of `count` elements (see `_grid.ts` for layouts) is cut into blocks of
 * {@linkcode SCAN_BLOCK} elements; workgroup `g` works on block `g % blocks` of segment
 * `g / blocks`, each of its {@linkcode SCAN_WORKGROUP} invocations on {@linkcode SCAN_PER_THREAD}
 * consecutive elements (no invocation loops more than that: llvmpipe's loop limit).
 *
 * - `totals`: each block's fold into `partial[g]`.
 * - `scan`: each block scanned, starting from `offsets[g]` (the exclusive scan of the totals,
 *   when there are several blocks per segment) — inclusive or exclusive.
 * - `rows`: segments of at most {@linkcode SCAN_ROW_MAX} elements, one invocation scanning each
 *   in order (a workgroup per short row would mostly wait at barriers: 70,000 rows of 3 took
 *   ~2.5 s on llvmpipe that way).
 *
 * @module
 */

import type { ElementType } from "../elementwise.ts";
import { BITS_F32, bitsOf, type GeneratedKernel, SEGMENT_INDEX } from "../_grid.ts";

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

/** Invocations per workgroup. */
export const SCAN_WORKGROUP = 64;
/** Consecutive elements per invocation. */
export const SCAN_PER_THREAD = 32;
/** Elements per block (per workgroup). */
export const SCAN_BLOCK = SCAN_WORKGROUP * SCAN_PER_THREAD;

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

/** `combine(a, b)`: f32 max and min propagate NaN (WGSL's `max` and `min` need not). */
function combineOf(op: ScanOp, type: ElementType): string {
  if (op === "sum") return "a + b";
  if (op === "prod") return "a * b";
  if (type !== "f32") return `${op}(a, b)`;
  return `select(${op}(a, b), a + b, is_nan(a) || is_nan(b))`;
}

function header(op: ScanOp, type: ElementType, shared = true): string {
  return `struct Params { count: u32, inner: u32, blocks: u32, offsets: u32 }
@group(0) @binding(2) var<uniform> params: Params;
${SEGMENT_INDEX}
${BITS_F32}
fn is_nan(v: f32) -> bool { return (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u; }
fn identity() -> ${type} { return ${bitsOf(type, IDENTITY_BITS[type][op])}; }
fn combine(a: ${type}, b: ${type}) -> ${type} { return ${combineOf(op, type)}; }
${shared ? `var<workgroup> shared_values: array<${type}, ${SCAN_WORKGROUP}>;` : ""}`;
}

/**
 * The `rows` pass: bindings x (read), y (out), params, where `params.blocks` is the number of
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
${header(op, type, false)}
@compute @workgroup_size(${SCAN_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let segment = gid.x;
  if (segment >= params.blocks) { return; }
  let base = at(segment, 0u);
  var acc = identity();
  for (var k = 0u; k < min(params.count, ${SCAN_ROW_MAX}u); k = k + 1u) { ${write} }
}`,
  };
}

/** The `totals` pass: bindings x (read), partial (one per workgroup), params. */
export function scanTotalsKernel(op: ScanOp, type: ElementType): GeneratedKernel {
  const w = SCAN_WORKGROUP;
  return {
    id: `scan_totals_${op}_${type}`,
    source: `@group(0) @binding(0) var<storage, read> x: array<${type}>;
@group(0) @binding(1) var<storage, read_write> partial: array<${type}>;
${header(op, type)}
@compute @workgroup_size(${w})
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lid: u32) {
  let segment = wid.x / params.blocks;
  let base = at(segment, 0u);
  let first = (wid.x % params.blocks) * ${SCAN_BLOCK}u;
  var acc = identity();
  for (var j = 0u; j < ${SCAN_PER_THREAD}u; j = j + 1u) {
    let k = first + j * ${w}u + lid;
    if (k < params.count) { acc = combine(acc, x[base + k * params.inner]); }
  }
  shared_values[lid] = acc;
  workgroupBarrier();
  for (var stride = ${w / 2}u; stride > 0u; stride = stride / 2u) {
    if (lid < stride) { shared_values[lid] = combine(shared_values[lid], shared_values[lid + stride]); }
    workgroupBarrier();
  }
  if (lid == 0u) { partial[wid.x] = shared_values[0]; }
}`,
  };
}

/**
 * The `scan` pass: bindings x (read), y (out), params, offsets (read; used when
 * `params.offsets` is 1).
 */
export function scanBlocksKernel(
  op: ScanOp,
  type: ElementType,
  exclusive: boolean,
): GeneratedKernel {
  const w = SCAN_WORKGROUP;
  const e = SCAN_PER_THREAD;
  const write = exclusive
    ? "let i = base + k * params.inner; let v = x[i]; y[i] = acc; acc = combine(acc, v);"
    : "let i = base + k * params.inner; acc = combine(acc, x[i]); y[i] = acc;";
  return {
    id: `scan_blocks_${op}_${type}${exclusive ? "_exclusive" : ""}`,
    source: `@group(0) @binding(0) var<storage, read> x: array<${type}>;
@group(0) @binding(1) var<storage, read_write> y: array<${type}>;
@group(0) @binding(3) var<storage, read> offsets: array<${type}>;
${header(op, type)}
@compute @workgroup_size(${w})
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lid: u32) {
  let segment = wid.x / params.blocks;
  let base = at(segment, 0u);
  let first = (wid.x % params.blocks) * ${SCAN_BLOCK}u + lid * ${e}u;
  var total = identity();
  for (var j = 0u; j < ${e}u; j = j + 1u) {
    let k = first + j;
    if (k < params.count) { total = combine(total, x[base + k * params.inner]); }
  }
  // Inclusive scan of the invocations' totals (Hillis-Steele, ${Math.log2(w)} steps).
  shared_values[lid] = total;
  workgroupBarrier();
  for (var offset = 1u; offset < ${w}u; offset = offset * 2u) {
    var before = identity();
    if (lid >= offset) { before = shared_values[lid - offset]; }
    workgroupBarrier();
    shared_values[lid] = combine(before, shared_values[lid]);
    workgroupBarrier();
  }
  var acc = identity();
  if (params.offsets == 1u) { acc = offsets[wid.x]; }
  if (lid > 0u) { acc = combine(acc, shared_values[lid - 1u]); }
  for (var j = 0u; j < ${e}u; j = j + 1u) {
    let k = first + j;
    if (k < params.count) { ${write} }
  }
}`,
  };
}
