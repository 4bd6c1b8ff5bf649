/**
 * QA wave 10: the architecture NVRTC compiles for on simulated devices of capabilities it does
 * not list (8.8, 10.0, 12.0: its newest below), one it lists (8.7), one older than all of it
 * (3.5: COMPILATION naming the range), and two devices of different capability in one process
 * (each its own PTX: the simulator refuses a `.target` above the device). The capabilities are the
 * simulator's (`CUDA_SIM_CC`): on a real driver (GPUCOMPUTE_TEST_CUDA_LIBRARY) the first test runs
 * on its device as it is, and the second opens the simulator itself.
 */
import assert from "node:assert/strict";
import { nvrtcName, nvrtcSkip, onSimulator, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { withSimEnv } from "./fixtures/cuda_sim.ts";
import { CompilationError, type ComputeClient, createClient, elementwise, reduce } from "../mod.ts";
import { NVRTC_LIBRARY_ENV } from "../runtime/server/cuda/compile/_nvrtc.ts";
import { SIM_LIBRARY } from "./fixtures/cuda_sim.ts";
import type { CudaKernel } from "../runtime/server/cuda/kernel.ts";

const ignore = nvrtcSkip !== undefined;

const addOne: CudaKernel = {
  id: "user.qa10_add_one",
  source: `extern "C" __global__ void add_one(float* v, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] += 1.0f;
}`,
  entryPoint: "add_one",
};
const twice = elementwise({ inputs: ["x"], expression: "x * 2.0" });

/** add_one and the elementwise and reduce helpers on `client`: each gives the host's values. */
async function runBoth(client: ComputeClient) {
  const n = 300;
  using v = client.createWithData(Float32Array.from({ length: n }, (_, i) => i));
  client.execute(addOne, { threads: n, buffers: [v], params: { n } });
  assert.deepEqual(await client.read(v), Float32Array.from({ length: n }, (_, i) => i + 1));
  using doubled = twice.run(client, { x: v });
  assert.deepEqual(
    await client.read(doubled),
    Float32Array.from({ length: n }, (_, i) => 2 * i + 2),
  );
  using top = reduce(client, doubled, { op: "max" });
  using rows = reduce(client, doubled, { shape: [3, 100], axis: 1 });
  assert.deepEqual(await client.read(top), new Float32Array([2 * n]));
  const row = (r: number) => Array.from({ length: 100 }, (_, i) => 2 * (r * 100 + i) + 2);
  assert.deepEqual(
    await client.read(rows),
    new Float32Array([0, 1, 2].map((r) => row(r).reduce((a, b) => a + b, 0))),
  );
}

Deno.test({
  name: nvrtcName(
    "qa10 arch: CUDA C and the elementwise and reduce helpers run on devices of compute capability 8.7, " +
      "8.8, 10.0, 12.0, then 7.5; 3.5 is a COMPILATION error naming NVRTC's range, the client usable" +
      (onSimulator
        ? ""
        : " (a real driver: on its own device only, CUDA_SIM_CC is the simulator's)"),
  ),
  ignore,
  async fn() {
    if (!onSimulator) { // a real driver ignores CUDA_SIM_CC: what holds on its device runs there
      using client = await simulatedCudaClient();
      await runBoth(client);
      return;
    }
    // 7.5 last: PTX kept from a newer device (compute_90) would be refused there
    for (const cc of ["87", "88", "100", "120", "75"]) {
      await withSimEnv({ CUDA_SIM_CC: cc }, async () => {
        using client = await simulatedCudaClient();
        await runBoth(client).catch((error) => {
          throw new Error(`on cc ${cc}: ${error}`, { cause: error });
        });
      });
    }
    await withSimEnv({ CUDA_SIM_CC: "35" }, async () => {
      using client = await simulatedCudaClient();
      using v = client.createWithData(new Float32Array(4));
      assert.throws(
        () => client.execute(addOne, { threads: 4, buffers: [v], params: { n: 4 } }),
        (e) =>
          e instanceof CompilationError && e.code === "COMPILATION" &&
          /compute_\d+ to compute_\d+, not for this device's compute_35/.test(e.message),
      );
      client.write(v, new Float32Array([1, 2, 3, 4]));
      assert.deepEqual(await client.read(v), new Float32Array([1, 2, 3, 4]));
    });
  },
});

Deno.test({
  name: nvrtcName(
    "qa10 arch: two devices of compute capability 9.0 and 7.5 in one process each run the same " +
      "CUDA C kernel object and helper, compiled for their own architecture",
  ),
  ignore,
  async fn() {
    const nvrtcLibrary = Deno.env.get(NVRTC_LIBRARY_ENV);
    await withSimEnv({ CUDA_SIM_DEVICES: "2", CUDA_SIM_CC: "90,75" }, async () => {
      const open = (device: `cuda:${number}`) =>
        createClient({ device, library: SIM_LIBRARY, nvrtcLibrary });
      using newer = await open("cuda:0");
      using older = await open("cuda:1");
      await runBoth(newer);
      await runBoth(older); // the newer's compute_90 PTX would be refused here
    });
  },
});
