/**
 * `random` on the real WebGPU device: Philox4x32-10 bit-exact against a CPU reference written
 * here (itself checked against Random123's known-answer vectors), at every length and offset,
 * past 65,535 workgroups (2^24 words: with GPUCOMPUTE_TEST_LARGE=1, `deno task test:large`); the
 * moments of uniform and normal numbers; typed errors.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { createClient, random } from "../mod.ts";
import { philox, unit, words } from "./_philox.ts";
import { large } from "./_primitives.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

const hex = (values: readonly number[]) => values.map((v) => v.toString(16).padStart(8, "0"));

Deno.test("the CPU Philox4x32-10 matches Random123's known-answer vectors", () => {
  assert.deepEqual(hex(philox([0, 0, 0, 0], [0, 0])), [
    "6627e8d5",
    "e169c58d",
    "bc57ac4c",
    "9b00dbd8",
  ]);
  const ones = 0xffffffff;
  assert.deepEqual(hex(philox([ones, ones, ones, ones], [ones, ones])), [
    "408f276d",
    "41c83b0e",
    "a20bc7c6",
    "6d5451fd",
  ]);
  const pi = [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344];
  assert.deepEqual(hex(philox(pi, [0xa4093822, 0x299f31d0])), [
    "d16cfe09",
    "94fdcceb",
    "5001e420",
    "24126ea1",
  ]);
});

Deno.test({
  name: "random on WebGPU",
  ignore,
  async fn(t) {
    using client = await createClient({ adapter: adapter! });

    await t.step("u32 words bit-exact at 0, 1, odd and large lengths and offsets", async () => {
      const cases: [number | bigint, number, number][] = [
        [0, 0, 4],
        [0, 0, 0],
        [1, 0, 1],
        [12345, 3, 7],
        [2 ** 40 + 17, 1, 1023],
        [0xffffffffffffffffn, 5, 65],
        [99, 2 ** 34 + 2, 33], // a counter past 2^32 blocks
        ...large<[number, number, number]>([[7, 0, 64 * 65_536 * 4 + 9]]), // past 65,535 workgroups
      ];
      for (const [seed, offset, n] of cases) {
        using h = random(client, n, { seed, offset, dtype: "u32" });
        assert.equal(h.dtype, "u32");
        assert.deepEqual(await client.read(h), words(BigInt(seed), offset, n), `${seed} ${offset}`);
      }
    });

    await t.step("uniform f32 bit-exact, scaled to [low, high)", async () => {
      for (
        const [low, high, offset, n] of [[0, 1, 0, 1001], [-3, 5.5, 6, 257], [10, 10.25, 1, 9]]
      ) {
        using h = random(client, n, { seed: 5, offset, low, high });
        const span = Math.fround(high - low);
        const expected = Float32Array.from(
          words(5n, offset, n),
          (w) => Math.fround(Math.fround(unit(w) * span) + Math.fround(low)),
        );
        const got = await client.read(h);
        assert.deepEqual(got, expected, `[${low}, ${high})`);
        assert.ok(got.every((v) => v >= low && v < high));
      }
    });

    await t.step("a call with offset k continues a call of k numbers", async () => {
      using whole = random(client, 1000, { seed: 3, dtype: "u32" });
      using head = random(client, 333, { seed: 3, dtype: "u32" });
      using tail = random(client, 667, { seed: 3, dtype: "u32", offset: 333 });
      const [w, h, tl] = await client.readMany([whole, head, tail]);
      assert.deepEqual([...h, ...tl], [...w]);
    });

    await t.step("normal f32 within float tolerance of Box-Muller on the CPU", async () => {
      const n = 4099;
      using h = random(client, n, { seed: 11, offset: 1, distribution: "normal", mean: 2, std: 3 });
      const w = words(11n, 0, n + 2);
      const got = await client.read(h);
      for (let j = 0; j < n; j++) {
        const i = j + 1;
        const p = i - (i % 2);
        const r = Math.sqrt(-2 * Math.log(1 - unit(w[p])));
        const angle = 2 * Math.PI * unit(w[p + 1]);
        const z = (i % 2 === 0 ? Math.cos(angle) : Math.sin(angle)) * r;
        assert.ok(Math.abs(got[j] - (2 + 3 * z)) < 1e-4 * (1 + Math.abs(z)), `${j}: ${got[j]}`);
      }
    });

    await t.step("moments of uniform and normal numbers at 2^20", async () => {
      const n = 1 << 20;
      using u = random(client, n, { seed: 2024, low: -1, high: 3 });
      using z = random(client, n, { seed: 2024, distribution: "normal", mean: -5, std: 0.5 });
      const [a, b] = await client.readMany([u, z]);
      const moments = (x: Float32Array) => {
        let s = 0, s2 = 0;
        for (const v of x) s += v, s2 += v * v;
        const mean = s / x.length;
        return [mean, s2 / x.length - mean * mean];
      };
      const [mu, varU] = moments(a);
      assert.ok(Math.abs(mu - 1) < 0.01, `uniform mean ${mu}`); // sd of the mean: 0.0011
      assert.ok(Math.abs(varU - 16 / 12) < 0.01, `uniform variance ${varU}`);
      const [mz, varZ] = moments(b);
      assert.ok(Math.abs(mz + 5) < 0.005, `normal mean ${mz}`); // sd of the mean: 0.0005
      assert.ok(Math.abs(varZ - 0.25) < 0.005, `normal variance ${varZ}`);
      const within = b.filter((v) => Math.abs(v + 5) < 0.5).length / n;
      assert.ok(Math.abs(within - 0.6827) < 0.005, `within one sd: ${within}`);
    });

    await t.step("property: bit-exact against the CPU at any seed, offset and length", async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
          fc.integer({ min: 0, max: 2 ** 40 }),
          fc.integer({ min: 0, max: 300 }),
          async (seed, offset, n) => {
            using h = random(client, n, { seed, offset, dtype: "u32" });
            assert.deepEqual(await client.read(h), words(seed, offset, n));
          },
        ),
        { numRuns: 25 },
      );
    });

    await t.step("bad options are typed errors naming them; the client stays usable", async () => {
      const cases: [() => unknown, ErrorConstructor, RegExp][] = [
        [() => random(client, 4, { seed: 1.5 }), RangeError, /seed/],
        [() => random(client, 4, { seed: -1 }), RangeError, /seed/],
        [() => random(client, 4, { seed: 1n << 64n }), RangeError, /seed/],
        [() => random(client, 4, undefined as never), TypeError, /seed/],
        [() => random(client, -1, { seed: 1 }), RangeError, /\bn\b/],
        [() => random(client, 2.5, { seed: 1 }), RangeError, /\bn\b/],
        [() => random(client, 4, { seed: 1, offset: -4 }), RangeError, /offset/],
        [() => random(client, 4, { seed: 1, dtype: "i32" as "u32" }), TypeError, /dtype/],
        [() => random(client, 4, { seed: 1, distribution: "x" as "normal" }), TypeError, /distr/],
        [
          () => random(client, 4, { seed: 1, dtype: "u32", distribution: "normal" }),
          TypeError,
          /u32/,
        ],
        [() => random(client, 4, { seed: 1, low: 2, high: 1 }), RangeError, /high/],
        [() => random(client, 4, { seed: 1, std: NaN, distribution: "normal" }), RangeError, /std/],
      ];
      for (const [call, type, pattern] of cases) {
        assert.throws(call, (e: unknown) => e instanceof type && pattern.test(String(e)));
      }
      using h = random(client, 8, { seed: 0, dtype: "u32" });
      assert.deepEqual(await client.read(h), words(0n, 0, 8));
    });
  },
});
