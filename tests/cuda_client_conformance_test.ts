/**
 * The client conformance table (tests/client_conformance.ts) on the simulated CUDA device: the
 * same mistakes get the same errors at the same calls as on WebGPU, and an exact computation
 * follows. CUDA kernels declare no element types or binding sizes, so the cases that need WGSL
 * reflection run on WebGPU only.
 */
import { createClient, type CudaClient } from "../mod.ts";
import { CUDA_KERNELS } from "../runtime/server/cuda/mod.ts";
import { clientConformance } from "./client_conformance.ts";
import { SIM_LIBRARY } from "./fixtures/cuda_sim.ts";

Deno.test("client conformance on CUDA (simulated)", (t) =>
  clientConformance(t, {
    createClient: () =>
      createClient({ backend: "cuda", library: SIM_LIBRARY }) as Promise<CudaClient>,
    scale: CUDA_KERNELS.scaleF32,
    typedKernels: false,
    skipHelpers: "the helpers and primitives have WGSL kernel text only for now",
  }));
