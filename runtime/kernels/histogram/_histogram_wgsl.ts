/**
 * The WGSL of {@linkcode histogram} and {@linkcode bincount}: each invocation reads elements and
 * adds one to its bin with `atomicAdd` on the u32 counts (zeroed before). With few bins (at most
 * {@linkcode SHARED_BINS}) a workgroup first counts a run of elements in workgroup memory and
 * then adds its non-zero counts to the output, so the output sees one atomic per bin and
 * workgroup instead of one per element.
 *
 * @module
 */

import type { KernelText } from "../_shape.ts";

/** Most bins counted in workgroup memory first (4 bytes each, within the 16 KiB minimum). */
export const SHARED_BINS = 1024;
/** Elements per invocation of the shared-memory kernels (a workgroup: 64 times as many). */
export const SHARED_PER_INVOCATION = 16;

/** The bin of element `i` (`-1` for none), by what the kernel counts. */
const BIN = {
  // NumPy's edges, in f32: low + k * width, the last one `high` itself (in the last bin). A value
  // goes to the last bin whose edge is <= it, so a value on an edge goes to the bin above it, as
  // in NumPy. The first guess from the scaled value is checked against those edges; where it
  // misses (a value near an edge, or edges that f32 rounds to one value, which leave the bins
  // between them empty), a bisection over the edges (never decreasing, edge(0) = low <= x;
  // at most 32 steps) finds the bin.
  //
  // The product is rounded on its own (mul_rn), as the docs' edges are: WGSL lets a compiler fuse
  // low + k * width into one FMA (NVIDIA's Vulkan driver does, which moved edges whose product
  // overflows f32 back into range), and no compiler can fuse through an OR with a uniform it
  // cannot see is zero.
  histogram:
    `fn mul_rn(a: f32, b: f32) -> f32 { return bitcast<f32>(bitcast<u32>(a * b) | params.zero); }
fn edge(k: u32) -> f32 {
  if (k >= params.bins) { return params.high; }
  return params.low + mul_rn(f32(k), params.width);
}
fn bin_of(i: u32) -> i32 {
  let x = x_in[i];
  if (!(x >= params.low && x <= params.high)) { return -1; } // out of range, or NaN
  var k = min(u32(max(0.0, floor((x - params.low) / params.width))), params.bins - 1u);
  if (x < edge(k) || (k + 1u < params.bins && x >= edge(k + 1u))) {
    var lo = 0u;
    var hi = params.bins - 1u;
    while (lo < hi) {
      let mid = hi - (hi - lo) / 2u;
      if (edge(mid) <= x) { lo = mid; } else { hi = mid - 1u; }
    }
    k = lo;
  }
  return i32(k);
}`,
  // Bins whose edges are subnormal (a range narrower than 2^-126 a bin): a device may flush
  // subnormal f32 in arithmetic and comparisons (NVIDIA's Vulkan driver does), so the edges come
  // from the host (the docs' f32 edges, computed exactly) as order-preserving u32 keys, and the
  // values are compared by their keys too: only integer work, exact on every device. -0 is keyed
  // as +0 (they compare equal as floats); a NaN's key lies beyond every finite edge.
  histogram_edges: `fn key(v: f32) -> u32 {
  let b = select(bitcast<u32>(v), 0u, bitcast<u32>(v) == 0x80000000u);
  return select(b ^ 0x80000000u, ~b, (b >> 31u) == 1u);
}
fn bin_of(i: u32) -> i32 {
  let x = key(x_in[i]);
  if (x < edges[0] || x > params.top) { return -1; } // out of range, or NaN
  var lo = 0u;
  var hi = params.bins - 1u;
  while (lo < hi) {
    let mid = hi - (hi - lo) / 2u;
    if (edges[mid] <= x) { lo = mid; } else { hi = mid - 1u; }
  }
  return i32(lo);
}`,
  bincount_i32: `fn bin_of(i: u32) -> i32 {
  let v = x_in[i];
  if (v < 0i || u32(v) >= params.bins) { return -1; }
  return v;
}`,
  bincount_u32: `fn bin_of(i: u32) -> i32 {
  let v = x_in[i];
  if (v >= params.bins) { return -1; }
  return i32(v);
}`,
} as const;

/** What a counting kernel counts. */
export type CountKind = keyof typeof BIN;

const PARAMS =
  `struct Params { n: u32, bins: u32, low: f32, high: f32, width: f32, zero: u32, top: u32 }`;

/**
 * The counting kernel of `kind`. Bindings: `x_in` (read), `counts` (atomic u32, zeroed), for
 * `histogram_edges` `edges` (the bins' lower edges' keys, read; `top`: the key of `high`), the
 * uniform `params` (`n`, `bins`, and for histograms `low`, `high`, `width`; `zero`: 0). `shared`: the
 * workgroup-memory kernel (`bins <= SHARED_BINS`, one workgroup per 64 x 16 elements).
 */
export function countWgsl(kind: CountKind, shared: boolean): KernelText {
  const type = kind === "bincount_u32" ? "u32" : kind === "bincount_i32" ? "i32" : "f32";
  const head = `${PARAMS}
@group(0) @binding(0) var<storage, read> x_in: array<${type}>;
@group(0) @binding(1) var<storage, read_write> counts: array<atomic<u32>>;
@group(0) @binding(2) var<uniform> params: Params;${
    kind === "histogram_edges"
      ? "\n@group(0) @binding(3) var<storage, read> edges: array<u32>;"
      : ""
  }
${BIN[kind]}`;
  if (!shared) {
    return {
      id: `${kind}_global`,
      source: `${head}
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  if (gid.x >= params.n) { return; }
  let b = bin_of(gid.x);
  if (b >= 0i) { atomicAdd(&counts[u32(b)], 1u); }
}`,
    };
  }
  const per = SHARED_PER_INVOCATION;
  return {
    id: `${kind}_shared`,
    source: `${head}
var<workgroup> local_counts: array<atomic<u32>, ${SHARED_BINS}>;
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lid: u32) {
  for (var b = lid; b < params.bins; b = b + 64u) { atomicStore(&local_counts[b], 0u); }
  workgroupBarrier();
  let first = wid.x * ${64 * per}u + lid;
  for (var r = 0u; r < ${per}u; r = r + 1u) {
    let i = first + r * 64u;
    if (i < params.n) {
      let b = bin_of(i);
      if (b >= 0i) { atomicAdd(&local_counts[u32(b)], 1u); }
    }
  }
  workgroupBarrier();
  for (var b = lid; b < params.bins; b = b + 64u) {
    let c = atomicLoad(&local_counts[b]);
    if (c > 0u) { atomicAdd(&counts[b], c); }
  }
}`,
  };
}
