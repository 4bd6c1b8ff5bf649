/**
 * QA wave 10 on WebGPU: `histogram`'s subnormal-edge kernel against the docs' reference (ranges
 * with subnormal bounds of either sign, ±0 bounds, NaN of both signs, views, a stream, the input
 * disposed at once), the choice of that kernel (normal bounds and width can still make an edge
 * subnormal: `[-1.5, 1.5] * 2^-126` in 3 bins went to the float kernel, whose edges at
 * `±0.5 * 2^-126` a flushing device computes and compares as 0), more than 2^24 bins (the float
 * kernel's `f32(k)` rounded the bin index: a value in the bin above the docs'), more bins than the
 * device holds (a BufferTooBigError at once), and f32 max and min of `reduce`
 * and `scan` over subnormals, zeros, infinities and NaN, whole and along axes.
 */
import assert from "node:assert/strict";
import { BufferTooBigError, createClient, histogram } from "../mod.ts";
import { needsHostEdges } from "../runtime/kernels/histogram/_edges.ts";
import type { WebGpuServer } from "../runtime/server/webgpu/mod.ts";
import {
  checkDotMean,
  checkEdgeRanges,
  checkManyBins,
  checkSpecialPicks,
  checkSubnormalHistograms,
} from "./_qa10_prims_cases.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

Deno.test("histogram takes the host's edges wherever an edge is subnormal, not only narrow bins", () => {
  const w = (low: number, high: number, bins: number) => Math.fround((high - low) / bins);
  const min = 2 ** -126;
  const host = (low: number, high: number, bins: number) =>
    needsHostEdges(low, high, w(low, high, bins), bins);
  // normal bounds and width, subnormal edges in between
  assert.equal(host(-1.5 * min, 1.5 * min, 3), true);
  assert.equal(host(-3 * min, 2 * min, 7), true);
  assert.equal(host(-1.5 * min, 1.5 * min, 1025), true);
  // subnormal bounds or width
  assert.equal(host(0, 1e-44, 7), true);
  assert.equal(host(-1e-40, 1e-40, 1), true);
  assert.equal(host(1e-36, 1.0000001e-36, 5000), true);
  // edges at 0 and normal ones only: the float kernel
  assert.equal(host(-1, 1, 2), false);
  assert.equal(host(-2 * min, 2 * min, 4), false); // edges -2, -1, 0, 1, 2 (x 2^-126)
  assert.equal(host(-1, 2 ** -100, 3), false);
  assert.equal(host(0, 1, 1000), false);
  assert.equal(host(-3e38, 3e38, 1), false);
  // past 2^24 bins, where the float kernel's f32(k) rounds k
  assert.equal(host(0, 1, 2 ** 24), false);
  assert.equal(host(0, 1.5 * (2 ** 24 + 2), 2 ** 24 + 2), true);
  assert.equal(host(0, 1, 2 ** 33), true);
});

Deno.test({
  name: "histogram: more bins than the device holds is a BufferTooBigError at once, edges or not",
  ignore,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    using x = client.createWithData(new Float32Array([1e-41, 0.5]));
    // One bin past what this device holds, from its own limits, as the runtime checks them: the
    // fixed 2^28 bins of before fit on an H100 (large buffers), which ran 1m24s and threw nothing.
    const { maxBufferSize, maxStorageBufferBindingSize } = (client.server as WebGpuServer).device
      .limits;
    const largest = Math.min(maxBufferSize, maxStorageBufferBindingSize);
    assert.equal(client.server.properties.maxAllocationSize, largest, "the runtime's limit");
    const most = Math.min(Math.floor(largest / 4), 2 ** 32 - 1); // u32 counts, u32 bin index
    // [0, 1]: the float kernel's range; [0, 1e-30]: bins so narrow their edges come from the host
    for (const range of [[0, 1], [0, 1e-30]] as const) {
      const start = performance.now();
      assert.throws(
        () => histogram(client, x, { bins: most + 1, range: [...range] }),
        BufferTooBigError,
      );
      // the counts are refused before the host computes an edge per bin (2^28 edges: 4 s here)
      const ms = performance.now() - start;
      assert.ok(ms < 1500, `${most + 1} bins over [${range}]: ${ms} ms`);
    }
    using counts = histogram(client, x, { bins: 2, range: [0, 1e-40] });
    assert.deepEqual(Array.from(await client.read(counts)), [1, 0]);
  },
});

Deno.test({
  name: "histogram on WebGPU: subnormal ranges as the docs count them (views, streams, specials)",
  ignore,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    await checkEdgeRanges(client);
    await checkManyBins(client);
    await checkSubnormalHistograms(client, 25);
  },
});

Deno.test({
  name: "reduce and scan on WebGPU: f32 max and min of subnormals, zeros, infinities and NaN",
  ignore,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    await checkSpecialPicks(client);
    await checkDotMean(client);
  },
});
