/**
 * Launches past 65,535 workgroups with CubeCL-style `scalars` and `metadata` (the info buffer) are
 * folded as right as `params` launches are (issue #26, item 4): every output element is checked.
 */
import assert from "node:assert/strict";
import { createClient, CubeCount, type WgslKernel } from "../mod.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

/**
 * `out[i] = a + i` for `i < n`, with `a` an f32 scalar and `n` a u32 scalar: no metadata, so the
 * f32 group starts at word 0 and the u32 group at word 4 (`_info_layout.ts`).
 */
const fill: WgslKernel = {
  source: `
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> info: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < info[4]) { out[id.x] = bitcast<f32>(info[0]) + f32(id.x); }
}`,
};

/** `out[wid.x] = metadata[0] + wid.x + u32 scalar`: one word per workgroup of one invocation. */
const perGroup: WgslKernel = {
  source: `
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<storage, read> info: array<u32>;
@compute @workgroup_size(1) fn main(@builtin(workgroup_id) wid: vec3u) {
  out[wid.x] = info[0] + wid.x + info[4];
}`,
};

/** Counts the elements of `out` that differ from `expected(i)`. */
function wrong(out: ArrayLike<number>, expected: (i: number) => number): number {
  let bad = 0;
  for (let i = 0; i < out.length; i++) if (out[i] !== expected(i)) bad++;
  return bad;
}

Deno.test({
  name: "scalars and metadata launches past 65,535 workgroups are right",
  ignore,
  async fn(t) {
    using client = await createClient({ adapter: adapter! });

    for (const groups of [65_535, 65_536, 65_536 + 7]) {
      await t.step(`f32 and u32 scalars at ${groups} workgroups of 64`, async () => {
        const n = groups * 64 - 5; // the last workgroup is partly idle
        using out = client.createWithData(new Float32Array(groups * 64).fill(-1));
        client.execute(fill, {
          count: CubeCount.new1d(groups),
          buffers: [out],
          scalars: { f32: [2.5], u32: [n] },
        });
        const got = await client.read(out);
        assert.equal(wrong(got, (i) => i < n ? 2.5 + i : -1), 0);
      });
    }

    await t.step("two folded launches with other scalars before one read", async () => {
      const groups = 70_001;
      const n = groups * 64;
      using a = client.createWithData(new Float32Array(n));
      using b = client.createWithData(new Float32Array(n));
      client.execute(fill, {
        count: CubeCount.new1d(groups),
        buffers: [a],
        scalars: { f32: [7], u32: [n] },
      });
      client.execute(fill, {
        count: CubeCount.new1d(groups),
        buffers: [b],
        scalars: { f32: [-3], u32: [n - 64] },
      });
      const [ga, gb] = await client.readMany([a, b]);
      assert.equal(wrong(ga, (i) => 7 + i), 0);
      assert.equal(wrong(gb, (i) => i < n - 64 ? -3 + i : 0), 0);
    });

    await t.step("metadata and scalars at 140,000 one-invocation workgroups", async () => {
      const groups = 140_000; // folded into more than two rows
      using out = client.createWithData(new Uint32Array(groups));
      client.execute(perGroup, {
        count: CubeCount.new1d(groups),
        buffers: [out],
        metadata: { data: new Uint32Array([1000]), staticLength: 1 },
        scalars: { u32: [5] },
      });
      const got = await client.read(out);
      assert.equal(wrong(got, (i) => 1005 + i), 0);
    });
  },
});
