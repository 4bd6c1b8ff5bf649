/**
 * The CUDA C of scans: the same two passes, blocks, params and bindings as their WGSL
 * (`_scan_wgsl.ts`), so `scan.ts` launches either the same way.
 *
 * @module
 */

import { C_TYPE, cudaFrame, type CudaText } from "../_backend_kernels.ts";
import type { ElementType } from "../elementwise.ts";
import { SCAN_PER_THREAD, SCAN_WORKGROUP, scanIdentityBits, type ScanOp } from "./_scan_wgsl.ts";

const PARAMS: readonly (readonly [string, ElementType])[] = [
  ["count", "u32"],
  ["inner", "u32"],
  ["blocks", "u32"],
  ["offsets", "u32"],
];

/** `combine(a, b)`: f32 max and min propagate NaN (as the WGSL's). */
function combineOf(op: ScanOp, type: ElementType): string {
  if (op === "sum") return "a + b";
  if (op === "prod") return "a * b";
  if (type !== "f32") return `${op}(a, b)`;
  return `(is_nan(a) || is_nan(b)) ? a + b : ${op}(a, b)`;
}

function helpers(op: ScanOp, type: ElementType): string {
  const t = C_TYPE[type];
  return `
  auto at = [&](unsigned int segment, unsigned int k) -> unsigned int {
    return (segment / params.inner) * params.count * params.inner + segment % params.inner + k * params.inner;
  };
  auto is_nan = [](float v) -> bool { return (__float_as_uint(v) & 0x7fffffffu) > 0x7f800000u; };
  (void)is_nan;
  auto identity = []() -> ${t} { return bitcast<${t}>(${scanIdentityBits(op, type) >>> 0}u); };
  auto combine = [&](${t} a, ${t} b) -> ${t} { return ${combineOf(op, type)}; };
  __shared__ ${t} shared_values[${SCAN_WORKGROUP}];
  const unsigned int group = global_block();
  const unsigned int lid = threadIdx.x;
  const unsigned int segment = group / params.blocks;
  const unsigned int base = at(segment, 0u);`;
}

/** The `totals` pass: x, partial; params as `scanTotalsKernel`. */
export function scanTotalsCuda(op: ScanOp, type: ElementType): CudaText {
  const t = C_TYPE[type];
  const w = SCAN_WORKGROUP;
  const entry = "scan_totals";
  const buffers = [["x", t, true], ["partial", t, false]] as const;
  return {
    id: `scan_totals_${op}_${type}.cuda`,
    entryPoint: entry,
    blockSize: [w, 1, 1],
    params: PARAMS,
    source: `${cudaFrame(entry, buffers, PARAMS)}${helpers(op, type)}
  const unsigned int first = (group % params.blocks) * ${w * SCAN_PER_THREAD}u;
  ${t} acc = identity();
  for (unsigned int j = 0; j < ${SCAN_PER_THREAD}u; j++) {
    const unsigned int k = first + j * ${w}u + lid;
    if (k < params.count) acc = combine(acc, x[base + k * params.inner]);
  }
  shared_values[lid] = acc;
  __syncthreads();
  for (unsigned int stride = ${w / 2}u; stride > 0u; stride /= 2u) {
    if (lid < stride) shared_values[lid] = combine(shared_values[lid], shared_values[lid + stride]);
    __syncthreads();
  }
  if (lid == 0u) partial[group] = shared_values[0];
}
`,
  };
}

/** The `scan` pass: x, y, offsets; params as `scanBlocksKernel`. */
export function scanBlocksCuda(op: ScanOp, type: ElementType, exclusive: boolean): CudaText {
  const t = C_TYPE[type];
  const w = SCAN_WORKGROUP;
  const e = SCAN_PER_THREAD;
  const entry = "scan_blocks";
  const buffers = [["x", t, true], ["y", t, false], ["offsets", t, true]] as const;
  const write = exclusive
    ? `const unsigned int i = base + k * params.inner; const ${t} v = x[i]; y[i] = acc; acc = combine(acc, v);`
    : "const unsigned int i = base + k * params.inner; acc = combine(acc, x[i]); y[i] = acc;";
  return {
    id: `scan_blocks_${op}_${type}${exclusive ? "_exclusive" : ""}.cuda`,
    entryPoint: entry,
    blockSize: [w, 1, 1],
    params: PARAMS,
    source: `${cudaFrame(entry, buffers, PARAMS)}${helpers(op, type)}
  const unsigned int first = (group % params.blocks) * ${w * e}u + lid * ${e}u;
  ${t} total = identity();
  for (unsigned int j = 0; j < ${e}u; j++) {
    const unsigned int k = first + j;
    if (k < params.count) total = combine(total, x[base + k * params.inner]);
  }
  shared_values[lid] = total;
  __syncthreads();
  for (unsigned int offset = 1u; offset < ${w}u; offset *= 2u) {
    ${t} before = identity();
    if (lid >= offset) before = shared_values[lid - offset];
    __syncthreads();
    shared_values[lid] = combine(before, shared_values[lid]);
    __syncthreads();
  }
  ${t} acc = identity();
  if (params.offsets == 1u) acc = offsets[group];
  if (lid > 0u) acc = combine(acc, shared_values[lid - 1u]);
  for (unsigned int j = 0; j < ${e}u; j++) {
    const unsigned int k = first + j;
    if (k < params.count) { ${write} }
  }
}
`,
  };
}
