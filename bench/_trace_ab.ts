/**
 * Interleaved A/B of the host cost of 256 dispatches (the `execute` calls, encoding included; the
 * device wait is not timed): a copy of the runtime built WITHOUT the profiling hook (the two null
 * checks removed from `_stream.ts` and `server.ts`) against this build with profiling off, with
 * a per-stream window open, and with a trace recording (on a device with `timestamp-query`, and
 * on one without it, which isolates the runtime's bookkeeping from the timestamp writes). Variants
 * alternate round by round in one process; median and min of 40 rounds after 5 warm-up rounds,
 * per dispatch. Two raw `navigator.gpu` variants (a pass per dispatch, without and with timestamp
 * writes) show what the per-kernel passes of a trace cost on the adapter itself.
 *
 * Run: `deno run --unstable-webgpu --allow-read --allow-write bench/_trace_ab.ts`
 *
 * @module
 */
import { CubeCount } from "../mod.ts";
import { INCREMENT_WGSL } from "./_raw_webgpu.ts";

const root = new URL("../", import.meta.url);
const copy = await Deno.makeTempDir({ dir: new URL("./", import.meta.url).pathname });
try {
  await copyTree(new URL("runtime/", root).pathname, `${copy}/runtime`);
  strip(`${copy}/runtime/server/webgpu/_stream.ts`, [[
    /const timing = this\.timing;\s*if \(timing !== null\) this\.#timedPass\(stream, task, timing\);\s*else if/,
    "if",
  ]]);
  strip(`${copy}/runtime/server/webgpu/server.ts`, [[
    /\/\/ Profiling off: this null check[^\n]*\n\s*if \(this\.#streams\.timing !== null\) \{[\s\S]*?\n {4}\}\n/,
    "",
  ]]);
  const here = root.pathname.replace(/\/$/, "");
  const adapter = (await navigator.gpu.requestAdapter())!;
  const variants = await Promise.all([copy, here, here].map(async (dir, i) => {
    const { WebGpuServer } = await import(`file://${dir}/runtime/server/webgpu/mod.ts`);
    const { ComputeClient } = await import(`file://${dir}/runtime/client.ts`);
    // The third: a device without timestamp-query, to isolate the runtime's own bookkeeping.
    const device = i === 2 ? await adapter.requestDevice() : undefined;
    return new ComputeClient(await WebGpuServer.create(device ? { device } : { adapter }));
  }));
  const kernel = {
    id: "inc",
    source: INCREMENT_WGSL,
    entryPoint: "main",
    workgroupSize: [64, 1, 1] as const,
  };
  const count = CubeCount.new1d(1);
  const [bare, hooked, untimed] = variants;
  const data = variants.map((c) => c.create(256));
  const launch = (i: number) => {
    const c = variants[i];
    const t = performance.now();
    for (let j = 0; j < 256; j++) c.execute(kernel, { count, buffers: [data[i]] });
    return performance.now() - t;
  };
  const cases: [string, () => Promise<number>][] = [
    ["no hook (stripped build)", async () => {
      const t = launch(0);
      await bare.sync();
      return t;
    }],
    ["profiling off", async () => {
      const t = launch(1);
      await hooked.sync();
      return t;
    }],
    ["per-stream window open", async () => {
      const token = hooked.server.startProfile(0);
      const t = launch(1);
      await hooked.server.endProfile(0, token);
      return t;
    }],
    ["tracing on", async () => {
      const recorder = hooked.trace();
      const t = launch(1);
      await recorder.stop();
      return t;
    }],
    ["tracing on, no device timer", async () => {
      const recorder = untimed.trace();
      const t = launch(2);
      await recorder.stop();
      return t;
    }],
  ];
  // Raw navigator.gpu: 256 dispatches with one compute pass each, without and with timestamp
  // writes: what a per-kernel pass costs on this adapter, with no runtime at all.
  const raw = await adapter.requestDevice({ requiredFeatures: ["timestamp-query"] });
  const module = raw.createShaderModule({ code: INCREMENT_WGSL });
  const pipeline = raw.createComputePipeline({
    layout: "auto",
    compute: { module, entryPoint: "main" },
  });
  const buffer = raw.createBuffer({ size: 256, usage: 0x80 }); // STORAGE
  const group = raw.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: [{ binding: 0, resource: { buffer } }],
  });
  const querySet = raw.createQuerySet({ type: "timestamp", count: 512 });
  const rawPasses = async (timed: boolean) => {
    const t = performance.now();
    const encoder = raw.createCommandEncoder();
    for (let j = 0; j < 256; j++) {
      const pass = encoder.beginComputePass(
        timed
          ? {
            timestampWrites: {
              querySet,
              beginningOfPassWriteIndex: 2 * j,
              endOfPassWriteIndex: 2 * j + 1,
            },
          }
          : {},
      );
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, group);
      pass.dispatchWorkgroups(1);
      pass.end();
    }
    raw.queue.submit([encoder.finish()]);
    const elapsed = performance.now() - t;
    await raw.queue.onSubmittedWorkDone();
    return elapsed;
  };
  cases.push(["raw: a pass per dispatch", () => rawPasses(false)]);
  cases.push(["raw: + timestamp writes", () => rawPasses(true)]);
  const times = new Map<string, number[]>();
  for (let r = 0; r < 45; r++) {
    for (const [name, fn] of cases) {
      const t = await fn();
      if (r >= 5) (times.get(name) ?? times.set(name, []).get(name)!).push(t);
    }
  }
  for (const [name, ts] of times) {
    ts.sort((a, b) => a - b);
    const per = (ms: number) => `${(ms * 1000 / 256).toFixed(2)} µs`;
    console.log(
      name.padEnd(26),
      "per dispatch: median",
      per(ts[ts.length >> 1]),
      " min",
      per(ts[0]),
    );
  }
  for (const c of variants) c.destroy();
  raw.destroy();
} finally {
  await Deno.remove(copy, { recursive: true });
}

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) await copyTree(`${from}/${entry.name}`, `${to}/${entry.name}`);
    else await Deno.copyFile(`${from}/${entry.name}`, `${to}/${entry.name}`);
  }
}

function strip(path: string, edits: [RegExp, string][]): void {
  let text = Deno.readTextFileSync(path);
  for (const [pattern, by] of edits) {
    if (!pattern.test(text)) throw new Error(`${path}: the hook to strip was not found`);
    text = text.replace(pattern, by);
  }
  Deno.writeTextFileSync(path, text);
}
