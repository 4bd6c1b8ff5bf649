/**
 * Interleaved A/B of launch graphs on WebGPU (issue #29), the variants of `graph_bench.ts` in a
 * new random order each round, each after the device went idle (a `deno bench` burst times the
 * waits differently, see docs/benchmarks.md):
 *
 * - `host:` 256 tiny dispatches, the clock stopped before `queue.submit`: raw encoding (pipeline
 *   and bind group set once), a graph's `replay()` + `flush()`, and 256 `execute` + `flush()`.
 * - `wait:` the same and a wait: raw (one encoder, one submit, `onSubmittedWorkDone`), a replay
 *   + `sync()`, and 256 `execute` + `sync()`.
 *
 * Prints the median and first quartile of each, as a ratio to raw.
 * Run: `deno run -A bench/_graph_ab.ts [rounds]` (default 150).
 *
 * @module
 */
import { ComputeClient, CubeCount } from "../mod.ts";
import { WebGpuServer } from "../runtime/server/webgpu/mod.ts";
import { INCREMENT_WGSL, rawOneEncoder, rawSetup } from "./_raw_webgpu.ts";

const rounds = Number(Deno.args[0] ?? 150);
const raw = (await rawSetup(64))!;
const server = await WebGpuServer.create();
const client = new ComputeClient(server);
const queue = server.device.queue;
const submit = queue.submit.bind(queue);
const held: GPUCommandBuffer[][] = [];
let holding = false;
queue.submit = (buffers: GPUCommandBuffer[]) => {
  if (holding) held.push([...buffers]);
  else submit(buffers);
};
const inc = { id: "inc", source: INCREMENT_WGSL };
const one = CubeCount.new1d(1);
const data = client.createBytes(256);
const executeAll = () => {
  for (let i = 0; i < 256; i++) client.execute(inc, { count: one, buffers: [data] });
};
const graph = await client.capture(executeAll, { label: "ab" });

const clientHost = async (run: () => void) => {
  holding = true;
  const t = performance.now();
  run();
  client.flush();
  const ms = performance.now() - t;
  holding = false;
  for (const buffers of held.splice(0)) submit(buffers);
  await client.sync();
  return ms;
};
const timed = async (run: () => Promise<void>) => {
  const t = performance.now();
  await run();
  return performance.now() - t;
};
const variants: Record<string, () => Promise<number>> = {
  "host: raw encoding": async () => {
    const t = performance.now();
    const encoder = raw.device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    pass.setPipeline(raw.pipeline);
    pass.setBindGroup(0, raw.bindGroup);
    for (let k = 0; k < 256; k++) pass.dispatchWorkgroups(1);
    pass.end();
    const buffer = encoder.finish();
    const ms = performance.now() - t;
    raw.device.queue.submit([buffer]);
    await raw.device.queue.onSubmittedWorkDone();
    return ms;
  },
  "host: replay": () => clientHost(() => graph.replay()),
  "host: 256 execute": () => clientHost(executeAll),
  "wait: raw one encoder": () => timed(() => rawOneEncoder(raw, 256)),
  "wait: replay + sync": () => timed(() => (graph.replay(), client.sync())),
  "wait: 256 execute + sync": () => timed(() => (executeAll(), client.sync())),
};
const times = new Map<string, number[]>();
for (let round = 0; round < rounds + 20; round++) {
  const order = Object.keys(variants).sort(() => Math.random() - 0.5);
  for (const name of order) {
    const ms = await variants[name]();
    if (round >= 20) (times.get(name) ?? times.set(name, []).get(name)!).push(ms);
  }
}
const quantile = (list: number[], q: number) =>
  [...list].sort((a, b) => a - b)[
    Math.floor(list.length * q)
  ];
for (const [name, list] of [...times].sort()) {
  const base = times.get(name.startsWith("host") ? "host: raw encoding" : "wait: raw one encoder")!;
  const [median, p25] = [quantile(list, 0.5), quantile(list, 0.25)];
  console.log(
    name.padEnd(26),
    `median ${(median * 1000).toFixed(0)} µs (${(median / quantile(base, 0.5)).toFixed(2)}x)`,
    `p25 ${(p25 * 1000).toFixed(0)} µs (${(p25 / quantile(base, 0.25)).toFixed(2)}x)`,
  );
}
graph.dispose();
client.destroy();
Deno.exit(0);
