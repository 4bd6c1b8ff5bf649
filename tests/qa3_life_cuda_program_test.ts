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
      let foreign = other.createWithData(new Uint32Array(LEN).fill(9));
      try {
        await fc.assert(
          fc.asyncProperty(lifeProgram, async (p) => {
            const client = await b.open();
            try {
              await runLifeProgram(client, b.add, other, foreign, p);
            } finally {
              client.destroy();
            }
            // The other client's data is untouched by everything the program did.
            assert.deepEqual([...await other.read(foreign)], new Array(LEN).fill(9));
            // A copy into it whose source was destroyed in flight fails its marks made meanwhile,
            // and with them its timeline for good (by design, _client_timeline.ts): a fresh one.
            const broken = await other.timeline.wait(other.signal()).then(() => false, () => true);
            if (broken) {
              other.destroy();
              other = await b.other();
              foreign = other.createWithData(new Uint32Array(LEN).fill(9));
            }
          }),
          { numRuns: b.runs },
        );
      } finally {
        foreign.dispose();
        other.destroy();
      }
    },
  });
}
