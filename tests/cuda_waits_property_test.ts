/**
 * Many concurrent host waits on the CUDA server and the simulated driver: random slow kernels and
 * reads over four streams, often more reads pending than waits park (the queue the device wakes,
 * `queue/_overflow_wake.ts`), some servers destroyed midway. Every read settles within a bound,
 * with what its stream's kernels wrote before it, or `DESTROYED` once its server was destroyed.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { type ComputeError, CubeCount, type Handle, KernelArguments } from "../backend.ts";
import { CUDA_KERNELS, CudaServer } from "../runtime/server/cuda/mod.ts";
import { overflowCounts } from "../runtime/server/cuda/queue/_overflow_wake.ts";
import { SIM_LIBRARY } from "./fixtures/cuda_sim.ts";

const n = 8;
const meta = { data: new Uint32Array([n]), staticLength: 1 };

/** Adds 1 to each of the `n` floats after spinning `micros` µs a thread. */
function slow(server: CudaServer, data: Handle, micros: number, stream: number) {
  server.execute({
    kernel: CUDA_KERNELS.slowF32,
    count: CubeCount.threads(n),
    args: new KernelArguments().withBuffer(data.ref()).withMetadata(meta)
      .withScalar("u32", [micros]),
  }, stream);
}

const step = fc.record({
  stream: fc.integer({ min: 0, max: 3 }),
  micros: fc.integer({ min: 0, max: 2_000 }),
  reads: fc.integer({ min: 1, max: 7 }),
});

Deno.test("concurrent CUDA reads past the parked waits all settle, right or DESTROYED", async () => {
  let runs = 0;
  const armed = overflowCounts.armed;
  await fc.assert(
    fc.asyncProperty(
      fc.array(step, { minLength: 1, maxLength: 8 }),
      fc.option(fc.integer({ min: 0, max: 8 }), { nil: undefined }),
      async (steps, destroyAt) => {
        runs++;
        const server = CudaServer.create({ library: SIM_LIBRARY, maxStreams: 4 });
        const data = [0, 1, 2, 3].map((s) => server.createWithData(new Uint8Array(4 * n), s));
        const launched = [0, 0, 0, 0];
        const reads: { stream: number; expected: number; read: Promise<number> }[] = [];
        steps.forEach(({ stream, micros, reads: count }, i) => {
          if (i === destroyAt) server.destroy();
          if (server.destroyed) return;
          slow(server, data[stream], micros, stream);
          launched[stream]++;
          for (let r = 0; r < count; r++) {
            const read = server.read([data[stream].copyDescriptor([n], [1], 4)], stream)
              .then(([bytes]) => new Float32Array(bytes.buffer, bytes.byteOffset, n)[n - 1]);
            reads.push({ stream, expected: launched[stream], read });
          }
        });
        let timer: ReturnType<typeof setTimeout> | undefined;
        const bound = new Promise<"hung">((resolve) => timer = setTimeout(resolve, 10_000, "hung"));
        const settled = await Promise.race([Promise.allSettled(reads.map((r) => r.read)), bound]);
        clearTimeout(timer);
        if (settled === "hung") server.destroy(); // settles them (DESTROYED) before failing
        assert.notEqual(settled, "hung", "every read settled");
        const results = settled as PromiseSettledResult<number>[];
        results.forEach((result, i) => {
          const { stream, expected } = reads[i];
          if (result.status === "fulfilled") {
            assert.equal(result.value, expected, `read ${i} on stream ${stream}`);
          } else {
            assert.ok(server.destroyed, `read ${i} failed: ${result.reason}`);
            assert.equal((result.reason as ComputeError).code, "DESTROYED");
          }
        });
        server.destroy();
        await server.drained;
      },
    ),
    {
      numRuns: 12,
      endOnFailure: true, // a hang costs the bound: no shrinking runs
      // One run certain to queue waits past the parked ones (56 reads behind 2 ms kernels).
      examples: [[
        Array.from({ length: 8 }, (_, i) => ({ stream: i % 4, micros: 2_000, reads: 7 })),
        undefined,
      ]],
    },
  );
  assert.ok(runs >= 12);
  assert.ok(overflowCounts.armed > armed, "some waits were queued for the device's posts");
});
