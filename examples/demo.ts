/**
 * `deno task demo`: a real workload over 4 streams with cross-stream dependencies, on the default
 * WebGPU adapter. Streams 1 and 2 fill and scale vectors (an element-wise kernel built from an
 * expression does one of them), stream 3 fills two matrices, and stream 4 consumes all of them:
 * a dot product, a maximum (the library's reductions) and a matmul, all three autotuned. No manual
 * flush or sync orders the streams: the runtime does. Every result is checked against a CPU
 * reference; the process exits with 1 on a mismatch.
 *
 * The first run tunes the reductions and the matmul for these shapes (with a progress bar on a
 * terminal) and stores the picks in the per-user cache directory (`GPUCOMPUTE_CACHE_DIR`
 * overrides it); the next run finds them there and says so.
 *
 * `deno task demo --trace demo.trace.json` also records the run and writes it as a Chrome trace
 * (open it in Perfetto or chrome://tracing) plus an SVG timeline next to it (`demo.trace.svg`).
 * Writing needs `--allow-write`: run `deno run --unstable-webgpu --allow-write examples/demo.ts
 * --trace demo.trace.json`, or grant the prompt.
 *
 * @module
 */

import {
  createClient,
  elementwise,
  formatMemoryUsage,
  type Handle,
  type ProfileDuration,
} from "../mod.ts";
import { renderTraceSvg, toChromeTrace } from "../runtime/trace/mod.ts";
import { matmulSet, reduceSet, type TuneOutcome, Tuner } from "../runtime/tune/mod.ts";
import { fillLinear, fillPattern, scale } from "./kernels.ts";

const N = 1 << 16; // vector length
const [M, K, P] = [256, 192, 256]; // a is M x K, b is K x P

const traceAt = Deno.args.indexOf("--trace");
const tracePath = traceAt < 0 ? undefined : Deno.args[traceAt + 1];
if (traceAt >= 0 && !tracePath) throw new TypeError("--trace needs a file name");

using client = await createClient();
const recorder = tracePath === undefined ? undefined : client.trace();
const { properties } = client.server;
console.log(
  `Adapter: ${properties.deviceName} (${properties.backend}, ${
    properties.deviceTimer ? "device timer" : "wall clock"
  })`,
);

const steps: { name: string; stream: number; duration: ProfileDuration }[] = [];
async function step(
  name: string,
  stream: number,
  fn: () => void | Promise<void>,
): Promise<void> {
  const { duration } = await client.profile(fn, { stream });
  steps.push({ name, stream, duration });
}

const vec = (stream: number) => client.createBytes(N * 4, { stream });
const halve = elementwise({ inputs: ["v"], params: { k: "f32" }, expression: "v * k" });

// Streams 1..3: producers.
const x = vec(1);
const y = vec(2);
const y2 = vec(2);
const a = client.createBytes(M * K * 4, { stream: 3 });
const b = client.createBytes(K * P * 4, { stream: 3 });
await step("fill x = 0.5 i", 1, () =>
  client.execute(fillLinear, {
    stream: 1,
    threads: N,
    buffers: [x],
    params: { start: 0, step: 0.5 },
  }));
await step(
  "scale x *= 2",
  1,
  () => client.execute(scale, { stream: 1, threads: N, buffers: [x], params: { factor: 2 } }),
);
await step("fill y = 1 - 0.25 i", 2, () =>
  client.execute(fillLinear, {
    stream: 2,
    threads: N,
    buffers: [y],
    params: { start: 1, step: -0.25 },
  }));
await step("y2 = y * 0.5 (element-wise)", 2, () => {
  halve.run(client, { v: y }, { out: y2, params: { k: 0.5 }, stream: 2 });
});
await step("fill matrices a, b", 3, () => {
  client.execute(fillPattern, { stream: 3, threads: M * K, buffers: [a] });
  client.execute(fillPattern, { stream: 3, threads: K * P, buffers: [b] });
});

// Stream 4: consumers of every producer, each the tuned pick for its shape.
const tuner = new Tuner(client, { name: "demo" });
const sum = reduceSet(client, "sum");
const max = reduceSet(client, "max");
const matmul = matmulSet(client);
const mm = { a, b, m: M, n: P, k: K };
const tunings: { what: string; outcome: TuneOutcome; seconds: number }[] = [];
for (
  const [what, tune] of [
    ["dot", () => tuner.tune(sum, { x, y: y2 })],
    ["max", () => tuner.tune(max, { x })],
    ["matmul", () => tuner.tune(matmul, mm)],
  ] as const
) {
  const started = performance.now();
  const outcome = await tune();
  tunings.push({ what, outcome, seconds: (performance.now() - started) / 1000 });
}
let total!: Handle;
let top!: Handle;
let c!: Handle;
const on4 = <T>(fn: () => Promise<T>) => client.withStream(4, fn);
await step(`dot(x, y2) (tuned: ${tuner.fastest(sum, { x, y: y2 })})`, 4, async () => {
  total = await on4(() => tuner.execute(sum, { x, y: y2 }));
});
await step(`max(x) (tuned: ${tuner.fastest(max, { x })})`, 4, async () => {
  top = await on4(() => tuner.execute(max, { x }));
});
await step(`matmul c = a b (tuned: ${tuner.fastest(matmul, mm)})`, 4, async () => {
  c = await on4(() => tuner.execute(matmul, mm));
});

// One coalesced read of everything, on stream 4.
const [xs, ys, totals, tops, cs] = await client.readMany([x, y2, total, top, c], Float32Array, {
  stream: 4,
});
const trace = await recorder?.stop();

// CPU reference.
const pattern = (i: number) => ((i * 7) % 13) * 0.25 - 1;
const xRef = Float32Array.from({ length: N }, (_, i) => Math.fround(0.5 * i) * 2);
const yRef = Float32Array.from({ length: N }, (_, i) => Math.fround(1 - 0.25 * i) * 0.5);
const dotRef = xRef.reduce((sum, xi, i) => sum + xi * yRef[i], 0);
const cRef = new Float64Array(M * P);
for (let m = 0; m < M; m++) {
  for (let p = 0; p < P; p++) {
    let acc = 0;
    for (let k = 0; k < K; k++) acc += pattern(m * K + k) * pattern(k * P + p);
    cRef[m * P + p] = acc;
  }
}

const checks = [
  { name: "x", ok: xs.every((v, i) => v === xRef[i]) },
  { name: "y", ok: ys.every((v, i) => v === yRef[i]) },
  // f32 accumulation over 65,536 terms: compare with a relative tolerance.
  {
    name: "dot(x, y)",
    ok: Math.abs(totals[0] - dotRef) <= 1e-4 * Math.abs(dotRef),
    detail: `${totals[0]} vs ${dotRef}`,
  },
  { name: "max(x)", ok: tops[0] === Math.max(...xRef), detail: `${tops[0]}` },
  { name: "matmul", ok: cs.every((v, i) => Math.abs(v - cRef[i]) <= 1e-4) },
];

console.log("\nStep durations:");
for (const { name, stream, duration } of steps) {
  console.log(
    `  stream ${stream}  ${
      duration.milliseconds.toFixed(3).padStart(9)
    } ms (${duration.timing})  ${name}`,
  );
}
const count = (outcome: TuneOutcome, status: string) =>
  outcome.results.filter((r) => r.status === status).length;
console.log("\nAutotuning:");
for (const { what, outcome, seconds } of tunings) {
  const how = outcome.fromCache
    ? `cache hit (${tuner.cacheFile ?? "memory"}), no benchmark`
    : `tuned in ${seconds.toFixed(2)} s (${count(outcome, "ok")} measured, ${
      count(outcome, "eliminated")
    } eliminated, ${count(outcome, "skipped")} not needed, ${count(outcome, "failed")} failed)`;
  console.log(`  ${what.padEnd(7)} ${outcome.key}: ${outcome.fastest} - ${how}`);
}
for (const warning of (await tuner.cache()).warnings) console.log(`  note: ${warning}`);

console.log(`\nMemory: ${formatMemoryUsage(client.memoryUsage())}`);
for (const handle of [x, y, y2, a, b, total, top, c] satisfies Handle[]) handle.dispose();
await client.sync();
client.memoryCleanup();
console.log(`After dispose + cleanup: ${formatMemoryUsage(client.memoryUsage())}`);

console.log("\nChecks against the CPU reference:");
for (const check of checks) {
  console.log(
    `  ${check.ok ? "ok  " : "FAIL"} ${check.name}${"detail" in check ? ` (${check.detail})` : ""}`,
  );
}
if (trace !== undefined && tracePath !== undefined) {
  const svgPath = tracePath.replace(/\.json$/, "") + ".svg";
  try {
    await Deno.writeTextFile(tracePath, JSON.stringify(toChromeTrace(trace)));
    await Deno.writeTextFile(svgPath, renderTraceSvg(trace, { title: "deno task demo" }));
  } catch (error) {
    if (!(error instanceof Deno.errors.NotCapable)) throw error;
    console.error(
      `Writing the trace needs --allow-write (or a yes at the prompt): ${error.message}`,
    );
    Deno.exit(2);
  }
  console.log(`\nTrace: ${tracePath} (Perfetto, chrome://tracing) and ${svgPath}`);
}
const passed = checks.every((check) => check.ok);
console.log(`\nVerdict: ${passed ? "PASS" : "FAIL"}`);
if (!passed) Deno.exit(1);
