/**
 * More primitives on CUDA (#28): sort, argsort and topk, transpose and gather, and matmul run on a
 * CUDA client from the same call as on WebGPU, their CUDA C compiled by NVIDIA's NVRTC and run by
 * the simulated driver's PTX interpreter, against the CPU references of the WebGPU tests, at small
 * sizes (the interpreter runs about a million simple threads a second).
 */
import assert from "node:assert/strict";
import { argsort, gather, matmul, type MatmulOptions, sort, transpose } from "../mod.ts";
import { matmulSet, reduceSet, Tuner } from "../runtime/tune/mod.ts";
import { assertBits, type Element } from "./_primitives.ts";
import { assertClose, cpuMatmul, cpuTranspose, lcgFloats } from "./_matmul_cases.ts";
import { checkSort, constantDigitCases, keysFor } from "./_sort_cases.ts";
import { checkTopk, valuesFor } from "./_select_cases.ts";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { isCpuAdapter } from "../runtime/kernels/_device_kind.ts";
import { setSortVariant, sortVariant } from "../runtime/kernels/sort/_variant.ts";
import { hazardCount, hazardReport, resetHazards } from "./fixtures/cuda_sim.ts";

const ignore = nvrtcSkip !== undefined;
const types: Element[] = ["f32", "i32", "u32"];

Deno.test({
  name: nvrtcName("sort, argsort and topk on CUDA: stable, NaN and -0, rows, bit-exact"),
  ignore,
  async fn() {
    resetHazards();
    using client = await simulatedCudaClient();
    // The simulated driver stands for a GPU: the tiled sort (the serial one is the next test's).
    assert.equal(isCpuAdapter(client), false);
    assert.equal(sortVariant(client), "tiled");
    const f = new Float32Array([3, NaN, -0, -1, 0, 2, -0, -Infinity, Infinity]);
    for (const descending of [false, true]) await checkSort(client, f, "f32", descending);
    const tiny = new Float32Array([1e-40, -1e-45, 3, 1e-45, -1e-40, 0, -2, 1e-38]); // no -0, NaN
    await checkSort(client, tiny, "f32", false);
    await checkSort(client, new Int32Array([5, -2, 5, 0, -(2 ** 31), 2 ** 31 - 1]), "i32", true);
    await checkSort(client, new Uint32Array([7, 0, 2 ** 32 - 1, 7, 1]), "u32", false);
    // 0, 1, a block's edge and three blocks of 1,024 keys.
    for (const n of [0, 1, 1025, 2500]) {
      for (const type of types) await checkSort(client, keysFor(type, n, n + 3), type, n % 2 === 1);
    }
    for (const [, data, type] of constantDigitCases(1030)) {
      await checkSort(client, data, type, true);
    }
    using keys = client.createWithData(new Uint32Array([3, 1, 2, 1]));
    using ints = client.createWithData(new Int32Array([-3, -1, -2, -4]));
    const pairs = sort(client, keys, { values: ints, descending: true });
    using _k = pairs.keys;
    using _v = pairs.values;
    const [k, v] = await client.readMany([pairs.keys, pairs.values]);
    assert.deepEqual([Array.from(k), Array.from(v)], [[3, 2, 1, 1], [-3, -2, -1, -4]]);
    using order = argsort(client, keys);
    assert.deepEqual(Array.from(await client.read(order)), [1, 3, 2, 0]);
    const special = new Float32Array([1, NaN, -0, 0, 7, NaN, -0, 7]);
    for (const largest of [true, false]) {
      for (const k of [0, 1, 3, 8]) await checkTopk(client, special, k, undefined, largest);
    }
    for (const type of types) await checkTopk(client, valuesFor(type, 1100, 5), 8, undefined, true);
    await checkTopk(client, valuesFor("f32", 40 * 30, 9), 3, [40, 30], false); // row passes
    assert.equal(hazardCount(), 0, hazardReport());
  },
});

Deno.test({
  name: nvrtcName(
    "the serial sort of CPU adapters, forced on CUDA: stable, NaN and -0, several runs",
  ),
  ignore,
  async fn() {
    resetHazards();
    using client = await simulatedCudaClient();
    setSortVariant("serial");
    try {
      // Few cases: the serial sort is the CPU adapters' (tested at length on WebGPU), and each
      // type, direction and payload is new kernels for NVRTC to compile.
      const f = new Float32Array([3, NaN, -0, -1, 0, 2, -0, -Infinity, Infinity]);
      for (const descending of [false, true]) await checkSort(client, f, "f32", descending);
      // Several runs of keys (256 keys a run at these sizes), a partial vec4, a whole one.
      await checkSort(client, keysFor("f32", 2501, 8), "f32", true);
      // Passes whose digit is one value in every key (copies): the same kernels, other branches.
      // f32 keys only: each type is new kernels for NVRTC (seconds each); the other types, pairs
      // and topk's row passes of this variant: tests/kernels_sort_test.ts, on WebGPU.
      for (const [, data, type] of constantDigitCases(1030).filter(([, , t]) => t === "f32")) {
        await checkSort(client, data, type, type === "i32");
      }
    } finally {
      setSortVariant(undefined);
    }
    assert.equal(hazardCount(), 0, hazardReport());
  },
});

Deno.test({
  name: nvrtcName("transpose and gather on CUDA: tiles, edges, bits kept, checked indices"),
  ignore,
  async fn() {
    resetHazards();
    using client = await simulatedCudaClient();
    for (const [rows, cols] of [[0, 5], [1, 1], [7, 1], [33, 65], [3, 100], [70, 40]]) {
      const data = Int32Array.from({ length: rows * cols }, (_, i) => i * 7 - 3);
      using x = client.createWithData(data);
      using out = transpose(client, x, { shape: [rows, cols] });
      assert.equal(out.dtype, "i32");
      assert.deepEqual(await client.read(out), cpuTranspose(data, rows, cols), `${rows}x${cols}`);
    }
    const bits = new Float32Array([NaN, -0, 1, -Infinity, 2.5, 3]);
    using f = client.createWithData(bits);
    using ft = transpose(client, f, { shape: [2, 3] });
    assertBits(await client.read(ft), cpuTranspose(bits, 2, 3), "f32 transpose");
    for (const [len, n] of [[5, 0], [1, 1], [0, 3], [1001, 999], [65, 4097]]) {
      const x = Float32Array.from({ length: len }, (_, i) => i * 0.5 - 7);
      const idx = Uint32Array.from(
        { length: n },
        (_, i) => (Math.imul(i, 2654435761) >>> 0) % (len + 3),
      );
      using hx = client.createWithData(x);
      using hi = client.createWithData(idx);
      using out = gather(client, hx, hi);
      const expected = Float32Array.from(idx, (k) => k < len ? x[k] : 0);
      assert.deepEqual(await client.read(out), expected, `${len} ${n}`);
    }
    using x = client.createWithData(new Uint32Array([5, 6, 7]));
    using good = client.createWithData(new Uint32Array([2, 1, 0, 2]));
    using bad = client.createWithData(new Uint32Array([0, 9, 1, 3, 4]));
    using out = await gather(client, x, good, { check: true });
    assert.deepEqual([...await client.read(out)], [7, 6, 5, 7]);
    await assert.rejects(
      gather(client, x, bad, { check: true }),
      (e) => e instanceof RangeError && /indices\[1\] is 9/.test(e.message),
    );
    assert.equal(hazardCount(), 0, hazardReport());
  },
});

Deno.test({
  name: nvrtcName("matmul on CUDA: default variant, batches, transposes, tuned; reduceSet tunes"),
  ignore,
  async fn() {
    resetHazards();
    using client = await simulatedCudaClient();
    const check = async (options: MatmulOptions, seed = 1) => {
      const full = { transposeA: false, transposeB: false, batch: 1, ...options };
      const { m, n, k, batch } = full;
      const a = lcgFloats(batch * m * k, seed), b = lcgFloats(batch * k * n, seed + 1);
      using ha = client.createWithData(a);
      using hb = client.createWithData(b);
      using c = await matmul(client, ha, hb, options);
      assertClose(await client.read(c), cpuMatmul(a, b, full), k, JSON.stringify(options));
    };
    for (const [m, n, k] of [[1, 1, 1], [3, 5, 7], [33, 17, 65], [0, 3, 4], [3, 4, 0]]) {
      for (const transposeA of [false, true]) {
        for (const transposeB of [false, true]) {
          await check({ m, n, k, transposeA, transposeB, tune: false });
        }
      }
    }
    for (const [batch, m, n, k] of [[2, 1, 1, 1], [3, 7, 9, 11], [2, 33, 10, 5], [4, 3, 2, 0]]) {
      await check({ batch, m, n, k, transposeA: batch % 2 === 1, transposeB: m % 3 === 0 });
    }
    // Every CUDA candidate of the set (naive, shared and register tiles) against the CPU.
    const set = matmulSet(client);
    assert.deepEqual(set.names, [
      "naive_8x8",
      "shared_16x16",
      "shared_8x8",
      "reg_4x4_wg8x8",
      "reg_2x4_wg16x4",
    ]);
    const [m, n, k] = [21, 19, 18];
    const a = lcgFloats(m * k, 3), b = lcgFloats(k * n, 4);
    using ha = client.createWithData(a);
    using hb = client.createWithData(b);
    for (const candidate of set.candidates) {
      using c = await candidate.run({ a: ha, b: hb, m, n, k });
      const full = { m, n, k, batch: 1, transposeA: false, transposeB: false };
      assertClose(await client.read(c, Float32Array), cpuMatmul(a, b, full), k, candidate.name);
    }
    // Tuned: tunes a shape once, then the same key hits the cache.
    const sampling = { adaptive: false, minSamples: 1, maxSamples: 2, minSampleMs: 0 };
    const tuner = new Tuner(client, { persistent: false, progressBar: false, sampling });
    await check({ m: 20, n: 18, k: 17, tune: tuner });
    assert.equal(tuner.stats.tunings, 1);
    await check({ m: 19, n: 17, k: 17, transposeB: true, tune: tuner }, 5); // same key
    assert.equal(tuner.stats.tunings, 1);
    const data = Float32Array.from({ length: 3000 }, (_, i) => (i % 7) * 0.5);
    using x = client.createWithData(data);
    using total = await tuner.execute(reduceSet(client, "sum"), { x });
    const [sum] = await client.read(total, Float32Array);
    assert.ok(Math.abs(sum - data.reduce((p, v) => p + v, 0)) < 1e-2, `sum ${sum}`);
    assert.equal(tuner.stats.tunings, 2);
    for (const candidate of reduceSet(client, "max").candidates) { // every width and plan
      using best = await candidate.run({ x });
      assert.deepEqual([...await client.read(best, Float32Array)], [3], candidate.name);
    }
    assert.equal(hazardCount(), 0, hazardReport());
  },
});
