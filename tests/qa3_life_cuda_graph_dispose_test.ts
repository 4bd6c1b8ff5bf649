/**
 * A graph disposed right after a `replay` that the client holds (behind `waitFor`, or a copy from
 * another client landing) on both backends (WebGPU on the fallback adapter, CUDA on the simulated
 * driver): the replay still runs when the stream is released, as a launch whose handles were
 * disposed right after the call. It failed with "Launch graph was released", reported to the
 * stream's next read. A held replay that never runs (its wait failed, or the client was
 * destroyed) still gives the graph back.
 */
import assert from "node:assert/strict";
import {
  type ComputeClient,
  ComputeError,
  CpuTimelineSignal,
  createClient,
  listDevices,
} from "../mod.ts";
import type { KernelMetadata } from "../backend.ts";
import { ADD_CUDA, ADD_WGSL } from "./_client_programs.ts";
import { within } from "./_device_programs.ts";
import { hazardCount, hazardReport, resetHazards, SIM_LIBRARY } from "./fixtures/cuda_sim.ts";

const [adapter] = await listDevices({ backend: "webgpu" });
const backends: {
  name: string;
  add: KernelMetadata;
  ignore: boolean;
  open(): Promise<ComputeClient>;
}[] = [{
  name: "webgpu",
  add: ADD_WGSL,
  ignore: adapter === undefined,
  open: () => createClient({ device: adapter! }) as Promise<ComputeClient>,
}, {
  name: "cuda",
  add: ADD_CUDA,
  ignore: false,
  open: () => createClient({ backend: "cuda", library: SIM_LIBRARY }) as Promise<ComputeClient>,
}];

const code = (c: string) => (e: unknown) => e instanceof ComputeError && e.code === c;

/** A client, `x` (all 1), `y` (zeros) and a graph of `y = x + 5`. */
async function setUp(b: (typeof backends)[number]) {
  const client = await b.open();
  const x = client.createWithData(new Uint32Array(64).fill(1));
  const y = client.zeros(64, "u32");
  const graph = await client.capture(() =>
    client.execute(
      b.add as never,
      { threads: 64, buffers: [x, y], params: { c: 5, n: 64 } } as never,
    )
  );
  return { client, x, y, graph };
}

for (const b of backends) {
  Deno.test({
    name: `${b.name}: a graph disposed right after a held replay still runs it`,
    ignore: b.ignore,
    async fn() {
      resetHazards();
      const { client, x, y, graph } = await setUp(b);
      const gate = new CpuTimelineSignal();
      client.waitFor(gate, 1);
      graph.replay();
      graph.dispose();
      x.dispose(); // the replay keeps its memory too
      assert.throws(() => graph.replay(), code("DESTROYED")); // no new replay
      gate.set(1);
      assert.deepEqual([...await within(client.read(y), 5_000)], new Array(64).fill(6));
      await client.sync();
      // A copy from another client landing holds the stream the same way.
      const other = await b.open();
      const source = other.createWithData(new Uint32Array(64).fill(2));
      const x2 = other.copyTo(source, client);
      const y2 = client.zeros(64, "u32");
      const graph2 = await client.capture(() =>
        client.execute(
          b.add as never,
          { threads: 64, buffers: [x2, y2], params: { c: 3, n: 64 } } as never,
        )
      );
      const again = other.copyTo(source, client); // the stream is held until it lands
      graph2.replay();
      graph2.dispose();
      assert.deepEqual([...await within(client.read(y2), 5_000)], new Array(64).fill(5));
      assert.deepEqual([...await client.read(again)], new Array(64).fill(2));
      other.destroy();
      client.destroy();
      if (b.name === "cuda") assert.equal(hazardCount(), 0, hazardReport());
    },
  });

  Deno.test({
    name: `${b.name}: a disposed graph whose held replay never runs is given back`,
    ignore: b.ignore,
    async fn() {
      const { client, x, y, graph } = await setUp(b);
      // The wait fails: the held replay never runs; its failure is the stream's.
      client.waitFor(new CpuTimelineSignal(), 1, { timeoutMs: 5 });
      graph.replay();
      graph.dispose();
      x.dispose();
      await assert.rejects(within(client.sync(), 5_000), code("TIMEOUT"));
      assert.deepEqual([...await client.read(y)], new Array(64).fill(0)); // it did not run
      y.dispose();
      await client.sync();
      client.memoryCleanup();
      assert.equal(client.memoryUsage().numberAllocs, 0, "the graph's handles were given back");
      // Destroyed while a replay of a disposed graph is held: settles, nothing left to run.
      const next = await setUp(b);
      next.client.waitFor(new CpuTimelineSignal(), 1);
      next.graph.replay();
      next.graph.dispose();
      const read = next.client.read(next.y);
      next.client.destroy();
      await assert.rejects(within(read, 5_000), code("DESTROYED"));
    },
  });
}
