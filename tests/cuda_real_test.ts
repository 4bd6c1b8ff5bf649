/**
 * The CUDA suites on the real driver (`libcuda.so.1`, or `$GPUCOMPUTE_CUDA_LIBRARY`) wherever a
 * machine has one with a device: the conformance suite, random cross-stream programs checked
 * against the sequential reference, and the shipped reduction and matmul kernels checked against
 * a CPU reference. Skipped, with the reason, where there is no driver or no device (CI).
 */
import fc from "fast-check";
import { CUDA_KERNELS, CudaDevice, CudaServer } from "../runtime/server/cuda/mod.ts";
import { serverConformance, TRACE_STEP } from "./server_conformance.ts";
import { checkShippedKernels, command, run } from "./_cuda_programs.ts";

const unavailable = (() => {
  try {
    using device = CudaDevice.open();
    if (/cuda_sim/.test(device.name)) return "the library found is the simulator";
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
})();
const ignore = unavailable !== undefined;
const skipped = (name: string) => ignore ? `${name} (skipped: ${unavailable})` : name;

Deno.test({
  name: skipped("real driver: CudaServer conforms to the ComputeServer contract"),
  ignore,
  async fn(t) {
    await serverConformance(t, {
      createServer: () => Promise.resolve(CudaServer.create()),
      kernels: {
        fill: CUDA_KERNELS.fillU32,
        scaleAdd: CUDA_KERNELS.scaleAddF32,
        increment: CUDA_KERNELS.incrementU32,
      },
      cubeSize: 256,
      skip: {
        [TRACE_STEP]: "CUDA traces run on the simulated driver; not yet checked on a real device",
      },
    });
  },
});

Deno.test({
  name: skipped("real driver: random cross-stream programs match the sequential reference"),
  ignore,
  async fn() {
    using server = CudaServer.create({ maxStreams: 8 });
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 24 }), (p) => run(server, p)),
      { numRuns: 500 },
    );
  },
});

Deno.test({
  name: skipped("real driver: sum and both matmul variants match a CPU reference"),
  ignore,
  async fn() {
    using server = CudaServer.create();
    await checkShippedKernels(server);
  },
});
