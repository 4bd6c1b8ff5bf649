/**
 * The CUDA C of the radix sort's passes: the same blocks, bindings, params and digit order as
 * their WGSL (`_tiled_wgsl.ts`), so `_tiled.ts` launches either the same way.
 *
 * The scatter's block sort is the WGSL's (two-bit splits, each a Hillis-Steele scan of the
 * threads' packed counts in shared memory), with `__syncthreads()` for `workgroupBarrier()`.
 *
 * @module
 */

import { type CudaBuffer, cudaFrame, type CudaText } from "../../_backend_kernels.ts";
import type { ElementType } from "../../elementwise.ts";
import { fromOrderKeyCuda } from "../../_order_keys.ts";
import { inputs } from "../_radix_cuda.ts";
import { type DigitSource, type Encoding, encodingId } from "../_radix_wgsl.ts";
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
  ["flags", "u32"],
];

const U = "unsigned int";

/** The histogram pass. Buffers: the input (as `inputs` of `../_radix_cuda.ts`), counts. */
export function histogramCuda(source: DigitSource, encoding?: Encoding): CudaText {
  const w = TILED_WORKGROUP;
  const d = TILED_DIGITS;
  const input = inputs(encoding, source === "key", source === "row");
  const of = source === "key" ? "key_at(i)" : "payload_at(i) / params.cols";
  const entry = "radix_histogram";
  const buffers: CudaBuffer[] = [...input.buffers, ["counts", U, false]];
  return {
    id: `radix8_histogram_${source}${encodingId(encoding, false)}.cuda`,
    entryPoint: entry,
    blockSize: [w, 1, 1],
    params: PARAMS,
    source: `${input.functions}
${cudaFrame(entry, buffers, PARAMS)}
  ${input.lambdas}
  auto digit = [&](${U} i) -> ${U} { return ((${of}) >> params.shift) & ${d - 1}u; };
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
 * The inclusive sums of `lo` and `hi` over the block's threads into `name_lo`/`name_hi`, their
 * totals into `total_lo`/`total_hi` (Hillis-Steele scans in `scan_lo`, `scan_hi`).
 */
function blockScan(lo: string, hi: string, name: string, total: string): string {
  const w = TILED_WORKGROUP;
  return `  scan_lo[lid] = ${lo};
  scan_hi[lid] = ${hi};
  __syncthreads();
  for (${U} o = 1u; o < ${w}u; o <<= 1) {
    const ${U} t_lo = lid >= o ? scan_lo[lid - o] : 0u;
    const ${U} t_hi = lid >= o ? scan_hi[lid - o] : 0u;
    __syncthreads();
    scan_lo[lid] += t_lo;
    scan_hi[lid] += t_hi;
    __syncthreads();
  }
  const ${U} ${name}_lo = scan_lo[lid];
  const ${U} ${name}_hi = scan_hi[lid];
  const ${U} ${total}_lo = scan_lo[${w - 1}u];
  const ${U} ${total}_hi = scan_hi[${w - 1}u];
  __syncthreads();`;
}

/**
 * The scatter pass (see the WGSL's). Buffers: keys_in, payload_in (with a payload), counts,
 * offsets, keys_out, payload_out (with a payload).
 */
export function scatterCuda(
  source: DigitSource,
  payload: boolean,
  encoding?: Encoding,
  decode?: ElementType,
  optional = false,
): CudaText {
  const w = TILED_WORKGROUP;
  const e = TILED_PER_THREAD;
  const last = TILED_DIGITS - 1;
  const entry = "radix_scatter";
  const input = inputs(encoding, true, payload);
  // The last pass of an optional payload (f32 keys' own bits) writes it as the keys.
  const stored = optional && decode !== undefined;
  const buffers: CudaBuffer[] = [
    ...input.buffers,
    ["counts", U, true],
    ["offsets", U, true],
    ["keys_out", U, false],
    ...(payload && !stored ? [["payload_out", U, false] as const] : []),
  ];
  const store = stored
    ? "carried"
    : decode === undefined
    ? "key"
    : "bitcast<unsigned int>(from_order_key(key ^ params.flags))";
  const of = source === "key" ? "k" : "p / params.cols";
  const load = (from: string, at: string) =>
    from === "tile"
      ? `k[j] = tile_keys[${at}];${payload ? ` p[j] = tile_payload[${at}];` : ""}`
      : `k[j] = key_at(${at});${payload ? ` p[j] = payload_at(${at});` : ""}`;
  return {
    id: `radix8_scatter_${source}${payload ? stored ? "_optional" : "_payload" : ""}${
      encodingId(encoding)
    }${decode === undefined ? "" : `_to_${decode}`}.cuda`,
    entryPoint: entry,
    blockSize: [w, 1, 1],
    params: PARAMS,
    source: `${input.functions}${decode === undefined ? "" : `\n${fromOrderKeyCuda(decode)}`}
${cudaFrame(entry, buffers, PARAMS)}
  ${input.lambdas}
  auto digit_of = [&](${U} k, ${U} p) -> ${U} { (void)p; return ((${of}) >> params.shift) & ${last}u; };
  __shared__ ${U} tile_keys[${TILED_BLOCK}];${
      payload ? `\n  __shared__ ${U} tile_payload[${TILED_BLOCK}];` : ""
    }
  __shared__ ${U} scan_lo[${w}];
  __shared__ ${U} scan_hi[${w}];
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
  // Splits by 2 bits of the digit (the WGSL's): counts of the values 0-3 packed in 16-bit halves.
  for (${U} bit = 0u; bit < ${TILED_BITS}u; bit += 2u) {
    ${U} mine_lo = 0u, mine_hi = 0u;
    for (${U} j = 0u; j < ${e}u; j++) {
      const ${U} q = (d[j] >> bit) & 3u;
      const ${U} one = 1u << ((q & 1u) * 16u);
      if (q < 2u) mine_lo += one; else mine_hi += one;
    }
  ${blockScan("mine_lo", "mine_hi", "inclusive", "total").replaceAll("\n", "\n  ")}
    const ${U} t0 = total_lo & 0xffffu;
    const ${U} t01 = t0 + (total_lo >> 16);
    ${U} run_lo = inclusive_lo - mine_lo + (t0 << 16);
    ${U} run_hi = inclusive_hi - mine_hi + t01 + ((t01 + (total_hi & 0xffffu)) << 16);
    for (${U} j = 0u; j < ${e}u; j++) {
      const ${U} q = (d[j] >> bit) & 3u;
      const ${U} half = (q & 1u) * 16u;
      ${U} to;
      if (q < 2u) {
        to = (run_lo >> half) & 0xffffu;
        run_lo += 1u << half;
      } else {
        to = (run_hi >> half) & 0xffffu;
        run_hi += 1u << half;
      }
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
  const ${U} count = counts[lid * params.blocks + group];
${blockScan("count", "0u", "below", "block_total")}
  (void)below_hi;
  (void)block_total_lo;
  (void)block_total_hi;
  starts[lid] = below_lo - count;
  __syncthreads();
  for (${U} j = 0u; j < ${e}u; j++) {
    const ${U} at = j * ${w}u + lid;
    if (at < valid) {
      const ${U} key = tile_keys[at];
      const ${U} carried = ${payload ? "tile_payload[at]" : "0u"};
      const ${U} g = digit_of(key, carried);
      const ${U} to = offsets[g * params.blocks + group] + at - starts[g];
      keys_out[to] = ${store};${payload && !stored ? "\n      payload_out[to] = carried;" : ""}
    }
  }
}
`,
  };
}
