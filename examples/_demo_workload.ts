/**
 * The demo's workload, shared by `deno task demo` (examples/demo.ts) and the web example
 * (examples/web/): four streams with cross-stream dependencies. Streams 1 and 2 fill and scale
 * vectors (an element-wise kernel built from an expression does one of them), stream 3 fills two
 * matrices, and stream 4 consumes all of them: a dot product, a maximum (the library's
 * reductions) and a matmul, all three autotuned. No manual flush or sync orders the streams: the
 * runtime does. Every result is checked against a CPU reference.
 *
 * Streams are named by `{ stream }` options and profiling windows, never by an async scope, so
 * the same code runs in a browser (where `withStream` scopes synchronous code only).
 *
 * @module
 */

import {
  type ComputeClient,
  elementwise,
  type Handle,
  type MemoryUsage,
  type ProfileDuration,
  type WgslKernel,
} from "../mod.ts";
import type { Trace } from "../runtime/trace/mod.ts";
import { matmulSet, reduceSet, type TuneOutcome, type Tuner } from "../runtime/tune/mod.ts";
import { fillLinear, fillPattern, scale } from "./kernels.ts";

/** Vector length, and the matmul's shape: a is M x K, b is K x P. */
export const N = 1 << 16;
export const [M, K, P] = [256, 192, 256];

/** One profiled step. */
export interface DemoStep {
  readonly name: string;
  readonly stream: number;
  readonly duration: ProfileDuration;
}

/** What the demo did and found. */
export interface DemoRun {
  readonly steps: DemoStep[];
  readonly tunings: { what: string; outcome: TuneOutcome; seconds: number }[];
  readonly checks: { name: string; ok: boolean; detail?: string }[];
  /** The recording, when asked for. */
  readonly trace: Trace | undefined;
  /** Memory in use at the end, before the demo's handles were disposed. */
  readonly memory: MemoryUsage;
}

/** Runs the workload on `client`, tuning with `tuner`; `trace` records the run. */
export async function runDemo(
  client: ComputeClient<WgslKernel>,
  tuner: Tuner,
  options: { trace?: boolean } = {},
): Promise<DemoRun> {
  const recorder = options.trace ? client.trace() : undefined;
  const steps: DemoStep[] = [];
  const step = async (name: string, stream: number, fn: () => unknown) => {
    const { duration } = await client.profile(fn, { stream });
    steps.push({ name, stream, duration });
  };
  const vec = (stream: number) => client.empty(N, "f32", { stream });
  const halve = elementwise({ inputs: ["v"], params: { k: "f32" }, expression: "v * k" });

  // Streams 1..3: producers.
  using x = vec(1);
  using y = vec(2);
  using y2 = vec(2);
  using a = client.empty(M * K, "f32", { stream: 3 });
  using b = client.empty(K * P, "f32", { stream: 3 });
  const line = (v: typeof x, stream: number, start: number, by: number) =>
    client.execute(fillLinear, { stream, threads: N, buffers: [v], params: { start, step: by } });
  await step("fill x = 0.5 i", 1, () => line(x, 1, 0, 0.5));
  await step(
    "scale x *= 2",
    1,
    () => client.execute(scale, { stream: 1, threads: N, buffers: [x], params: { factor: 2 } }),
  );
  await step("fill y = 1 - 0.25 i", 2, () => line(y, 2, 1, -0.25));
  await step(
    "y2 = y * 0.5 (element-wise)",
    2,
    () => halve.run(client, { v: y }, { out: y2, params: { k: 0.5 }, stream: 2 }),
  );
  await step("fill matrices a, b", 3, () => {
    client.execute(fillPattern, { stream: 3, threads: M * K, buffers: [a] });
    client.execute(fillPattern, { stream: 3, threads: K * P, buffers: [b] });
  });

  // Stream 4: consumers of every producer, each the tuned pick for its shape.
  const sum = reduceSet(client, "sum");
  const max = reduceSet(client, "max");
  const matmul = matmulSet(client);
  const mm = { a, b, m: M, n: P, k: K };
  const tunings: DemoRun["tunings"] = [];
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
  // Tuned keys run their pick at once, inside the window's stream scope (no await before it).
  let total!: Handle;
  let top!: Handle;
  let c!: Handle;
  await step(`dot(x, y2) (tuned: ${tuner.fastest(sum, { x, y: y2 })})`, 4, async () => {
    total = await tuner.execute(sum, { x, y: y2 });
  });
  await step(`max(x) (tuned: ${tuner.fastest(max, { x })})`, 4, async () => {
    top = await tuner.execute(max, { x });
  });
  await step(`matmul c = a b (tuned: ${tuner.fastest(matmul, mm)})`, 4, async () => {
    c = await tuner.execute(matmul, mm);
  });
  using _results = { [Symbol.dispose]: () => [total, top, c].forEach((h) => h.dispose()) };
  // One coalesced read of everything, on stream 4.
  const [xs, ys, totals, tops, cs] = await client.readMany([x, y2, total, top, c], Float32Array, {
    stream: 4,
  });
  const trace = await recorder?.stop();
  const checks = check(xs, ys, totals[0], tops[0], cs);
  return { steps, tunings, checks, trace, memory: client.memoryUsage() };
}

function check(xs: Float32Array, ys: Float32Array, total: number, top: number, cs: Float32Array) {
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
  return [
    { name: "x", ok: xs.every((v, i) => v === xRef[i]) },
    { name: "y", ok: ys.every((v, i) => v === yRef[i]) },
    // f32 accumulation over 65,536 terms: compare with a relative tolerance.
    {
      name: "dot(x, y)",
      ok: Math.abs(total - dotRef) <= 1e-4 * Math.abs(dotRef),
      detail: `${total} vs ${dotRef}`,
    },
    { name: "max(x)", ok: top === Math.max(...xRef), detail: `${top}` },
    { name: "matmul", ok: cs.every((v, i) => Math.abs(v - cRef[i]) <= 1e-4) },
  ];
}
