/**
 * The user programs of the README (examples/saxpy.ts, softmax.ts, two_streams.ts,
 * signal_pipeline.ts) run and check themselves against the CPU: each throws on a mismatch.
 * examples/graph.ts replays a captured step 1,000 times (on CUDA: tests/cuda_graph_test.ts).
 * examples/data_parallel.ts runs on one device and on two (two devices of the adapter).
 */

const adapter = await navigator.gpu?.requestAdapter();

// Literal specifiers: statically analyzable imports need no read permission.
const PROGRAMS: Record<string, () => Promise<unknown>> = {
  saxpy: () => import("../examples/saxpy.ts"),
  softmax: () => import("../examples/softmax.ts"),
  two_streams: () => import("../examples/two_streams.ts"),
  signal_pipeline: () => import("../examples/signal_pipeline.ts"),
};

for (const [name, run] of Object.entries(PROGRAMS)) {
  Deno.test({
    name: `examples/${name}.ts matches its CPU reference`,
    ignore: adapter === null || adapter === undefined, // no WebGPU adapter on this machine
    async fn() {
      const log = console.log;
      console.log = () => {};
      try {
        await run();
      } finally {
        console.log = log;
      }
    },
  });
}

Deno.test({
  name: "examples/data_parallel.ts sums over one device and over two, as the CPU does",
  ignore: adapter === null || adapter === undefined, // no WebGPU adapter on this machine
  async fn() {
    const { sample, sumOnCpu, sumOnDevices } = await import("../examples/data_parallel.ts");
    const { createClients, listDevices } = await import("../mod.ts");
    const [device] = await listDevices({ backend: "webgpu" });
    const data = sample(1_000_003); // shards of unequal length
    const cpu = sumOnCpu(data);
    for (const count of [1, 2]) {
      using clients = await createClients(Array(count).fill(device));
      const sum = await sumOnDevices(clients, data);
      if (!(Math.abs(sum - cpu) / cpu < 1e-5)) {
        throw new Error(`${count} device(s): ${sum}, the CPU: ${cpu}`);
      }
    }
  },
});

Deno.test({
  name: "examples/graph.ts: 1,000 replays of a captured heat step match the CPU",
  ignore: adapter === null || adapter === undefined, // no WebGPU adapter on this machine
  async fn() {
    const { heatDiffusion } = await import("../examples/graph.ts");
    await heatDiffusion({ n: 256, steps: 1000 }); // throws on a mismatch
  },
});

Deno.test({
  name: "examples/kmeans.ts: every k-means step (argmin, segmentReduce, bincount) matches the CPU",
  ignore: adapter === null || adapter === undefined, // no WebGPU adapter on this machine
  async fn() {
    const { kmeans } = await import("../examples/kmeans.ts");
    const centroids = await kmeans(20_000, 5, 3);
    if (centroids.length !== 10 || centroids.some((c) => !(c >= 0 && c < 1))) {
      throw new Error(`kmeans: centroids ${centroids} are not in the unit square`);
    }
  },
});
