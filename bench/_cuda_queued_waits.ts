/**
 * How CUDA's asynchronous host waits end when they cannot all park
 * (`runtime/server/cuda/queue/_host_wait.ts`, `_overflow_wake.ts`) and how the GC waits
 * (`runtime/stream/_gc_loop.ts`), on the simulated driver, this tree against another checkout:
 *
 * - `reads`: 24 reads over 4 streams whose slow kernels (40, 30, 20, 10 ms) finish last stream
 *   first, so 8 waits queue past the 16 parked ones: the `cuEventQuery` calls made, the timers
 *   under 100 ms started, and when each stream's reads settled (ms after the launches).
 * - `gc`: a ~60 ms launch on another stream than its buffer's, whose GC task pins the buffer:
 *   the `cuEventQuery` calls made until the page is released.
 *
 * Run: `deno run -A bench/_cuda_queued_waits.ts [baseline checkout]` (a baseline is made with
 * `git archive <commit> | tar -x -C .tmp/base`); with `CUDA_SIM_NO_HOST_FUNC=1` the driver
 * refuses host functions (the fallback).
 *
 * @module
 */
const library =
  new URL("../tests/fixtures/cuda_sim/build/libcuda_sim.so", import.meta.url).pathname;
const base = Deno.args[0];

async function measure(name: string, root: URL): Promise<void> {
  const { CudaServer, CUDA_KERNELS } = await import(
    new URL("runtime/server/cuda/mod.ts", root).href
  );
  const { KernelArguments, CubeCount } = await import(new URL("backend.ts", root).href);
  // deno-lint-ignore no-explicit-any
  const slow = (server: any, data: any, micros: number, stream: number) =>
    server.execute({
      kernel: CUDA_KERNELS.slowF32,
      count: CubeCount.new1d(1),
      args: new KernelArguments().withBuffer(data.ref())
        .withMetadata({ data: new Uint32Array([64]), staticLength: 1 })
        .withScalar("u32", [micros]),
    }, stream);
  const server = CudaServer.create({ library, maxStreams: 4 });
  const symbols = server.device.driver.symbols;
  const query = symbols.cuEventQuery;
  let queries = 0;
  symbols.cuEventQuery = (e: Deno.PointerValue) => (queries++, query(e));
  const realTimeout = globalThis.setTimeout;
  let timers = 0;
  globalThis.setTimeout = ((fn: () => void, ms?: number) => {
    if ((ms ?? 0) < 100) timers++;
    return realTimeout(fn, ms);
  }) as typeof setTimeout;
  try {
    const data = [0, 1, 2, 3].map((s) => server.createWithData(new Uint8Array(256), s));
    await Promise.all([0, 1, 2, 3].map((s) => server.sync(s)));
    [queries, timers] = [0, 0];
    for (let s = 0; s < 4; s++) slow(server, data[s], 40_000 - 10_000 * s, s);
    const started = performance.now();
    const settled: number[][] = [[], [], [], []];
    const reads = [];
    for (let r = 0; r < 6; r++) {
      for (let s = 0; s < 4; s++) {
        reads.push(
          server.read([data[s].copyDescriptor([64], [1], 4)], s)
            .then(() => settled[s].push(performance.now() - started)),
        );
      }
    }
    await Promise.all(reads);
    const last = settled.map((times) => Math.max(...times).toFixed(1));
    console.log(
      `${name} reads: ${queries} cuEventQuery, ${timers} short timers, ` +
        `last read of streams 0-3 at ${last.join(", ")} ms`,
    );
    [queries, timers] = [0, 0];
    const pinned = server.createWithData(new Uint8Array(256), 0);
    slow(server, pinned, 60_000, 1);
    pinned.dispose();
    const gcStarted = performance.now();
    const inUse = () => server.memoryUsage(0).bytesInUse;
    const before = inUse() - 256;
    while (inUse() > before) await new Promise((resolve) => realTimeout(resolve, 2));
    console.log(
      `${name} gc: ${queries} cuEventQuery until the page was released ` +
        `(${(performance.now() - gcStarted).toFixed(1)} ms)`,
    );
    for (const d of data) d.dispose();
  } finally {
    globalThis.setTimeout = realTimeout;
    symbols.cuEventQuery = query;
    server.destroy();
    await server.drained;
  }
}

await measure("this", new URL("../", import.meta.url));
if (base !== undefined) {
  await measure("base", new URL(`${base.replace(/\/?$/, "/")}`, `file://${Deno.cwd()}/`));
}
