/**
 * The WebGPU launch path's JavaScript (`_launch_js_cost.ts`'s device whose calls do nothing),
 * this tree against other checkouts in one process, interleaved in a new random order each round,
 * timed in CPU time (user + system of the process). Kinds: `tiny` (one buffer, a static count)
 * and `params` (two buffers, a uniform struct of two f32 params, `threads`), as in
 * `_launch_js_cost.ts`. Prints each tree's median, 10th percentile, quartiles and minimum in µs per
 * launch. Load from other processes only adds time, so on a shared machine the low percentiles
 * are the steadier figures; compare trees of one run only.
 *
 * Run: `deno run -A bench/_launch_js_ab.ts <tiny|params> [rounds] [checkout...]` (WebGPU
 * permissions; a checkout made with `git archive <commit> | tar -x -C .tmp/c/<commit>`).
 *
 * @module
 */
import process from "node:process";
import { idleDevice } from "./_idle_device.ts";
import { AXPB_WGSL, INCREMENT_WGSL } from "./_raw_webgpu.ts";

const [kind = "tiny", roundsArg = "60", ...others] = Deno.args;
const rounds = Number(roundsArg);
const BURSTS = 40;
const N = 1024;

async function tree(root: URL) {
  const { ComputeClient, CubeCount } = await import(new URL("mod.ts", root).href);
  const { WebGpuDevice, WebGpuServer } = await import(
    new URL("runtime/server/webgpu/mod.ts", root).href
  );
  const gpu = new WebGpuDevice(await idleDevice(), { owned: false, name: "idle" });
  const client = new ComputeClient(new WebGpuServer(gpu));
  const x = client.createWithData(new Float32Array(N).fill(1));
  const y = client.createBytes(N * 4);
  const counters = client.createBytes(256);
  const inc = { id: "inc", source: INCREMENT_WGSL };
  const axpb = { id: "axpb", source: AXPB_WGSL };
  const one = CubeCount.new1d(1);
  const params = { a: 1.0001, b: 0.5 };
  const xy = { threads: N, buffers: [x, y], params };
  const yx = { threads: N, buffers: [y, x], params };
  const tiny = { count: one, buffers: [counters] };
  const burst = () => {
    for (let i = 0; i < 256; i++) {
      if (kind === "tiny") client.execute(inc, tiny);
      else client.execute(axpb, i % 2 === 0 ? xy : yx);
    }
    client.flush();
  };
  for (let i = 0; i < 100; i++) {
    burst();
    await client.sync();
  }
  return { burst, sync: () => client.sync() };
}

const roots = [
  ["this", new URL("../", import.meta.url)] as const,
  ...others.map((path) => [path, new URL(`file://${Deno.realPathSync(path)}/`)] as const),
];
const trees = new Map<string, Awaited<ReturnType<typeof tree>>>();
for (const [name, root] of roots) trees.set(name, await tree(root));
const times = new Map<string, number[]>([...trees.keys()].map((name) => [name, []]));
for (let round = 0; round < rounds + 3; round++) {
  for (const name of [...trees.keys()].sort(() => Math.random() - 0.5)) {
    const t = trees.get(name)!;
    const cpu = process.cpuUsage();
    for (let b = 0; b < BURSTS; b++) t.burst();
    const used = process.cpuUsage(cpu);
    await t.sync();
    if (round >= 3) times.get(name)!.push((used.user + used.system) / BURSTS / 256);
  }
}
const q = (xs: number[], f: number) =>
  [...xs].sort((a, b) => a - b)[Math.floor(f * (xs.length - 1))].toFixed(3);
console.log(`load: ${Deno.loadavg().map((n) => n.toFixed(2)).join(" ")}; ${rounds} rounds`);
for (const [name, xs] of times) {
  console.log(
    `${kind} ${name.padEnd(16)} median ${q(xs, 0.5)} µs  p10 ${q(xs, 0.1)}  q1 ${q(xs, 0.25)}  ` +
      `q3 ${q(xs, 0.75)}  min ${q(xs, 0)}`,
  );
}
Deno.exit(0);
