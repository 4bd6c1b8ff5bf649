/**
 * Host time of the helpers' launches (`elementwise`, `reduce`, `scan`, `sort`; on CUDA
 * `elementwise` and `reduce`), this tree against other checkouts of the project in one process,
 * interleaved in a new random order each round: per sample, `B` calls (default 50) on 1,024
 * elements + `flush`, minus the time inside `queue.submit` (llvmpipe runs the work there), then a
 * `sync` outside the timing. Prints µs per call: median [first quartile, third quartile].
 *
 * Modes: `webgpu` (the default adapter), `webgpu-idle` (a device whose calls do nothing,
 * `_idle_device.ts`: the runtime's own JavaScript only), `cuda` (the simulated driver; CUDA C
 * helpers need NVRTC, `GPUCOMPUTE_NVRTC_LIBRARY` as tools/run_tests.sh sets it) and `cuda-idle`
 * (`cuLaunchKernel` a no-op). `OPS=scan,sort` runs only those helpers. On a shared machine, compare the idle modes, and run the roots in
 * both orders.
 *
 * Run: `git archive <commit> | tar -x -C .tmp/base` once, then
 * `B=200 deno run -A --unstable-webgpu bench/_helper_ab.ts webgpu-idle 40 .tmp/base .`
 *
 * @module
 */
import { idleDevice } from "./_idle_device.ts";

const [mode = "webgpu", roundArg = "30", ...rootArgs] = Deno.args;
const idle = mode.endsWith("-idle");
const backend = mode.replace("-idle", "");
const rounds = Number(roundArg);
const B = Number(Deno.env.get("B") ?? 50);
/** `OPS=scan,sort`: only these helpers. */
const only = Deno.env.get("OPS")?.split(",");
const N = 1024;
const library =
  new URL("../tests/fixtures/cuda_sim/build/libcuda_sim.so", import.meta.url).pathname;
if (rootArgs.length === 0) rootArgs.push(".");

interface Job {
  name: string;
  run: () => number;
  sync: () => Promise<void>;
}
const jobs: Job[] = [];
for (const rootArg of rootArgs) {
  const root = new URL(rootArg.endsWith("/") ? rootArg : rootArg + "/", `file://${Deno.cwd()}/`);
  const m = await import(new URL("mod.ts", root).href);
  // deno-lint-ignore no-explicit-any
  let client: any;
  const timer = { spent: 0 };
  if (backend === "webgpu") {
    const { WebGpuServer, WebGpuDevice } = await import(
      new URL("runtime/server/webgpu/mod.ts", root).href
    );
    const server = idle
      ? new WebGpuServer(new WebGpuDevice(await idleDevice(), { owned: false, name: "idle" }))
      : await WebGpuServer.create({});
    const queue = server.device.queue, submit = queue.submit.bind(queue);
    queue.submit = (buffers: GPUCommandBuffer[]) => {
      const t = performance.now();
      submit(buffers);
      timer.spent += performance.now() - t;
    };
    client = new m.ComputeClient(server);
  } else {
    const cuda = await import(new URL("runtime/server/cuda/mod.ts", root).href);
    const server = cuda.CudaServer.create({ library, maxStreams: 4 });
    client = new m.ComputeClient(server);
    if (idle) server.device.driver.symbols.cuLaunchKernel = () => 0;
  }
  const x = client.createWithData(new Float32Array(N).map((_, i) => i % 7));
  const y = client.createWithData(new Float32Array(N).map((_, i) => i % 5));
  const u = client.createWithData(new Uint32Array(N).map((_, i) => (i * 2654435761) >>> 0));
  const out = client.empty(N, "f32");
  const saxpy = m.elementwise({
    inputs: ["x", "y"],
    params: { a: "f32" },
    expression: "a * x + y",
  });
  const ops: [string, () => void][] = [
    ["elementwise", () => saxpy.run(client, { x, y }, { params: { a: 2 }, out })],
    ["reduce", () => m.reduce(client, x)[Symbol.dispose]()],
  ];
  if (backend === "webgpu") {
    ops.push(["scan", () => m.scan(client, x)[Symbol.dispose]()]);
    ops.push(["sort", () => m.sort(client, u)[Symbol.dispose]()]);
  }
  for (const [op, fn] of ops) {
    if (only !== undefined && !only.includes(op)) continue;
    for (let i = 0; i < 3; i++) fn(); // compiles, warms up
    await client.sync();
    jobs.push({
      name: `${op} ${rootArg}`,
      run: () => {
        const spent = timer.spent;
        const t = performance.now();
        for (let i = 0; i < B; i++) fn();
        client.flush();
        return performance.now() - t - (timer.spent - spent);
      },
      sync: () => client.sync(),
    });
  }
}
const times = new Map<string, number[]>(jobs.map((job) => [job.name, []]));
for (let round = 0; round < rounds + 3; round++) {
  for (const job of [...jobs].sort(() => Math.random() - 0.5)) {
    const ms = job.run();
    await job.sync();
    if (round >= 3) times.get(job.name)!.push(ms * 1000 / B);
  }
}
const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))];
const load = Deno.loadavg().map((n) => n.toFixed(2)).join(" ");
console.log(`${mode}, load ${load}, ${rounds} rounds of ${B} calls: µs per call`);
for (const [name, xs] of times) {
  const [q1, median, q3] = [0.25, 0.5, 0.75].map((q) => quantile(xs, q).toFixed(1));
  console.log(`${name.padEnd(32)} median ${median.padStart(7)} [${q1} ${q3}]`);
}
Deno.exit(0);
