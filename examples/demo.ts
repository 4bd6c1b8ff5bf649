/**
 * `deno task demo`: a real workload over 4 streams with cross-stream dependencies, on the default
 * WebGPU adapter (see examples/_demo_workload.ts; examples/web/ runs it in a browser). Streams 1
 * and 2 fill and scale vectors (an element-wise kernel built from an expression does one of
 * them), stream 3 fills two matrices, and stream 4 consumes all of them: a dot product, a
 * maximum (the library's reductions) and a matmul, all three autotuned. No manual flush or sync
 * orders the streams: the runtime does. Every result is checked against a CPU reference; the
 * process exits with 1 on a mismatch.
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

import { createClient, formatMemoryUsage } from "../mod.ts";
import { renderTraceSvg, toChromeTrace } from "../runtime/trace/mod.ts";
import { type TuneOutcome, Tuner } from "../runtime/tune/mod.ts";
import { runDemo } from "./_demo_workload.ts";

const traceAt = Deno.args.indexOf("--trace");
const tracePath = traceAt < 0 ? undefined : Deno.args[traceAt + 1];
if (traceAt >= 0 && !tracePath) throw new TypeError("--trace needs a file name");

using client = await createClient();
const { properties } = client.server;
console.log(
  `Adapter: ${properties.deviceName} (${properties.backend}, ${
    properties.deviceTimer ? "device timer" : "wall clock"
  })`,
);

const tuner = new Tuner(client, { name: "demo" });
const { steps, tunings, checks, trace, memory } = await runDemo(client, tuner, {
  trace: tracePath !== undefined,
});

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

console.log(`\nMemory: ${formatMemoryUsage(memory)}`);
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
