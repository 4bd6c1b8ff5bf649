/**
 * The primitives on CUDA (#28): each runs on a CUDA client from the same call as on WebGPU, its
 * CUDA C generated from the same specification, compiled by NVIDIA's NVRTC and executed by the
 * simulated driver's PTX interpreter, against the CPU references of the WebGPU tests, at small
 * sizes (the interpreter runs about a million simple threads a second).
 */
import assert from "node:assert/strict";
import { bincount, histogram, random, type ScanOp, scatterAdd, segmentReduce } from "../mod.ts";
import { cpuSegments } from "./_scatter_cases.ts";
import { clearOfEdges, cpuBincount, cpuHistogram, floats } from "./_histogram_cases.ts";
import type { Element } from "./_primitives.ts";
import { check, inputFor } from "./_scan_cases.ts";
import { checkArg, valuesFor } from "./_select_cases.ts";
import { unit, words } from "./_philox.ts";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { hazardCount, hazardReport, resetHazards } from "./fixtures/cuda_sim.ts";

const ignore = nvrtcSkip !== undefined;

Deno.test({
  name: nvrtcName("random on CUDA: Philox4x32-10 bit-identical to the CPU reference"),
  ignore,
  async fn() {
    resetHazards();
    using client = await simulatedCudaClient();
    const cases: [number | bigint, number, number][] = [
      [0, 0, 4],
      [0, 0, 0],
      [1, 0, 1],
      [12345, 3, 7],
      [2 ** 40 + 17, 1, 1023],
      [0xffffffffffffffffn, 5, 65],
      [99, 2 ** 34 + 2, 33], // a counter past 2^32 blocks
      [7, 0, 5001],
    ];
    for (const [seed, offset, n] of cases) {
      using h = random(client, n, { seed, offset, dtype: "u32" });
      assert.deepEqual(await client.read(h), words(BigInt(seed), offset, n), `${seed} ${offset}`);
    }
    for (const [low, high, offset, n] of [[0, 1, 0, 1001], [-3, 5.5, 6, 257], [10, 10.25, 1, 9]]) {
      using h = random(client, n, { seed: 5, offset, low, high });
      const span = Math.fround(high - low);
      const expected = Float32Array.from(
        words(5n, offset, n),
        (w) => Math.fround(Math.fround(unit(w) * span) + Math.fround(low)),
      );
      assert.deepEqual(await client.read(h), expected, `[${low}, ${high})`);
    }
    const n = 999;
    using z = random(client, n, { seed: 11, offset: 1, distribution: "normal", mean: 2, std: 3 });
    const w = words(11n, 0, n + 2);
    const got = await client.read(z);
    for (let j = 0; j < n; j++) {
      const i = j + 1;
      const p = i - (i % 2);
      const r = Math.sqrt(-2 * Math.log(1 - unit(w[p])));
      const angle = 2 * Math.PI * unit(w[p + 1]);
      const value = (i % 2 === 0 ? Math.cos(angle) : Math.sin(angle)) * r;
      assert.ok(Math.abs(got[j] - (2 + 3 * value)) < 1e-4 * (1 + Math.abs(value)), `${j}`);
    }
    assert.equal(hazardCount(), 0, hazardReport());
  },
});

Deno.test({
  name: nvrtcName("scan on CUDA: every op, inclusive and exclusive, whole and on axes"),
  ignore,
  async fn() {
    resetHazards();
    using client = await simulatedCudaClient();
    // Every op on an integer type and on f32 (NaN propagation), each pair compiled once by
    // NVRTC (its compiles are most of this test's time).
    const pairs: [Element, ScanOp][] = [
      ["i32", "sum"],
      ["i32", "prod"],
      ["u32", "max"],
      ["u32", "min"],
      ["f32", "sum"],
      ["f32", "max"],
      ["f32", "min"],
      ["f32", "prod"],
    ];
    // Runs of 64 as float4s (lengths divisible by 4) or of 16 elements: one run, two, and 71
    // or 257 runs whose totals are scanned in runs too.
    for (const n of [0, 1, 7, 68, 4500, 4101]) {
      for (const [type, op] of pairs) {
        for (const exclusive of [false, true]) {
          await check(client, type, op, exclusive, inputFor(type, op, n, n + 1), [1, n], 1);
        }
      }
    }
    for (const shape of [[3, 5], [5, 1000], [1000, 7], [2, 2100]] as [number, number][]) {
      for (const axis of [0, 1] as const) {
        for (const [type, op] of [["i32", "sum"], ["f32", "max"], ["u32", "prod"]] as const) {
          const data = inputFor(type, op, shape[0] * shape[1], shape[0]);
          await check(client, type, op, axis === 0, data, shape, axis);
        }
      }
    }
    assert.equal(hazardCount(), 0, hazardReport());
  },
});

Deno.test({
  name: nvrtcName("argmax and argmin on CUDA: first of ties and NaN, chunks, rows and columns"),
  ignore,
  async fn() {
    resetHazards();
    using client = await simulatedCudaClient();
    await checkArg(client, new Float32Array([1, NaN, 3, NaN]), undefined, 1);
    await checkArg(client, new Float32Array([-0, 0, -0]), undefined, 1);
    await checkArg(client, new Int32Array([-(2 ** 31), 2 ** 31 - 1, 5]), undefined, 1);
    await checkArg(client, new Uint32Array([0, 2 ** 32 - 1, 7, 2 ** 32 - 1]), undefined, 1);
    await checkArg(client, new Int32Array([2 ** 31 - 1, -(2 ** 31), 5]), undefined, 1);
    await checkArg(client, new Uint32Array([2 ** 32 - 1, 0, 7]), undefined, 1);
    for (const type of ["f32", "i32", "u32"] as Element[]) {
      // Divisible by 4: the vector pass, else scalars; chunks of 16,384 values, then partials.
      for (const n of [1, 7, 4097, 9000, 16_383, 16_384, 16_385, 16_388]) {
        await checkArg(client, valuesFor(type, n, n), undefined, 1);
      }
      // Segments of up to 64: a thread each (64, and 65 columns of 64); 65: in chunks.
      const shapes = [[3, 5], [1000, 7], [2, 4100], [64, 64], [65, 65], [64, 65]];
      for (const shape of shapes as [number, number][]) {
        for (const axis of [0, 1] as const) {
          await checkArg(client, valuesFor(type, shape[0] * shape[1], shape[1]), shape, axis);
        }
      }
    }
    assert.equal(hazardCount(), 0, hazardReport());
  },
});

Deno.test({
  name: nvrtcName("histogram and bincount on CUDA: NumPy's edges, shared and global counts"),
  ignore,
  async fn() {
    resetHazards();
    using client = await simulatedCudaClient();
    const edges = [0, 0.5, 1, 1.5, 2, 2, 7, -0.001, NaN, Infinity, -Infinity, -0, 1.999, 0.25];
    using e = client.createWithData(new Float32Array(edges));
    using four = histogram(client, e, { bins: 4, range: [0, 2] });
    assert.deepEqual([...await client.read(four)], [3, 1, 1, 4]);
    for (const bins of [1, 7, 1000, 3000]) { // 3,000 bins: counted in global memory
      const x = clearOfEdges(floats(20_000, -1.5, 10.5, bins), bins, [-1, 10]);
      using h = client.createWithData(x);
      using counts = histogram(client, h, { bins, range: [-1, 10] });
      assert.deepEqual(await client.read(counts), cpuHistogram(x, bins, [-1, 10]), `${bins} bins`);
    }
    const ints = Int32Array.from(floats(9001, -20, 1500, 3), Math.floor);
    using i = client.createWithData(ints);
    using u = client.createWithData(Uint32Array.from(ints, (v) => v >>> 0));
    for (const length of [1, 100, 1500]) {
      using a = bincount(client, i, { length });
      using b = bincount(client, u, { length });
      const expected = cpuBincount(ints, length);
      assert.deepEqual(await client.read(a), expected, `i32 ${length}`);
      assert.deepEqual(await client.read(b), expected, `u32 ${length}`);
    }
    assert.equal(hazardCount(), 0, hazardReport());
  },
});

Deno.test({
  name: nvrtcName("scatterAdd and segmentReduce on CUDA: atomics, every op and type"),
  ignore,
  async fn() {
    resetHazards();
    using client = await simulatedCudaClient();
    using target = client.createWithData(new Float32Array([0.5, 0, 0]));
    using idx = client.createWithData(new Uint32Array([0, 2, 2, 5, 2]));
    using values = client.createWithData(new Float32Array([1, 2, 3, 4, 0.25]));
    scatterAdd(client, target, idx, values);
    assert.deepEqual([...await client.read(target)], [1.5, 0, 5.25]);
    using ti = client.createWithData(new Int32Array([2147483647, -5]));
    using ii = client.createWithData(new Uint32Array([0, 1, 1]));
    using vi = client.createWithData(new Int32Array([1, 10, -20]));
    scatterAdd(client, ti, ii, vi);
    assert.deepEqual([...await client.read(ti)], [-2147483648, -15]); // wraps as i32
    const n = 5000;
    const ids = Int32Array.from({ length: n }, (_, i) => ((i * 7919) % 23) - 2); // some < 0
    const f = Float32Array.from({ length: n }, (_, i) => ((i * 31) % 17) - 8);
    f[77] = NaN;
    const i32 = Int32Array.from(f, (v, i) => (Number.isNaN(v) ? 3 : v * (i % 5)));
    const u32 = Uint32Array.from(i32, (v) => Math.abs(v) * 1000);
    using hid = client.createWithData(ids);
    for (const data of [f, i32, u32]) {
      using hv = client.createWithData(data);
      for (const op of ["sum", "max", "min"] as const) {
        using out = segmentReduce(client, hv, hid, { segments: 25, op });
        const what = `${data.constructor.name} ${op}`;
        // As arrays: a NaN is a NaN whatever its payload (the keys decode to 0x7fffffff).
        assert.deepEqual(
          Array.from(await client.read(out)),
          Array.from(cpuSegments(data, ids, 25, op)),
          what,
        );
      }
    }
    assert.equal(hazardCount(), 0, hazardReport());
  },
});
