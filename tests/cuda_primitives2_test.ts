/**
 * More primitives on CUDA (#28): sort, argsort and topk, transpose and gather, and matmul run on a
 * CUDA client from the same call as on WebGPU, their CUDA C compiled by NVIDIA's NVRTC and run by
 * the simulated driver's PTX interpreter, against the CPU references of the WebGPU tests, at small
 * sizes (the interpreter runs about a million simple threads a second).
 */
import assert from "node:assert/strict";
import { argsort, sort } from "../mod.ts";
import type { Element } from "./_primitives.ts";
import { checkSort, keysFor } from "./_sort_cases.ts";
import { checkTopk, valuesFor } from "./_select_cases.ts";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { hazardCount, hazardReport, resetHazards } from "./fixtures/cuda_sim.ts";

const ignore = nvrtcSkip !== undefined;
const types: Element[] = ["f32", "i32", "u32"];

Deno.test({
  name: nvrtcName("sort, argsort and topk on CUDA: stable, NaN and -0, rows, bit-exact"),
  ignore,
  async fn() {
    resetHazards();
    using client = await simulatedCudaClient();
    const f = new Float32Array([3, NaN, -0, -1, 0, 2, -0, -Infinity, Infinity]);
    for (const descending of [false, true]) await checkSort(client, f, "f32", descending);
    await checkSort(client, new Int32Array([5, -2, 5, 0, -(2 ** 31), 2 ** 31 - 1]), "i32", true);
    await checkSort(client, new Uint32Array([7, 0, 2 ** 32 - 1, 7, 1]), "u32", false);
    // 0, 1, a block's edge and three blocks of 1,024 keys.
    for (const n of [0, 1, 1025, 2500]) {
      for (const type of types) await checkSort(client, keysFor(type, n, n + 3), type, n % 2 === 1);
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
