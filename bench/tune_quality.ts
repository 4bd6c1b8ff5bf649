/**
 * How good and how cheap the tuner's matmul picks are, over 20 shapes on the default adapter:
 *
 * - every runnable candidate is measured exhaustively on the real shape (rounds of one device-timed
 *   sample per candidate, so drift hits all alike; median of `ROUNDS`); a sample is as many
 *   back-to-back runs as last `TRUTH_MS` (calibrated per candidate), divided: one lone run of a
 *   small kernel is mostly submission and wait, and its noise hides 5% differences;
 * - fresh tuners pick with adaptive sampling (scored by median, then by best sample) and with
 *   plain warm-up + 10 fixed samples, on the anchored shape as in real use; their tuning time is
 *   the wall clock of `tune`.
 *
 * A pick is "within 5%" when its exhaustive time is at most 1.05x the fastest candidate's.
 * Run: `deno task bench:quality` (a few minutes on llvmpipe).
 *
 * @module
 */

import { createClient, type Handle } from "../mod.ts";
import { matmulSet, type SamplingOptions, Tuner } from "../runtime/tune/mod.ts";
import { median } from "../runtime/tune/_stats.ts";

const ROUNDS = 20;
const TRUTH_MS = 5;
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
  [256, 256, 64],
  [64, 256, 1024],
  [150, 150, 150],
  [128, 64, 2048],
];

using client = await createClient();
const set = matmulSet(client);
const random = (n: number) => Float32Array.from({ length: n }, () => Math.random() * 2 - 1);
const MODES: { label: string; sampling: SamplingOptions }[] = [
  { label: "adaptive, median", sampling: {} },
  { label: "adaptive, margin 10%", sampling: { margin: 0.1 } },
  { label: "fixed (warm-up + 10), median", sampling: { adaptive: false } },
];
const totals = MODES.map(() => ({ within: 0, ms: 0, runs: 0 }));
const rows: string[] = [];
let selfAgreement = 0;

for (const [m, n, k] of SHAPES) {
  using a = client.createWithData(random(m * k));
  using b = client.createWithData(random(k * n));
  const inputs = { a, b, m, n, k };
  const key = set.key(inputs);
  const runnable = set.candidates.filter((c) => set.priority(c, key) >= 0);
  // Exhaustive: warm every candidate, calibrate its runs per sample, then ROUNDS rounds.
  for (const c of runnable) (c.run(inputs) as Handle).dispose();
  await client.sync();
  const timed = async (c: (typeof runnable)[number], reps: number) => {
    const { duration } = await client.profile(() => {
      for (let r = 0; r < reps; r++) (c.run(inputs) as Handle).dispose();
    });
    return duration.milliseconds / reps;
  };
  const reps = new Map<string, number>();
  for (const c of runnable) {
    reps.set(c.name, Math.min(256, Math.ceil(TRUTH_MS / Math.max(await timed(c, 1), 1e-3))));
  }
  const times = new Map<string, number[]>(runnable.map((c) => [c.name, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const c of runnable) times.get(c.name)!.push(await timed(c, reps.get(c.name)!));
  }
  const exhaustive = new Map([...times].map(([name, t]) => [name, median(t)]));
  const best = Math.min(...exhaustive.values());
  const bestName = [...exhaustive].find(([, t]) => t === best)![0];
  // The noise floor: does the best of the odd rounds stay within 5% on the even rounds?
  const half = (parity: number) =>
    new Map([...times].map(([name, t]) => [name, median(t.filter((_, i) => i % 2 === parity))]));
  const [odd, even] = [half(1), half(0)];
  const oddBest = [...odd].reduce((a, b) => (b[1] < a[1] ? b : a))[0];
  const agrees = even.get(oddBest)! <= 1.05 * Math.min(...even.values());
  selfAgreement += agrees ? 1 : 0;
  const cells = [
    `${m}x${n}x${k}`,
    `${bestName} ${best.toFixed(2)} ms`,
    agrees ? "yes" : "no",
  ];
  for (const [i, mode] of MODES.entries()) {
    const tuner = new Tuner(client, {
      persistent: false,
      progressBar: false,
      sampling: mode.sampling,
    });
    const started = performance.now();
    const outcome = await tuner.tune(set, inputs);
    const ms = performance.now() - started;
    const ratio = exhaustive.get(outcome.fastest)! / best;
    totals[i].within += ratio <= 1.05 ? 1 : 0;
    if (ratio > 1.05) {
      // A miss: what the tuner measured, for the record (stderr).
      console.error(`  miss (${mode.label}):`);
      for (const r of outcome.results.filter((r) => r.status !== "skipped")) {
        console.error(`    ${r.name} ${r.status} ${r.medianMs?.toFixed(3)} ms x${r.samples}`);
      }
    }
    totals[i].ms += ms;
    totals[i].runs += tuner.stats.runs;
    cells.push(`${outcome.fastest} x${ratio.toFixed(2)}, ${(ms / 1000).toFixed(2)} s`);
  }
  rows.push(`| ${cells.join(" | ")} |`);
  console.error(rows.at(-1));
}

console.log(`Adapter: ${client.server.properties.deviceName}`);
console.log(
  `| m x n x k | fastest (exhaustive, median of ${ROUNDS}) | odd rounds' best within 5% on even rounds | ${
    MODES.map((m) => `${m.label}: pick (time / fastest), tuning time`).join(" | ")
  } |`,
);
console.log(`|${"---|".repeat(3 + MODES.length)}`);
for (const row of rows) console.log(row);
console.log(
  `\nNoise floor: the exhaustive measurement agrees with itself (odd vs even rounds) on ` +
    `${selfAgreement}/${SHAPES.length} keys.`,
);
for (const [i, mode] of MODES.entries()) {
  const t = totals[i];
  console.log(
    `${mode.label}: within 5% on ${t.within}/${SHAPES.length} keys; tuning ${
      (t.ms / 1000).toFixed(1)
    } s, ${t.runs} candidate runs in all`,
  );
}
