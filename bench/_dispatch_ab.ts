/**
 * Interleaved A/B of 256 one-workgroup dispatches plus one wait: raw `navigator.gpu` (one encoder;
 * one submit each) against the client (maxTasks 32 and 256, and with every dispatch on a binding
 * never submitted before, the worst case of launch isolation), alternating variants round by round
 * in one process and one event loop, median of 25 rounds after 5 warm-up rounds. `deno bench`
 * runs each variant in its own burst, which on the llvmpipe adapter skews the comparison (device
 * polling and the software rasterizer's state differ between bursts), so this script is the
 * like-for-like check of the client's per-dispatch overhead.
 *
 * Run: `deno run --unstable-webgpu bench/_dispatch_ab.ts`
 *
 * @module
 */
import { WebGpuServer } from "../runtime/server/webgpu/mod.ts";
import { ComputeClient, CubeCount } from "../mod.ts";
import { INCREMENT_WGSL, rawOneEncoder, rawSetup, rawSubmitPerDispatch } from "./_raw_webgpu.ts";
const raw = (await rawSetup(64))!;
const k = {
  id: "inc",
  source: INCREMENT_WGSL,
  entryPoint: "main",
  workgroupSize: [64, 1, 1] as const,
};
const count = CubeCount.new1d(1);
const clients = await Promise.all(
  [32, 256].map(async (maxTasks) => new ComputeClient(await WebGpuServer.create({ maxTasks }))),
);
const handles = clients.map((c) => c.empty(64, "u32"));
let fresh = 0;
const variants: [string, () => Promise<void>][] = [
  ["raw one encoder", () => rawOneEncoder(raw, 256)],
  ["raw submit each", () => rawSubmitPerDispatch(raw, 256)],
  ...clients.map((c, i) =>
    [`client maxTasks=${[32, 256][i]}`, async () => {
      for (let j = 0; j < 256; j++) c.execute(k, { count, buffers: [handles[i]] });
      await c.sync();
    }] as [string, () => Promise<void>]
  ),
  // Every dispatch on a binding never submitted before: each is isolated in its own submission.
  ["client new bindings", async () => {
    const c = clients[0];
    const size = 256 + 4 * (fresh++ % 1024);
    const owned = Array.from({ length: 256 }, () => c.empty(size / 4, "u32"));
    for (const handle of owned) c.execute(k, { count, buffers: [handle] });
    await c.sync();
    for (const handle of owned) handle.dispose();
  }],
];
const times = new Map<string, number[]>();
for (let r = 0; r < 30; r++) {
  for (const [name, fn] of variants) {
    const t = performance.now();
    await fn();
    if (r >= 5) (times.get(name) ?? times.set(name, []).get(name)!).push(performance.now() - t);
  }
}
for (const [name, ts] of times) {
  ts.sort((a, b) => a - b);
  console.log(
    name.padEnd(22),
    "median",
    ts[ts.length >> 1].toFixed(2),
    "ms  min",
    ts[0].toFixed(2),
  );
}
