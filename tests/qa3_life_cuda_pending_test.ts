/**
 * `destroy()` while calls are pending, on both backends (WebGPU on the fallback adapter, CUDA on
 * the simulated driver): every pending call settles at once with `DESTROYED` (or its value), also a
 * `profile` or `capture` whose `fn` still waits on something of the caller's own, and a trace or
 * profile whose events completed just before the destroy (never the driver's error); and many
 * concurrent reads on CUDA (more than the host waiter parks at once) all settle with the right data.
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
import { CudaServer } from "../runtime/server/cuda/mod.ts";
import { SIM_LIBRARY, withSimEnv } from "./fixtures/cuda_sim.ts";

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

const isDestroyed = (error: unknown) => error instanceof ComputeError && error.code === "DESTROYED";

/** `y = x + c` on 64 elements. */
function add(
  client: ComputeClient,
  kernel: KernelMetadata,
  x: unknown,
  y: unknown,
  c: number,
  stream = 0,
) {
  client.execute(
    kernel as never,
    { stream, threads: 64, buffers: [x, y], params: { c, n: 64 } } as never,
  );
}

for (const b of backends) {
  Deno.test({
    name: `${b.name}: destroy settles a profile whose fn still awaits the caller's own promise`,
    ignore: b.ignore,
    async fn() {
      const client = await b.open();
      using x = client.createWithData(new Uint32Array(64).fill(1));
      using y = client.zeros(64, "u32");
      const gate = new CpuTimelineSignal(); // the caller's own: opened only after the destroy
      let launchedLate: unknown;
      const profiled = client.profile(async () => {
        add(client, b.add, x, y, 1);
        await gate.wait(1);
        try {
          add(client, b.add, x, y, 1); // fn runs on after the destroy: refused at the call
        } catch (error) {
          launchedLate = error;
        }
      });
      await new Promise((resolve) => setTimeout(resolve, 20));
      client.destroy();
      await assert.rejects(within(profiled, 2_000), isDestroyed);
      gate.set(1);
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.ok(isDestroyed(launchedLate), `${launchedLate}`);
      // A new client of the backend works.
      using again = await b.open();
      using z = again.createWithData(new Uint32Array(64).fill(4));
      using w = again.zeros(64, "u32");
      add(again, b.add, z, w, 3);
      assert.deepEqual([...await again.read(w)], new Array(64).fill(7));
    },
  });

  Deno.test({
    name: `${b.name}: destroy settles a capture whose fn still awaits the caller's own promise`,
    ignore: b.ignore,
    async fn() {
      const client = await b.open();
      using x = client.createWithData(new Uint32Array(64).fill(1));
      using y = client.zeros(64, "u32");
      const gate = new CpuTimelineSignal();
      const captured = client.capture(async () => {
        add(client, b.add, x, y, 1);
        await gate.wait(1);
      });
      await new Promise((resolve) => setTimeout(resolve, 20));
      client.destroy();
      await assert.rejects(within(captured, 2_000), isDestroyed);
      gate.set(1);
      await new Promise((resolve) => setTimeout(resolve, 20));
    },
  });

  Deno.test({
    name: `${b.name}: destroy settles held reads, syncs, timeline waits, profiles, replays and ` +
      "traces at once with DESTROYED",
    ignore: b.ignore,
    async fn() {
      const client = await b.open();
      const x = client.createWithData(new Uint32Array(64).fill(1));
      const y = client.zeros(64, "u32", { stream: 1 });
      const graph = await client.capture(() => add(client, b.add, x, y, 2, 1), { stream: 1 });
      const trace = client.trace();
      client.waitFor(new CpuTimelineSignal(), 1, { stream: 1 }); // never reached
      graph.replay();
      const pending: Record<string, Promise<unknown>> = {
        read: client.read(y, { stream: 1 }),
        readMany: client.readMany([x, y], { stream: 1 }),
        sync: client.sync({ stream: 1 }),
        wait: client.timeline.wait(client.signal({ stream: 1 })),
        profile: client.profile(() => add(client, b.add, x, y, 1, 1), { stream: 1 }),
        abortable: client.timeline.wait(1n << 40n, { signal: new AbortController().signal }),
      };
      client.destroy();
      for (const [name, promise] of Object.entries(pending)) {
        await assert.rejects(within(promise, 2_000), isDestroyed, name);
      }
      await assert.rejects(within(trace.stop(), 2_000), isDestroyed, "trace");
      assert.throws(() => graph.replay(), isDestroyed);
      graph.dispose(); // idempotent after the destroy
      x.dispose();
      y.dispose();
      x.dispose();
    },
  });

  Deno.test({
    name: `${b.name}: trace.stop() right before destroy(), its kernels complete, rejects with ` +
      "DESTROYED (not the driver's error on the destroyed timing events)",
    ignore: b.ignore,
    async fn() {
      for (let i = 0; i < 5; i++) {
        const client = await b.open();
        const x = client.createWithData(new Uint32Array(64).fill(1));
        const y = client.zeros(64, "u32");
        const trace = client.trace();
        add(client, b.add, x, y, 1);
        await client.sync(); // the stop's wait finds its events complete: resumes after destroy
        const stopped = trace.stop();
        client.destroy();
        await assert.rejects(within(stopped, 2_000), isDestroyed);
      }
    },
  });
}

for (const b of backends) {
  Deno.test({
    name: `${b.name}: destroying one of two clients of a device mid-flight leaves the other exact`,
    ignore: b.ignore,
    async fn() {
      const [doomed, kept] = [await b.open(), await b.open()];
      /** 20 kernels over 4 streams, each output read twice; checks every resolved read. */
      const work = (client: ComputeClient, base: number) => {
        const sources = [0, 1, 2, 3].map((s) =>
          client.createWithData(new Uint32Array(64).fill(base + s), { stream: s })
        );
        const outs = Array.from(
          { length: 20 },
          (_, i) => client.zeros(64, "u32", { stream: i % 4 }),
        );
        outs.forEach((out, i) => add(client, b.add, sources[i % 4], out, i, i % 4));
        return outs.flatMap((out, i) =>
          [0, 1].map(async () => {
            const data = await client.read(out, { stream: i % 4 });
            assert.deepEqual([...data], new Array(64).fill(base + (i % 4) + i));
          })
        );
      };
      const lost = work(doomed, 0);
      const reads = work(kept, 1000);
      doomed.destroy();
      const settled = await within(Promise.allSettled(lost), 5_000);
      for (const s of settled) {
        if (s.status === "rejected") assert.ok(isDestroyed(s.reason), `${s.reason}`);
      }
      await within(Promise.all(reads), 5_000);
      await within(Promise.all(work(kept, 2000)), 5_000);
      kept.destroy();
    },
  });
}

Deno.test("cuda server: endProfile right before destroy rejects with DESTROYED", async () => {
  for (let i = 0; i < 10; i++) {
    const server = CudaServer.create({ library: SIM_LIBRARY });
    const token = server.startProfile(0);
    await server.sync(0);
    const ended = server.endProfile(0, token);
    server.destroy();
    await assert.rejects(within(ended, 2_000), isDestroyed);
    // The profile's wait parked on Deno's pool returns in the background (a loaded machine
    // starts it late): the test ends once it did.
    await server.drained;
  }
});

Deno.test("cuda: 240 concurrent reads on 4 streams behind slow work all settle with their data", async () => {
  using client = await withSimEnv(
    { CUDA_SIM_MAX_DELAY_US: "2000" },
    () => createClient({ backend: "cuda", library: SIM_LIBRARY }) as Promise<ComputeClient>,
  );
  const sources = [0, 1, 2, 3].map((s) =>
    client.createWithData(new Uint32Array(64).fill(s), { stream: s })
  );
  const outs = Array.from({ length: 60 }, (_, i) => client.zeros(64, "u32", { stream: i % 4 }));
  outs.forEach((out, i) => add(client, ADD_CUDA, sources[i % 4], out, i, i % 4));
  const reads = outs.flatMap((out, i) =>
    [0, 1, 2, 3].map(() => client.read(out, { stream: i % 4 }))
  );
  const got = await within(Promise.all(reads), 20_000);
  got.forEach((data, k) => {
    const i = Math.floor(k / 4);
    assert.deepEqual([...data], new Array(64).fill((i % 4) + i), `read ${k}`);
  });
  // Again, destroyed while they are pending: each settles, with its data or DESTROYED.
  outs.forEach((out, i) => add(client, ADD_CUDA, sources[i % 4], out, 1000 + i, i % 4));
  const late = outs.flatMap((out, i) => [0, 1].map(() => client.read(out, { stream: i % 4 })));
  client.destroy();
  const settled = await within(Promise.allSettled(late), 5_000);
  settled.forEach((s, k) => {
    const i = Math.floor(k / 2);
    if (s.status === "fulfilled") {
      assert.deepEqual([...s.value], new Array(64).fill((i % 4) + 1000 + i));
    } else assert.ok(isDestroyed(s.reason), `${s.reason}`);
  });
});
