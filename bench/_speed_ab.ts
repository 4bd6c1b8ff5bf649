/**
 * Interleaved A/B of the dispatch hot path (issues #11, #22), raw `navigator.gpu` against the
 * client, variants alternating round by round in one process, in a new random order each round
 * (the machine is shared: medians AND minima). The raw baselines are what a careful hand-written
 * program does (`_raw_webgpu.ts`): pipeline and bind group set once per pass, constants written
 * once.
 *
 * - `tiny`: 256 one-workgroup dispatches + one wait. Also the host cost alone (`host:` lines):
 *   the client's 256 `execute` + `flush` minus the time inside `queue.submit` (llvmpipe runs the
 *   work there), against raw encoding (encoder, pass, pipeline and bind group once, 256
 *   dispatches, end, finish); and the 256 `execute` calls alone.
 * - `params` / `scalars`: 200 chained element-wise launches (`y = a * x + b`, ping-pong over two
 *   buffers) with `a`, `b` as named params (a uniform) or as f32 scalars (CubeCL's info buffer)
 *   + one read, against raw WebGPU with the uniform (or info buffer) written once.
 * - `cold`: the first 200-dispatch burst of a kernel never seen before (+ wait) against the same
 *   burst of a warm kernel; prints submits per burst.
 * - `pool`: create + dispose of 64 KiB through the client against `createBuffer` + `destroy`.
 *
 * Extra module roots (e.g. an unpacked copy of main) are compared in the same process:
 * `deno run -A bench/_speed_ab.ts [rounds] [/tmp/base/]`.
 *
 * @module
 */
import {
  AXPB_SCALARS_WGSL,
  AXPB_WGSL as AXPB,
  INCREMENT_WGSL,
  rawParamsSetup,
  rawSetup,
  rawSubmitPerDispatch,
  submitTimer,
} from "./_raw_webgpu.ts";

type Fn = () => Promise<number | void>;
const rounds = Number(Deno.args[0] ?? 15);
const roots = [
  new URL("../", import.meta.url).href,
  ...Deno.args.slice(1).map((p) =>
    new URL(p.endsWith("/") ? p : p + "/", `file://${Deno.cwd()}/`).href
  ),
];
const raw = (await rawSetup(64))!;
const inc = { id: "inc", source: INCREMENT_WGSL };
const N = 1024;
const axpb = { id: "axpb", source: AXPB };
const axpbScalars = { id: "axpb_scalars", source: AXPB_SCALARS_WGSL };
const params = { a: 1.0001, b: 0.5 };
const scalars = { f32: [1.0001, 0.5] };
const MAX_TASKS = (Deno.env.get("MAX_TASKS") ?? "").split(",").filter(Boolean).map(Number);
const variants: [string, Fn][] = [];
const host = new Map<string, number[]>();
const note = (name: string, ms: number) =>
  (host.get(name) ?? host.set(name, []).get(name)!).push(ms);

const rawSubmits = submitTimer(raw.device);

// Raw baselines.
variants.push(["tiny raw one encoder", async () => {
  const t = performance.now();
  const encoder = raw.device.createCommandEncoder();
  const pass = encoder.beginComputePass();
  pass.setPipeline(raw.pipeline);
  pass.setBindGroup(0, raw.bindGroup); // kept by the pass: set once, as written by hand
  for (let i = 0; i < 256; i++) pass.dispatchWorkgroups(1);
  pass.end();
  const buffer = encoder.finish();
  note("tiny raw encode only", performance.now() - t);
  const submitted = rawSubmits.spent;
  raw.device.queue.submit([buffer]);
  note("tiny raw one encoder", performance.now() - t);
  note("tiny raw excl. submit", performance.now() - t - (rawSubmits.spent - submitted));
  await raw.device.queue.onSubmittedWorkDone();
}]);
variants.push(["tiny raw submit each", () => rawSubmitPerDispatch(raw, 256)]);
const rawParams = rawParamsSetup(raw.device, N, "params");
variants.push(["params raw uniform once", () => rawParams.run()]);
const rawScalars = rawParamsSetup(raw.device, N, "scalars");
variants.push(["scalars raw info once", () => rawScalars.run()]);

for (const [r, root] of roots.entries()) {
  const tag = roots.length > 1 ? (r === 0 ? " [new]" : " [base]") : "";
  const { ComputeClient, CubeCount } = await import(`${root}mod.ts`);
  const one = CubeCount.new1d(1);
  const chainCount = CubeCount.new1d(N / 64);
  const { WebGpuServer } = await import(`${root}runtime/server/webgpu/mod.ts`);
  const server = await WebGpuServer.create();
  const client = new ComputeClient(server);
  const submits = submitTimer(server.device);
  // A base checkout before typed handles (b3f53d4) names it `create`.
  const bytes = (c: typeof client, n: number) => (c.createBytes ?? c.create).call(c, n);
  const h = bytes(client, 256);
  for (const maxTasks of r === 0 ? MAX_TASKS : []) {
    const other = new ComputeClient(await WebGpuServer.create({ maxTasks }));
    const handle = bytes(other, 256);
    variants.push([`tiny client maxTasks=${maxTasks}`, async () => {
      for (let j = 0; j < 256; j++) other.execute(inc, { count: one, buffers: [handle] });
      await other.sync();
    }]);
    const ox = other.createWithData(new Float32Array(N).fill(1));
    const oy = bytes(other, N * 4);
    variants.push([`params client maxTasks=${maxTasks}`, async () => {
      for (let i = 0; i < 200; i++) {
        const [src, dst] = i % 2 === 0 ? [ox, oy] : [oy, ox];
        other.execute(axpb, { threads: N, buffers: [src, dst], params });
      }
      await other.read(oy, Float32Array);
    }]);
  }
  variants.push([`tiny client${tag}`, async () => {
    const t = performance.now();
    const submitted = submits.spent;
    for (let j = 0; j < 256; j++) client.execute(inc, { count: one, buffers: [h] });
    // At maxTasks, execute submits: that submit is the device's time too, not the host's.
    note(`tiny client execute only${tag}`, performance.now() - t - (submits.spent - submitted));
    client.flush();
    note(`tiny client${tag}`, performance.now() - t);
    note(`tiny client excl. submit${tag}`, performance.now() - t - (submits.spent - submitted));
    await client.sync();
  }]);
  const x = client.createWithData(new Float32Array(N).fill(1));
  const y = bytes(client, N * 4);
  variants.push([`params client${tag}`, async () => {
    for (let i = 0; i < 200; i++) {
      const [src, dst] = i % 2 === 0 ? [x, y] : [y, x];
      client.execute(axpb, { threads: N, buffers: [src, dst], params });
    }
    await client.read(y, Float32Array);
  }]);
  variants.push([`scalars client${tag}`, async () => {
    for (let i = 0; i < 200; i++) {
      const [src, dst] = i % 2 === 0 ? [x, y] : [y, x];
      client.execute(axpbScalars, { count: chainCount, buffers: [src, dst], scalars });
    }
    await client.read(y, Float32Array);
  }]);
  let fresh = 0;
  const coldSubmits: number[] = [];
  const cold = async (kernel: { id: string; source: string }, record: boolean) => {
    const before = server.stats().submits;
    for (let j = 0; j < 200; j++) client.execute(kernel, { count: one, buffers: [h] });
    await client.sync();
    if (record) coldSubmits.push(server.stats().submits - before);
  };
  variants.push([
    `cold burst${tag}`,
    () => cold({ id: "cold", source: `${INCREMENT_WGSL}\n// ${r} ${fresh++}` }, true),
  ]);
  const chainSubmits: number[] = [];
  variants.push([`cold chain${tag}`, async () => {
    const before = server.stats().submits;
    const kernel = { id: "axpb", source: `${AXPB}\n// ${r} ${fresh++}` };
    for (let i = 0; i < 200; i++) {
      const [src, dst] = i % 2 === 0 ? [x, y] : [y, x];
      client.execute(kernel, { threads: N, buffers: [src, dst], params });
    }
    await client.read(y, Float32Array);
    chainSubmits.push(server.stats().submits - before);
  }]);
  host.set(`cold chain submits${tag}`, chainSubmits);
  variants.push([`warm burst${tag}`, () => cold(inc, false)]);
  variants.push([`pool cycle x1000${tag}`, () => {
    for (let i = 0; i < 1000; i++) bytes(client, 65536).dispose();
    return Promise.resolve();
  }]);
  host.set(`cold submits${tag}`, coldSubmits);
}
variants.push(["pool raw createBuffer x1000", () => {
  for (let i = 0; i < 1000; i++) {
    raw.device.createBuffer({ size: 65536, usage: GPUBufferUsage.STORAGE }).destroy();
  }
  return Promise.resolve();
}]);

// ONLY=tiny,params keeps the variants whose name contains any of the comma-separated words.
const only = Deno.env.get("ONLY")?.split(",");
if (only !== undefined) {
  const kept = variants.filter(([name]) => only.some((word) => name.includes(word)));
  variants.splice(0, variants.length, ...kept);
}
const times = new Map<string, number[]>(variants.map(([name]) => [name, []]));
const order = [...variants];
// Warm-up rounds, not recorded: V8 optimizes the launch path over its first thousands of calls.
const WARMUP = Number(Deno.env.get("WARMUP") ?? 3);
for (let r = 0; r < rounds + WARMUP; r++) {
  // A new order every round: a variant that leaves the device or the event loop busy (256 lone
  // submits, a cold compile) slows whichever runs next; shuffled, that lands on all of them alike.
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  for (const [name, fn] of order) {
    const t = performance.now();
    await fn();
    if (r >= WARMUP) {
      (times.get(name) ?? times.set(name, []).get(name)!).push(performance.now() - t);
    }
  }
}
const stat = (ts: number[]) => {
  const s = [...ts].sort((a, b) => a - b);
  return `median ${s[s.length >> 1].toFixed(2).padStart(7)}  min ${s[0].toFixed(2).padStart(7)}`;
};
for (const [name, ts] of times) console.log(name.padEnd(34), stat(ts), "ms");
for (const [name, ts] of host) {
  if (ts.length > 0) console.log(`host: ${name}`.padEnd(34), stat(ts.slice(-rounds)));
}

// The targets of issue #22, as ratios of medians (each run prints its own: repeat and report the
// range).
const median = (ts: number[] | undefined) => {
  if (ts === undefined || ts.length === 0) return NaN;
  const s = [...ts].sort((a, b) => a - b);
  return s[s.length >> 1];
};
const ratio = (a: number, b: number) => (a / b).toFixed(2) + "x";
const rawEncode = median(host.get("tiny raw encode only")?.slice(-rounds));
const bestRaw = Math.min(
  median(times.get("tiny raw one encoder")),
  median(times.get("tiny raw submit each")),
);
for (const tag of roots.length > 1 ? [" [new]", " [base]"] : [""]) {
  console.log(
    `ratios${tag}:`,
    "host 256 execute+flush excl. submit / raw encode",
    ratio(median(host.get(`tiny client excl. submit${tag}`)?.slice(-rounds)), rawEncode),
    "| execute only / raw encode",
    ratio(median(host.get(`tiny client execute only${tag}`)?.slice(-rounds)), rawEncode),
    "| 256 + wait / best raw",
    ratio(median(times.get(`tiny client${tag}`)), bestRaw),
    "| params chain / raw uniform once",
    ratio(median(times.get(`params client${tag}`)), median(times.get("params raw uniform once"))),
    "| scalars chain / raw info once",
    ratio(median(times.get(`scalars client${tag}`)), median(times.get("scalars raw info once"))),
  );
}
