/**
 * QA wave 3 on CUDA (NVRTC, the simulated driver): the cases of tests/qa3_prims_histogram_test.ts
 * — the docs' f32 edges where f32 rounds edges together, and one bin over a range wider than the
 * largest f32.
 */
import {
  checkEdgeProperty,
  checkNarrowBins,
  checkWideHistogram,
} from "./_qa3_prims_histogram_cases.ts";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";

const ignore = nvrtcSkip !== undefined;

Deno.test({
  name: nvrtcName("histogram on CUDA: the docs' f32 edges, also where f32 rounds edges together"),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    await checkNarrowBins(client);
    await checkEdgeProperty(client, 15);
  },
});

Deno.test({
  name: nvrtcName("histogram on CUDA: one bin over a range wider than the largest f32"),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    await checkWideHistogram(client);
  },
});
