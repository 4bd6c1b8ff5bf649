/**
 * Kernels whose widened module (read-only storage compiled as `read_write`) does not compile,
 * though the declared module does: they run the declared module, and a read-only binding that
 * shares its page with a writable binding of the same dispatch is copied into a scratch buffer
 * first (`compile/_settle.ts`, `launch/_read_only_copies.ts`). On naga the case is an explicit
 * `ptr<storage, T, read>` to a read-only binding (widened, `&a` is a `read_write` pointer); on
 * Chrome's Tint, also a barrier under a branch on a read-only value (tests/browser/_qa4_group.ts).
 */
import assert from "node:assert/strict";
import { CompilationError, createClient, CubeCount, type WgslKernel } from "../mod.ts";
import type { WebGpuServer } from "../runtime/server/webgpu/mod.ts";
import { runTileReverse } from "./_read_only_alias_case.ts";
import { runPlain } from "./_plain_webgpu.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

/** `b += s * a` through a `ptr<storage, array<f32>, read>`: valid only as declared. */
const axpy = (id: string, groups = false, size = 64): WgslKernel => ({
  id,
  source: `
struct P { s: f32, n: u32 }
@group(${groups ? 1 : 0}) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> b: array<f32>;
@group(0) @binding(2) var<uniform> p: P;
@compute @workgroup_size(${size}) fn main(@builtin(global_invocation_id) id: vec3u) {
  let src: ptr<storage, array<f32>, read> = &a;
  if (id.x < p.n) { b[id.x] = b[id.x] + p.s * (*src)[id.x]; }
}`,
});

const n = 300;
const ramp = (f: (i: number) => number) => Float32Array.from({ length: n }, (_, i) => f(i));
/** The CPU reference of one launch. */
const cpuAxpy = (b: Float32Array, s: number, a: Float32Array) => {
  const before = a.slice();
  for (let i = 0; i < n; i++) b[i] = Math.fround(b[i] + Math.fround(s * before[i]));
};

/** One launch of `axpy` as plain WebGPU on the same adapter: the new `b`. */
async function plainAxpy(
  b: Float32Array<ArrayBuffer>,
  s: number,
  a: Float32Array<ArrayBuffer>,
): Promise<Float32Array<ArrayBuffer>> {
  const p = new DataView(new ArrayBuffer(8));
  p.setFloat32(0, s, true);
  p.setUint32(4, n, true);
  const [, out] = await runPlain(axpy("plain").source, [
    { group: 0, binding: 0, buffer: a.slice() },
    { group: 0, binding: 1, buffer: b },
    { group: 0, binding: 2, buffer: new Uint8Array(p.buffer), uniform: true },
  ], [Math.ceil(n / 64)]);
  return new Float32Array(out.slice().buffer);
}

Deno.test({
  name: "a kernel whose widened module fails runs its declared module, copying aliased inputs",
  ignore,
  async fn(t) {
    using client = await createClient({ adapter: adapter! });
    const server = client.server as WebGpuServer;
    const page = (h: { ref(): never }) => server.getResource(h.ref(), 0).resource;

    await t.step("launched while compiling: parked, then encoded again (one page)", async () => {
      const kernel = axpy("fallback.pending");
      using a = client.createWithData(ramp((i) => i * 0.5 - 7));
      using b = client.createWithData(ramp((i) => (i % 13) * 0.25));
      assert.equal(page(a as never), page(b as never), "both are slices of one pool page");
      const cpuB = ramp((i) => (i % 13) * 0.25), cpuA = ramp((i) => i * 0.5 - 7);
      for (const s of [1.5, -0.75, 3]) {
        client.execute(kernel, { threads: n, buffers: [a, b], params: { s, n } });
        cpuAxpy(cpuB, s, cpuA);
      }
      assert.deepEqual(await client.read(b), cpuB);
      assert.deepEqual(await client.read(a), cpuA, "the read-only input is unchanged");
    });

    await t.step("once settled: the read-only slice is copied per dispatch", async () => {
      const kernel = axpy("fallback.ready");
      await client.compile(kernel);
      using a = client.createWithData(ramp((i) => Math.sin(i)));
      using b = client.createWithData(ramp((i) => i));
      assert.equal(page(a as never), page(b as never));
      // `b + s * a` of inexact values: WGSL lets the device fuse it into an FMA (an H100 through
      // Vulkan did, 1 ULP from the CPU's two roundings), so the reference is the same launches as
      // plain WebGPU on this adapter, each reading a copy of its read-only input.
      let plainA = ramp((i) => Math.sin(i)), plainB = ramp((i) => i);
      const cpuA = plainA.slice(), cpuB = plainB.slice();
      for (let r = 0; r < 4; r++) {
        client.execute(kernel, { threads: n, buffers: [a, b], params: { s: r + 0.5, n } });
        plainB = await plainAxpy(plainB, r + 0.5, plainA);
        cpuAxpy(cpuB, r + 0.5, cpuA);
        // The same handle read and written: the read-only binding sees the copy made before.
        client.execute(kernel, { threads: n, buffers: [b, b], params: { s: -0.5, n } });
        plainB = await plainAxpy(plainB, -0.5, plainB);
        cpuAxpy(cpuB, -0.5, cpuB);
        // `a` rewritten between launches: each copy is taken in stream order.
        client.execute(kernel, { threads: n, buffers: [b, a], params: { s: 0.125, n } });
        plainA = await plainAxpy(plainA, 0.125, plainB);
        cpuAxpy(cpuA, 0.125, cpuB);
      }
      const [gotA, gotB] = await client.readMany([a, b], Float32Array);
      assert.deepEqual(gotB, plainB);
      assert.deepEqual(gotA, plainA);
      // The plain chain is the CPU's up to rounding (12 launches, a few ULP of values below 128).
      for (const [plain, cpu] of [[plainA, cpuA], [plainB, cpuB]]) {
        plain.forEach((v, i) =>
          assert.ok(Math.abs(v - cpu[i]) < 2 ** -12, `${i}: ${v}, ${cpu[i]}`)
        );
      }
    });

    await t.step("prepared while compiling, encoded after it settled (two groups)", async () => {
      const kernel = axpy("fallback.late", true);
      using a = client.createWithData(ramp((i) => i * 3), { stream: 1 });
      using b = client.createWithData(ramp(() => 1), { stream: 1 });
      // Buffers go in (group, binding) order: `b` (group 0) first.
      client.execute(kernel, { stream: 1, threads: n, buffers: [b, a], params: { s: 2, n } });
      await client.compile(kernel); // settles; the stream's launch is not encoded yet
      const cpuB = ramp(() => 1);
      cpuAxpy(cpuB, 2, ramp((i) => i * 3));
      assert.deepEqual(await client.read(b, { stream: 1 }), cpuB);
    });

    await t.step("a captured graph replays the copies", async () => {
      const kernel = axpy("fallback.graph");
      using a = client.createWithData(ramp((i) => i % 7));
      using b = client.zeros(n);
      using graph = await client.capture(() => {
        client.execute(kernel, { threads: n, buffers: [a, b], params: { s: 1, n } });
        client.execute(kernel, { threads: n, buffers: [b, a], params: { s: 2, n } });
      });
      const cpuA = ramp((i) => i % 7), cpuB = new Float32Array(n);
      for (let r = 0; r < 3; r++) {
        graph.replay();
        cpuAxpy(cpuB, 1, cpuA);
        cpuAxpy(cpuA, 2, cpuB);
      }
      assert.deepEqual(await client.readMany([a, b], Float32Array), [cpuA, cpuB]);
    });

    await t.step("a profile of launches encoded again times them", async () => {
      const kernel = axpy("fallback.profiled");
      using a = client.createWithData(ramp((i) => i));
      using b = client.zeros(n);
      const { duration } = await client.profile(() => {
        for (let r = 0; r < 3; r++) {
          client.execute(kernel, { threads: n, buffers: [a, b], params: { s: 1, n } });
        }
      });
      // Encoded again in passes with the timestamps they were first given (0 ms without them).
      if (duration.timing === "device") assert.ok(duration.milliseconds > 0, `${duration}`);
      assert.deepEqual(await client.read(b), ramp((i) => 3 * i));
    });

    await t.step("folded, with overrides, and a copy past the pooled sizes", async () => {
      // 65,541 workgroups of one: past the per-dimension limit, the folded variant runs.
      using a = client.createWithData(ramp((i) => i - 100));
      using b = client.createWithData(ramp((i) => i % 3));
      const cpuB = ramp((i) => i % 3);
      client.execute(axpy("fallback.fold", false, 1), {
        count: CubeCount.new1d(65_541),
        buffers: [a, b],
        params: { s: 0.5, n },
      });
      cpuAxpy(cpuB, 0.5, ramp((i) => i - 100));
      const scaled: WgslKernel = {
        id: "fallback.override",
        source: `override k: f32;
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> b: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) {
  let src: ptr<storage, array<f32>, read> = &a;
  if (id.x < 300u) { b[id.x] = b[id.x] + k * (*src)[id.x]; }
}`,
      };
      client.execute(scaled, { threads: n, buffers: [a, b], overrides: { k: 4 } });
      cpuAxpy(cpuB, 4, ramp((i) => i - 100));
      assert.deepEqual(await client.read(b), cpuB);
      // 17 MiB read and written through one handle: a scratch buffer of its own, not pooled.
      const big = 17 * 1024 * 1024 / 4;
      using c = client.full(big, 2);
      client.execute(axpy("fallback.big"), { threads: n, buffers: [c, c], params: { s: 3, n } });
      const got = await client.read(c);
      assert.deepEqual([got[0], got[n - 1], got[n], got[big - 1]], [8, 8, 2, 2]);
    });

    await t.step("a write to the read-only binding is still a compilation error", async () => {
      const bad: WgslKernel = {
        id: "fallback.bad",
        source: axpy("").source.replace("b[id.x] = b[id.x]", "a[id.x] = b[id.x]"),
      };
      await assert.rejects(client.compile(bad), CompilationError);
    });
  },
});

Deno.test({
  name: "a barrier under a branch on read-only storage, inputs and output on one page",
  ignore,
  async fn() {
    // Naga runs the widened module (it does not check this uniformity); the browser group runs
    // the same case under Tint, which needs the declared module and the copies.
    using client = await createClient({ adapter: adapter! });
    await runTileReverse(client);
  },
});
