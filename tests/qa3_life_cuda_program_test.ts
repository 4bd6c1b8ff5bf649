/**
 * Random lifecycle programs (tests/_qa3_life_programs.ts) on both backends: WebGPU on the fallback
 * adapter and CUDA on the simulated driver (with random delays, so a `destroy()` comes while work
 * is in flight). Every promise settles within a bound, every error is the typed one its call
 * deserves, every read that resolves matches the CPU model, and the client of the other backend,
 * whose handles the program passes to the one under test, stays exact.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { type ComputeClient, createClient, listDevices } from "../mod.ts";
import type { KernelMetadata } from "../backend.ts";
import { ADD_CUDA, ADD_WGSL } from "./_client_programs.ts";
import { LEN, lifeProgram, runLifeProgram } from "./_qa3_life_programs.ts";
import { SIM_LIBRARY, withSimEnv } from "./fixtures/cuda_sim.ts";

const [adapter] = await listDevices({ backend: "webgpu" });
const openWebGpu = () => createClient({ device: adapter!, maxTasks: 3 }) as Promise<ComputeClient>;
const openCuda = () =>
  withSimEnv(
    { CUDA_SIM_MAX_DELAY_US: "300" },
    () => createClient({ backend: "cuda", library: SIM_LIBRARY }) as Promise<ComputeClient>,
  );

/**
 * A client and its destroy that waits for what its server left to drain in the background (a CUDA
 * server's parked waits return on Deno's pool after `destroy`: the sanitizer counts them). The
 * server is taken at once: the program may destroy the client, and then `client.server` throws.
 */
function drainable(client: ComputeClient): () => Promise<void> {
  const server = client.server as { drained?: Promise<void> };
  return async () => {
    client.destroy();
    await server.drained?.catch(() => {}); // its fault or TIMEOUT reached the calls already
  };
}

interface Backend {
  readonly name: string;
  readonly add: KernelMetadata;
  readonly runs: number;
  open(): Promise<ComputeClient>;
  /** A client of the other backend. */
  other(): Promise<ComputeClient>;
}

const backends: Backend[] = [
  { name: "webgpu", add: ADD_WGSL, runs: 30, open: openWebGpu, other: openCuda },
  { name: "cuda", add: ADD_CUDA, runs: 100, open: openCuda, other: openWebGpu },
];

for (const b of backends) {
  Deno.test({
    name: `${b.name}: random programs with destroy and disposals at random points settle every ` +
      "promise, with typed errors and exact reads",
    ignore: adapter === undefined, // both backends take part in every program
    async fn() {
      let other = await b.other();
      let destroyOther = drainable(other);
      let foreign = other.createWithData(new Uint32Array(LEN).fill(9));
      try {
        await fc.assert(
          fc.asyncProperty(lifeProgram, async (p) => {
            const client = await b.open();
            const destroy = drainable(client);
            try {
              await runLifeProgram(client, b.add, other, foreign, p);
            } finally {
              await destroy();
            }
            // The other client's data is untouched by everything the program did.
            assert.deepEqual([...await other.read(foreign)], new Array(LEN).fill(9));
            // A copy into it whose source was destroyed in flight fails its marks made meanwhile,
            // and with them its timeline for good (by design, _client_timeline.ts): a fresh one.
            const broken = await other.timeline.wait(other.signal()).then(() => false, () => true);
            if (broken) {
              await destroyOther();
              other = await b.other();
              destroyOther = drainable(other);
              foreign = other.createWithData(new Uint32Array(LEN).fill(9));
            }
          }),
          { numRuns: b.runs },
        );
      } finally {
        foreign.dispose();
        await destroyOther();
      }
    },
  });
}
