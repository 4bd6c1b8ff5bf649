/**
 * Small programs ported from CuPy, PyTorch and tfjs as a new user writes them from the README
 * and the JSDoc, run from the same calls on WebGPU and on CUDA (the simulated driver, CUDA C
 * compiled by NVRTC), against CPU references: softmax over rows, an MLP layer (tuned matmul,
 * bias, ReLU), scaled dot-product attention, stream compaction (scan + scatter), key-value
 * sort then a segmented reduction, a k-means step, histogram equalization, Monte-Carlo pi. The
 * MLP layer is also the regression test of a matmul tuned on first use, which read its inputs
 * as they were after later writes (a silently wrong product). What else the ports ran into is
 * in tests/cuda_user_ports_edges_test.ts.
 */
import assert from "node:assert/strict";
import {
  argmin,
  bincount,
  type CudaKernel,
  cumsum,
  elementwise,
  matmul,
  random,
  reduce,
  scan,
  segmentReduce,
  sort,
  type WgslKernel,
} from "../mod.ts";
import { backends, near, portName } from "./_user_ports.ts";

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

const scaledExp = elementwise({
  inputs: { v: "f32", r: "raw f32" },
  params: { cols: "u32", scale: "f32" },
  expression: "exp((v - r[i / cols]) * scale)",
});
const equalize = elementwise({
  inputs: { p: "u32", c: "raw u32" },
  params: { total: "u32" },
  output: "u32",
  expression: "(c[p] * 255u) / total",
});
const inCircle = elementwise({
  inputs: { r: "raw f32" },
  output: "u32",
  expression: "select(0u, 1u, r[2u * i] * r[2u * i] + r[2u * i + 1u] * r[2u * i + 1u] < 1.0)",
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
    name: portName(backend, "softmax, MLP, attention, compaction, sorts, k-means, histeq, pi"),
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

      await t.step("scaled dot-product attention (5 x 3, 33 x 16)", async () => {
        for (const [s, d] of [[5, 3], [33, 16]]) {
          const q = Float32Array.from({ length: s * d }, (_, i) => Math.sin(i * 0.7));
          const k = Float32Array.from({ length: s * d }, (_, i) => Math.cos(i * 0.3));
          const v = Float32Array.from({ length: s * d }, (_, i) => (i % 11) / 11);
          using hq = client.createWithData(q);
          using hk = client.createWithData(k);
          using hv = client.createWithData(v);
          using scores = await matmul(client, hq, hk, { m: s, n: s, k: d, transposeB: true });
          const byRow = { shape: [s, s], axis: 1 } as const;
          using top = reduce(client, scores, { op: "max", ...byRow });
          using e = scaledExp.run(client, { v: scores, r: top }, {
            params: { cols: s, scale: 1 / Math.sqrt(d) },
          });
          using sums = reduce(client, e, byRow);
          using p = perRow("v / r[i / cols]").run(client, { v: e, r: sums }, {
            params: { cols: s },
          });
          using out = await matmul(client, p, hv, { m: s, n: d, k: s });
          const want = new Float32Array(s * d);
          for (let i = 0; i < s; i++) {
            const row = Array.from({ length: s }, (_, j) => {
              let dot = 0;
              for (let c = 0; c < d; c++) dot += q[i * d + c] * k[j * d + c];
              return dot / Math.sqrt(d);
            });
            const weights = row.map((x) => Math.exp(x - Math.max(...row)));
            const z = weights.reduce((a, b) => a + b);
            for (let c = 0; c < d; c++) {
              want[i * d + c] = weights.reduce((acc, w, j) => acc + w / z * v[j * d + c], 0);
            }
          }
          near(await client.read(out), want, 1e-4, `attention ${s}x${d}`);
        }
      });

      await t.step(
        "histogram equalization of an 8-bit image (bincount, cumsum, lookup)",
        async () => {
          const [w, h] = [17, 13];
          const image = Uint32Array.from({ length: w * h }, (_, i) => ((i * 37) % 100) + 50);
          using hi = client.createWithData(image);
          using counts = bincount(client, hi, { length: 256 });
          using cdf = cumsum(client, counts);
          using out = equalize.run(client, { p: hi, c: cdf }, { params: { total: w * h } });
          const cpu = new Array(256).fill(0);
          image.forEach((p) => cpu[p]++);
          for (let i = 1; i < 256; i++) cpu[i] += cpu[i - 1];
          near(
            await client.read(out),
            [...image].map((p) => Math.floor(cpu[p] * 255 / (w * h))),
            0,
            "equalized",
          );
        },
      );

      await t.step(
        "Monte-Carlo pi: random pairs, hits, a sum (bit-identical numbers)",
        async () => {
          const n = 4097;
          using xy = random(client, 2 * n, { seed: 1234 });
          using hits = inCircle.run(client, { r: xy }, { length: n });
          using count = reduce(client, hits);
          const host = await client.read(xy);
          let inside = 0;
          for (let i = 0; i < n; i++) if (host[2 * i] ** 2 + host[2 * i + 1] ** 2 < 1) inside++;
          assert.deepEqual([...await client.read(count)], [inside]);
          assert.ok(Math.abs(4 * inside / n - Math.PI) < 0.15, `pi ~ ${4 * inside / n}`);
        },
      );
    },
  });
}
