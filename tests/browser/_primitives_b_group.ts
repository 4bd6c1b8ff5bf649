/**
 * The browser suite's group for issue #30's histogram, scatter, random and linear-algebra
 * primitives: each against a small CPU reference, on the browser's WebGPU (Chrome's Tint
 * compiles the WGSL, where the Deno tests run naga).
 *
 * @module
 */

import assert from "node:assert/strict";
import {
  bincount,
  createClient,
  gather,
  histogram,
  matmul,
  random,
  scatterAdd,
  segmentReduce,
  transpose,
} from "../../mod.ts";
import type { PageTestContext } from "./_page_harness.ts";

/** The group, by name, for `runGroups`. */
export const primitivesGroup = {
  "primitives: histogram, scatter, random, linear algebra": async (t: PageTestContext) => {
    using client = await createClient();
    await t.step("random: Philox4x32-10's known answer, finite normal numbers", async () => {
      using words = random(client, 4, { seed: 0, dtype: "u32" });
      assert.deepEqual([...await client.read(words)], [
        0x6627e8d5,
        0xe169c58d,
        0xbc57ac4c,
        0x9b00dbd8,
      ]);
      using u = random(client, 5, { seed: 0, distribution: "normal" });
      assert.ok((await client.read(u)).every(Number.isFinite));
    });
    await t.step("histogram and bincount", async () => {
      using x = client.createWithData(new Float32Array([0, 0.5, 1, 1.5, 2, 2, 7, NaN]));
      using h = histogram(client, x, { bins: 4, range: [0, 2] });
      using i = client.createWithData(new Int32Array([1, 1, 3, -2, 9, 0]));
      using b = bincount(client, i, { length: 4 });
      const [hc, bc] = await client.readMany([h, b]);
      assert.deepEqual([...hc], [1, 1, 1, 3]);
      assert.deepEqual([...bc], [1, 2, 0, 1]);
    });
    await t.step("scatterAdd and segmentReduce", async () => {
      using target = client.createWithData(new Float32Array([0, 0, 0]));
      using idx = client.createWithData(new Uint32Array([0, 2, 2, 5]));
      using values = client.createWithData(new Float32Array([1, 2, 3, 4]));
      scatterAdd(client, target, idx, values);
      using mx = segmentReduce(client, values, idx, { segments: 3, op: "max" });
      const [sum, max] = await client.readMany([target, mx]);
      assert.deepEqual([...sum], [1, 0, 5]);
      assert.deepEqual([...max], [1, -Infinity, 3]);
    });
    await t.step("matmul, transpose and gather", async () => {
      using a = client.createWithData(new Float32Array([1, 2, 3, 4, 5, 6]));
      using b = client.createWithData(new Float32Array([1, 0, 0, 1, 1, 1]));
      using c = await matmul(client, a, b, { m: 2, n: 2, k: 3, tune: false });
      using cb = await matmul(client, a, b, { m: 1, n: 1, k: 3, batch: 2, transposeB: true });
      using at = transpose(client, a, { shape: [2, 3] });
      using k = client.createWithData(new Uint32Array([5, 0, 9]));
      using g = gather(client, a, k);
      const [cc, ccb, tt, gg] = await client.readMany([c, cb, at, g]);
      assert.deepEqual([...cc], [4, 5, 10, 11]);
      assert.deepEqual([...ccb], [1, 15]);
      assert.deepEqual([...tt], [1, 4, 2, 5, 3, 6]);
      assert.deepEqual([...gg], [6, 1, 0]);
    });
  },
};
