/**
 * QA wave 3 on CUDA (NVRTC, the simulated driver, its hazard log checked): the cases of
 * tests/qa3_prims_views_test.ts — views, inputs disposed at once, NaN of either sign.
 */
import assert from "node:assert/strict";
import { checkEarlyDispose, checkNegativeNaN, checkViews } from "./_qa3_prims_views_cases.ts";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { hazardCount, hazardReport, resetHazards } from "./fixtures/cuda_sim.ts";

Deno.test({
  name: nvrtcName("primitives on CUDA: views, inputs disposed at once, NaN of either sign"),
  ignore: nvrtcSkip !== undefined,
  async fn() {
    resetHazards();
    using client = await simulatedCudaClient();
    await checkViews(client);
    await checkEarlyDispose(client, 3000);
    await checkNegativeNaN(client);
    assert.equal(hazardCount(), 0, hazardReport());
  },
});
