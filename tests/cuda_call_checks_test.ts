/**
 * Calls refused at the call on CUDA (simulated driver, NVRTC; tests/_call_check_cases.ts): unknown
 * `execute` and helper options, and helpers given something that is not a client, as on WebGPU.
 */
import { callCheckCases } from "./_call_check_cases.ts";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";

const addOne = {
  source: `extern "C" __global__ void add_one(float* v) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 4) v[i] += 1.0f;
}`,
};

Deno.test({
  name: nvrtcName("unknown execute and helper options, helpers given no client: TypeErrors"),
  ignore: nvrtcSkip !== undefined,
  async fn() {
    using client = await simulatedCudaClient();
    await callCheckCases(client, addOne);
  },
});
