/**
 * The runtime's JavaScript per CUDA launch, this tree against other checkouts in one process:
 * launches on the simulated driver with `cuLaunchKernel` a no-op (as `_cuda_launch_ab.ts
 * --js-only`), interleaved in a new random order each round, timed in CPU time (the process's user
 * + system time: what other processes on a shared machine take does not count). Variants:
 * `client` (the shipped `fill_f32` PTX through `client.execute`, params by position, a static
 * count), `source` (a CUDA C kernel through `client.execute`: two buffers, one `const`, named
 * params, `threads`; needs NVRTC) and `server` (`server.execute` of `fill_f32` with the internal
 * layout). Prints each tree's median, quartiles and minimum in µs per launch (= ms per 1,000).
 *
 * Run: `deno run -A bench/_cuda_js_ab.ts <client|source|server> [rounds] [checkout...]`, a
 * checkout made with `git archive <commit> | tar -x -C .tmp/base` (its own driver calls are
 * replaced too). `source` needs the NVRTC environment of tools/run_tests.sh's CUDA area.
 *
 * @module
 */
import process from "node:process";

const [which = "client", roundsArg = "40", ...others] = Deno.args;
const rounds = Number(roundsArg);
const PER_ROUND = 10_000;
const N = 1024;
const library =
  new URL("../tests/fixtures/cuda_sim/build/libcuda_sim.so", import.meta.url).pathname;
const SAXPY = `extern "C" __global__ void axpb(const float* x, float* y, float a, float b,
  unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b;
}`;

async function tree(root: URL) {
  const cuda = await import(new URL("runtime/server/cuda/mod.ts", root).href);
  const { ComputeClient } = await import(new URL("mod.ts", root).href);
  const { KernelArguments, CubeCount } = await import(new URL("backend.ts", root).href);
  const server = cuda.CudaServer.create({ library, maxStreams: 4 });
  const buffer = server.createWithData(new Uint8Array(N * 4), 0);
  const args = new KernelArguments().withBuffer(buffer.ref())
    .withMetadata({ data: new Uint32Array([N]), staticLength: 1 }).withScalar("f32", [1]);
  const fill = { kernel: cuda.CUDA_KERNELS.fillF32, count: CubeCount.new1d(N / 256), args };
  const client = new ComputeClient(server);
  const handle = client.createBytes(N * 4);
  const x = client.createWithData(new Float32Array(N));
  const y = client.createWithData(new Float32Array(N));
  const userFill = { ptx: cuda.CUDA_KERNELS.fillF32.ptx, entryPoint: "fill_f32" };
  const byPosition = { count: CubeCount.new1d(N / 256), buffers: [handle], params: [N, 1] };
  const axpb = { source: SAXPY };
  const named = { threads: N, buffers: [x, y], params: { a: 2, b: 1, n: N } };
  const run = which === "server"
    ? () => {
      for (let i = 0; i < PER_ROUND; i++) server.execute(fill, 0);
    }
    : which === "source"
    ? () => {
      for (let i = 0; i < PER_ROUND; i++) client.execute(axpb, named);
    }
    : () => {
      for (let i = 0; i < PER_ROUND; i++) client.execute(userFill, byPosition);
    };
  run(); // loads the modules, compiles
  await server.sync(0);
  await client.sync();
  (server.device.driver.symbols as { cuLaunchKernel: unknown }).cuLaunchKernel = () => 0;
  return {
    run,
    sync: async () => {
      if (buffer.disposed) throw new Error("released"); // keeps it alive
      await server.sync(0);
      await client.sync();
    },
  };
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
    t.run();
    const used = process.cpuUsage(cpu);
    await t.sync();
    if (round >= 3) times.get(name)!.push((used.user + used.system) / PER_ROUND);
  }
}
const q = (xs: number[], f: number) =>
  [...xs].sort((a, b) => a - b)[Math.floor(f * (xs.length - 1))].toFixed(3);
console.log(`load: ${Deno.loadavg().map((n) => n.toFixed(2)).join(" ")}; ${rounds} rounds`);
for (const [name, xs] of times) {
  console.log(
    `${which} ${name.padEnd(14)} median ${q(xs, 0.5)} µs/launch  q1 ${q(xs, 0.25)}  ` +
      `q3 ${q(xs, 0.75)}  min ${q(xs, 0)}`,
  );
}
Deno.exit(0);
