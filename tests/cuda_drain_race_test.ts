/**
 * A destroyed CUDA server's background drain parks non-blocking `cuEventSynchronize` calls; the
 * events they were given, and their context, must stay until the calls returned
 * (`runtime/server/cuda/_drain.ts`). `CUDA_SIM_SYNC_ENTRY_DELAY_US` makes every call start late
 * (as Deno's pool does on a loaded machine), so a release that does not wait for them meets a
 * destroyed event: a simulator hazard.
 */
import assert from "node:assert/strict";
import { CubeCount, KernelArguments } from "../backend.ts";
import { createClient } from "../mod.ts";
import { CUDA_KERNELS, CudaServer } from "../runtime/server/cuda/mod.ts";
import {
  hazardCount,
  hazardReport,
  resetHazards,
  SIM_LIBRARY,
  withSimEnv,
} from "./fixtures/cuda_sim.ts";

// Calls start 400 ms late; the slow launch of 75,000 µs runs ~300 ms here: longer than destroy's
// grace (250 ms), so that it drains in the background, and over before the drain's calls start.
const LATE_ENTRY = { CUDA_SIM_SYNC_ENTRY_DELAY_US: "400000" };
const SLOW_US = 75_000;

/** A server whose one slow launch (32 threads spinning `us` µs) is still running. */
function busyServer(us: number): CudaServer {
  const server = CudaServer.create({ library: SIM_LIBRARY });
  using data = server.createWithData(new Uint8Array(4 * 32), 0);
  server.execute({
    kernel: CUDA_KERNELS.slowF32,
    count: CubeCount.threads(32),
    args: new KernelArguments().withBuffer(data.ref())
      .withMetadata({ data: new Uint32Array([32]), staticLength: 1 }).withScalar("u32", [us]),
  }, 0);
  return server;
}

Deno.test("a server opened synchronously on a draining device shares the context until the drain's calls return", async () => {
  await withSimEnv(LATE_ENTRY, async () => {
    for (let round = 0; round < 2; round++) {
      resetHazards();
      const first = busyServer(SLOW_US);
      first.destroy(); // longer than the grace: drains in the background
      let drained = false;
      const done = first.drained?.then(() => drained = true, () => drained = true);
      using second = CudaServer.create({ library: SIM_LIBRARY }); // ends that drain first
      assert.equal(drained, false, "the drain's parked calls cannot have returned yet");
      using more = second.createWithData(new Uint8Array([1, 2, 3, 4]), 0);
      await done;
      // The drain released its retain of the context; the second server's is still there.
      const [bytes] = await second.read([more.copyDescriptor([4], [1], 1)], 0);
      assert.deepEqual([...bytes], [1, 2, 3, 4]);
      assert.equal(hazardCount(), 0, hazardReport());
    }
  });
});

Deno.test("createClient on a draining device waits for the drain, and no hazard is seen", async () => {
  await withSimEnv(LATE_ENTRY, async () => {
    resetHazards();
    const first = busyServer(SLOW_US);
    first.destroy();
    let drained = false;
    first.drained?.then(() => drained = true, () => drained = true);
    using client = await createClient({ backend: "cuda", library: SIM_LIBRARY });
    assert.equal(drained, true, "the new client was made after the drain ended");
    using data = client.createWithData(new Uint32Array([7, 8]));
    assert.deepEqual([...new Uint32Array(await client.read(data))], [7, 8]);
    assert.equal(hazardCount(), 0, hazardReport());
  });
});

Deno.test("destroy with a read parked keeps that read's event until its call returned", async () => {
  await withSimEnv(LATE_ENTRY, async () => {
    for (let round = 0; round < 2; round++) {
      resetHazards();
      const server = busyServer(2_000); // ~30 ms: within the grace
      using data = server.createWithData(new Uint8Array(8), 0);
      const read = server.read([data.copyDescriptor([8], [1], 1)], 0);
      await new Promise((resolve) => setTimeout(resolve, 1)); // the read's wait is parked
      server.destroy(); // the work ends within the grace; the parked call has not started
      await assert.rejects(read);
      await server.drained;
      assert.equal(hazardCount(), 0, hazardReport());
    }
  });
});
