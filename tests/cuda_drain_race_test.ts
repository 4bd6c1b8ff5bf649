/**
 * A new server of a device whose destroyed server still drains in the background finishes that
 * drain first (`CudaDevice.open`) and works. The drain's parked `cuEventSynchronize` calls must
 * keep their events: a loaded CI run once saw one start after the events were destroyed (a
 * simulator hazard, docs/known_issues.md); this test does not force that timing (Deno's pool
 * starts the calls within microseconds here), it checks the path and its hazard count.
 */
import assert from "node:assert/strict";
import { CubeCount, KernelArguments } from "../backend.ts";
import { CUDA_KERNELS, CudaServer } from "../runtime/server/cuda/mod.ts";
import {
  hazardCount,
  hazardReport,
  resetHazards,
  SIM_LIBRARY,
  withSimEnv,
} from "./fixtures/cuda_sim.ts";

Deno.test("a new server on a draining device works, and no hazard is seen", async () => {
  await withSimEnv({ CUDA_SIM_MAX_DELAY_US: "3000" }, async () => {
    for (let round = 0; round < 5; round++) {
      resetHazards();
      const first = CudaServer.create({ library: SIM_LIBRARY });
      const data = first.createWithData(new Uint8Array(4 * 32), 0);
      first.execute({
        kernel: CUDA_KERNELS.slowF32,
        count: CubeCount.threads(32),
        args: new KernelArguments().withBuffer(data.ref())
          .withMetadata({ data: new Uint32Array([32]), staticLength: 1 }).withScalar("u32", [
            2_000,
          ]),
      }, 0);
      first.destroy(); // the slow kernel drains in the background
      using second = CudaServer.create({ library: SIM_LIBRARY }); // finishes that drain first
      using more = second.createWithData(new Uint8Array(16), 0);
      const [bytes] = await second.read([more.copyDescriptor([4], [1], 4)], 0);
      assert.equal(bytes.length, 16);
      await first.drained?.catch(() => {});
      assert.equal(hazardCount(), 0, hazardReport());
    }
  });
});
