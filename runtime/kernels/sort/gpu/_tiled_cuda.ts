/**
 * The CUDA C of the radix sort's passes: the same blocks, bindings, params and digit order as
 * their WGSL (`_tiled_wgsl.ts`), so `_tiled.ts` launches either the same way.
 *
 * The scatter's block sort is the WGSL's (one-bit splits, each a Hillis-Steele scan of the
 * threads' zeros in shared memory), with `__syncthreads()` for `workgroupBarrier()`.
 *
 * @module
 */

import { type CudaBuffer, cudaFrame, type CudaText } from "../../_backend_kernels.ts";
import type { ElementType } from "../../elementwise.ts";
import type { DigitSource } from "../_radix_wgsl.ts";
import {
  TILED_BITS,
  TILED_BLOCK,
  TILED_DIGITS,
  TILED_PER_THREAD,
  TILED_WORKGROUP,
} from "./_tiled_wgsl.ts";

const PARAMS: readonly (readonly [string, ElementType])[] = [
  ["n", "u32"],
  ["shift", "u32"],
  ["blocks", "u32"],
  ["cols", "u32"],
];

const U = "unsigned int";

function digitLambda(source: DigitSource): string {
  const of = source === "key" ? "keys_in[i]" : "payload_in[i] / params.cols";
  return `auto digit = [&](${U} i) -> ${U} { return ((${of}) >> params.shift) & ${
    TILED_DIGITS - 1
  }u; };`;
}

/** The histogram pass. Buffers: keys_in or payload_in, counts. */
export function histogramCuda(source: DigitSource): CudaText {
  const w = TILED_WORKGROUP;
  const d = TILED_DIGITS;
  const input = source === "key" ? "keys_in" : "payload_in";
  const entry = "radix_histogram";
  const buffers: CudaBuffer[] = [[input, U, true], ["counts", U, false]];
  return {
    id: `radix8_histogram_${source}.cuda`,
    entryPoint: entry,
    blockSize: [w, 1, 1],
    params: PARAMS,
    source: `${cudaFrame(entry, buffers, PARAMS)}
  ${digitLambda(source)}
  __shared__ ${U} block_counts[${d}];
  const ${U} group = global_block();
  const ${U} lid = threadIdx.x;
  if (lid < ${d}u) block_counts[lid] = 0u;
  __syncthreads();
  const ${U} first = group * ${TILED_BLOCK}u;
  for (${U} j = 0u; j < ${TILED_PER_THREAD}u; j++) {
    const ${U} i = first + j * ${w}u + lid;
    if (i < params.n) atomicAdd(&block_counts[digit(i)], 1u);
  }
  __syncthreads();
  if (lid < ${d}u) counts[lid * params.blocks + group] = block_counts[lid];
}
`,
  };
}

/** The inclusive sum of `value` over the block's threads into `name`, their total into `total`. */
function blockScan(value: string, name: string, total: string): string {
  const w = TILED_WORKGROUP;
  return `  scan_buf[lid] = ${value};
  __syncthreads();
  for (${U} o = 1u; o < ${w}u; o <<= 1) {
    const ${U} t = lid >= o ? scan_buf[lid - o] : 0u;
    __syncthreads();
    scan_buf[lid] += t;
    __syncthreads();
  }
  const ${U} ${name} = scan_buf[lid];
  const ${U} ${total} = scan_buf[${w - 1}u];
  __syncthreads();`;
}

/**
 * The scatter pass (see the WGSL's). Buffers: keys_in, payload_in (with a payload), counts,
 * offsets, keys_out, payload_out (with a payload).
 */
export function scatterCuda(source: DigitSource, payload: boolean): CudaText {
  const w = TILED_WORKGROUP;
  const e = TILED_PER_THREAD;
  const last = TILED_DIGITS - 1;
  const entry = "radix_scatter";
  const buffers: CudaBuffer[] = [
    ["keys_in", U, true],
    ...(payload ? [["payload_in", U, true] as const] : []),
    ["counts", U, true],
    ["offsets", U, true],
    ["keys_out", U, false],
    ...(payload ? [["payload_out", U, false] as const] : []),
  ];
  const of = source === "key" ? "k" : "p / params.cols";
  const load = (from: string, at: string) =>
    `k[j] = ${from === "tile" ? "tile_keys" : "keys_in"}[${at}];${
      payload ? ` p[j] = ${from === "tile" ? "tile_payload" : "payload_in"}[${at}];` : ""
    }`;
  return {
    id: `radix8_scatter_${source}${payload ? "_payload" : ""}.cuda`,
    entryPoint: entry,
    blockSize: [w, 1, 1],
    params: PARAMS,
    source: `${cudaFrame(entry, buffers, PARAMS)}
  auto digit_of = [&](${U} k, ${U} p) -> ${U} { (void)p; return ((${of}) >> params.shift) & ${last}u; };
  __shared__ ${U} tile_keys[${TILED_BLOCK}];${
      payload ? `\n  __shared__ ${U} tile_payload[${TILED_BLOCK}];` : ""
    }
  __shared__ ${U} scan_buf[${w}];
  __shared__ ${U} starts[${TILED_DIGITS}];
  const ${U} group = global_block();
  const ${U} lid = threadIdx.x;
  const ${U} first = group * ${TILED_BLOCK}u;
  const ${U} valid = min(${TILED_BLOCK}u, params.n - first);
  ${U} k[${e}];
  ${U} p[${e}];
  ${U} d[${e}];
  for (${U} j = 0u; j < ${e}u; j++) {
    const ${U} at = lid * ${e}u + j;
    k[j] = 0u;
    p[j] = 0u;
    d[j] = ${last}u;
    if (at < valid) { ${load("input", "first + at")} d[j] = digit_of(k[j], p[j]); }
  }
  for (${U} bit = 0u; bit < ${TILED_BITS}u; bit++) {
    ${U} zeros = 0u;
    for (${U} j = 0u; j < ${e}u; j++) zeros += 1u - ((d[j] >> bit) & 1u);
  ${blockScan("zeros", "inclusive", "all_zeros").replaceAll("\n", "\n  ")}
    ${U} z = inclusive - zeros;
    for (${U} j = 0u; j < ${e}u; j++) {
      const ${U} at = lid * ${e}u + j;
      ${U} to = z;
      if (((d[j] >> bit) & 1u) == 0u) z++; else to = all_zeros + at - z;
      tile_keys[to] = k[j];${payload ? "\n      tile_payload[to] = p[j];" : ""}
    }
    __syncthreads();
    for (${U} j = 0u; j < ${e}u; j++) {
      const ${U} at = lid * ${e}u + j;
      ${load("tile", "at")}
      d[j] = at < valid ? digit_of(k[j], p[j]) : ${last}u;
    }
    __syncthreads();
  }
  const ${U} mine = counts[lid * params.blocks + group];
${blockScan("mine", "below", "block_total")}
  (void)block_total;
  starts[lid] = below - mine;
  __syncthreads();
  for (${U} j = 0u; j < ${e}u; j++) {
    const ${U} at = j * ${w}u + lid;
    if (at < valid) {
      const ${U} key = tile_keys[at];
      const ${U} carried = ${payload ? "tile_payload[at]" : "0u"};
      const ${U} g = digit_of(key, carried);
      const ${U} to = offsets[g * params.blocks + group] + at - starts[g];
      keys_out[to] = key;${payload ? "\n      payload_out[to] = carried;" : ""}
    }
  }
}
`,
  };
}
