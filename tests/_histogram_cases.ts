/**
 * The CPU references of histogram and bincount and their inputs, shared by
 * tests/kernels_histogram_test.ts (WebGPU) and tests/cuda_primitives_test.ts (CUDA).
 */

/** NumPy's histogram in f64 (the test data keep clear of edges, where f32 and f64 may differ). */
export function cpuHistogram(
  x: ArrayLike<number>,
  bins: number,
  [low, high]: [number, number],
): Uint32Array {
  const counts = new Uint32Array(bins);
  for (let i = 0; i < x.length; i++) {
    const v = x[i];
    if (!(v >= low && v <= high)) continue;
    counts[Math.min(bins - 1, Math.floor((v - low) / (high - low) * bins))]++;
  }
  return counts;
}

/** Drops values within 1/1000 of a bin's width from an edge (f32 and f64 edges differ there). */
export function clearOfEdges(
  x: Float32Array,
  bins: number,
  [low, high]: [number, number],
): Float32Array {
  const width = (high - low) / bins;
  return x.filter((v) => {
    const t = (v - low) / width;
    return !(Math.abs(t - Math.round(t)) < 1e-3);
  });
}

export function cpuBincount(x: ArrayLike<number>, length: number): Uint32Array {
  const counts = new Uint32Array(length);
  for (let i = 0; i < x.length; i++) if (x[i] >= 0 && x[i] < length) counts[x[i]]++;
  return counts;
}

/** Deterministic pseudo-random floats in [a, b). */
export function floats(n: number, a: number, b: number, seed = 1): Float32Array {
  let s = seed;
  return Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return a + (b - a) * (s / 2 ** 32);
  });
}
