import { CUDA_KERNELS, CudaServer } from "../runtime/server/cuda/mod.ts";
import { serverConformance } from "./server_conformance.ts";
import { hazardCount, hazardReport, resetHazards, SIM_LIBRARY } from "./fixtures/cuda_sim.ts";
import assert from "node:assert/strict";

Deno.test("CudaServer on the simulated driver conforms to the ComputeServer contract", async (t) => {
  resetHazards();
  await serverConformance(t, {
    createServer: () => Promise.resolve(CudaServer.create({ library: SIM_LIBRARY })),
    kernels: {
      fill: CUDA_KERNELS.fillU32,
      scaleAdd: CUDA_KERNELS.scaleAddF32,
      increment: CUDA_KERNELS.incrementU32,
    },
    cubeSize: 256,
  });
  assert.equal(hazardCount(), 0, hazardReport());
});
