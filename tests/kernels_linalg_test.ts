/**
 * `transpose`, `gather` and `matmul` on the real WebGPU device against CPU references, at 0, 1,
 * odd and non-power-of-two sizes, past 65,535 workgroups and at 2^24 elements (with
 * GPUCOMPUTE_TEST_LARGE=1: `deno task test:large`); typed errors.
 */
import assert from "node:assert/strict";
import { createClient, gather, transpose } from "../mod.ts";
import { cpuTranspose, matmulSteps } from "./_matmul_cases.ts";
import { large } from "./_primitives.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

Deno.test({
  name: "transpose and gather on WebGPU",
  ignore,
  async fn(t) {
    using client = await createClient({ adapter: adapter! });

    await t.step("transpose at 0, 1, odd, non-power-of-two, 2^24 (large) elements", async () => {
      const shapes: [number, number][] = [
        [0, 5],
        [3, 0],
        [1, 1],
        [1, 7],
        [7, 1],
        [33, 65],
        [100, 3],
        [3, 1000],
        [257, 513],
        [1, 65_536 * 32 + 1], // 65,537 x 1 tiles: past 65,535 workgroups
        ...large<[number, number]>([
          [4096, 4096], // 16,384 tiles, 2^24 elements
          [3, 1 << 21], // 65,536 x 1 tiles
        ]),
      ];
      for (const [rows, cols] of shapes) {
        const data = new Int32Array(rows * cols);
        for (let i = 0; i < data.length; i++) data[i] = i * 7 - 3;
        using x = client.createWithData(data);
        using out = transpose(client, x, { shape: [rows, cols] });
        assert.equal(out.dtype, "i32");
        assert.deepEqual(await client.read(out), cpuTranspose(data, rows, cols), `${rows}x${cols}`);
      }
      const bits = new Float32Array([NaN, -0, 1, -Infinity, 2.5, 3]);
      using f = client.createWithData(bits);
      using ft = transpose(client, f, { shape: [2, 3] });
      const got = new Uint32Array((await client.read(ft)).buffer);
      assert.deepEqual(got, new Uint32Array(cpuTranspose(bits, 2, 3).buffer));
      using u = client.createWithData(new Uint32Array([1, 2, 3, 4]));
      using ut = transpose(client, u, { shape: [2, 2] });
      assert.deepEqual([...await client.read(ut)], [1, 3, 2, 4]);
    });

    await t.step("gather at 0, 1, odd and 2^24 indices (large); out of range gives 0", async () => {
      const cases: [number, number][] = [
        [5, 0],
        [1, 1],
        [0, 3],
        [1001, 999],
        [4097, 70_001],
        ...large<[number, number]>([[4097, 1 << 24]]), // past 65,535 workgroups
      ];
      for (const [len, n] of cases) {
        const x = Float32Array.from({ length: len }, (_, i) => i * 0.5 - 7);
        const idx = new Uint32Array(n);
        for (let i = 0; i < n; i++) idx[i] = (Math.imul(i, 2654435761) >>> 0) % (len + 3);
        using hx = client.createWithData(x);
        using hi = client.createWithData(idx);
        using out = gather(client, hx, hi);
        const expected = Float32Array.from(idx, (k) => k < len ? x[k] : 0);
        assert.deepEqual(await client.read(out), expected, `${len} ${n}`);
      }
      using xi = client.createWithData(new Int32Array([-1, -2, -3]));
      using ii = client.createWithData(new Uint32Array([2, 2, 0]));
      using oi = gather(client, xi, ii);
      assert.deepEqual([...await client.read(oi)], [-3, -3, -1]);
    });

    await t.step("gather with check: RangeError naming the first bad index", async () => {
      using x = client.createWithData(new Uint32Array([5, 6, 7]));
      using good = client.createWithData(new Uint32Array([2, 1, 0, 2]));
      using bad = client.createWithData(new Uint32Array([0, 9, 1, 3, 4]));
      using out = await gather(client, x, good, { check: true });
      assert.deepEqual([...await client.read(out)], [7, 6, 5, 7]);
      await assert.rejects(
        gather(client, x, bad, { check: true }),
        (e) => e instanceof RangeError && /indices\[1\] is 9/.test(e.message),
      );
      using again = gather(client, x, good);
      assert.deepEqual([...await client.read(again)], [7, 6, 5, 7]);
    });

    await t.step("bad input: typed errors naming the argument", async () => {
      using f = client.createWithData(new Float32Array([1, 2, 3, 4, 5, 6]));
      using i = client.createWithData(new Int32Array([1, 2]));
      const cases: [() => unknown, ErrorConstructor, RegExp][] = [
        [() => transpose(client, f, { shape: [4, 2] }), RangeError, /shape \[4, 2\]/],
        [() => transpose(client, f, { shape: [-2, -3] }), RangeError, /rows/],
        [() => transpose(client, f, { shape: [6] as never }), RangeError, /shape/],
        [() => transpose(client, f, undefined as never), RangeError, /shape/],
        [() => gather(client, f, i), TypeError, /indices must hold u32/],
        [() => gather(client, "x" as never, i), TypeError, /x must be a handle/],
      ];
      for (const [call, type, pattern] of cases) {
        assert.throws(call, (e: unknown) => e instanceof type && pattern.test(String(e)));
      }
      using ok = transpose(client, f, { shape: [3, 2] });
      assert.deepEqual([...await client.read(ok)], [1, 3, 5, 2, 4, 6]);
    });
  },
});

Deno.test({ name: "matmul on WebGPU", ignore, fn: (t) => matmulSteps(t, adapter!) });
