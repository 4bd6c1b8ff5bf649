/**
 * QA wave 15 on CUDA (NVRTC, the simulated driver): the cases of tests/qa15_prims_test.ts.
 */
import { checkUniformBelowHigh } from "./_qa15_prims_cases.ts";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";

const ignore = nvrtcSkip !== undefined;

Deno.test({
  name: nvrtcName("random on CUDA: uniform numbers stay below high where f32 rounding reached it"),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    await checkUniformBelowHigh(client);
  },
});
