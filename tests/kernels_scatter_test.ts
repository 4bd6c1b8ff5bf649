/**
 * `scatterAdd` and `segmentReduce` on the real WebGPU device against CPU references: f32 (CAS
 * loops, order-preserving keys), i32 and u32 (atomics), at 0, 1, odd and 2^24 values, past
 * 65,535 workgroups, heavy contention on one element; properties; typed errors. The cases of
 * 2^24 values (past 65,535 workgroups) run with GPUCOMPUTE_TEST_LARGE=1 (`deno task test:large`).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { createClient, scatterAdd, segmentReduce } from "../mod.ts";
import { cpuSegments, type Op } from "./_scatter_cases.ts";
import { large } from "./_primitives.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

const close = (got: Float32Array, want: Float32Array, tolerance: number) =>
  got.every((g, i) =>
    Object.is(g, want[i]) || Math.abs(g - want[i]) <= tolerance * (1 + Math.abs(want[i]))
  );

function lcg(seed: number) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

Deno.test({
  name: "scatterAdd and segmentReduce on WebGPU",
  ignore,
  async fn(t) {
    using client = await createClient({ adapter: adapter! });

    await t.step("scatterAdd in place: repeats add up, out-of-range ignored", async () => {
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
      using tu = client.createWithData(new Uint32Array([4294967295, 7]));
      using vu = client.createWithData(new Uint32Array([2, 1, 1]));
      scatterAdd(client, tu, ii, vu);
      assert.deepEqual([...await client.read(tu)], [1, 9]);
    });

    await t.step("scatterAdd at 0, 1, odd, 2^24 values and all on one element", async () => {
      const cases: [number, number][] = [
        [0, 3],
        [1, 1],
        [1001, 17],
        [300_000, 1],
        ...large<[number, number]>([[1 << 24, 5003]]),
      ];
      for (const [n, len] of cases) {
        const next = lcg(n);
        const idx = new Uint32Array(n);
        // Small integers: every f32 sum is exact, whatever the order of the additions.
        const values = new Float32Array(n);
        for (let i = 0; i < n; i++) {
          idx[i] = Math.floor(next() * (len + 2));
          values[i] = Math.floor(next() * 16) - 8;
        }
        const start = Float32Array.from({ length: len }, (_, i) => i);
        using target = client.createWithData(start);
        using hi = client.createWithData(idx);
        using hv = client.createWithData(values);
        scatterAdd(client, target, hi, hv);
        const want = Float32Array.from(start);
        for (let i = 0; i < n; i++) if (idx[i] < len) want[idx[i]] += values[i];
        assert.deepEqual(await client.read(target), want, `${n} into ${len}`);
      }
    });

    await t.step("segmentReduce: every op and type, empty segments get the identity", async () => {
      const ids = new Int32Array([0, 2, 0, 2, 2, -1, 9, 2]);
      const f = new Float32Array([1, 2, 3, 4, 5, 100, 100, -0.5]);
      const i = new Int32Array([1, -2, 3, -4, 5, 100, 100, 6]);
      const u = new Uint32Array([1, 2, 3, 4, 5, 100, 100, 6]);
      using hid = client.createWithData(ids);
      for (const values of [f, i, u]) {
        using hv = client.createWithData(values);
        for (const op of ["sum", "max", "min"] as const) {
          using out = segmentReduce(client, hv, hid, { segments: 4, op });
          assert.deepEqual(await client.read(out), cpuSegments(values, ids, 4, op), `${op}`);
        }
      }
      using nan = client.createWithData(new Float32Array([1, NaN, 2, -Infinity, -0, 0]));
      using nid = client.createWithData(new Uint32Array([0, 0, 1, 1, 2, 2]));
      using mx = segmentReduce(client, nan, nid, { segments: 3, op: "max" });
      using mn = segmentReduce(client, nan, nid, { segments: 3, op: "min" });
      const [a, b] = await client.readMany([mx, mn]);
      assert.deepEqual([...a], [NaN, 2, 0]);
      assert.deepEqual([...b], [NaN, -Infinity, -0]);
    });

    await t.step("segmentReduce at 0, 1, odd and 2^24 values (k-means' sums)", async () => {
      const cases: [number, number][] = [
        [0, 4],
        [1, 1],
        [999, 7],
        [70_001, 0],
        [70_001, 300],
        ...large<[number, number]>([[1 << 24, 1000]]),
      ];
      for (const [n, segments] of cases) {
        const next = lcg(n + 9);
        const ids = new Uint32Array(n);
        const values = new Float32Array(n);
        for (let i = 0; i < n; i++) {
          ids[i] = Math.floor(next() * (segments + 1));
          values[i] = next() * 2 - 1;
        }
        using hv = client.createWithData(values);
        using hi = client.createWithData(ids);
        for (const op of ["sum", "max", "min"] as const) {
          using out = segmentReduce(client, hv, hi, { segments, op });
          const got = await client.read(out);
          const want = cpuSegments(values, ids, segments, op);
          if (op === "sum") assert.ok(close(got, want, 2e-3), `${n} ${op}`);
          else assert.deepEqual(got, want, `${n} ${op}`);
        }
      }
    });

    await t.step("property: segmentReduce equals the CPU for any ids and values", async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.tuple(fc.integer({ min: -3, max: 40 }), fc.integer({ min: -1000, max: 1000 })),
          ),
          fc.integer({ min: 0, max: 40 }),
          fc.constantFrom<Op>("sum", "max", "min"),
          async (pairs, segments, op) => {
            const ids = Int32Array.from(pairs, ([s]) => s);
            const ints = Int32Array.from(pairs, ([, v]) => v);
            const floats = Float32Array.from(pairs, ([, v]) => v / 8); // exact sums in f32
            using hid = client.createWithData(ids);
            using hi = client.createWithData(ints);
            using hf = client.createWithData(floats);
            using oi = segmentReduce(client, hi, hid, { segments, op });
            using of = segmentReduce(client, hf, hid, { segments, op });
            const [gi, gf] = await client.readMany([oi, of]);
            assert.deepEqual(gi, cpuSegments(ints, ids, segments, op));
            assert.deepEqual(gf, cpuSegments(floats, ids, segments, op));
          },
        ),
        { numRuns: 40 },
      );
    });

    await t.step(
      "bad input: typed errors naming the argument; the client stays usable",
      async () => {
        using f = client.createWithData(new Float32Array([1, 2]));
        using u = client.createWithData(new Uint32Array([0, 1]));
        using i = client.createWithData(new Int32Array([0, 1]));
        using u3 = client.createWithData(new Uint32Array([0, 1, 1]));
        const cases: [() => unknown, ErrorConstructor, RegExp][] = [
          [() => scatterAdd(client, f, i, f), TypeError, /indices must hold u32/],
          [() => scatterAdd(client, f, u, i), TypeError, /values must hold f32/],
          [() => scatterAdd(client, f, u3, f), RangeError, /indices has 3/],
          [() => segmentReduce(client, f, f, { segments: 2 }), TypeError, /segmentIds/],
          [() => segmentReduce(client, f, u, { segments: -1 }), RangeError, /segments/],
          [
            () => segmentReduce(client, f, u, { segments: 2, op: "mean" as "sum" }),
            RangeError,
            /op/,
          ],
          [() => segmentReduce(client, f, u3, { segments: 2 }), RangeError, /segmentIds has 3/],
          [() => segmentReduce(client, f, u, undefined as never), TypeError, /segments/],
        ];
        for (const [call, type, pattern] of cases) {
          assert.throws(call, (e: unknown) => e instanceof type && pattern.test(String(e)));
        }
        using out = segmentReduce(client, f, u, { segments: 2 });
        assert.deepEqual([...await client.read(out)], [1, 2]);
      },
    );
  },
});
