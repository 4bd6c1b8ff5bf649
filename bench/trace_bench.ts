/**
 * Host cost of the dispatch path with profiling off, with a per-stream window open, with a
 * per-kernel window open, and with a trace recording (`deno task bench bench/trace_bench.ts`).
 * Each iteration times 256 `execute` calls of one small kernel (the encoding of every 32nd flush
 * included); the sync that waits for the device runs after the timed part. The like-for-like
 * check against a build without the profiling hook is `bench/_trace_ab.ts`.
 *
 * @module
 */

import "./_bench_guard.ts"; // deno bench awaits only async fns: a promise from another one throws
import { WebGpuServer, type WgslKernel } from "../runtime/server/webgpu/mod.ts";
import { ComputeClient, CubeCount } from "../mod.ts";
import { INCREMENT_WGSL } from "./_raw_webgpu.ts";

const DISPATCHES = 256;
const increment: WgslKernel = {
  id: "bench.increment",
  source: INCREMENT_WGSL,
  entryPoint: "main",
  workgroupSize: [64, 1, 1],
};
const count = CubeCount.new1d(1);
const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no adapter: nothing to measure

if (!ignore) {
  const client = new ComputeClient(await WebGpuServer.create({ adapter: adapter! }));
  const data = client.createBytes(64 * 4); // lives as long as the benchmarks
  const launch = () => {
    for (let i = 0; i < DISPATCHES; i++) client.execute(increment, { count, buffers: [data] });
  };
  launch();
  await client.sync();

  Deno.bench({
    name: `profiling off: ${DISPATCHES} dispatches`,
    group: "dispatch host cost",
    baseline: true,
    async fn(b) {
      b.start();
      launch();
      b.end();
      await client.sync();
    },
  });
  for (const perKernel of [false, true]) {
    Deno.bench({
      name: `${perKernel ? "per-kernel" : "per-stream"} window open: ${DISPATCHES} dispatches`,
      group: "dispatch host cost",
      async fn(b) {
        const token = client.server.startProfile(0, { perKernel });
        b.start();
        launch();
        b.end();
        await client.server.endProfile(0, token);
      },
    });
  }
  Deno.bench({
    name: `tracing on: ${DISPATCHES} dispatches`,
    group: "dispatch host cost",
    async fn(b) {
      const recorder = client.trace();
      b.start();
      launch();
      b.end();
      await recorder.stop();
    },
  });
}
