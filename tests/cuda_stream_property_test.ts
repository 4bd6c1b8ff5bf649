/**
 * Random programs over up to 8 streams on the CUDA server and the simulated driver, whose stream
 * threads run late and out of order between each other. Every read must equal a sequential
 * reference that applies the commands in program order, and the simulator's happens-before
 * checker must report no hazard: no access unordered after the last write, no write after an
 * unordered read, no access after free (pages are freed mid-program by cleanups), no staging
 * buffer reused before its copy ran. Two servers on two simulated devices run such programs
 * interleaved, each making its own context current (the simulator refuses and reports any use of a
 * stream, module or function under another device's context).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { CudaServer } from "../runtime/server/cuda/mod.ts";
import { command, run, runInterleaved } from "./_cuda_programs.ts";
import {
  hazardCount,
  hazardReport,
  resetHazards,
  SIM_LIBRARY,
  withSimEnv,
} from "./fixtures/cuda_sim.ts";

async function property(server: CudaServer, numRuns: number): Promise<void> {
  let programs = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 24 }), async (program) => {
      programs++;
      resetHazards(); // so a failing program (and its shrinks) reports only its own hazards
      await run(server, program);
      assert.equal(hazardCount(), 0, hazardReport());
    }),
    { numRuns },
  );
  assert.ok(programs >= numRuns);
  server.memoryCleanup(0);
  assert.equal(server.memoryUsage(0).numberAllocs, 0);
}

Deno.test("CUDA server: random cross-stream programs match the sequential reference with zero hazards", async () => {
  using server = CudaServer.create({ library: SIM_LIBRARY, maxStreams: 8 });
  await property(server, 500);
});

Deno.test("the same without memory pools (cuMemAlloc, frees deferred behind events)", async () => {
  using server = CudaServer.create({ library: SIM_LIBRARY, maxStreams: 8, memoryPools: false });
  await property(server, 150);
});

Deno.test("two servers on two devices run interleaved random programs with zero hazards", async () => {
  await withSimEnv({ CUDA_SIM_DEVICES: "2" }, async () => {
    using first = CudaServer.create({ library: SIM_LIBRARY, ordinal: 0, maxStreams: 4 });
    using second = CudaServer.create({ library: SIM_LIBRARY, ordinal: 1, maxStreams: 4 });
    assert.notEqual(first.device.context, second.device.context);
    const program = fc.array(command, { minLength: 1, maxLength: 24 });
    await fc.assert(
      fc.asyncProperty(program, program, fc.array(fc.nat(1)), async (a, b, order) => {
        resetHazards();
        await runInterleaved(
          [{ server: first, program: a }, { server: second, program: b }],
          order,
        );
        assert.equal(hazardCount(), 0, hazardReport());
      }),
      { numRuns: 200 },
    );
    for (const server of [first, second]) {
      server.memoryCleanup(0);
      assert.equal(server.memoryUsage(0).numberAllocs, 0);
    }
  });
});
