/**
 * The matmul steps of tests/kernels_linalg_test.ts: the tuned set and its default variant for
 * single products, the batched kernel, transposes, k = 0, past 65,535 workgroups, 2^24 outputs
 * (with GPUCOMPUTE_TEST_LARGE=1); typed errors. The CPU references (matmul, transpose) are shared
 * with tests/cuda_primitives2_test.ts.
 */
import assert from "node:assert/strict";
import { createClient, InvalidHandleError, matmul, type MatmulOptions } from "../mod.ts";
import { Tuner } from "../runtime/tune/mod.ts";
import { LARGE } from "./_primitives.ts";

export function lcgFloats(n: number, seed: number): Float32Array {
  const out = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = s / 2 ** 31 - 1;
  }
  return out;
}

/** The transpose of a row-major `[rows, cols]` array on the CPU. */
export function cpuTranspose<A extends Float32Array | Int32Array | Uint32Array>(
  x: A,
  rows: number,
  cols: number,
): A {
  const out = new (x.constructor as new (n: number) => A)(x.length);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = x[r * cols + c];
  return out;
}

/** The CPU product in f64, of the stored layouts. */
export function cpuMatmul(
  a: Float32Array,
  b: Float32Array,
  o: Required<Omit<MatmulOptions, "tune" | "stream">>,
): Float32Array {
  const { m, n, k, batch, transposeA, transposeB } = o;
  const c = new Float32Array(batch * m * n);
  for (let z = 0; z < batch; z++) {
    const ab = z * m * k, bb = z * k * n;
    for (let i = 0; i < m; i++) {
      for (let j = 0; j < n; j++) {
        let acc = 0;
        for (let p = 0; p < k; p++) {
          acc += a[ab + (transposeA ? p * m + i : i * k + p)] *
            b[bb + (transposeB ? j * k + p : p * n + j)];
        }
        c[z * m * n + i * n + j] = acc;
      }
    }
  }
  return c;
}

export function assertClose(
  got: Float32Array,
  want: Float32Array,
  k: number,
  what: string,
): void {
  assert.equal(got.length, want.length, what);
  const tolerance = 1e-5 * Math.max(1, k);
  for (let i = 0; i < got.length; i++) {
    if (!(Math.abs(got[i] - want[i]) <= tolerance)) {
      assert.fail(`${what}: element ${i} is ${got[i]}, expected ${want[i]}`);
    }
  }
}

/** The matmul test's steps. */
export async function matmulSteps(t: Deno.TestContext, adapter: GPUAdapter): Promise<void> {
  using client = await createClient({ adapter });

  const check = async (options: MatmulOptions, seed = 1) => {
    const full = { transposeA: false, transposeB: false, batch: 1, ...options };
    const { m, n, k, batch } = full;
    const a = lcgFloats(batch * m * k, seed), b = lcgFloats(batch * k * n, seed + 1);
    using ha = client.createWithData(a);
    using hb = client.createWithData(b);
    using c = await matmul(client, ha, hb, options);
    assert.equal(c.dtype, "f32");
    assertClose(await client.read(c), cpuMatmul(a, b, full), k, JSON.stringify(options));
  };

  await t.step("default variant at 0, 1, odd, non-power-of-two shapes, k = 0", async () => {
    for (
      const [m, n, k] of [[1, 1, 1], [3, 5, 7], [33, 17, 65], [64, 64, 64], [0, 3, 4], [3, 4, 0], [
        2,
        0,
        5,
      ], [1, 100, 300]]
    ) {
      for (const transposeA of [false, true]) {
        for (const transposeB of [false, true]) {
          await check({ m, n, k, transposeA, transposeB, tune: false });
        }
      }
    }
  });

  await t.step("batches, with transposes, k = 0", async () => {
    for (
      const [batch, m, n, k] of [[2, 1, 1, 1], [5, 7, 9, 11], [3, 33, 65, 17], [4, 3, 2, 0], [
        1000,
        4,
        4,
        4,
      ]]
    ) {
      for (const transposeA of [false, true]) {
        for (const transposeB of [false, true]) {
          await check({ batch, m, n, k, transposeA, transposeB });
        }
      }
    }
  });

  await t.step("past 65,535 workgroups", async () => {
    await check({ m: 1, n: (1 << 21) + 3, k: 2, tune: false }); // 65,537 workgroups in x
  });

  await t.step({
    name: "2^24 outputs",
    ignore: !LARGE,
    fn: async () => {
      await check({ m: 4096, n: 4096, k: 1, tune: false });
      await check({ batch: 2, m: 2048, n: 4096, k: 1, transposeB: true });
    },
  });

  await t.step("tuned: tunes a shape once, then runs the cached pick", async () => {
    const tuner = new Tuner(client, { persistent: false, progressBar: false });
    await check({ m: 48, n: 40, k: 36, tune: tuner });
    assert.equal(tuner.stats.tunings, 1);
    await check({ m: 45, n: 44, k: 36, transposeA: true, tune: tuner }, 5); // same key
    assert.equal(tuner.stats.tunings, 1);
    assert.ok(tuner.stats.cacheHits >= 1);
  });

  await t.step("bad input: typed errors naming the argument", async () => {
    using a = client.createWithData(new Float32Array(6));
    using i = client.createWithData(new Int32Array(6));
    const cases: [() => Promise<unknown>, ErrorConstructor, RegExp][] = [
      [() => matmul(client, i, a, { m: 2, n: 2, k: 3 }), TypeError, /a must hold f32/],
      [() => matmul(client, a, a, { m: 2, n: 3, k: 3 }), RangeError, /b has 6 elements/],
      [() => matmul(client, a, a, { m: 4, n: 2, k: 3 }), RangeError, /a has 6 elements/],
      [() => matmul(client, a, a, { m: 2, n: 2, k: 1.5 }), RangeError, /\bk\b/],
      [() => matmul(client, a, a, { m: 2, n: 2, k: 3, batch: 0 }), RangeError, /batch/],
      [() => matmul(client, a, a, undefined as never), TypeError, /options/],
    ];
    for (const [call, type, pattern] of cases) {
      await assert.rejects(call, (e: unknown) => e instanceof type && pattern.test(String(e)));
    }
    if (/llvmpipe/i.test(client.server.properties.deviceName)) {
      using long = client.zeros(65_536);
      await assert.rejects(
        matmul(client, long, long, { m: 1, n: 1, k: 65_536, tune: false }),
        (e) => e instanceof RangeError && /65,535/.test(e.message),
      );
    }
    await check({ m: 2, n: 2, k: 3, tune: false });
  });

  await t.step("a matmul refused at its launch leaves no memory behind", async () => {
    using other = await createClient({ adapter });
    using a = client.createWithData(new Float32Array(6));
    using foreign = other.createWithData(new Float32Array(6));
    const tuner = new Tuner(client, { persistent: false, progressBar: false });
    await client.sync();
    const before = client.memoryUsage().numberAllocs;
    // The product's output leaked when the launch refused `b` (one allocation per call).
    for (const tune of [false, tuner]) {
      for (const transposeA of [false, true]) {
        await assert.rejects(
          matmul(client, a, foreign, { m: 2, n: 2, k: 3, tune, transposeA }),
          InvalidHandleError,
        );
      }
    }
    await client.sync();
    assert.equal(client.memoryUsage().numberAllocs, before);
  });
}
