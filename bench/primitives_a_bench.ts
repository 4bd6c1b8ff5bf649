/**
 * The primitives of issue #30 (scan, sort, select) on the default adapter:
 *
 * - `cumsum`, `topk` (k = 8) and `argmax` of 1M f32 against `@tensorflow/tfjs-backend-webgpu`'s
 *   `cumsum`, `topk` and `argMax` (baseline) in one group each: every iteration launches
 *   {@linkcode REPEAT} of them and reads the last result back, for both.
 * - `sort` of 2^16 to 2^22 random u32 keys against `Uint32Array.prototype.sort` of a copy
 *   (baseline), in keys per second = n / time per iteration (each iteration reads the result).
 * - `scan` (inclusive f32 sum of 4M) against a plain copy kernel of the same bytes, device-timed
 *   (`client.profile`) in 9 interleaved rounds: GB/s = 8 bytes per element (one read, one
 *   write) / time; printed before the benchmarks run.
 *
 * Run: `deno bench --unstable-webgpu --allow-read=bench,sync,runtime/core bench/primitives_a_bench.ts`
 * (with `DENO_WEBGPU_BACKEND=vulkan` where Mesa lavapipe is installed).
 *
 * @module
 */

import "./_bench_guard.ts"; // deno bench awaits only async fns: a promise from another one throws
import * as tf from "@tensorflow/tfjs-core";
import "@tensorflow/tfjs-backend-webgpu";
import {
  argmax,
  createClient,
  cumsum,
  type Handle,
  scan,
  sort,
  topk,
  type WgslKernel,
} from "../mod.ts";

const N = 1 << 20;
const REPEAT = 4;
const SORT_SIZES = [16, 18, 20, 22];
const adapter = await navigator.gpu?.requestAdapter();

const copyKernel: WgslKernel = {
  id: "copy_f32",
  source: `@group(0) @binding(0) var<storage, read> x: array<vec4f>;
@group(0) @binding(1) var<storage, read_write> y: array<vec4f>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x < arrayLength(&x)) { y[g.x] = x[g.x]; }
}`,
};

if (adapter) {
  await tf.setBackend("webgpu");
  await tf.ready();
  const client = await createClient({ adapter });
  const data = Float32Array.from({ length: N }, (_, i) => Math.sin(i) * 1000);
  const x = client.createWithData(data);
  const t = tf.tensor1d(data);

  // Scan against a copy of the same bytes, device-timed.
  const big = 1 << 22;
  const bigX = client.createWithData(new Float32Array(big).fill(1));
  const bigY = client.empty(big, "f32");
  // Interleaved rounds (copy, then scan) so that a change of load hits both; the ratio is the
  // median of each round's ratio.
  const copy = () => client.execute(copyKernel, { threads: big / 4, buffers: [bigX, bigY] });
  const scanned = () => scan(client, bigX).dispose();
  for (const fn of [copy, scanned]) fn(); // warm-up (pipelines)
  await client.sync();
  const rounds: [number, number][] = [];
  for (let i = 0; i < 9; i++) {
    const c = (await client.profile(copy)).duration.milliseconds;
    rounds.push([c, (await client.profile(scanned)).duration.milliseconds]);
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[values.length >> 1];
  const [copyMs, scanMs] = [0, 1].map((k) => median(rounds.map((r) => r[k])));
  const gbs = (ms: number) => ((big * 8) / ms / 1e6).toFixed(2);
  console.log(
    `scan 4M f32: ${scanMs.toFixed(2)} ms, ${gbs(scanMs)} GB/s; copy of the same bytes: ` +
      `${copyMs.toFixed(2)} ms, ${gbs(copyMs)} GB/s (median of 9 interleaved rounds); scan's ` +
      `GB/s over the copy's, median of the rounds: ${
        (median(rounds.map(([c, s]) => c / s)) * 100).toFixed(0)
      }%`,
  );

  const ours = (name: string, make: () => Handle[]) =>
    Deno.bench({
      name: `gpucompute ${name} 1M`,
      group: `${name} 1M`,
      async fn() {
        const made: Handle[][] = [];
        for (let i = 0; i < REPEAT; i++) made.push(make());
        await client.read(made[REPEAT - 1][0]);
        for (const handles of made) for (const h of handles) h.dispose();
      },
    });
  const theirs = (name: string, make: () => tf.Tensor[]) =>
    Deno.bench({
      name: `tfjs-backend-webgpu ${name} 1M`,
      group: `${name} 1M`,
      baseline: true,
      async fn() {
        const made: tf.Tensor[][] = [];
        for (let i = 0; i < REPEAT; i++) made.push(make());
        await made[REPEAT - 1][0].data();
        for (const tensors of made) for (const tensor of tensors) tensor.dispose();
      },
    });
  theirs("cumsum", () => [tf.cumsum(t)]);
  ours("cumsum", () => [cumsum(client, x)]);
  theirs("topk", () => {
    const { values, indices } = tf.topk(t, 8);
    return [values, indices];
  });
  ours("topk", () => {
    const { values, indices } = topk(client, x, 8);
    return [values, indices];
  });
  theirs("argMax", () => [tf.argMax(t)]);
  ours("argMax", () => [argmax(client, x)]);

  for (const log of SORT_SIZES) {
    const n = 1 << log;
    const keys = Uint32Array.from({ length: n }, () => (Math.random() * 2 ** 32) >>> 0);
    const handle = client.createWithData(keys);
    Deno.bench({
      name: `Uint32Array.prototype.sort 2^${log}`,
      group: `sort 2^${log} u32`,
      baseline: true,
      fn() {
        keys.slice().sort();
      },
    });
    Deno.bench({
      name: `gpucompute sort 2^${log}`,
      group: `sort 2^${log} u32`,
      async fn() {
        using sorted = sort(client, handle);
        await client.read(sorted);
      },
    });
  }
}
