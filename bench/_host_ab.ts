/**
 * Host time of 256 tiny dispatches (issue #22): the client's 256 `execute` + `flush`, minus the
 * time inside `queue.submit` (llvmpipe runs the work there), against raw encoding of the same
 * dispatches by hand (encoder, pass, pipeline and bind group set once, 256 dispatches, end,
 * finish). Only these variants, interleaved in a new random order each round, each after the
 * device went idle; median and first quartile, each as a ratio to raw. `_speed_ab.ts` measures
 * the same among more variants (some leave the device busier), so its ratios run higher.
 *
 * Run: `deno run -A bench/_host_ab.ts [maxTasks,...] [rounds]` (defaults `256`, 150; the
 * server's default `maxTasks` is 256).
 *
 * @module
 */
import { ComputeClient, CubeCount } from "../mod.ts";
import { WebGpuServer } from "../runtime/server/webgpu/mod.ts";
import { INCREMENT_WGSL, rawSetup, submitTimer } from "./_raw_webgpu.ts";

const raw = (await rawSetup(64))!;

const inc = { id: "inc", source: INCREMENT_WGSL };
const one = CubeCount.new1d(1);
const sizes = (Deno.args[0] ?? "256").split(",").map(Number);
const rounds = Number(Deno.args[1] ?? 150);
const clients = await Promise.all(sizes.map(async (maxTasks) => {
  const server = await WebGpuServer.create({ maxTasks });
  const client = new ComputeClient(server);
  return { maxTasks, client, submits: submitTimer(server.device), h: client.createBytes(256) };
}));
const times = new Map<string, number[]>();
const note = (name: string, ms: number) =>
  (times.get(name) ?? times.set(name, []).get(name)!).push(ms);
for (let round = 0; round < rounds + 20; round++) {
  const order = [-1, ...clients.map((_, i) => i)].sort(() => Math.random() - 0.5);
  for (const i of order) {
    if (i < 0) {
      const t = performance.now();
      const encoder = raw.device.createCommandEncoder();
      const pass = encoder.beginComputePass();
      pass.setPipeline(raw.pipeline);
      pass.setBindGroup(0, raw.bindGroup);
      for (let k = 0; k < 256; k++) pass.dispatchWorkgroups(1);
      pass.end();
      const buffer = encoder.finish();
      if (round >= 20) note("raw encoding", performance.now() - t);
      raw.device.queue.submit([buffer]);
      await raw.device.queue.onSubmittedWorkDone();
      continue;
    }
    const { maxTasks, client, submits, h } = clients[i];
    const submitted = submits.spent;
    const t = performance.now();
    for (let j = 0; j < 256; j++) client.execute(inc, { count: one, buffers: [h] });
    client.flush();
    const host = performance.now() - t - (submits.spent - submitted);
    if (round >= 20) note(`client maxTasks=${maxTasks}`, host);
    await client.sync();
  }
}
const quantile = (list: number[], q: number) => {
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length * q)];
};
const base = times.get("raw encoding")!;
for (const [name, list] of times) {
  const [median, p25] = [quantile(list, 0.5), quantile(list, 0.25)];
  console.log(
    name.padEnd(22),
    `median ${(median * 1000).toFixed(0)} µs (${(median / quantile(base, 0.5)).toFixed(2)}x)`,
    `p25 ${(p25 * 1000).toFixed(0)} µs (${(p25 / quantile(base, 0.25)).toFixed(2)}x)`,
  );
}
Deno.exit(0);
