/**
 * Matmul throughput at 256, 512 and 1024 (square, f32) on the default adapter: the tuned winner
 * of `matmulSet` against `@tensorflow/tfjs-backend-webgpu`'s `matMul` (baseline) on the same
 * adapter in the same run. Every iteration launches one product and reads the whole result back,
 * for both. GFLOP/s = 2 n^3 / time per iteration; the device-timed GFLOP/s of the winner is
 * printed before the benchmarks run.
 *
 * @module
 */

import "./_bench_guard.ts"; // deno bench awaits only async fns: a promise from another one throws
import * as tf from "@tensorflow/tfjs-core";
import "@tensorflow/tfjs-backend-webgpu";
import { createClient } from "../mod.ts";
import { matmulSet, Tuner } from "../runtime/tune/mod.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no adapter: nothing to measure

if (!ignore) {
  await tf.setBackend("webgpu");
  await tf.ready();
  const client = await createClient({ adapter: adapter! });
  const set = matmulSet(client);
  const tuner = new Tuner(client, { persistent: false, progressBar: false });
  for (const n of [256, 512, 1024]) {
    const data = Float32Array.from({ length: n * n }, () => Math.random() * 2 - 1);
    const a = client.createWithData(data);
    const b = client.createWithData(data);
    const inputs = { a, b, m: n, n, k: n };
    const outcome = await tuner.tune(set, inputs);
    const { result, duration } = await client.profile(() => tuner.execute(set, inputs));
    (await result).dispose();
    const flop = 2 * n ** 3;
    console.log(
      `${n}: tuned winner ${outcome.fastest}, ${(flop / duration.milliseconds / 1e6).toFixed(2)} ` +
        `GFLOP/s device-timed (${duration.milliseconds.toFixed(2)} ms)`,
    );
    const ta = tf.tensor2d(data, [n, n]);
    const tb = tf.tensor2d(data, [n, n]);
    Deno.bench({
      name: `tfjs-backend-webgpu matMul ${n}`,
      group: `matmul ${n}`,
      baseline: true,
      async fn() {
        const c = tf.matMul(ta, tb);
        await c.data();
        c.dispose();
      },
    });
    Deno.bench({
      name: `gpucompute tuned matmul ${n}`,
      group: `matmul ${n}`,
      async fn() {
        using c = await tuner.execute(set, inputs);
        await client.read(c);
      },
    });
  }
}
