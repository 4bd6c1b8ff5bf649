/**
 * QA wave 15 on CUDA (NVRTC, the simulated driver): the cases of tests/qa15_prims_test.ts.
 */
import {
  checkAbstractInts,
  checkConstantShifts,
  checkFloatRemainder,
  checkUniformBelowHigh,
} from "./_qa15_prims_cases.ts";
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

Deno.test({
  name: nvrtcName(
    "elementwise on CUDA: a shift by a constant of 32 or more is refused, as WGSL refuses it",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    await checkConstantShifts(client);
  },
});

Deno.test({
  name: nvrtcName(
    "elementwise on CUDA: an f32 % is WGSL's x - y * trunc(x / y), rounded step by step",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    await checkFloatRemainder(client);
  },
});

Deno.test({
  name: nvrtcName("elementwise on CUDA: abstract int literals fold in 64 bits, as WGSL's"),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    await checkAbstractInts(client);
  },
});
