/**
 * Calls refused at the call on CUDA (simulated driver, NVRTC; tests/_call_check_cases.ts): unknown
 * `execute` and helper options, and helpers given something that is not a client, as on WebGPU.
 */
import assert from "node:assert/strict";
import { createClient, listDevices } from "../mod.ts";
import { SIM_LIBRARY } from "./fixtures/cuda_sim.ts";
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

Deno.test("createClient refuses a misspelt CUDA option (librar: the default library instead)", async () => {
  await assert.rejects(
    createClient({ backend: "cuda", librar: SIM_LIBRARY } as never),
    /createClient \(cuda\): unknown option "librar" \(the options are memory, timeoutMs/,
  );
  await assert.rejects(
    listDevices({ backend: "cuda", librar: SIM_LIBRARY } as never),
    /listDevices: unknown option "librar" \(the options are backend, library\)/,
  );
  assert.equal((await listDevices({ backend: "cuda", library: SIM_LIBRARY })).length, 1);
  using client = await createClient({ backend: "cuda", library: SIM_LIBRARY, timeoutMs: 1000 });
  assert.equal(client.server.properties.backend, "cuda");
});
