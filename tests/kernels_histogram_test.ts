/**
 * `histogram` and `bincount` on the real WebGPU device against CPU references: NumPy's edges
 * (`high` in the last bin, NaN and values outside the range ignored), tf.bincount's size rule,
 * lengths 0, 1, odd and 2^24, both kernels (workgroup-memory counts for few bins, global atomics
 * for many), past 65,535 workgroups; properties; typed errors. The cases of 2^24 elements (past
 * 65,535 workgroups) run with GPUCOMPUTE_TEST_LARGE=1 (`deno task test:large`).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { bincount, createClient, histogram } from "../mod.ts";
import { clearOfEdges, cpuBincount, cpuHistogram, floats } from "./_histogram_cases.ts";
import { large } from "./_primitives.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

Deno.test({
  name: "histogram and bincount on WebGPU",
  ignore,
  async fn(t) {
    using client = await createClient({ adapter: adapter! });

    await t.step("NumPy's edges: high in the last bin, NaN and outside ignored", async () => {
      const data = [0, 0.5, 1, 1.5, 2, 2, 7, -0.001, NaN, Infinity, -Infinity, -0, 1.999, 0.25];
      using x = client.createWithData(new Float32Array(data));
      using counts = histogram(client, x, { bins: 4, range: [0, 2] });
      assert.equal(counts.dtype, "u32");
      // [0, .5): 0, -0, 0.25; [.5, 1): .5; [1, 1.5): 1; [1.5, 2]: 1.5, 2, 2, 1.999
      assert.deepEqual([...await client.read(counts)], [3, 1, 1, 4]);
      using eight = histogram(client, x, { bins: 1, range: [-1, 8] });
      assert.deepEqual([...await client.read(eight)], [11]);
    });

    await t.step("histogram at lengths 0, 1, odd and 2^24, few and many bins", async () => {
      const cases: [number, number, [number, number]][] = [
        [0, 3, [0, 1]],
        [1, 3, [0, 1]],
        [1001, 7, [-1, 1]],
        [65_537, 1024, [-3, 5]], // the largest workgroup-memory count
        [65_537, 1025, [-3, 5]], // global atomics
        ...large<[number, number, [number, number]]>([
          [1 << 24, 100, [-0.75, 0.75]],
          [(1 << 24) - 3, 5000, [-1, 1]], // 262,144 workgroups
        ]),
      ];
      for (const [n, bins, range] of cases) {
        const data = clearOfEdges(floats(n, -1.2, 1.2, n), bins, range);
        using x = client.createWithData(data);
        using counts = histogram(client, x, { bins, range });
        const got = await client.read(counts);
        assert.deepEqual(got, cpuHistogram(data, bins, range), `${n} values, ${bins} bins`);
      }
    });

    await t.step("bincount of i32 and u32 at lengths 0, 1, odd and 2^24", async () => {
      const cases: [number, number][] = [
        [0, 4],
        [1, 1],
        [999, 10],
        [4097, 2000],
        ...large<[number, number]>([[1 << 24, 256]]),
      ];
      for (const [n, length] of cases) {
        const ints = Int32Array.from(floats(n, -20, length * 1.3, n + 1), Math.floor);
        using xi = client.createWithData(ints);
        using ci = bincount(client, xi, { length });
        assert.deepEqual(await client.read(ci), cpuBincount(ints, length), `i32 ${n} ${length}`);
        const words = Uint32Array.from(ints); // negatives become huge: ignored
        using xu = client.createWithData(words);
        using cu = bincount(client, xu, { length });
        assert.deepEqual(await client.read(cu), cpuBincount(words, length), `u32 ${n} ${length}`);
      }
      using x = client.createWithData(new Int32Array([3, 1]));
      using none = bincount(client, x, { length: 0 });
      assert.equal(none.size(), 0);
    });

    await t.step("property: counts sum to the number of in-range values", async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.float({ noDefaultInfinity: false }), { maxLength: 400 }),
          fc.integer({ min: 1, max: 1500 }),
          fc.float({ min: -10, max: 10, noNaN: true }),
          fc.float({ min: Math.fround(0.01), max: 20, noNaN: true }),
          async (values, bins, low, span) => {
            const high = Math.fround(low + span);
            fc.pre(Math.fround(low) < high);
            const data = new Float32Array(values);
            using x = client.createWithData(data);
            using counts = histogram(client, x, { bins, range: [low, high] });
            const got = await client.read(counts);
            const inRange = data.filter((v) => v >= low && v <= high).length;
            assert.equal(got.reduce((a, b) => a + b, 0), inRange);
            const clear = clearOfEdges(data, bins, [low, high]);
            using y = client.createWithData(clear);
            using exact = histogram(client, y, { bins, range: [low, high] });
            assert.deepEqual(await client.read(exact), cpuHistogram(clear, bins, [low, high]));
          },
        ),
        { numRuns: 30 },
      );
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.integer({ min: -50, max: 3000 }), { maxLength: 500 }),
          fc.integer({ min: 0, max: 2500 }),
          async (values, length) => {
            using x = client.createWithData(new Int32Array(values));
            using counts = bincount(client, x, { length });
            const got = await client.read(counts);
            const inRange = values.filter((v) => v >= 0 && v < length).length;
            assert.equal(got.reduce((a, b) => a + b, 0), inRange);
            assert.deepEqual(got, cpuBincount(values, length));
          },
        ),
        { numRuns: 30 },
      );
    });

    await t.step(
      "bad input: typed errors naming the argument; the client stays usable",
      async () => {
        using f = client.createWithData(new Float32Array([1, 2]));
        using i = client.createWithData(new Int32Array([1, 2]));
        const cases: [() => unknown, ErrorConstructor, RegExp][] = [
          [() => histogram(client, i, { bins: 2, range: [0, 1] }), TypeError, /x must hold f32/],
          [() => histogram(client, f, { bins: 0, range: [0, 1] }), RangeError, /bins/],
          [() => histogram(client, f, { bins: 1.5, range: [0, 1] }), RangeError, /bins/],
          [() => histogram(client, f, { bins: 2, range: [1, 1] }), RangeError, /range/],
          [() => histogram(client, f, { bins: 2, range: [0, NaN] }), RangeError, /high/],
          [() => histogram(client, f, { bins: 2 } as never), RangeError, /range/],
          [() => bincount(client, f, { length: 2 }), TypeError, /x must hold i32 or u32/],
          [() => bincount(client, i, { length: -1 }), RangeError, /length/],
          [() => bincount(client, i, undefined as never), TypeError, /length/],
        ];
        for (const [call, type, pattern] of cases) {
          assert.throws(call, (e: unknown) => e instanceof type && pattern.test(String(e)));
        }
        using counts = bincount(client, i, { length: 3 });
        assert.deepEqual([...await client.read(counts)], [0, 1, 1]);
      },
    );
  },
});
