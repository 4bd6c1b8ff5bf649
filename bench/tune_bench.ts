/**
 * Autotuner benchmarks on the default adapter (`deno task bench`):
 * - tuning cost of the matmul set at 256 x 256 x 256 from a cold tuner: plain warm-up + 10
 *   samples per candidate (baseline) against adaptive sampling with elimination;
 * - the cost of a cache hit: `tuner.execute` on a tuned key against launching the winner
 *   directly (baseline), and the bare lookup.
 *
 * Pick quality over 16 shapes is `bench/tune_quality.ts` (`deno task bench:quality`).
 *
 * @module
 */

import "./_bench_guard.ts"; // deno bench awaits only async fns: a promise from another one throws
import { createClient, type Handle } from "../mod.ts";
import { matmulSet, reduceSet, Tuner } from "../runtime/tune/mod.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no adapter: nothing to measure

if (!ignore) {
  const client = await createClient({ adapter: adapter! });
  const matmul = matmulSet(client);
  const size = 256;
  const a = client.createWithData(new Float32Array(size * size).fill(0.5));
  const inputs = { a, b: a, m: size, n: size, k: size };
  const tune = (adaptive: boolean) => async () => {
    const tuner = new Tuner(client, {
      persistent: false,
      progressBar: false,
      sampling: { adaptive },
    });
    await tuner.tune(matmul, inputs);
  };
  // Warm the pipeline cache so both variants pay the same (zero) compilation.
  await tune(true)();
  Deno.bench({
    name: "fixed: warm-up + 10 samples per candidate",
    group: "tuning matmul 256",
    baseline: true,
    n: 3,
    warmup: 0,
    fn: tune(false),
  });
  Deno.bench({
    name: "adaptive: stop when stable, eliminate > 1.5x",
    group: "tuning matmul 256",
    n: 3,
    warmup: 0,
    fn: tune(true),
  });

  const sum = reduceSet(client, "sum");
  const x = client.createWithData(new Float32Array(4096).fill(1));
  const small = { x };
  const tuner = new Tuner(client, { persistent: false, progressBar: false });
  await tuner.tune(sum, small);
  const winner = sum.candidate(tuner.fastest(sum, small)!)!;
  let launches = 0;
  const settle = async () => {
    if (++launches % 64 === 0) await client.sync(); // keep the queue short
  };
  Deno.bench({
    name: "direct: launch the winner",
    group: "cache hit",
    baseline: true,
    async fn() {
      (winner.run(small) as Handle).dispose();
      await settle();
    },
  });
  Deno.bench({
    name: "tuner.execute on a cached key",
    group: "cache hit",
    async fn() {
      (await tuner.execute(sum, small)).dispose();
      await settle();
    },
  });
  Deno.bench({
    name: "lookup only: tuner.fastest",
    group: "cache hit",
    fn() {
      tuner.fastest(sum, small);
    },
  });
}
