/**
 * WebGPU benchmarks on the default adapter (`deno task bench`):
 * - the same N small dispatches through the client and through raw `navigator.gpu` code (one
 *   submit per dispatch; one encoder for all), each ending with one wait for the queue; and N
 *   dispatches each on a binding never submitted before (the worst case of launch isolation);
 * - a read of 1 handle against a read of 16 handles (coalesced into one map);
 * - the interleave and sequential strategies over 1, 4 and 16 streams.
 *
 * @module
 */

import "./_bench_guard.ts"; // deno bench awaits only async fns: a promise from another one throws
import { WebGpuServer, type WgslKernel } from "../runtime/server/webgpu/mod.ts";
import { ComputeClient, CubeCount, type Handle } from "../mod.ts";
import { INCREMENT_WGSL, rawOneEncoder, rawSetup, rawSubmitPerDispatch } from "./_raw_webgpu.ts";

const DISPATCHES = 256;
const ELEMENTS = 64; // one workgroup: the dispatch cost, not llvmpipe compute, dominates
const increment: WgslKernel = {
  id: "bench.increment",
  source: INCREMENT_WGSL,
  entryPoint: "main",
  workgroupSize: [64, 1, 1],
};
const count = CubeCount.new1d(ELEMENTS / 64);

const raw = await rawSetup(ELEMENTS);
const ignore = raw === undefined; // no adapter: nothing to measure

async function client(options: { strategy?: "interleave" | "sequential" } = {}) {
  return new ComputeClient(await WebGpuServer.create(options));
}

if (!ignore) {
  const gpu = await client();
  const data = gpu.empty(ELEMENTS, "u32"); // lives as long as the benchmarks
  const handles: Handle[] = Array.from({ length: 16 }, () => gpu.empty(ELEMENTS, "u32"));

  Deno.bench({
    name: `raw: ${DISPATCHES} dispatches, one encoder`,
    group: "dispatch",
    baseline: true,
    async fn() {
      await rawOneEncoder(raw, DISPATCHES);
    },
  });
  Deno.bench({
    name: `raw: ${DISPATCHES} dispatches, one submit each`,
    group: "dispatch",
    async fn() {
      await rawSubmitPerDispatch(raw, DISPATCHES);
    },
  });
  Deno.bench({
    name: `client: ${DISPATCHES} dispatches`,
    group: "dispatch",
    async fn() {
      for (let i = 0; i < DISPATCHES; i++) gpu.execute(increment, { count, buffers: [data] });
      await gpu.sync();
    },
  });

  // Worst case of launch isolation: every dispatch binds a range never submitted before (the
  // binding size grows per iteration), so each goes into a command buffer of its own.
  let fresh = 0;
  Deno.bench({
    name: `client: ${DISPATCHES} dispatches, each on a new binding`,
    group: "dispatch",
    async fn() {
      const size = ELEMENTS * 4 + 4 * (fresh++ % 1024);
      const owned = Array.from({ length: DISPATCHES }, () => gpu.empty(size / 4, "u32"));
      for (const handle of owned) gpu.execute(increment, { count, buffers: [handle] });
      await gpu.sync();
      for (const handle of owned) handle.dispose();
    },
  });

  Deno.bench({
    name: "read 1 handle",
    group: "read",
    baseline: true,
    async fn() {
      await gpu.read(handles[0]);
    },
  });
  Deno.bench({
    name: "read 16 handles",
    group: "read",
    async fn() {
      await gpu.readMany(handles);
    },
  });

  for (const streams of [1, 4, 16]) {
    for (const strategy of ["interleave", "sequential"] as const) {
      const server = await client({ strategy });
      const buffers = Array.from(
        { length: streams },
        (_, s) => server.empty(ELEMENTS, "u32", { stream: s }),
      );
      Deno.bench({
        name: `${strategy}: ${DISPATCHES} dispatches over ${streams} streams`,
        group: `streams x${streams}`,
        baseline: strategy === "interleave",
        async fn() {
          for (let i = 0; i < DISPATCHES; i++) {
            const stream = i % streams;
            server.execute(increment, { stream, count, buffers: [buffers[stream]] });
          }
          await server.sync();
        },
      });
    }
  }
} else {
  Deno.bench({ name: "webgpu (skipped: no adapter)", ignore: true, fn() {} });
}
