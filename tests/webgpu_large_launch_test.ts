/**
 * Launches beyond 65,535 workgroups per dimension stay right (issue #18, item 1): kernels written
 * with `global_invocation_id`, `workgroup_id` or `num_workgroups` see the launch they asked for,
 * and run exactly as many workgroups; what cannot be kept right is refused.
 */
import assert from "node:assert/strict";
import { createClient, CubeCount, KernelArgumentError, type WgslKernel } from "../mod.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

/** The README's first example, as a user writes it. */
const saxpy: WgslKernel = {
  source: `
struct Params { a: f32, n: u32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < p.n) { y[id.x] = p.a * x[id.x] + y[id.x]; }
}`,
};

/** Counts invocations, and records the largest workgroup_id.x and num_workgroups seen. */
const census: WgslKernel = {
  id: "census",
  source: `
@group(0) @binding(0) var<storage, read_write> c: array<atomic<u32>>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32,
        @builtin(num_workgroups) nwg: vec3<u32>, // a comment between parameters
        @builtin(workgroup_id) wid: vec3u) {
  atomicAdd(&c[0], 1u);
  if (li == 0u) {
    atomicMax(&c[1], wid.x); atomicMax(&c[2], wid.y + wid.z);
    atomicMax(&c[3], nwg.x); atomicMax(&c[4], nwg.y + nwg.z);
  }
}`,
};

/** A histogram by global index: bin = id.x % 256 (every bin counted alike). */
const histogram: WgslKernel = {
  source: `
@group(0) @binding(0) var<storage, read> v: array<u32>;
@group(0) @binding(1) var<storage, read_write> bins: array<atomic<u32>>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x < arrayLength(&v)) { atomicAdd(&bins[v[g.x] % 256u], 1u); }
}`,
};

/** One partial per workgroup, after a barrier (uniform control flow survives the fold). */
const partials: WgslKernel = {
  source: `
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
var<workgroup> seen: array<u32, 32>;
@compute @workgroup_size(32)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lid: u32) {
  seen[lid] = wid.x;
  workgroupBarrier();
  if (lid == 0u) { out[wid.x] = seen[31] + 1u; }
}`,
};

const N = 5_000_000; // 78,125 workgroups of 64

Deno.test({
  name: "launches past 65,535 workgroups are right at every size",
  ignore,
  async fn(t) {
    using client = await createClient({ adapter: adapter! });

    await t.step("the README's SAXPY at 5,000,000 threads", async () => {
      using x = client.createWithData(Float32Array.from({ length: N }, (_, i) => i % 100));
      using y = client.createWithData(new Float32Array(N).fill(1));
      client.execute(saxpy, { threads: N, buffers: [x, y], params: { a: 3, n: N } });
      const out = await client.read(y);
      let wrong = 0;
      for (let i = 0; i < N; i++) if (out[i] !== 3 * (i % 100) + 1) wrong++;
      assert.equal(wrong, 0, `${wrong} of ${N} elements wrong`);
    });

    await t.step("exactly the workgroups asked for, and the builtins as unfolded", async () => {
      for (const threads of [N + 5, 64 * 65_535, 64 * 65_536 + 1]) {
        using c = client.zeros(5, "u32");
        client.execute(census, { threads, buffers: [c] });
        const groups = Math.ceil(threads / 64);
        assert.deepEqual([...await client.read(c)], [groups * 64, groups - 1, 0, groups, 2]);
      }
      using c = client.zeros(5, "u32");
      client.execute(census, { count: CubeCount.new1d(70_001), buffers: [c] }); // static count
      assert.deepEqual([...await client.read(c)], [70_001 * 64, 70_000, 0, 70_001, 2]);
    });

    await t.step("a histogram of 5M values puts every value in its bin", async () => {
      using v = client.createWithData(Uint32Array.from({ length: N }, (_, i) => i * 7));
      using bins = client.zeros(256, "u32");
      client.execute(histogram, { threads: N, buffers: [v, bins] });
      const counts = await client.read(bins);
      const expected = new Uint32Array(256);
      for (let i = 0; i < N; i++) expected[(i * 7) % 256]++;
      assert.deepEqual([...counts], [...expected]);
    });

    await t.step("workgroup ids and barriers after the fold", async () => {
      const groups = 100_003;
      using out = client.zeros(groups, "u32");
      client.execute(partials, { threads: groups * 32, buffers: [out] });
      const values = await client.read(out);
      const wrong = values.findIndex((v, i) => v !== i + 1);
      assert.equal(wrong, -1, `first wrong partial at ${wrong}`);
    });

    await t.step("what cannot be kept right is refused, saying what to write", () => {
      const viaStruct: WgslKernel = {
        source: `
struct In { @builtin(global_invocation_id) gid: vec3u }
@group(0) @binding(0) var<storage, read_write> y: array<u32>;
@compute @workgroup_size(64) fn main(input: In) { y[input.gid.x] = 1u; }`,
      };
      using y = client.zeros(16, "u32");
      client.execute(viaStruct, { threads: 16, buffers: [y] }); // unfolded: fine
      assert.throws(
        () => client.execute(viaStruct, { threads: N, buffers: [y] }),
        (e) =>
          e instanceof KernelArgumentError && e.argument === "threads" &&
          /declare those builtins as parameters of 'main'/.test(e.message),
      );
      assert.throws(
        () => client.execute(census, { threads: [64 * 70_000, 2], buffers: [y] }),
        (e) => e instanceof KernelArgumentError && /only a launch of \[G, 1, 1\]/.test(e.message),
      );
    });
  },
});
