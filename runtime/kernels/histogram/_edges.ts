/**
 * The docs' f32 edges of `histogram` on the host: whether a range needs them (an edge, a bound or
 * the bins' width is subnormal, or more than 2^24 bins) and their order-preserving keys (the
 * `histogram_edges` kernel's).
 *
 * @module
 */

/** The smallest normal f32 (2^-126): below it, f32 are subnormal. */
const F32_MIN_NORMAL = 2 ** -126;
const subnormal = (v: number) => v !== 0 && Math.abs(Math.fround(v)) < F32_MIN_NORMAL;

/** The docs' edge `k` of `bins` bins from `low` `width` apart, in f32 (the last one `high`). */
const edgeOf = (low: number, high: number, width: number, bins: number, k: number) =>
  k >= bins ? Math.fround(high) : Math.fround(Math.fround(low) + Math.fround(k * width));

/** Most bins whose edges the float kernel computes: past 2^24, `f32(k)` rounds `k`. */
const EXACT_BINS = 2 ** 24;

/**
 * Whether the bins of `[low, high]` (`width` apart, in f32) need the host's edges: more than 2^24
 * bins (the float kernel's `f32(k) * width` rounds `k` first: edge 2^24 + 1 of 2^24 + 2 bins
 * over `[0, 1.5 (2^24 + 2)]` was 25165824, not the docs' 25165826), a subnormal bound or width,
 * or any subnormal edge in between (`[-1.5, 1.5] * 2^-126` in 3 bins has normal bounds and width,
 * yet edges at `±0.5 * 2^-126`), which a device that flushes subnormal f32 (WGSL allows it;
 * NVIDIA's Vulkan driver does) would compute and compare as 0.
 */
export function needsHostEdges(low: number, high: number, width: number, bins: number): boolean {
  if (bins > EXACT_BINS) return true;
  if (subnormal(low) || subnormal(high) || Math.fround(width) < F32_MIN_NORMAL) return true;
  // The edges before the last never decrease: the ones in (-2^-126, 2^-126) form one run, from
  // the first edge above -2^-126 to the last below 2^-126; all zeros, or a subnormal at an end.
  const edge = (k: number) => edgeOf(low, high, width, bins, k);
  const first = (above: (v: number) => boolean) => {
    let [lo, hi] = [0, bins]; // the first k < bins with above(edge(k)), bins if none
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2); // bins may pass 2^32
      if (above(edge(mid))) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
  const start = first((v) => v > -F32_MIN_NORMAL);
  const end = first((v) => v >= F32_MIN_NORMAL);
  return start < end && (subnormal(edge(start)) || subnormal(edge(end - 1)));
}

/**
 * The docs' lower edges of the `bins` bins in f32 (`edge(k) = low + k * width`) as keys that
 * order as the floats do (the kernel's `key`; -0 as +0): one per bin, so they fit wherever the
 * bins' u32 counts do. The top edge, `high`, is {@linkcode topKey} (a parameter).
 */
export function edgeKeys(low: number, high: number, width: number, bins: number): Uint32Array {
  const f32 = new Float32Array(bins);
  for (let k = 0; k < bins; k++) f32[k] = edgeOf(low, high, width, bins, k);
  const keys = new Uint32Array(f32.buffer);
  for (let k = 0; k < bins; k++) keys[k] = keyOf(keys[k]);
  return keys;
}

/** The key of the top edge, `high` in f32 (the kernel's upper bound). */
export function topKey(high: number): number {
  return keyOf(new Uint32Array(Float32Array.of(high).buffer)[0]);
}

/** The order-preserving key of f32 bits (-0 as +0). */
function keyOf(bits: number): number {
  const b = bits === 0x80000000 ? 0 : bits;
  return (b >>> 31 ? ~b : b ^ 0x80000000) >>> 0;
}
