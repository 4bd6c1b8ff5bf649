/**
 * argmax, argmin and topk (issue #30) against CPU references: ties and NaN (the first wins),
 * -0 and +0 equal, whole and per row/column, at 0, 1, odd and non-power-of-two lengths, past
 * 65,535 workgroups and at 2^24 elements (with GPUCOMPUTE_TEST_LARGE=1: `deno task test:large`);
 * fast-check properties (topk against a full sort); bad input gives typed errors naming the
 * argument and the client stays usable.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { argmax, argmin, type ComputeClient, createClient, type Handle, topk } from "../mod.ts";
import {
  ARRAY,
  assertBits,
  cpuArgsort,
  type Element,
  type ElementArray,
  LARGE,
  large,
  randomWords,
} from "./_primitives.ts";
import { checkArg } from "./_select_cases.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

/** Values with many ties, -0 and +0, infinities and (f32) some NaN. */
function valuesFor(type: Element, n: number, seed: number, nan = true): ElementArray {
  const words = randomWords(n, seed);
  const out = new ARRAY[type](n);
  if (type !== "f32") {
    const shift = type === "u32" ? 0 : 25;
    for (let i = 0; i < n; i++) out[i] = (words[i] % 50) - shift;
    return out;
  }
  const special = [-0, 0, Infinity, -Infinity, ...(nan ? [NaN] : [])];
  for (let i = 0; i < n; i++) {
    const w = words[i];
    out[i] = w % 97 === 0 ? special[(w >>> 8) % special.length] : (w % 50) - 25;
  }
  return out;
}

Deno.test({
  name: "argmax and argmin: first of ties and NaN, whole and along axes",
  ignore,
  async fn(t) {
    using client = await createClient({ adapter: adapter! });
    const types: Element[] = ["f32", "i32", "u32"];

    await t.step("small cases: ties, NaN, -0 and +0, infinities", async () => {
      await checkArg(client, new Float32Array([1, 3, 3, 2]), undefined, 1);
      await checkArg(client, new Float32Array([1, NaN, 3, NaN]), undefined, 1);
      await checkArg(client, new Float32Array([-0, 0, -0]), undefined, 1);
      await checkArg(client, new Float32Array([-Infinity, -Infinity]), undefined, 1);
      await checkArg(client, new Int32Array([-(2 ** 31), 2 ** 31 - 1, 5]), undefined, 1);
      await checkArg(client, new Uint32Array([0, 2 ** 32 - 1, 7, 2 ** 32 - 1]), undefined, 1);
      // The type's largest value first: argmin must not take it for NaN (its order key is ~0).
      await checkArg(client, new Int32Array([2 ** 31 - 1, -(2 ** 31), 5]), undefined, 1);
      await checkArg(client, new Uint32Array([2 ** 32 - 1, 0, 7]), undefined, 1);
      await checkArg(client, new Int32Array([2 ** 31 - 1, 3, 2 ** 31 - 1, 4]), [2, 2], 1);
      await checkArg(
        client,
        new Uint32Array(Array(70).fill(2 ** 32 - 1).fill(9, 69)),
        undefined,
        1,
      );
      using x = client.createWithData(new Float32Array([2, NaN, 5, NaN]));
      using i = argmin(client, x);
      assert.deepEqual(Array.from(await client.read(i)), [1]); // NumPy: the first NaN
    });

    await t.step("lengths 1, odd, chunk edges, many chunks", async () => {
      // Divisible by 4: the vec4 pass; otherwise scalars. Chunks of 16,384 values.
      for (const n of [1, 4, 7, 4095, 4096, 16_383, 16_384, 16_385, 16_388, 100_003, 100_004]) {
        for (const type of types) await checkArg(client, valuesFor(type, n, n), undefined, 1);
      }
    });

    await t.step({
      name: "2^24 + 4 and + 5 elements (three passes)",
      ignore: !LARGE,
      fn: async () => {
        for (const n of [(1 << 24) + 4, (1 << 24) + 5]) { // vec4s, scalars: 1,025 chunks
          const big = valuesFor("f32", n, 3, false);
          big[(1 << 24) - 2] = 1e9; // the largest near the end, the smallest earlier
          big[123_457] = -1e9;
          await checkArg(client, big, undefined, 1);
        }
      },
    });

    await t.step(
      "rows and columns, short and long, in chunks",
      async () => {
        const shapes: [number, number][] = [
          [3, 5],
          [5, 1000],
          [1000, 7],
          [3, 9000],
          [2, 40_000], // rows of several chunks
          [64, 64], // the longest rows (and columns) folded an invocation each
          [65, 65], // the shortest folded in chunks
          ...large<[number, number]>([
            [70_000, 3], // 70,000 short rows; 70,000 short columns along axis 0
            [65_537, 65], // 65,537 workgroups of chunks
            [64 * 65_536 + 1, 1], // 65,537 workgroups of short rows
          ]),
        ];
        for (const shape of shapes) {
          for (const axis of [0, 1] as const) {
            for (const type of types) {
              await checkArg(client, valuesFor(type, shape[0] * shape[1], shape[1]), shape, axis);
            }
          }
        }
      },
    );

    await t.step("property: any type, shape and axis", async () => {
      const property = fc.asyncProperty(
        fc.constantFrom(...types),
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 1, max: 1500 }),
        fc.constantFrom(0 as const, 1 as const),
        fc.nat(),
        async (type, rows, cols, axis, seed) => {
          await checkArg(client, valuesFor(type, rows * cols, seed), [rows, cols], axis);
        },
      );
      await fc.assert(property, { numRuns: 40 });
    });

    await t.step(
      "bad input: typed errors naming the argument; the client stays usable",
      async () => {
        using x = client.createWithData(new Float32Array([4, 1, 6, 2, 9, 3]));
        using h = client.createWithData(new Uint8Array([1, 2, 3, 4]));
        using empty = client.empty(0, "f32");
        const wrong = h as unknown as Handle<"f32">;
        assert.throws(
          () => argmax(client, wrong),
          (e) => e instanceof TypeError && /x/.test(e.message),
        );
        assert.throws(
          () => argmin(client, empty),
          (e) => e instanceof RangeError && /no element/.test(e.message),
        );
        assert.throws(() => argmax(client, x, { shape: [4, 2] }), /shape \[4, 2\]/);
        assert.throws(
          () => argmax(client, empty, { shape: [6, 0], axis: 1 }),
          /no element/,
        );
        using none = argmax(client, empty, { shape: [0, 6], axis: 1 });
        assert.equal(none.size(), 0);
        using i = argmax(client, x, { shape: [2, 3], axis: 0 });
        assert.deepEqual(Array.from(await client.read(i)), [0, 1, 0]);
      },
    );
  },
});

/** topk of `data` as `[rows, cols]` against the first k of a stable CPU sort of each row. */
async function checkTopk(
  client: ComputeClient,
  data: ElementArray,
  k: number,
  shape: [number, number] | undefined,
  largest: boolean,
): Promise<void> {
  const [rows, cols] = shape ?? [1, data.length];
  const expectedIndices = new Uint32Array(rows * k);
  for (let r = 0; r < rows; r++) {
    const row = data.subarray(r * cols, (r + 1) * cols);
    expectedIndices.set(cpuArgsort(row, largest).subarray(0, k), r * k);
  }
  using x = client.createWithData(data);
  const result = topk(client, x, k, shape === undefined ? { largest } : { shape, largest });
  using values = result.values;
  using indices = result.indices;
  const [v, i] = await client.readMany([values, indices]);
  const what = `topk ${data.constructor.name} k=${k} [${rows}, ${cols}] largest ${largest}`;
  assertBits(i, expectedIndices, `${what} indices`);
  // Values are the input's elements at those indices, bit for bit (-0 and NaN kept).
  assertBits(
    v as ElementArray,
    permuteRows(data, expectedIndices, rows, cols, k),
    `${what} values`,
  );
}

/** The elements of `data` at the per-row indices. */
function permuteRows(
  data: ElementArray,
  indices: Uint32Array,
  rows: number,
  cols: number,
  k: number,
): ElementArray {
  const out = new (data.constructor as new (n: number) => ElementArray)(rows * k);
  for (let m = 0; m < rows * k; m++) out[m] = data[Math.floor(m / k) * cols + indices[m]];
  return out;
}

Deno.test({
  name: "topk: best first, ties by lower index, per row, against a full sort",
  ignore,
  async fn(t) {
    using client = await createClient({ adapter: adapter! });
    const types: Element[] = ["f32", "i32", "u32"];

    await t.step("small cases: ties, NaN, -0 and +0", async () => {
      using x = client.createWithData(new Float32Array([3, 9, 4, 1, 5, 5]));
      const { values, indices } = topk(client, x, 2, { shape: [2, 3] });
      using _v = values;
      using _i = indices;
      const [v, i] = await client.readMany([values, indices]);
      assert.deepEqual([Array.from(v), Array.from(i)], [[9, 4, 5, 5], [1, 2, 1, 2]]);
      const f = new Float32Array([1, NaN, -0, 0, 7, NaN, -0, 7]);
      for (const largest of [true, false]) {
        for (const k of [0, 1, 3, 8]) await checkTopk(client, f, k, undefined, largest);
      }
    });

    await t.step(
      "lengths, k and rows (past 65,535 workgroups at 2^20 x 16: large run)",
      async () => {
        for (const [n, k] of [[1, 1], [7, 3], [1025, 8], [100_003, 8], [100_003, 100_003]]) {
          for (const type of types) {
            await checkTopk(client, valuesFor(type, n, n + k), k, undefined, k % 2 === 0);
          }
        }
        for (const shape of [[3, 5], [5, 4099], ...large([[70_000, 3]])] as [number, number][]) {
          await checkTopk(client, valuesFor("f32", shape[0] * shape[1], 9), 2, shape, true);
        }
        for (const shape of large<[number, number]>([[1 << 16, 16]])) {
          await checkTopk(client, valuesFor("i32", 1 << 20, 4), 4, shape, false);
        }
      },
    );

    await t.step("property: topk is the head of a full stable sort of each row", async () => {
      const property = fc.asyncProperty(
        fc.constantFrom(...types),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 400 }),
        fc.nat(),
        fc.nat(),
        fc.boolean(),
        async (type, rows, cols, kSeed, seed, largest) => {
          const data = valuesFor(type, rows * cols, seed);
          await checkTopk(client, data, kSeed % (cols + 1), [rows, cols], largest);
        },
      );
      await fc.assert(property, { numRuns: 40 });
    });

    await t.step(
      "bad input: typed errors naming the argument; the client stays usable",
      async () => {
        using x = client.createWithData(new Int32Array([4, 1, 6, 2, 9, 3]));
        using h = client.createWithData(new Uint8Array([1, 2, 3, 4]));
        const wrong = h as unknown as Handle<"f32">;
        assert.throws(
          () => topk(client, wrong, 1),
          (e) => e instanceof TypeError && /x/.test(e.message),
        );
        assert.throws(
          () => topk(client, x, 7),
          (e) => e instanceof RangeError && /k must/.test(e.message),
        );
        assert.throws(() => topk(client, x, 4, { shape: [2, 3] }), /k must/);
        assert.throws(() => topk(client, x, 1.5), /k must/);
        assert.throws(() => topk(client, x, 1, { shape: [4, 2] }), /shape \[4, 2\]/);
        const { values, indices } = topk(client, x, 1, { shape: [3, 2], largest: false });
        using _v = values;
        using _i = indices;
        const [v, i] = await client.readMany([values, indices]);
        assert.deepEqual([Array.from(v), Array.from(i)], [[1, 2, 3], [1, 1, 1]]);
      },
    );
  },
});
