/**
 * Kernels as users write them, on the real WebGPU device: read-only inputs, threads, kernel
 * identity, launch checks before enqueue, and the element-wise and reduction helpers.
 */
import assert from "node:assert/strict";
import {
  CompilationError,
  createClient,
  dot,
  elementwise,
  KernelArgumentError,
  reduce,
  type WgslKernel,
} from "../mod.ts";
import type { WebGpuServer } from "../runtime/server/webgpu/mod.ts";
import { cubesForThreads, fitCubes } from "../runtime/server/webgpu/launch/_workgroup_counts.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

const axpy = (body = "y[i] = p.a * x[i] + y[i];"): WgslKernel => ({
  source: `
struct P { a: f32, n: u32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: P;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  let i = g.x;
  if (i < p.n) { ${body} }
}`,
});

const argument = (name: string, pattern: RegExp) => (error: unknown) =>
  error instanceof KernelArgumentError && error.argument === name && pattern.test(error.message);

Deno.test({
  name: "kernels as users write them on WebGPU",
  ignore,
  async fn(t) {
    using client = await createClient({ adapter: adapter! });
    const server = client.server as WebGpuServer;

    await t.step("read-only inputs on slices of the page the output uses", async () => {
      // Small handles are slices of one pool page, so one GPUBuffer is bound as both inputs and
      // the output: valid only because read-only storage is compiled widened.
      using x = client.createWithData(new Float32Array([1, 2, 3, 4]));
      using y = client.createWithData(new Float32Array([10, 20, 30, 40]));
      assert.equal(
        server.getResource(x.ref(), 0).resource,
        server.getResource(y.ref(), 0).resource,
      );
      client.execute(axpy(), { threads: 4, buffers: [x, y], params: { a: 2, n: 4 } });
      client.execute(axpy(), { threads: 4, buffers: [y, y], params: { a: 1, n: 4 } }); // y += y
      assert.deepEqual([...await client.read(y, Float32Array)], [24, 48, 72, 96]);
    });

    await t.step("two kernels that only read a handle are not ordered", async () => {
      using x = client.createWithData(new Float32Array([1, 2]), { stream: 0 });
      using y1 = client.createWithData(new Float32Array([0, 0]), { stream: 1 });
      using y2 = client.createWithData(new Float32Array([5, 5]), { stream: 2 });
      client.flush({ stream: 0 });
      const before = server.stats().submits;
      client.execute(axpy(), { stream: 1, threads: 2, buffers: [x, y1], params: { a: 1, n: 2 } });
      client.execute(axpy(), { stream: 2, threads: 2, buffers: [x, y2], params: { a: 2, n: 2 } });
      assert.equal(server.stats().submits, before, "stream 2 did not execute stream 1's reader");
      const [r1, r2] = await client.readMany([y1, y2], Float32Array);
      assert.deepEqual([[...r1], [...r2]], [[1, 2], [7, 9]]);
    });

    await t.step("a write to a read-only binding is still a compilation error", async () => {
      const writesInput = axpy("x[i] = 0.0;");
      await assert.rejects(server.compile(writesInput), CompilationError);
    });

    await t.step("the same id with other source never runs the old pipeline", async () => {
      using v = client.createWithData(new Float32Array([1, 1]));
      const body = (op: string) => ({
        id: "same_id",
        source: `@group(0) @binding(0) var<storage, read_write> v: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x < arrayLength(&v)) { v[g.x] = v[g.x] ${op}; } }`,
      });
      client.execute(body("+ 1.0"), { threads: 2, buffers: [v] });
      client.execute(body("* 10.0"), { threads: 2, buffers: [v] });
      assert.deepEqual([...await client.read(v, Float32Array)], [20, 20]);
    });

    await t.step("launch misuse is refused before anything is enqueued", async () => {
      using x = client.createWithData(new Float32Array(8));
      using tiny = client.createBytes(2);
      using y = client.createWithData(new Float32Array([5]));
      const params = { a: 1, n: 1 };
      assert.throws(
        () => client.execute(axpy(), { threads: 1, buffers: [x], params }),
        argument("buffers", /has 1 handle, but the WGSL declares 2 storage bindings \(x, y\)/),
      );
      assert.throws(
        () => client.execute(axpy(), { threads: 1, buffers: [tiny, y], params }),
        argument("buffers[0]", /has 2 bytes, but x: array<f32> needs at least 4/),
      );
      assert.throws(
        () =>
          client.execute(axpy(), { threads: 1, buffers: [x, y], params, scalars: { f32: [1] } }),
        argument("params", /cannot be combined with scalars or metadata/),
      );
      assert.throws(
        () => client.execute(axpy(), { buffers: [x, y], params }),
        (e) => e instanceof TypeError && /exactly one of threads or count/.test(e.message),
      );
      assert.throws(
        () => client.execute(axpy(), { threads: [64, 70_000], buffers: [x, y], params }),
        argument("threads", /needs \[1, 70000, 1\] workgroups; .* at most 65535 per dimension/),
      );
      // The trap: scalars into a uniform struct used to read n = 0 silently.
      const infoStruct = {
        source: `struct Info { a: f32, n: u32 }
@group(0) @binding(0) var<storage, read_write> v: array<f32>;
@group(0) @binding(1) var<uniform> info: Info;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x < info.n) { v[g.x] = info.a; } }`,
      };
      assert.throws(
        () =>
          client.execute(infoStruct, { threads: 1, buffers: [y], scalars: { f32: [3], u32: [1] } }),
        argument("scalars", /would fill info: Info .* pass params: \{ a: \.\.\., n: \.\.\. \}/),
      );
      // A known program in a new object is still checked against its own workgroupSize.
      assert.throws(
        () =>
          client.execute({ ...axpy(), workgroupSize: [32] }, {
            threads: 1,
            buffers: [x, y],
            params,
          }),
        argument("workgroupSize", /is \[32\] but 'main' declares @workgroup_size\(64, 1, 1\)/),
      );
      // Nothing of the refused launches ran.
      assert.deepEqual([...await client.read(y, Float32Array)], [5]);
    });

    await t.step("threads beyond 65,535 workgroups fold into y", async () => {
      const n = 65_535 * 64 + 3;
      const iota = elementwise({ inputs: {}, output: "u32", expression: "i" });
      using out = client.createBytes(n * 4);
      iota.run(client, {}, { out });
      const values = await client.read(out, Uint32Array);
      assert.equal(values.length, n);
      let wrong = -1;
      for (let i = 0; i < n && wrong < 0; i++) if (values[i] !== i) wrong = i;
      assert.equal(wrong, -1, `first wrong element ${wrong}`);
    });

    await t.step("elementwise over named inputs and params, any length", async () => {
      const saxpy = elementwise({
        inputs: ["x", "y"],
        params: { a: "f32" },
        expression: "a * x + y",
      });
      for (const n of [1, 63, 64, 65, 1000]) {
        const x = Float32Array.from({ length: n }, (_, i) => i);
        const y = Float32Array.from({ length: n }, (_, i) => 0.5 * i);
        using hx = client.createWithData(x);
        using hy = client.createWithData(y);
        using out = saxpy.run(client, { x: hx, y: hy }, { params: { a: -2 } });
        assert.deepEqual(
          [...await client.read(out, Float32Array)],
          [...x.map((v, i) => -2 * v + y[i])],
        );
      }
      const mixed = elementwise({
        inputs: { a: "i32", b: "u32" },
        output: "i32",
        expression: "a * i32(b) - i32(i)",
      });
      using a = client.createWithData(new Int32Array([-3, 4, 5]));
      using b = client.createWithData(new Uint32Array([2, 3, 4]));
      using out = mixed.run(client, { a, b });
      assert.deepEqual([...await client.read(out, Int32Array)], [-6, 11, 18]);
      assert.throws(() => mixed.run(client, { a }), /Missing elementwise input "b"/);
      using short = client.createWithData(new Uint32Array([1]));
      assert.throws(() => mixed.run(client, { a, b: short }), RangeError);
      assert.throws(() => elementwise({ inputs: ["n"], expression: "n" }), RangeError);
      assert.throws(
        () => elementwise({ inputs: { x: "f64" as "f32" }, expression: "x" }),
        RangeError,
      );
    });

    await t.step("elementwise with only raw inputs needs a length or an out", async () => {
      // No element-wise input says how many elements: an empty result would be silently wrong.
      const pick = elementwise({ inputs: { r: "raw f32" }, expression: "r[i % 3u]" });
      using r = client.createWithData(new Float32Array([1, 2, 3, 4]));
      assert.throws(
        () => pick.run(client, { r }),
        (e) => e instanceof RangeError && /length/.test(e.message) && /"r"/.test(e.message),
      );
      using five = pick.run(client, { r }, { length: 5 });
      assert.deepEqual([...await client.read(five)], [1, 2, 3, 1, 2]);
      using out = client.zeros(2);
      pick.run(client, { r }, { out });
      assert.deepEqual([...await client.read(out)], [1, 2]);
      // With element-wise inputs a length must agree with them (it would be ignored otherwise).
      const twice = elementwise({ inputs: { x: "f32" }, expression: "x * 2.0" });
      assert.throws(
        () => twice.run(client, { x: r }, { length: 2 }),
        (e) =>
          e instanceof RangeError && /length is 2/.test(e.message) && /4 elements/.test(e.message),
      );
      using same = twice.run(client, { x: r }, { length: 4 });
      assert.deepEqual([...await client.read(same)], [2, 4, 6, 8]);
    });

    await t.step("sum, max, min and dot against a CPU reference", async () => {
      for (const n of [0, 1, 64, 65, 4099, 20_000]) {
        const a = Float32Array.from({ length: n }, (_, i) => Math.sin(i) * 3);
        const b = Float32Array.from({ length: n }, (_, i) => Math.cos(i * 0.5));
        using ha = client.createWithData(n === 0 ? new Float32Array(1) : a);
        const input = n === 0 ? ha.withOffsetEnd(4) : ha.clone();
        using hb = client.createWithData(n === 0 ? new Float32Array(1) : b);
        const other = n === 0 ? hb.withOffsetEnd(4) : hb.clone();
        using sum = reduce(client, input);
        using max = reduce(client, input, { op: "max" });
        using min = reduce(client, input, { op: "min" });
        using d = dot(client, [input, other]);
        input.dispose();
        other.dispose();
        const [s, hi, lo, dd] = (await client.readMany([sum, max, min, d], Float32Array))
          .map((v) => v[0]);
        const sumRef = a.reduce((acc, v) => acc + v, 0);
        const dotRef = a.reduce((acc, v, i) => acc + v * b[i], 0);
        assert.ok(Math.abs(s - sumRef) <= 1e-5 * n + 1e-6, `sum n=${n}: ${s} vs ${sumRef}`);
        assert.ok(Math.abs(dd - dotRef) <= 1e-5 * n + 1e-6, `dot n=${n}: ${dd} vs ${dotRef}`);
        assert.equal(hi, n === 0 ? -Infinity : Math.max(...a), `max n=${n}`);
        assert.equal(lo, n === 0 ? Infinity : Math.min(...a), `min n=${n}`);
      }
    });
  },
});

Deno.test("cube counts for threads: exact below the limit, folded past it", () => {
  const fit = (cubes: [number, number, number], max: number) => {
    const groups = fitCubes("k", "threads", cubes, max);
    return [groups, ...cubes];
  };
  const at = (x: number, y: number, z: number, size: [number, number, number]) =>
    cubesForThreads({ x, y, z }, size, [0, 0, 0]);
  assert.deepEqual(at(1000, 1, 1, [64, 1, 1]), [16, 1, 1]);
  assert.deepEqual(at(33, 17, 2, [8, 8, 1]), [5, 3, 2]);
  assert.deepEqual(fit([16, 1, 1], 65_535), [0, 16, 1, 1], "below the limit: not folded");
  assert.deepEqual(fit([1000, 1, 1], 10), [1000, 10, 10, 10]);
  for (const n of [11, 99, 100, 101, 999, 1000]) {
    const [groups, x, y, z] = fit([n, 1, 1], 10);
    assert.equal(groups, n);
    assert.ok(x <= 10 && y <= 10 && z <= 10 && x * y * z >= n, `${n}: ${[x, y, z]}`);
  }
  assert.throws(
    () => fit([1001, 1, 1], 10),
    (e) => e instanceof KernelArgumentError && e.argument === "threads",
  );
  assert.throws(
    () => fit([11, 2, 1], 10),
    (e) => e instanceof KernelArgumentError && /only a launch of \[G, 1, 1\]/.test(e.message),
  );
});
