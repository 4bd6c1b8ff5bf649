/**
 * QA wave 10 on CUDA (NVRTC, the simulated driver): the cases of tests/qa10_prims_test.ts —
 * `histogram`'s subnormal-edge kernel against the docs' reference, and f32 max and min of
 * `reduce` and `scan` over subnormals, zeros, infinities and NaN, bit for bit as the CPU.
 */
import {
  checkDotMean,
  checkEdgeRanges,
  checkManyBins,
  checkSpecialPicks,
  checkSubnormalHistograms,
} from "./_qa10_prims_cases.ts";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";

const ignore = nvrtcSkip !== undefined;

Deno.test({
  name: nvrtcName("histogram on CUDA: subnormal ranges as the docs count them"),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    await checkEdgeRanges(client);
    await checkManyBins(client);
    await checkSubnormalHistograms(client, 20);
  },
});

Deno.test({
  name: nvrtcName("reduce and scan on CUDA: f32 max and min of subnormals, zeros, infinities, NaN"),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    await checkSpecialPicks(client);
    await checkDotMean(client);
  },
});
