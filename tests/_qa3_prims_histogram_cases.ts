/**
 * Histogram cases shared by tests/qa3_prims_histogram_test.ts (WebGPU) and
 * tests/cuda_qa3_prims_histogram_test.ts (CUDA), against the docs' rule: bin `k` holds
 * `edge(k) <= x < edge(k + 1)` with `edge(k) = low + k (high - low) / bins` computed in f32 (the
 * last bin also holds `high`), so a value on an edge goes to the bin above it and bins between
 * edges that f32 rounds to one value stay empty.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { type ComputeClient, histogram } from "../mod.ts";

const f = Math.fround;

/** The docs' histogram on the CPU, edges in f32, by a scan over the edges (no guess). */
export function docHistogram(
  x: ArrayLike<number>,
  bins: number,
  [low, high]: readonly [number, number],
): number[] {
  const [lo, hi] = [f(low), f(high)];
  const width = f((hi - lo) / bins);
  const edge = (k: number) => k >= bins ? hi : f(lo + f(k * width));
  const counts = new Array<number>(bins).fill(0);
  for (let i = 0; i < x.length; i++) {
    const v = x[i];
    if (!(v >= lo && v <= hi)) continue;
    let k = 0;
    while (k + 1 < bins && v >= edge(k + 1)) k++;
    counts[k]++;
  }
  return counts;
}

/** Every f32 from `low` to `high` (a few ulps apart) and the f32 neighbours of each edge. */
export function edgeValues(bins: number, [low, high]: readonly [number, number]): Float32Array {
  const [lo, hi] = [f(low), f(high)];
  const width = f((hi - lo) / bins);
  const one = new Float32Array(1);
  const bits = new Int32Array(one.buffer);
  const out: number[] = [];
  for (let k = 0; k <= bins; k++) {
    const e = k >= bins ? hi : f(lo + f(k * width));
    const down = e < 0 ? 1 : -1; // the bits' step to the next f32 below `e` (NaN below +0)
    for (const step of [0, down, -down]) {
      one[0] = e;
      bits[0] += step;
      out.push(one[0]);
    }
  }
  return Float32Array.from(out);
}

/** Ranges a few ulps wide, whose f32 edges coincide (bins between them are empty). */
export const NARROW: readonly (readonly [number, number, number])[] = [
  [16777216, 16777220, 7], // edges 16777216, 16777216, 16777218 x 4, 16777220: 0 1 0 0 0 1 1
  [16777216, 16777220, 3],
  [1, 1.0000002, 5],
  [1, 1.0000005, 9],
  [-1.0000005, -1, 6],
  // Subnormal edges (their own kernel: the host's edges, compared by keys; on an H200 through
  // Vulkan, which flushes subnormals, the float kernel put every value in the last bin).
  [0, 1e-44, 7],
  [-1e-39, 1e-39, 5],
  [-3e-45, 0, 3],
];

/** Values on and beside every edge of each narrow range, and of wider ones, as the docs count. */
export async function checkNarrowBins(client: ComputeClient): Promise<void> {
  for (const [low, high, bins] of NARROW) {
    const x = edgeValues(bins, [low, high]);
    using h = client.createWithData(x);
    using counts = histogram(client, h, { bins, range: [low, high] });
    assert.deepEqual(
      Array.from(await client.read(counts)),
      docHistogram(x, bins, [low, high]),
      `[${low}, ${high}] in ${bins} bins`,
    );
  }
  // 16777216 + 2 lands in bin 5 of 7 (the last bin whose edge is <= it), not 4 (the guess + 1).
  using x = client.createWithData(new Float32Array([16777218]));
  using counts = histogram(client, x, { bins: 7, range: [16777216, 16777220] });
  assert.deepEqual(Array.from(await client.read(counts)), [0, 0, 0, 0, 0, 1, 0]);
}

/**
 * A property: ranges from 1 to 64 ulps wide or wider, 1 to 40 bins or past the shared-memory
 * limit (1,024: the global kernel), values on and beside every edge, as the docs count them.
 */
export async function checkEdgeProperty(client: ComputeClient, numRuns: number): Promise<void> {
  await fc.assert(
    fc.asyncProperty(
      fc.float({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }),
      fc.integer({ min: 1, max: 64 }),
      fc.integer({ min: 0, max: 12 }),
      fc.oneof(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1025, max: 1100 })),
      async (start, ulps, scale, bins) => {
        const low = f(start);
        const one = new Float32Array([low]);
        const bits = new Int32Array(one.buffer);
        bits[0] += (low < 0 ? -1 : 1) * ulps * 2 ** scale;
        const high = one[0];
        if (!(low < high) || !(f((high - low) / bins) > 0)) return;
        const x = edgeValues(bins, [low, high]);
        using h = client.createWithData(x);
        using counts = histogram(client, h, { bins, range: [low, high] });
        assert.deepEqual(Array.from(await client.read(counts)), docHistogram(x, bins, [low, high]));
      },
    ),
    { numRuns },
  );
}

/**
 * One bin over `[-3e38, 3e38]` (its width, 6e38, is past the largest f32): every value in the
 * range in the bin, not a `KernelArgumentError` about the width; two and three bins beside it.
 */
export async function checkWideHistogram(client: ComputeClient): Promise<void> {
  const x = new Float32Array([-3e38, -1, 0, 5e37, 3e38, 3.4e38, -Infinity, Infinity, NaN, 1e38]);
  using h = client.createWithData(x);
  for (const bins of [1, 2, 3]) {
    const expected = docHistogram(x, bins, [-3e38, 3e38]);
    assert.equal(expected.reduce((a, b) => a + b), 6);
    using counts = histogram(client, h, { bins, range: [-3e38, 3e38] });
    assert.deepEqual(Array.from(await client.read(counts)), expected, `${bins} bins`);
  }
}
