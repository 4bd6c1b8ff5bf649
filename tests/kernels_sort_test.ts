/**
 * sort and argsort (issue #30) against a stable CPU sort: f32, i32 and u32 keys, both
 * directions, with values, NaN above every number and -0 equal to +0 (input order and bits kept),
 * at 0, 1, odd and non-power-of-two lengths, block edges and 2^24 keys (map launches past 65,535
 * workgroups: with GPUCOMPUTE_TEST_LARGE=1, `deno task test:large`); fast-check properties; bad
 * input gives typed errors and the client stays usable.
 */
import assert from "node:assert/strict";
import { argsort, createClient, type Handle, sort } from "../mod.ts";
import { assertBits, type Element, LARGE, randomWords } from "./_primitives.ts";
import { checkSort, checkSortProperty, constantDigitCases, keysFor } from "./_sort_cases.ts";
import { checkTopk } from "./_select_cases.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

Deno.test({
  name: "sort and argsort: stable, NaN last, -0 equal to +0, both directions",
  ignore,
  async fn(t) {
    using client = await createClient({ adapter: adapter! });
    const types: Element[] = ["f32", "i32", "u32"];

    await t.step("small cases", async () => {
      const f = new Float32Array([3, NaN, -0, -1, 0, 2, -0, -Infinity, Infinity]);
      for (const descending of [false, true]) await checkSort(client, f, "f32", descending);
      // Subnormals and no -0 or odd NaN: the keys' bits come back from their order keys.
      const tiny = new Float32Array([1e-40, -1e-45, 3, 1e-45, -1e-40, 0, -2, 1e-38]);
      for (const descending of [false, true]) await checkSort(client, tiny, "f32", descending);
      await checkSort(client, new Int32Array([5, -2, 5, 0, -(2 ** 31), 2 ** 31 - 1]), "i32", true);
      await checkSort(client, new Uint32Array([7, 0, 2 ** 32 - 1, 7, 1]), "u32", false);
      using keys = client.createWithData(new Int32Array([5, -2, 5, 0]));
      using order = argsort(client, keys, { descending: true });
      assert.deepEqual(Array.from(await client.read(order)), [0, 2, 3, 1]);
    });

    await t.step("lengths 0, 1, odd, block edges, several blocks", async () => {
      for (const n of [0, 1, 2, 7, 1023, 1024, 1025, 100_003]) {
        for (const type of types) {
          for (const descending of [false, true]) {
            await checkSort(client, keysFor(type, n, n + 3), type, descending);
          }
        }
      }
    });

    await t.step(
      "passes whose digit is one value in every key (copied), with payloads",
      async () => {
        for (const n of [2, 3, 1030, 1032, 262_147]) {
          // Past 2^18 keys the runs are longer: two cases there.
          const cases = constantDigitCases(n).filter((_, c) => n < 1 << 18 || c === 1 || c === 3);
          for (const [what, data, type] of cases) {
            for (const descending of [false, true]) {
              await checkSort(client, data, type, descending).catch((error) => {
                throw new Error(`${what}, n=${n}: ${error.message}`);
              });
            }
          }
        }
        // topk's row passes after key passes that are copies, and after ones that are not.
        await checkTopk(client, new Float32Array(40 * 30).fill(1.5), 3, [40, 30], true);
        await checkTopk(client, constantDigitCases(1200)[3][1], 5, [40, 30], false);
      },
    );

    await t.step("values of every type move with i32 and u32 keys", async () => {
      using keys = client.createWithData(new Uint32Array([3, 1, 2, 1]));
      using ints = client.createWithData(new Int32Array([-3, -1, -2, -4]));
      const pairs = sort(client, keys, { values: ints, descending: true });
      using _k = pairs.keys;
      using _v = pairs.values;
      const [k, v] = await client.readMany([pairs.keys, pairs.values]);
      assert.deepEqual([Array.from(k), Array.from(v)], [[3, 2, 1, 1], [-3, -2, -1, -4]]);
    });

    await t.step({
      name: "2^24 u32 keys",
      ignore: !LARGE,
      fn: async () => {
        const data = randomWords(1 << 24, 11);
        using keys = client.createWithData(data);
        using sorted = sort(client, keys);
        assertBits(await client.read(sorted), data.slice().sort(), "sort 2^24 u32");
      },
    });

    await t.step("property: permutation, stability, NaN and -0 (any type, length)", async () => {
      await checkSortProperty(client, { maxLength: 3000, numRuns: 40 });
    });

    await t.step(
      "bad input: typed errors naming the argument; the client stays usable",
      async () => {
        using keys = client.createWithData(new Float32Array([2, 1, 3]));
        using short = client.createWithData(new Uint32Array([1, 2]));
        using wide = client.createWithData(new Float64Array([1, 2, 3]));
        const f64 = wide as unknown as Handle<"f32">;
        assert.throws(
          () => sort(client, f64),
          (e) => e instanceof TypeError && /keys/.test(e.message),
        );
        assert.throws(
          () => argsort(client, f64),
          (e) => e instanceof TypeError && /keys/.test(e.message),
        );
        assert.throws(
          () => sort(client, keys, { values: short }),
          (e) => e instanceof RangeError && /options\.values/.test(e.message),
        );
        assert.throws(
          () => sort(client, keys, { values: f64 }),
          (e) => e instanceof TypeError && /options\.values/.test(e.message),
        );
        assert.throws(
          // deno-lint-ignore no-explicit-any
          () => sort(client, keys, { descending: "yes" as any }),
          (e) => e instanceof TypeError && /descending/.test(e.message),
        );
        using sorted = sort(client, keys, { descending: true });
        assert.deepEqual(Array.from(await client.read(sorted)), [3, 2, 1]);
      },
    );
  },
});
