/**
 * Small programs ported from CuPy, PyTorch and tfjs as a new user writes them from the README
 * and the JSDoc, run from the same calls on WebGPU and on CUDA (the simulated driver, CUDA C
 * compiled by NVRTC), against CPU references: softmax over rows, an MLP layer (tuned matmul,
 * bias, ReLU), stream compaction (scan + scatter), key-value sort then a segmented reduction,
 * a k-means step. Also what such ports ran into: a matmul tuned on first use read its inputs
 * as they were after later writes (a silently wrong product), and outputs that share memory
 * with what the same call reads (a race whose result differed between the backends).
 */
import assert from "node:assert/strict";
import {
  argmin,
  bincount,
  type ComputeClient,
  createClient,
  type CudaKernel,
  DestroyedError,
  elementwise,
  matmul,
  reduce,
  reduction,
  scan,
  scatterAdd,
  segmentReduce,
  sort,
  type WgslKernel,
} from "../mod.ts";
import { Tuner } from "../runtime/tune/mod.ts";
import { nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";

const adapter = await navigator.gpu?.requestAdapter();

const backends: readonly {
  name: "webgpu" | "cuda";
  skip: string | undefined;
  open: () => Promise<ComputeClient>;
}[] = [
  {
    name: "webgpu",
    skip: adapter ? undefined : "no WebGPU adapter",
    open: () => createClient({ adapter: adapter! }),
  },
  { name: "cuda", skip: nvrtcSkip, open: simulatedCudaClient },
];

/** `got` equals `want` element by element, within `tol` relative (0: exactly, NaN as NaN). */
function near(got: ArrayLike<number>, want: ArrayLike<number>, tol: number, what: string): void {
  assert.equal(got.length, want.length, `${what}: length`);
  for (let i = 0; i < want.length; i++) {
    const [g, w] = [got[i], want[i]];
    const ok = g === w ||
      (Number.isNaN(w) ? Number.isNaN(g) : Math.abs(g - w) <= tol * Math.max(1, Math.abs(w)));
    assert.ok(ok, `${what}[${i}]: got ${got[i]}, want ${want[i]}`);
  }
}

const perRow = (expression: string) =>
  elementwise({ inputs: { v: "f32", r: "raw f32" }, params: { cols: "u32" }, expression });
const relu = elementwise({
  inputs: { z: "f32", bias: "raw f32" },
  params: { h: "u32" }, // `n` is taken by the generated code
  expression: "max(z + bias[i % h], 0.0)",
});
const positive = elementwise({
  inputs: ["x"],
  output: "u32",
  expression: "select(0u, 1u, x > 0.0)",
});

/** `out[pos[i]] = x[i]` where `x[i] > 0`: the scatter of a stream compaction, per backend. */
const compact: { webgpu: WgslKernel; cuda: CudaKernel } = {
  webgpu: {
    source: `
struct P { n: u32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> pos: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> p: P;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < p.n && x[id.x] > 0.0) { out[pos[id.x]] = x[id.x]; }
}`,
  },
  cuda: {
    source: `extern "C" __global__ void compact(const float* x, const unsigned* pos, float* out,
    unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] > 0.0f) out[pos[i]] = x[i];
}`,
  },
};

function softmaxCpu(x: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(x.length);
  for (let r = 0; r < rows; r++) {
    const row = x.subarray(r * cols, (r + 1) * cols);
    const top = Math.max(...row);
    const sum = row.reduce((s, v) => s + Math.exp(v - top), 0);
    row.forEach((v, c) => out[r * cols + c] = Math.exp(v - top) / sum);
  }
  return out;
}

for (const backend of backends) {
  Deno.test({
    name: `user ports on ${backend.name}: softmax, MLP layer, compaction, sort + segments, k-means${
      backend.skip ? ` (skipped: ${backend.skip})` : ""
    }`,
    ignore: backend.skip !== undefined,
    async fn(t) {
      using client = await backend.open();

      await t.step("softmax over rows (1 x 1, 3 x 5, 7 x 257: odd, past a workgroup)", async () => {
        for (const [rows, cols] of [[1, 1], [3, 5], [7, 257]]) {
          const x = Float32Array.from({ length: rows * cols }, (_, i) => Math.sin(i * 1.7) * 30);
          const byRow = { shape: [rows, cols], axis: 1 } as const;
          using hx = client.createWithData(x);
          using top = reduce(client, hx, { op: "max", ...byRow });
          using e = perRow("exp(v - r[i / cols])").run(client, { v: hx, r: top }, {
            params: { cols },
          });
          using sums = reduce(client, e, byRow);
          using y = perRow("v / r[i / cols]").run(client, { v: e, r: sums }, { params: { cols } });
          near(await client.read(y), softmaxCpu(x, rows, cols), 1e-5, `softmax ${rows}x${cols}`);
        }
      });

      await t.step("MLP layer: the tuned matmul reads its inputs as at the call", async () => {
        // The client is fresh, so this shape is tuned first: the product launches after the
        // tuning, and once launched after the write below (it read [9, 9, ...]).
        const [batch, inputs, hidden] = [5, 3, 7];
        const x = Float32Array.from({ length: batch * inputs }, (_, i) => Math.sin(i));
        const w = Float32Array.from({ length: inputs * hidden }, (_, i) => Math.cos(i * 0.3));
        const b = Float32Array.from({ length: hidden }, (_, i) => (i % 5) - 2);
        const hx = client.createWithData(x);
        const hw = client.createWithData(w);
        using hb = client.createWithData(b);
        const product = matmul(client, hx, hw, { m: batch, n: hidden, k: inputs });
        client.write(hx, new Float32Array(batch * inputs).fill(9)); // the next batch, say
        using z = await product;
        using y = relu.run(client, { z, bias: hb }, { params: { h: hidden } });
        // Disposing the inputs right after the call is safe, as after a launch (another shape,
        // tuned first too: its launch came after the dispose, an InvalidHandleError).
        const square = matmul(client, hx, hx, { m: batch, n: batch, k: inputs, transposeB: true });
        hx.dispose();
        hw.dispose();
        using squared = await square;
        assert.equal((await client.read(squared))[0], 9 * 9 * inputs);
        const want = Array.from({ length: batch * hidden }, (_, e) => {
          const [i, j] = [Math.floor(e / hidden), e % hidden];
          let s = 0;
          for (let k = 0; k < inputs; k++) s += x[i * inputs + k] * w[k * hidden + j];
          return Math.max(s + b[j], 0);
        });
        near(await client.read(y), want, 1e-5, "relu(x w + b)");
      });

      await t.step("stream compaction: flags, exclusive scan, count, scatter", async () => {
        for (const n of [1, 65, 1000]) {
          const x = Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.9));
          using hx = client.createWithData(x);
          using flags = positive.run(client, { x: hx });
          using pos = scan(client, flags, { exclusive: true });
          using total = reduce(client, flags);
          const kept = x.filter((v) => v > 0);
          const [count] = await client.read(total);
          assert.equal(count, kept.length);
          if (count === 0) continue; // WebGPU binds no empty buffer to an array<f32>
          using out = client.empty(count, "f32");
          client.execute(compact[backend.name] as never, {
            threads: n,
            buffers: [hx, pos, out],
            params: { n },
          });
          near(await client.read(out), kept, 0, `compaction of ${n}`);
        }
      });

      await t.step("sort by key (-0, NaN, ties stable), then sums and maxima per key", async () => {
        const keys = new Float32Array([0, -0, NaN, -Infinity, 3, -0, 0, 3]);
        const values = Float32Array.from(keys, (_, i) => i + 0.5);
        using hk = client.createWithData(keys);
        using hv = client.createWithData(values);
        const sorted = sort(client, hk, { values: hv });
        using sk = sorted.keys;
        using sv = sorted.values;
        // -0 equals 0 (input order kept), NaN last.
        const sortedKeys = await client.read(sk);
        near(sortedKeys, [-Infinity, 0, -0, -0, 0, 3, 3, NaN], 0, "keys");
        assert.deepEqual([1, 2, 3, 4].map((i) => Object.is(sortedKeys[i], -0)), [
          false,
          true,
          true,
          false,
        ]);
        near(await client.read(sv), [3.5, 0.5, 1.5, 5.5, 6.5, 4.5, 7.5, 2.5], 0, "values");
        const ids = Uint32Array.from({ length: 300 }, (_, i) => (i * 7) % 5);
        const vals = Int32Array.from(ids, (id, i) => id === 4 ? 0x7fffffff : i - 100);
        using hids = client.createWithData(ids);
        using hvals = client.createWithData(vals);
        const byId = sort(client, hids, { values: hvals });
        using sums = segmentReduce(client, byId.values, byId.keys, { segments: 6 });
        using tops = segmentReduce(client, byId.values, byId.keys, { segments: 6, op: "max" });
        byId.keys.dispose();
        byId.values.dispose();
        const wantSums = [0, 0, 0, 0, 0, 0];
        const wantTops = Array(6).fill(-0x80000000); // an empty segment: the type's lowest
        ids.forEach((id, i) => {
          wantSums[id] = (wantSums[id] + vals[i]) | 0; // i32 sums wrap
          wantTops[id] = Math.max(wantTops[id], vals[i]);
        });
        near(await client.read(sums), wantSums, 0, "sums");
        near(await client.read(tops), wantTops, 0, "maxima");
      });

      await t.step("a k-means step: distances, argmin, per-cluster sums and counts", async () => {
        const [n, k] = [257, 3];
        const points = Float32Array.from({ length: n * 2 }, (_, i) => Math.sin(i * 12.9898) * 10);
        const centers = points.slice(0, k * 2);
        using hp = client.createWithData(points);
        using hc = client.createWithData(centers);
        const d = (a: string) => `(p[2u * (i / k) + ${a}] - c[2u * (i % k) + ${a}])`;
        const distance = elementwise({
          inputs: { p: "raw f32", c: "raw f32" },
          params: { k: "u32" },
          expression: `${d("0u")} * ${d("0u")} + ${d("1u")} * ${d("1u")}`,
        });
        using dist = distance.run(client, { p: hp, c: hc }, { params: { k }, length: n * k });
        using labels = argmin(client, dist, { shape: [n, k], axis: 1 });
        const coordinate = elementwise({
          inputs: { p: "raw f32" },
          params: { o: "u32" },
          expression: "p[2u * i + o]",
        });
        using xs = coordinate.run(client, { p: hp }, { params: { o: 0 }, length: n });
        using sums = segmentReduce(client, xs, labels, { segments: k });
        using counts = bincount(client, labels, { length: k });
        const want = Array.from({ length: n }, (_, i) => {
          const dd = [0, 1, 2].map((j) =>
            (points[2 * i] - centers[2 * j]) ** 2 + (points[2 * i + 1] - centers[2 * j + 1]) ** 2
          );
          return dd.indexOf(Math.min(...dd));
        });
        near(await client.read(labels), want, 0, "labels");
        near(
          await client.read(counts),
          [0, 1, 2].map((j) => want.filter((l) => l === j).length),
          0,
          "counts",
        );
        const wantSums = [0, 0, 0];
        want.forEach((l, i) => wantSums[l] += points[2 * i]);
        near(await client.read(sums), wantSums, 1e-5, "sums");
      });
    },
  });

  Deno.test({
    name: `user ports on ${backend.name}: outputs that share memory with what the call reads${
      backend.skip ? ` (skipped: ${backend.skip})` : ""
    }`,
    ignore: backend.skip !== undefined,
    async fn() {
      using client = await backend.open();
      // scatterAdd into its own values: WebGPU gave [3, 3], CUDA [4, 3] (values read after adds).
      using target = client.createWithData(new Float32Array([1, 2]));
      using indices = client.createWithData(new Uint32Array([1, 0]));
      assert.throws(
        () => scatterAdd(client, target, indices, target),
        (e) => e instanceof RangeError && /target shares memory with values/.test(e.message),
      );
      using words = target.as("u32");
      using sameWords = target.as("u32");
      assert.throws(() => scatterAdd(client, words, words, sameWords), RangeError);
      // A shifted stencil written over its raw input: WebGPU gave [2, 3, 4, 1], CUDA [2, 3, 4, 2].
      const shift = elementwise({
        inputs: { r: "raw f32" },
        params: { len: "u32" },
        expression: "r[(i + 1u) % len]",
      });
      const values = Float32Array.from({ length: 128 }, (_, i) => i);
      using x = client.createWithData(values);
      const shared = /out shares memory with input "[rvx]"/;
      assert.throws(
        () => shift.run(client, { r: x }, { out: x, params: { len: 128 } }),
        (e) => e instanceof RangeError && shared.test(e.message),
      );
      // Rows reduced into the matrix itself: row r's sum lands in row 0 while it is read.
      assert.throws(
        () => reduce(client, x, { shape: [2, 64], out: x }),
        (e) => e instanceof RangeError && shared.test(e.message),
      );
      // In place is fine where each element is read, then written, by one invocation; views of
      // other memory of the same allocation are fine too (at offsets WebGPU binds: 256 bytes).
      const double = elementwise({ inputs: ["v"], expression: "v * 2.0" });
      double.run(client, { v: x }, { out: x });
      using head = x.withOffsetEnd(256);
      using tail = x.withOffsetStart(256);
      reduce(client, head, { out: tail }); // the sum of elements 0..63 into element 64
      const doubled = values.map((v) => 2 * v);
      doubled[64] = doubled.subarray(0, 64).reduce((a, b) => a + b);
      assert.deepEqual(await client.read(x), doubled);
      using shifted = x.withOffsetStart(4); // element i + 1 written while element i + 1 is read
      assert.throws(
        () => double.run(client, { v: head }, { out: shifted }),
        (e) => e instanceof RangeError && shared.test(e.message),
      );
      // The client stays usable.
      using rotated = shift.run(client, { r: x }, { length: 128, params: { len: 128 } });
      assert.deepEqual(await client.read(rotated), doubled.map((_, i) => doubled[(i + 1) % 128]));
    },
  });

  Deno.test({
    name: `user ports on ${backend.name}: a client destroyed while matmul tunes rejects it with ` +
      `DestroyedError${backend.skip ? ` (skipped: ${backend.skip})` : ""}`,
    ignore: backend.skip !== undefined,
    async fn() {
      const client = await backend.open();
      // It was TuneFailedError ("all 13 candidates failed (naive_8x8: DestroyedError: ...").
      const tuner = new Tuner(client, {
        persistent: false,
        progressBar: false,
        onProgress: () => client.destroy(),
      });
      using a = client.createWithData(new Float32Array(16 * 16).fill(1));
      await assert.rejects(
        matmul(client, a, a, { m: 16, n: 16, k: 16, tune: tuner }),
        DestroyedError,
      );
    },
  });

  Deno.test({
    name: `user ports on ${backend.name}: helper outputs convert as WGSL's T(e), the same on ` +
      `both backends${backend.skip ? ` (skipped: ${backend.skip})` : ""}`,
    ignore: backend.skip !== undefined,
    async fn() {
      using client = await backend.open();
      const x = new Float32Array([3e9, 1e10, -5.5, 7.9, -0.5, 4294967040]);
      using hx = client.createWithData(x);
      // CUDA's C cast saturated (2147483647, 4294967295) where WGSL's i32()/u32() clamp to the
      // largest f32 below 2^31 / 2^32; and WebGPU refused an f32 expression for a u32 output
      // (a CompilationError at the read) that CUDA converted.
      const asI32 = [2147483520, 2147483520, -5, 7, 0, 2147483520];
      const asU32 = [3e9, 4294967040, 0, 7, 0, 4294967040];
      for (const [output, want] of [["i32", asI32], ["u32", asU32]] as const) {
        const convert = elementwise({ inputs: ["x"], output, expression: "x" });
        using converted = convert.run(client, { x: hx });
        assert.deepEqual([...await client.read(converted)], want, `elementwise ${output}`);
        const largest = reduction({
          inputs: ["x"],
          output,
          map: "x",
          combine: "max(a, b)",
          identity: output === "i32" ? "-2147483647 - 1" : "0u",
        });
        using top = largest.run(client, { x: hx });
        assert.deepEqual([...await client.read(top)], [Math.max(...want)], `reduction ${output}`);
      }
      // WGSL built-ins of scalars: on CUDA, all() and any() were the warp votes (any(x) true
      // for every thread where one thread had x true), insertBits, length, distance undefined.
      const votes = elementwise({
        inputs: { x: "f32" },
        output: "u32",
        expression: "select(0u, 1u, all(x > 0.0)) + select(0u, 2u, any(x < 0.0))",
      });
      const bits = elementwise({
        inputs: { x: "f32", k: "u32" },
        output: "u32",
        expression: "insertBits(k, 5u, 4u, 8u) + u32(length(x - 7.0) + distance(x, 1.0) * 0.0)",
      });
      const small = new Float32Array([-2, 0.5, 3, 9]);
      const words = new Uint32Array([0x1234, 0xffffffff, 0, 0xabcdef]);
      using hs = client.createWithData(small);
      using hk = client.createWithData(words);
      using voted = votes.run(client, { x: hs });
      assert.deepEqual([...await client.read(voted)], [2, 1, 1, 1]);
      using inserted = bits.run(client, { x: hs, k: hk });
      const insert = (k: number) => ((k & ~0xff0) | (5 << 4)) >>> 0;
      assert.deepEqual(
        [...await client.read(inserted)],
        [...small].map((v, i) => (insert(words[i]) + Math.trunc(Math.abs(v - 7))) >>> 0),
      );
      const positive = elementwise({ inputs: ["x"], expression: "x > 0.0" }); // bool to f32
      using flags = positive.run(client, { x: hx });
      assert.deepEqual([...await client.read(flags)], [1, 1, 0, 1, 0, 1]);
    },
  });
}
