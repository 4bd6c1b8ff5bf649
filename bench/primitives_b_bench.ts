/**
 * The primitives of issue #30 (histogram, scatter, random, linear algebra) against
 * `@tensorflow/tfjs-backend-webgpu` (the baseline) on the same adapter in the same run, at 1M
 * elements and up: matMul (1024^3), transpose, gather, unsortedSegmentSum, bincount. Every
 * iteration launches the operation and reads the whole result back, for both. `random` has no
 * tfjs counterpart with the same numbers; it is measured alone (GB/s written, device-timed,
 * printed before the benchmarks run).
 *
 * @module
 */

import "./_bench_guard.ts"; // deno bench awaits only async fns: a promise from another one throws
import * as tf from "@tensorflow/tfjs-core";
import "@tensorflow/tfjs-backend-webgpu";
import {
  bincount,
  createClient,
  gather,
  matmul,
  random,
  segmentReduce,
  transpose,
} from "../mod.ts";
import { Tuner } from "../runtime/tune/mod.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no adapter: nothing to measure

function floats(n: number): Float32Array {
  return Float32Array.from({ length: n }, () => Math.random() * 2 - 1);
}

function ints(n: number, below: number): Int32Array {
  return Int32Array.from({ length: n }, () => Math.floor(Math.random() * below));
}

if (!ignore) {
  await tf.setBackend("webgpu");
  await tf.ready();
  const client = await createClient({ adapter: adapter! });
  const pair = (
    group: string,
    tfjs: () => tf.Tensor,
    ours: () => Promise<{ [Symbol.dispose](): void }> | { [Symbol.dispose](): void },
  ) => {
    Deno.bench({
      name: `tfjs-backend-webgpu ${group}`,
      group,
      baseline: true,
      async fn() {
        const out = tfjs();
        await out.data();
        out.dispose();
      },
    });
    Deno.bench({
      name: `gpucompute ${group}`,
      group,
      async fn() {
        using out = await ours() as never;
        await client.read(out);
      },
    });
  };

  // matMul 1024 x 1024 x 1024 (1M outputs), tuned once before the benchmark.
  {
    const n = 1024;
    const data = floats(n * n);
    const a = client.createWithData(data);
    const tuner = new Tuner(client, { persistent: false, progressBar: false });
    (await matmul(client, a, a, { m: n, n, k: n, tune: tuner })).dispose();
    const ta = tf.tensor2d(data, [n, n]);
    pair(
      `matMul ${n}`,
      () => tf.matMul(ta, ta),
      () => matmul(client, a, a, { m: n, n, k: n, tune: tuner }),
    );
  }

  for (const side of [1024, 2048]) {
    const data = floats(side * side);
    const x = client.createWithData(data);
    const tx = tf.tensor2d(data, [side, side]);
    pair(
      `transpose ${side}x${side}`,
      () => tf.transpose(tx),
      () => transpose(client, x, { shape: [side, side] }),
    );
  }

  for (const n of [1 << 20, 1 << 22]) {
    const data = floats(n);
    const idx = ints(n, n);
    const x = client.createWithData(data);
    const hi = client.createWithData(Uint32Array.from(idx));
    const tx = tf.tensor1d(data);
    const ti = tf.tensor1d(idx, "int32");
    pair(`gather ${n}`, () => tf.gather(tx, ti), () => gather(client, x, hi));

    const segments = 1000;
    const ids = ints(n, segments);
    const hs = client.createWithData(Uint32Array.from(ids));
    const ts = tf.tensor1d(ids, "int32");
    pair(
      `unsortedSegmentSum ${n} into ${segments}`,
      () => tf.unsortedSegmentSum(tx, ts, segments),
      () => segmentReduce(client, x, hs, { segments }),
    );

    for (const size of [256, 100_000]) {
      const values = ints(n, size);
      const hv = client.createWithData(values);
      const tv = tf.tensor1d(values, "int32");
      const weights = tf.tensor1d([], "float32");
      pair(
        `bincount ${n} into ${size}`,
        () => tf.bincount(tv, weights, size),
        () => bincount(client, hv, { length: size }),
      );
    }
  }

  for (const n of [1 << 22, 1 << 24]) {
    for (const distribution of ["uniform", "normal"] as const) {
      random(client, n, { seed: 1, distribution }).dispose(); // compile first
      await client.sync();
      const { duration } = await client.profile(() => {
        random(client, n, { seed: 1, distribution }).dispose();
      });
      const gbs = (n * 4) / duration.milliseconds / 1e6;
      console.log(
        `random ${distribution} f32 ${n}: ${duration.milliseconds.toFixed(2)} ms, ${
          gbs.toFixed(2)
        } GB/s written (device-timed)`,
      );
    }
  }
}
