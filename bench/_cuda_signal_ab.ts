/**
 * Latency of a CUDA timeline signal's `wait` (issue #28): a kernel of {@linkcode KERNEL_US} µs,
 * `record`, then `await wait`, timed from the launch to the wait's resolution, this tree against
 * another checkout in one process, interleaved in a random order each round, on the simulated
 * driver, beside the launch and a blocking `cuStreamSynchronize` (the floor). A wait that polls with `setTimeout` adds up to a
 * timer turn (~2 ms here), one that sleeps on a parked `cuEventSynchronize` tens of µs.
 *
 * Run: `deno run -A bench/_cuda_signal_ab.ts [baseline checkout] [rounds]` (default: this tree
 * only, 40 rounds).
 *
 * @module
 */

const KERNEL_US = 300;
const library =
  new URL("../tests/fixtures/cuda_sim/build/libcuda_sim.so", import.meta.url).pathname;
const rounds = Number(Deno.args[1] ?? 40);

/** The same launch, then a blocking `cuStreamSynchronize` (this tree's server). */
let floor: (() => Promise<number>) | undefined;

async function tree(root: URL) {
  const cuda = await import(new URL("runtime/server/cuda/mod.ts", root).href);
  const { KernelArguments, CubeCount } = await import(new URL("backend.ts", root).href);
  const server = cuda.CudaServer.create({ library });
  const signal = server.timelineSignal(0);
  const buffer = server.createWithData(new Uint8Array(4), 0);
  const slow = {
    kernel: cuda.CUDA_KERNELS.slowF32,
    count: CubeCount.new1d(1),
    args: new KernelArguments().withBuffer(buffer.ref())
      .withMetadata({ data: new Uint32Array([1]), staticLength: 1 }).withScalar("u32", [KERNEL_US]),
  };
  let value = 0;
  const { symbols } = server.device.driver;
  const stream = server.cudaStream(0);
  floor ??= () => {
    if (buffer.disposed) throw new Error("the benchmark buffer was released");
    const start = performance.now();
    server.execute(slow, 0);
    symbols.cuStreamSynchronize(stream); // blocks the thread: the floor, not a way to wait
    return Promise.resolve(performance.now() - start);
  };
  return async () => {
    // Keeps `buffer` referenced: an unreferenced handle is released by the safety net.
    if (buffer.disposed) throw new Error("the benchmark buffer was released");
    const start = performance.now();
    server.execute(slow, 0);
    signal.record(++value);
    await signal.wait(value, { timeoutMs: 10_000 });
    return performance.now() - start;
  };
}

const runs: [string, () => Promise<number>][] = [[
  "this",
  await tree(new URL("../", import.meta.url)),
]];
if (Deno.args[0] !== undefined) {
  runs.push(["base", await tree(new URL(`file://${Deno.realPathSync(Deno.args[0])}/`))]);
}
runs.push(["raw (blocking cuStreamSynchronize)", floor!]);
const times = new Map<string, number[]>();
for (let round = 0; round < rounds + 3; round++) {
  for (const [name, run] of [...runs].sort(() => Math.random() - 0.5)) {
    const ms = await run();
    if (round >= 3) (times.get(name) ?? times.set(name, []).get(name)!).push(ms);
  }
}
const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))];
console.log(`load: ${Deno.loadavg().map((n) => n.toFixed(2)).join(" ")}; kernel ${KERNEL_US} µs`);
for (const [name, xs] of times) {
  console.log(
    `${name} median ${quantile(xs, 0.5).toFixed(2)} ms  q1 ${quantile(xs, 0.25).toFixed(2)} ms  ` +
      `q3 ${quantile(xs, 0.75).toFixed(2)} ms`,
  );
}
Deno.exit(0); // the servers are left to the process's end
