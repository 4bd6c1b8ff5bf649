/**
 * The WGSL of the GPU-shaped radix sort (kernel text apart from the launch in `_tiled.ts`; the
 * sort of real GPUs, see `../_variant.ts`): a stable LSD sort of u32 keys (order keys, see
 * `_order_keys.ts`), optionally carrying a u32 payload, in passes of {@linkcode TILED_BITS} bits,
 * over many workgroups with their counts in workgroup memory. (The CPU adapter's sort, serial
 * runs per invocation, is `../_radix_wgsl.ts`.)
 *
 * Each pass cuts the keys into blocks of {@linkcode TILED_BLOCK}; workgroup `b` works on block
 * `b`, each of its {@linkcode TILED_WORKGROUP} invocations on {@linkcode TILED_PER_THREAD}
 * consecutive keys (no loop runs longer: llvmpipe's loop limit).
 *
 * - `histogram`: the count of each digit in each block, digit-major (`counts[d * blocks + b]`),
 *   so that their exclusive scan is where block `b`'s keys of digit `d` go.
 * - `scatter`: each invocation counts its keys' digits, the workgroup scans those counts per
 *   digit in invocation order, and each invocation moves its keys in order: the destination is
 *   the scanned count plus the keys of the same digit before it, so the pass is stable.
 *
 * The digit is `(key >> shift) & 15`, or for the row passes of a per-row sort (topk), the same
 * bits of the row `payload / cols` of the payload (an element's index).
 *
 * @module
 */

import type { GeneratedKernel } from "../../_grid.ts";
import type { DigitSource } from "../_radix_wgsl.ts";

/** Bits per pass. */
export const TILED_BITS = 4;
/** Digits per pass. */
export const TILED_DIGITS = 1 << TILED_BITS;
/** Invocations per workgroup. */
export const TILED_WORKGROUP = 64;
/** Consecutive keys per invocation. */
export const TILED_PER_THREAD = 16;
/** Keys per block (per workgroup). */
export const TILED_BLOCK = TILED_WORKGROUP * TILED_PER_THREAD;

const PARAMS = `struct Params { n: u32, shift: u32, blocks: u32, cols: u32 }`;

function digitFunction(source: DigitSource): string {
  const of = source === "key" ? "keys_in[i]" : "payload_in[i] / params.cols";
  return `fn digit(i: u32) -> u32 { return ((${of}) >> params.shift) & ${TILED_DIGITS - 1}u; }`;
}

/** The histogram pass. Bindings: keys_in or payload_in (read), counts, params. */
export function histogramKernel(source: DigitSource): GeneratedKernel {
  const w = TILED_WORKGROUP;
  const input = source === "key" ? "keys_in" : "payload_in";
  return {
    id: `radix4_histogram_${source}`,
    source: `@group(0) @binding(0) var<storage, read> ${input}: array<u32>;
@group(0) @binding(1) var<storage, read_write> counts: array<u32>;
${PARAMS}
@group(0) @binding(2) var<uniform> params: Params;
${digitFunction(source)}
var<workgroup> block_counts: array<atomic<u32>, ${TILED_DIGITS}>;
@compute @workgroup_size(${w})
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lid: u32) {
  if (lid < ${TILED_DIGITS}u) { atomicStore(&block_counts[lid], 0u); }
  workgroupBarrier();
  let first = wid.x * ${TILED_BLOCK}u;
  for (var j = 0u; j < ${TILED_PER_THREAD}u; j = j + 1u) {
    let i = first + j * ${w}u + lid;
    if (i < params.n) { atomicAdd(&block_counts[digit(i)], 1u); }
  }
  workgroupBarrier();
  if (lid < ${TILED_DIGITS}u) { counts[lid * params.blocks + wid.x] = atomicLoad(&block_counts[lid]); }
}`,
  };
}

/**
 * The scatter pass. Bindings: keys_in, payload_in (read, with a payload), offsets (the scanned
 * counts, read), keys_out, payload_out (with a payload), params.
 */
export function scatterKernel(source: DigitSource, payload: boolean): GeneratedKernel {
  const w = TILED_WORKGROUP;
  const e = TILED_PER_THREAD;
  const d = TILED_DIGITS;
  let b = 0;
  const binding = (text: string) => `@group(0) @binding(${b++}) ${text}`;
  const declarations = [
    binding("var<storage, read> keys_in: array<u32>;"),
    payload ? binding("var<storage, read> payload_in: array<u32>;") : "",
    binding("var<storage, read> offsets: array<u32>;"),
    binding("var<storage, read_write> keys_out: array<u32>;"),
    payload ? binding("var<storage, read_write> payload_out: array<u32>;") : "",
    PARAMS,
    binding("var<uniform> params: Params;"),
  ].filter((line) => line !== "").join("\n");
  return {
    id: `radix4_scatter_${source}${payload ? "_payload" : ""}`,
    source: `${declarations}
${digitFunction(source)}
// before[digit * ${w} + invocation]: the workgroup's keys of that digit before the invocation's.
var<workgroup> before: array<u32, ${d * w}>;
@compute @workgroup_size(${w})
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lid: u32) {
  let first = wid.x * ${TILED_BLOCK}u + lid * ${e}u;
  var seen: array<u32, ${d}>;
  for (var j = 0u; j < ${e}u; j = j + 1u) {
    let i = first + j;
    if (i < params.n) { let g = digit(i); seen[g] = seen[g] + 1u; }
  }
  for (var g = 0u; g < ${d}u; g = g + 1u) { before[g * ${w}u + lid] = seen[g]; }
  workgroupBarrier();
  if (lid < ${d}u) {
    var running = 0u;
    for (var t = 0u; t < ${w}u; t = t + 1u) {
      let c = before[lid * ${w}u + t];
      before[lid * ${w}u + t] = running;
      running = running + c;
    }
  }
  workgroupBarrier();
  for (var g = 0u; g < ${d}u; g = g + 1u) {
    seen[g] = offsets[g * params.blocks + wid.x] + before[g * ${w}u + lid];
  }
  for (var j = 0u; j < ${e}u; j = j + 1u) {
    let i = first + j;
    if (i < params.n) {
      let g = digit(i);
      let to = seen[g];
      seen[g] = to + 1u;
      keys_out[to] = keys_in[i];${payload ? "\n      payload_out[to] = payload_in[i];" : ""}
    }
  }
}`,
  };
}
