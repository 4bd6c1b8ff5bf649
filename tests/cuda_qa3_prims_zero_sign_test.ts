/**
 * QA wave 3 on CUDA (NVRTC, the simulated driver): the cases of tests/qa3_prims_zero_sign_test.ts
 * — f32 max and min of `reduce` and `scan` order -0 below +0 as on WebGPU.
 */
import { checkZeroSigns } from "./_qa3_prims_cases.ts";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { hazardCount, hazardReport, resetHazards } from "./fixtures/cuda_sim.ts";
import assert from "node:assert/strict";

const ignore = nvrtcSkip !== undefined;

Deno.test({
  name: nvrtcName("reduce and scan on CUDA: f32 max of -0 and +0 is +0, min -0, on every path"),
  ignore,
  async fn() {
    resetHazards();
    using client = await simulatedCudaClient();
    await checkZeroSigns(client);
    assert.equal(hazardCount(), 0, hazardReport());
  },
});
