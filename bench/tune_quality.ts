/**
 * How good and how cheap the tuner's matmul picks are, over 16 shapes on the default adapter:
 *
 * - every runnable candidate is measured exhaustively on the real shape (rounds of one device-timed
 *   run per candidate, so drift hits all alike; median of `ROUNDS`);
 * - a fresh tuner picks with adaptive sampling, another with plain warm-up + fixed samples; both on
 *   the anchored shape, as in real use; their tuning time is the wall clock of `tune`.
 *
 * A pick is "within 5%" when its exhaustive time is at most 1.05x the fastest candidate's.
 * Run: `deno task bench:quality` (a few minutes on llvmpipe).
 *
 * @module
 */

import { createClient, type Handle } from "../mod.ts";
import { matmulSet, Tuner } from "../runtime/tune/mod.ts";
import { median } from "../runtime/tune/_stats.ts";

const ROUNDS = 7;
const SHAPES: [number, number, number][] = [
  [64, 64, 64],
  [128, 128, 128],
  [256, 256, 256],
  [512, 512, 512],
  [100, 200, 300],
  [200, 100, 64],
  [256, 64, 512],
  [64, 512, 256],
  [320, 320, 96],
  [500, 500, 500],
  [1000, 8, 1000],
  [33, 47, 65],
  [512, 128, 128],
  [128, 512, 128],
  [96, 96, 1024],
  [384, 256, 200],
];

using client = await createClient();
const set = matmulSet(client);
const random = (n: number) => Float32Array.from({ length: n }, () => Math.random() * 2 - 1);
const rows: string[] = [];
let [within, total, adaptiveMs, fixedMs, adaptiveRuns, fixedRuns, fixedWithin] = [
  0,
  0,
  0,
  0,
  0,
  0,
  0,
];

for (const [m, n, k] of SHAPES) {
  using a = client.createWithData(random(m * k));
  using b = client.createWithData(random(k * n));
  const inputs = { a, b, m, n, k };
  const key = set.key(inputs);
  const runnable = set.candidates.filter((c) => set.priority(c, key) >= 0);
  // Exhaustive: warm every candidate, then ROUNDS rounds of one timed run each.
  for (const c of runnable) (c.run(inputs) as Handle).dispose();
  await client.sync();
  const times = new Map<string, number[]>(runnable.map((c) => [c.name, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const c of runnable) {
      const { result, duration } = await client.profile(() => c.run(inputs));
      result.dispose();
      times.get(c.name)!.push(duration.milliseconds);
    }
  }
  const exhaustive = new Map([...times].map(([name, t]) => [name, median(t)]));
  const best = Math.min(...exhaustive.values());
  const bestName = [...exhaustive].find(([, t]) => t === best)![0];

  const pick = async (adaptive: boolean) => {
    const tuner = new Tuner(client, {
      persistent: false,
      progressBar: false,
      sampling: { adaptive },
    });
    const started = performance.now();
    const outcome = await tuner.tune(set, inputs);
    return { name: outcome.fastest, ms: performance.now() - started, runs: tuner.stats.runs };
  };
  const adaptive = await pick(true);
  const fixed = await pick(false);
  const ratio = exhaustive.get(adaptive.name)! / best;
  const fixedRatio = exhaustive.get(fixed.name)! / best;
  total++;
  if (ratio <= 1.05) within++;
  if (fixedRatio <= 1.05) fixedWithin++;
  adaptiveMs += adaptive.ms;
  fixedMs += fixed.ms;
  adaptiveRuns += adaptive.runs;
  fixedRuns += fixed.runs;
  rows.push(
    `| ${m}x${n}x${k} | ${bestName} ${best.toFixed(2)} ms | ${adaptive.name} x${
      ratio.toFixed(3)
    } | ` +
      `${(adaptive.ms / 1000).toFixed(2)} s, ${adaptive.runs} runs | ${fixed.name} x${
        fixedRatio.toFixed(3)
      } | ` +
      `${(fixed.ms / 1000).toFixed(2)} s, ${fixed.runs} runs |`,
  );
  console.error(rows.at(-1));
}

console.log(`Adapter: ${client.server.properties.deviceName}`);
console.log(
  "| m x n x k | fastest (exhaustive, median of 7) | adaptive pick (time / fastest) | adaptive tuning | fixed pick | fixed tuning |",
);
console.log("|---|---|---|---|---|---|");
for (const row of rows) console.log(row);
console.log(
  `\nAdaptive: within 5% on ${within}/${total} keys, ${(adaptiveMs / 1000).toFixed(1)} s, ` +
    `${adaptiveRuns} runs. Fixed (warm-up + 10 samples): within 5% on ${fixedWithin}/${total}, ` +
    `${(fixedMs / 1000).toFixed(1)} s, ${fixedRuns} runs.`,
);
