import { WebGpuServer } from "../mod.ts";
import { serverConformance } from "./server_conformance.ts";
import { CUBE_SIZE, fill, increment, scaleAdd } from "./_wgsl_kernels.ts";

const adapter = await navigator.gpu?.requestAdapter();

Deno.test({
  name: "WebGpuServer conforms to the ComputeServer contract",
  ignore: adapter === null || adapter === undefined, // no WebGPU adapter on this machine
  async fn(t) {
    await serverConformance(t, {
      createServer: () => WebGpuServer.create(),
      kernels: { fill, scaleAdd, increment },
      cubeSize: CUBE_SIZE,
    });
  },
});
