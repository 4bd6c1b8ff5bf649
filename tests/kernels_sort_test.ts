/**
 * sort and argsort (issue #30) against a stable CPU sort: f32, i32 and u32 keys, both
 * directions, with values, NaN above every number and -0 equal to +0 (input order and bits kept),
 * at 0, 1, odd and non-power-of-two lengths, block edges and 2^24 keys (map launches past 65,535
 * workgroups: with GPUCOMPUTE_TEST_LARGE=1, `deno task test:large`); fast-check properties; bad
 * input gives typed errors and the client stays usable.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { argsort, type ComputeClient, createClient, type Handle, sort } from "../mod.ts";
import {
  assertBits,
  cpuArgsort,
  type Element,
  type ElementArray,
  LARGE,
  randomWords,
  typed,
} from "./_primitives.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

/** `data` permuted by `order`. */
function permute<A extends ElementArray>(data: A, order: Uint32Array): A {
  const out = data.slice() as A;
  for (let i = 0; i < order.length; i++) out[i] = data[order[i]];
  return out;
}

/** Keys with many ties; f32 with -0, +0, infinities and NaN of two patterns. */
function keysFor(type: Element, n: number, seed: number, spread = 40): ElementArray {
  const words = randomWords(n, seed);
  if (type === "u32") return typed("u32", Array.from(words, (w) => w % spread === 0 ? w : w % 17));
  if (type === "i32") {
    return typed(
      "i32",
      Array.from(words, (w) => w % spread === 0 ? w | 0 : (w % 17) - 8),
    );
  }
  const out = typed("f32", Array.from(words, (w) => (w % 17) - 8 + (w % 3) / 4));
  const bits = new Uint32Array(out.buffer);
  const special = [0x80000000, 0, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001];
  for (let i = 0; i < n; i++) if (words[i] % spread === 1) bits[i] = special[(words[i] >>> 7) % 6];
  return out;
}

async function checkSort(
  client: ComputeClient,
  data: ElementArray,
  type: Element,
  descending: boolean,
): Promise<void> {
  const what = `${type} n=${data.length} ${descending ? "descending" : "ascending"}`;
  const order = cpuArgsort(data, descending);
  using keys = client.createWithData(data);
  using values = client.createWithData(Float32Array.from(data, (_, i) => i + 0.5));
  using sorted = sort(client, keys, { descending });
  using indices = argsort(client, keys, { descending });
  const pairs = sort(client, keys, { values, descending });
  using _k = pairs.keys;
  using _v = pairs.values;
  const [s, a, pk, pv] = await client.readMany([sorted, indices, pairs.keys, pairs.values]);
  assertBits(a, order, `argsort ${what}`);
  const expected = permute(data, order);
  if (type === "f32") {
    assertBits(s as ElementArray, expected, `sort ${what}`); // -0 and NaN bits kept
  } else {
    assertBits(s as ElementArray, expected, `sort ${what}`);
  }
  assertBits(pk as ElementArray, expected, `sort pairs keys ${what}`);
  assertBits(pv, Float32Array.from(order, (i) => i + 0.5), `sort pairs values ${what}`);
}

Deno.test({
  name: "sort and argsort: stable, NaN last, -0 equal to +0, both directions",
  ignore,
  async fn(t) {
    using client = await createClient({ adapter: adapter! });
    const types: Element[] = ["f32", "i32", "u32"];

    await t.step("small cases", async () => {
      const f = new Float32Array([3, NaN, -0, -1, 0, 2, -0, -Infinity, Infinity]);
      for (const descending of [false, true]) await checkSort(client, f, "f32", descending);
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
      const special = fc.constantFrom(NaN, -0, 0, Infinity, -Infinity, 1, -1, 0.5);
      const property = fc.asyncProperty(
        fc.constantFrom(...types),
        fc.array(fc.oneof(special, fc.integer({ min: -5, max: 5 }), fc.double()), {
          maxLength: 3000,
        }),
        fc.boolean(),
        async (type, values, descending) => {
          await checkSort(
            client,
            typed(type, values.map((v) => type === "f32" ? v : Number.isFinite(v) ? v : 0)),
            type,
            descending,
          );
        },
      );
      await fc.assert(property, { numRuns: 40 });
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
