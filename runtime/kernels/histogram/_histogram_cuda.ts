/**
 * The CUDA C of {@linkcode countInto}'s kernels: the same bins (NumPy's edges in f32, products
 * and sums rounded apart as WGSL does), launches and params as their WGSL (`_histogram_wgsl.ts`).
 *
 * @module
 */

import { cudaFrame, type CudaText } from "../_backend_kernels.ts";
import type { ElementType } from "../elementwise.ts";
import { type CountKind, SHARED_BINS, SHARED_PER_INVOCATION } from "./_histogram_wgsl.ts";

const PARAMS: readonly (readonly [string, ElementType])[] = [
  ["n", "u32"],
  ["bins", "u32"],
  ["low", "f32"],
  ["high", "f32"],
  ["width", "f32"],
  ["zero", "u32"], // the WGSL's opaque zero (its mul_rn); __fmul_rn does that here
  ["top", "u32"], // histogram_edges: the key of the top edge (high)
];

const BIN: Record<CountKind, string> = {
  histogram: `
  auto edge = [&](unsigned int k) -> float {
    return k >= params.bins ? params.high : __fadd_rn(params.low, __fmul_rn((float)k, params.width));
  };
  auto bin_of = [&](unsigned int i) -> int {
    const float x = x_in[i];
    if (!(x >= params.low && x <= params.high)) return -1; // out of range, or NaN
    unsigned int k = min((unsigned int)fmaxf(0.0f, floorf(__fdiv_rn(__fsub_rn(x, params.low), params.width))), params.bins - 1u);
    if (x < edge(k) || (k + 1u < params.bins && x >= edge(k + 1u))) {
      // The last bin whose edge is <= x, by bisection (as the WGSL's).
      unsigned int lo = 0u, hi = params.bins - 1u;
      while (lo < hi) {
        const unsigned int mid = hi - (hi - lo) / 2u;
        if (edge(mid) <= x) lo = mid; else hi = mid - 1u;
      }
      k = lo;
    }
    return (int)k;
  };`,
  // As the WGSL's: the host's edges as order-preserving keys, compared with the values' keys.
  histogram_edges: `
  auto key = [&](float v) -> unsigned int {
    unsigned int b = __float_as_uint(v);
    if (b == 0x80000000u) b = 0u; // -0 as +0
    return (b >> 31) ? ~b : b ^ 0x80000000u;
  };
  auto bin_of = [&](unsigned int i) -> int {
    const unsigned int x = key(x_in[i]);
    if (x < edges[0] || x > params.top) return -1; // out of range, or NaN
    unsigned int lo = 0u, hi = params.bins - 1u;
    while (lo < hi) {
      const unsigned int mid = hi - (hi - lo) / 2u;
      if (edges[mid] <= x) lo = mid; else hi = mid - 1u;
    }
    return (int)lo;
  };`,
  bincount_i32: `
  auto bin_of = [&](unsigned int i) -> int {
    const int v = x_in[i];
    return v < 0 || (unsigned int)v >= params.bins ? -1 : v;
  };`,
  bincount_u32: `
  auto bin_of = [&](unsigned int i) -> int {
    const unsigned int v = x_in[i];
    return v >= params.bins ? -1 : (int)v;
  };`,
};

/** The kernel of `kind`, counting in shared memory (`bins` <= SHARED_BINS) or in global. */
export function countCuda(kind: CountKind, shared: boolean): CudaText {
  const type = kind === "bincount_u32" ? "unsigned int" : kind === "bincount_i32" ? "int" : "float";
  const entry = `${kind}_count`;
  const buffers: [string, string, boolean][] = [["x_in", type, true], [
    "counts",
    "unsigned int",
    false,
  ]];
  if (kind === "histogram_edges") buffers.push(["edges", "unsigned int", true]);
  const head = `${cudaFrame(entry, buffers, PARAMS)}${BIN[kind]}`;
  const base = { entryPoint: entry, blockSize: [64, 1, 1] as const, params: PARAMS };
  if (!shared) {
    return {
      ...base,
      id: `${kind}_global.cuda`,
      source: `${head}
  const unsigned int i = global_block() * blockDim.x + threadIdx.x;
  if (i >= params.n) return;
  const int b = bin_of(i);
  if (b >= 0) atomicAdd(&counts[b], 1u);
}
`,
    };
  }
  const per = SHARED_PER_INVOCATION;
  return {
    ...base,
    id: `${kind}_shared.cuda`,
    source: `${head}
  __shared__ unsigned int local_counts[${SHARED_BINS}];
  const unsigned int lid = threadIdx.x;
  for (unsigned int b = lid; b < params.bins; b += 64u) local_counts[b] = 0u;
  __syncthreads();
  const unsigned int first = global_block() * ${64 * per}u + lid;
  for (unsigned int r = 0u; r < ${per}u; r++) {
    const unsigned int i = first + r * 64u;
    if (i < params.n) {
      const int b = bin_of(i);
      if (b >= 0) atomicAdd(&local_counts[b], 1u);
    }
  }
  __syncthreads();
  for (unsigned int b = lid; b < params.bins; b += 64u) {
    const unsigned int c = local_counts[b];
    if (c > 0u) atomicAdd(&counts[b], c);
  }
}
`,
  };
}
