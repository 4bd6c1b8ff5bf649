/**
 * The browser suite's group for issue #30's scan, sort and select primitives (cumsum, scan,
 * sort, argsort, argmax, argmin, topk): each against a small CPU answer, on the browser's WebGPU
 * (Chrome's Tint compiles the WGSL, where the Deno tests run naga). Sizes are small but reach
 * more than one block or chunk where a primitive has them.
 *
 * @module
 */

import assert from "node:assert/strict";
import { argmax, argmin, argsort, createClient, cumsum, scan, sort, topk } from "../../mod.ts";
import type { PageTestContext } from "./_page_harness.ts";

/** The group, by name, for `runGroups`. */
export const primitivesAGroup = {
  "primitives: scan, sort, argmax, topk": async (t: PageTestContext) => {
    using client = await createClient();
    await t.step("scan and cumsum: ops, exclusive, axes, several runs", async () => {
      using x = client.createWithData(new Float32Array([1, 2, 3, 4, 5, 6]));
      using sums = cumsum(client, x);
      using columns = cumsum(client, x, { shape: [2, 3], axis: 0 });
      using products = scan(client, x, { op: "prod", exclusive: true });
      using maxima = scan(client, x, { op: "max", shape: [3, 2] });
      const n = 5000; // 79 runs of 64 (vec4s), their totals scanned in runs too
      using ones = client.createWithData(new Int32Array(n).fill(1));
      using counts = scan(client, ones, { exclusive: true });
      const [a, b, c, d, e] = await client.readMany([sums, columns, products, maxima, counts]);
      assert.deepEqual([...a], [1, 3, 6, 10, 15, 21]);
      assert.deepEqual([...b], [1, 2, 3, 5, 7, 9]);
      assert.deepEqual([...c], [1, 1, 2, 6, 24, 120]);
      assert.deepEqual([...d], [1, 2, 3, 4, 5, 6]);
      assert.ok(e.every((v, i) => v === i), "exclusive count");
    });
    await t.step("sort and argsort: stable, NaN last, -0 equal to +0, with values", async () => {
      using keys = client.createWithData(new Float32Array([3, NaN, -0, -1, 0, 3, -Infinity]));
      using sorted = sort(client, keys);
      using order = argsort(client, keys, { descending: true });
      using labels = client.createWithData(new Uint32Array([0, 1, 2, 3, 4, 5, 6]));
      const pairs = sort(client, keys, { values: labels });
      using _k = pairs.keys;
      using _v = pairs.values;
      const n = 3000; // several runs of 256 keys
      const words = Uint32Array.from({ length: n }, (_, i) => Math.imul(i, 2654435761) >>> 0);
      using many = client.createWithData(words);
      using manySorted = sort(client, many);
      const [s, o, v, m] = await client.readMany([sorted, order, pairs.values, manySorted]);
      assert.deepEqual([...s].map((x) => Object.is(x, -0) ? "-0" : x), [
        -Infinity,
        -1,
        "-0",
        0,
        3,
        3,
        NaN,
      ]);
      assert.deepEqual([...o], [1, 0, 5, 2, 4, 3, 6]);
      assert.deepEqual([...v], [6, 3, 2, 4, 0, 5, 1]);
      assert.deepEqual([...m], [...words.slice().sort()]);
    });
    await t.step("argmax and argmin: first of ties and NaN, per row, several chunks", async () => {
      using x = client.createWithData(new Float32Array([1, 9, 9, 2, NaN, 0]));
      using hi = argmax(client, x, { shape: [2, 3] });
      using lo = argmin(client, x, { shape: [3, 2], axis: 0 });
      const n = 40_001; // three chunks of 16,384 (single elements), then their partials
      const values = Int32Array.from({ length: n }, (_, i) => (i * 37) % 1001 - 500);
      values[37_777] = 600;
      values[1234] = -600;
      using v = client.createWithData(values);
      using vmax = argmax(client, v);
      using vmin = argmin(client, v);
      const [a, b, c, d] = await client.readMany([hi, lo, vmax, vmin]);
      assert.deepEqual([...a], [1, 1]);
      assert.deepEqual([...b], [2, 2]); // the first NaN wins in column 0
      assert.deepEqual([...c, ...d], [37_777, 1234]);
    });
    await t.step("topk: best first, ties by lower index, per row", async () => {
      using x = client.createWithData(new Int32Array([3, 9, 4, 9, 5, 5, 1, 0]));
      const top = topk(client, x, 3);
      using _tv = top.values;
      using _ti = top.indices;
      const rows = topk(client, x, 2, { shape: [2, 4], largest: false });
      using _rv = rows.values;
      using _ri = rows.indices;
      const [tv, ti, rv, ri] = await client.readMany([
        top.values,
        top.indices,
        rows.values,
        rows.indices,
      ]);
      assert.deepEqual([[...tv], [...ti]], [[9, 9, 5], [1, 3, 4]]);
      assert.deepEqual([[...rv], [...ri]], [[3, 4, 0, 1], [0, 2, 3, 2]]);
    });
  },
};
