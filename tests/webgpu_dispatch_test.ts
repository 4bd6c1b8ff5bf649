/**
 * The dispatch hot path on the real WebGPU device: params and info bytes packed into shared
 * chunks (one upload per submission, equal bytes shared), the first burst of a new kernel, and
 * pooled handles that skip the finalization safety net while they wait.
 */
import assert from "node:assert/strict";
import { createClient, CubeCount, KernelArgumentError, type WgslKernel } from "../mod.ts";
import type { WebGpuServer } from "../runtime/server/webgpu/mod.ts";
import { INCREMENT_WGSL } from "../bench/_raw_webgpu.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine
const one = CubeCount.new1d(1);

/** Writes `a * b + slot` at `out[slot]`: every launch's params are visible in its own cell. */
const store: WgslKernel = {
  source: `
struct P { slot: u32, a: f32, b: f32 }
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<uniform> p: P;
@compute @workgroup_size(1) fn main() { out[p.slot] = p.a * p.b + f32(p.slot); }`,
};

/** A larger uniform (32 bytes) on another kernel, so launches of two sizes interleave. */
const wide: WgslKernel = {
  source: `
struct Q { v: vec4f, slot: u32 }
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<uniform> q: Q;
@compute @workgroup_size(1) fn main() { out[q.slot] = q.v.x + q.v.y + q.v.z + q.v.w; }`,
};

/** CubeCL's info buffer: one f32 scalar and one u32 scalar, read as words. */
const info: WgslKernel = {
  source: `
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> info: array<u32>;
@compute @workgroup_size(1) fn main() { out[info[4]] = bitcast<f32>(info[0]) * 3.0; }`,
};

Deno.test({
  name: "every launch binds its own params, however many share a submission",
  ignore,
  async fn(t) {
    await t.step(
      "three kernels, two streams, several submissions, equal params shared",
      async () => {
        using client = await createClient({ adapter: adapter! });
        const n = 300;
        using out = client.createBytes(n * 4 * 3);
        using other = client.createBytes(n * 4, { stream: 1 });
        const expected = new Float32Array(n * 3);
        const expectedOther = new Float32Array(n);
        for (let round = 0; round < 3; round++) {
          for (let i = 0; i < n; i++) {
            const slot = round * n + i;
            const a = (i * 7 + round) % 5; // repeats: equal bytes are shared, different ones not
            if (i % 3 === 2) {
              client.execute(info, {
                count: one,
                buffers: [out],
                scalars: { f32: [a], u32: [slot] },
              });
              expected[slot] = a * 3;
            } else {
              client.execute(store, { count: one, buffers: [out], params: { slot, a, b: 2 } });
              expected[slot] = a * 2 + slot;
            }
            if (round === 0 && i % 2 === 0) {
              client.execute(wide, {
                count: one,
                buffers: [other],
                params: { v: [i, 1, a, 0.5], slot: i },
                stream: 1,
              });
              expectedOther[i] = i + 1 + a + 0.5;
            }
          }
          if (round === 1) await client.sync(); // the chunks start over between rounds
        }
        assert.deepEqual(await client.read(out, Float32Array), expected);
        assert.deepEqual(await client.read(other, Float32Array, { stream: 1 }), expectedOther);
      },
    );

    await t.step("one submission larger than a chunk", async () => {
      using client = await createClient({ adapter: adapter!, maxTasks: 4096 });
      const n = 2100; // 2100 distinct 16-byte params at 32-byte alignment: past 64 KiB
      using out = client.createBytes(n * 4);
      for (let slot = 0; slot < n; slot++) {
        client.execute(store, { count: one, buffers: [out], params: { slot, a: slot, b: 0.5 } });
      }
      const values = await client.read(out, Float32Array);
      for (let slot = 0; slot < n; slot++) assert.equal(values[slot], slot * 0.5 + slot);
    });

    await t.step("a launch refused after its params were packed takes no range", async () => {
      using client = await createClient({ adapter: adapter! });
      using out = client.createBytes(64 * 4);
      using tiny = client.createBytes(0);
      for (let slot = 0; slot < 64; slot++) {
        assert.throws(
          () =>
            client.execute(store, { count: one, buffers: [tiny], params: { slot, a: 9, b: 9 } }),
          KernelArgumentError,
        );
        client.execute(store, { count: one, buffers: [out], params: { slot, a: slot, b: 1 } });
      }
      const values = await client.read(out, Float32Array);
      for (let slot = 0; slot < 64; slot++) assert.equal(values[slot], 2 * slot);
    });
  },
});

Deno.test({
  name: "the first burst of a new kernel takes at most 3 submissions and loses nothing",
  ignore,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    const server = client.server as WebGpuServer;
    using data = client.createWithData(new Uint32Array(64));
    await client.sync();
    const before = server.stats();
    const fresh = { source: `${INCREMENT_WGSL}\n// never compiled before` };
    for (let i = 0; i < 200; i++) client.execute(fresh, { count: one, buffers: [data] });
    const values = await client.read(data, Uint32Array);
    assert.deepEqual([...values], new Array(64).fill(200));
    const after = server.stats();
    assert.ok(after.submits - before.submits <= 3, `${after.submits - before.submits} submits`);
  },
});

Deno.test({
  name: "handles that wait for the safety net are released like any other",
  ignore,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    const baseline = client.memoryUsage().numberAllocs;
    // More than wait at once, disposed in creation order, then after a task boundary.
    const first = Array.from({ length: 3000 }, () => client.createBytes(64));
    for (const handle of first) handle.dispose();
    const second = Array.from({ length: 3000 }, () => client.createBytes(64));
    await new Promise((resolve) => setTimeout(resolve, 0));
    for (const handle of second.reverse()) handle.dispose();
    for (let i = 0; i < 20_000; i++) client.createBytes(64).dispose();
    assert.equal(client.memoryUsage().numberAllocs, baseline);
  },
});

Deno.test({
  name: "encoded tasks serve later launches: counts, params and profiles stay exact",
  ignore,
  async fn() {
    using client = await createClient({ adapter: adapter! });
    const inc = { source: INCREMENT_WGSL };
    using a = client.createWithData(new Uint32Array(64));
    using b = client.createWithData(new Uint32Array(64));
    using out = client.createBytes(4 * 600);
    // Warm and prove both kernels, so later launches are batched and their tasks recycled.
    client.execute(inc, { count: one, buffers: [a] });
    client.execute(store, { count: one, buffers: [out], params: { slot: 0, a: 1, b: 1 } });
    await client.sync();
    const cells = new Float32Array(600);
    cells[0] = 1;
    for (let i = 1; i < 600; i++) {
      // Alternating streams and kernels: tasks are recycled at every flush of either stream.
      client.execute(inc, { stream: 1 + (i % 2), count: one, buffers: [i % 3 === 0 ? b : a] });
      client.execute(store, { count: one, buffers: [out], params: { slot: i, a: i, b: 0.5 } });
      cells[i] = i * 0.5 + i;
      if (i === 300) {
        // Tasks noted by a profiling window are never reused while it may hold them.
        const { duration } = await client.profile(() => {
          for (let j = 0; j < 50; j++) client.execute(inc, { count: one, buffers: [b] });
        });
        assert.ok(duration.milliseconds >= 0);
      }
    }
    const thirds = Math.floor(599 / 3);
    assert.deepEqual([...await client.read(a, Uint32Array)], new Array(64).fill(1 + 599 - thirds));
    assert.deepEqual([...await client.read(b, Uint32Array)], new Array(64).fill(thirds + 50));
    assert.deepEqual(await client.read(out, Float32Array), cells);
  },
});
