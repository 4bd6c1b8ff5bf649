/**
 * The CUDA C of the radix sort's passes: the same blocks, bindings, params and digit order as
 * their WGSL (`_tiled_wgsl.ts`), so `_tiled.ts` launches either the same way.
 *
 * The scatter keeps each thread's digit counts in shared memory (`before[digit * 64 + thread]`,
 * one column per thread) rather than in a per-thread array: the counts, their scan across the
 * block and the running destinations all live there.
 *
 * @module
 */

import { type CudaBuffer, cudaFrame, type CudaText } from "../../_backend_kernels.ts";
import type { ElementType } from "../../elementwise.ts";
import type { DigitSource } from "../_radix_wgsl.ts";
import { TILED_BLOCK, TILED_DIGITS, TILED_PER_THREAD, TILED_WORKGROUP } from "./_tiled_wgsl.ts";

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
    id: `radix4_histogram_${source}.cuda`,
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

/**
 * The scatter pass. Buffers: keys_in, payload_in (with a payload), offsets, keys_out,
 * payload_out (with a payload).
 */
export function scatterCuda(source: DigitSource, payload: boolean): CudaText {
  const w = TILED_WORKGROUP;
  const e = TILED_PER_THREAD;
  const d = TILED_DIGITS;
  const entry = "radix_scatter";
  const buffers: CudaBuffer[] = [
    ["keys_in", U, true],
    ...(payload ? [["payload_in", U, true] as const] : []),
    ["offsets", U, true],
    ["keys_out", U, false],
    ...(payload ? [["payload_out", U, false] as const] : []),
  ];
  return {
    id: `radix4_scatter_${source}${payload ? "_payload" : ""}.cuda`,
    entryPoint: entry,
    blockSize: [w, 1, 1],
    params: PARAMS,
    source: `${cudaFrame(entry, buffers, PARAMS)}
  ${digitLambda(source)}
  // before[digit * ${w} + thread]: the thread's keys of that digit, then the block's keys of that
  // digit before the thread's, then where the thread's next key of that digit goes.
  __shared__ ${U} before[${d * w}];
  const ${U} group = global_block();
  const ${U} lid = threadIdx.x;
  const ${U} first = group * ${TILED_BLOCK}u + lid * ${e}u;
  for (${U} g = 0u; g < ${d}u; g++) before[g * ${w}u + lid] = 0u;
  for (${U} j = 0u; j < ${e}u; j++) {
    const ${U} i = first + j;
    if (i < params.n) before[digit(i) * ${w}u + lid] += 1u;
  }
  __syncthreads();
  if (lid < ${d}u) {
    ${U} running = 0u;
    for (${U} t = 0u; t < ${w}u; t++) {
      const ${U} c = before[lid * ${w}u + t];
      before[lid * ${w}u + t] = running;
      running += c;
    }
  }
  __syncthreads();
  for (${U} g = 0u; g < ${d}u; g++) before[g * ${w}u + lid] += offsets[g * params.blocks + group];
  for (${U} j = 0u; j < ${e}u; j++) {
    const ${U} i = first + j;
    if (i < params.n) {
      const ${U} to = before[digit(i) * ${w}u + lid]++;
      keys_out[to] = keys_in[i];${payload ? "\n      payload_out[to] = payload_in[i];" : ""}
    }
  }
}
`,
  };
}
