/**
 * Memory whose defining call never ran stays undefined for good, on both backends (WebGPU on the
 * fallback adapter, CUDA on the simulated driver): a handle uploaded behind a `waitFor` that failed,
 * or copied from a client destroyed before the copy landed, fails every later read, launch and copy
 * with that failure (on any stream, also once it was reported), never giving the bytes its memory
 * held before (another handle's data). A write of all of it defines it again.
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
import { SIM_LIBRARY } from "./fixtures/cuda_sim.ts";

const [adapter] = await listDevices({ backend: "webgpu" });
interface Backend {
  name: "webgpu" | "cuda";
  add: KernelMetadata;
  open(): Promise<ComputeClient>;
}
const backends: Backend[] = [{
  name: "webgpu",
  add: ADD_WGSL,
  open: () => createClient({ device: adapter! }) as Promise<ComputeClient>,
}, {
  name: "cuda",
  add: ADD_CUDA,
  open: () => createClient({ backend: "cuda", library: SIM_LIBRARY }) as Promise<ComputeClient>,
}];

const SENTINEL = 0xdeadbeef;
const code = (c: string) => (e: unknown) => e instanceof ComputeError && e.code === c;

/** Leaves a disposed handle full of SENTINEL in the stream's pool (what a new handle may get). */
async function litter(client: ComputeClient, stream: number): Promise<void> {
  client.createWithData(new Uint32Array(64).fill(SENTINEL), { stream }).dispose();
  await client.sync({ stream });
}

/** Every later use of `lost` fails with `c`, on its stream and another; a write revives it. */
async function checkLost(b: Backend, client: ComputeClient, lost: never, c: string, stream = 0) {
  for (let i = 0; i < 2; i++) { // also once the failure was reported
    for (const s of [stream, stream + 1]) {
      await assert.rejects(within(client.read(lost, { stream: s }), 5_000), code(c), `read ${i}`);
    }
  }
  using out = client.zeros(64, "u32");
  const launch = { threads: 64, buffers: [lost, out], params: { c: 1, n: 64 } };
  assert.throws(() => client.execute(b.add as never, launch as never), code(c), "a launch");
  assert.throws(() => client.copyTo(lost, client), code(c), "a copy");
  await assert.rejects(
    client.capture(() => client.execute(b.add as never, launch as never)),
    code(c),
    "a capture",
  );
  assert.deepEqual([...await client.read(out)], new Array(64).fill(0)); // the launch never ran
  client.write(lost, new Uint32Array(64).fill(3), { stream }); // all of it: defined again
  client.execute(b.add as never, launch as never);
  assert.deepEqual([...await client.read(out)], new Array(64).fill(4));
}

for (const b of backends) {
  Deno.test({
    name: `${b.name}: a handle whose held upload never ran fails every later use`,
    ignore: adapter === undefined,
    async fn() {
      using client = await b.open();
      await litter(client, 0);
      client.waitFor(new CpuTimelineSignal(), 1, { timeoutMs: 5 }); // times out
      const lost = client.createWithData(new Uint32Array(64).fill(7));
      await checkLost(b, client, lost as never, "TIMEOUT");
      await client.sync().catch(() => {}); // the stream's own report of the failure, if left
      lost.dispose();
    },
  });

  for (const from of backends) {
    Deno.test({
      name: `${from.name} to ${b.name}: a copy whose source client was destroyed before it ` +
        "landed fails every later use",
      ignore: adapter === undefined,
      async fn() {
        using client = await b.open();
        await litter(client, 0);
        const source = await from.open();
        const data = source.createWithData(new Uint32Array(64).fill(7));
        await source.sync();
        const lost = source.copyTo(data, client);
        source.destroy();
        if (from.name === "cuda" && b.name === "cuda") {
          // Copied on the devices, enqueued at the call: it lands all the same.
          assert.deepEqual([...await client.read(lost)], new Array(64).fill(7));
        } else await checkLost(b, client, lost as never, "DESTROYED");
        await client.sync().catch(() => {});
        lost.dispose();
      },
    });
  }
}
