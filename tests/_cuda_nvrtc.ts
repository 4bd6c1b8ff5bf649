/**
 * NVIDIA's NVRTC for the tests that compile generated CUDA C and run it on the simulated driver
 * (tests/cuda_helpers_test.ts, tests/cuda_primitives_test.ts): the library named by
 * `GPUCOMPUTE_NVRTC_LIBRARY` (tools/run_tests.sh points it at what `tools/fetch_nvrtc.sh`
 * unpacked), opened here at module load (a library opened inside a test trips the resource
 * sanitizer; the backend reuses this instance), or why those tests are skipped.
 *
 * @module
 */

import { createClient } from "../mod.ts";
import type { ComputeClient } from "../mod.ts";
import { Nvrtc, NVRTC_LIBRARY_ENV } from "../runtime/server/cuda/compile/_nvrtc.ts";
import { SIM_LIBRARY } from "./fixtures/cuda_sim.ts";

/** Why the NVRTC tests are skipped, or `undefined` when NVRTC opened. */
export const nvrtcSkip: string | undefined = (() => {
  const path = Deno.env.get(NVRTC_LIBRARY_ENV);
  if (!path) {
    return `${NVRTC_LIBRARY_ENV} is not set (sh tools/fetch_nvrtc.sh, then tools/run_tests.sh)`;
  }
  try {
    Nvrtc.open(path);
    return undefined;
  } catch (error) {
    return `${path} does not open: ${(error as Error).message}`;
  }
})();

/** The test's name, with the reason when it is skipped. */
export function nvrtcName(name: string): string {
  return nvrtcSkip === undefined ? name : `${name} (skipped: ${nvrtcSkip})`;
}

/** A client on the simulated CUDA driver, compiling `{ source }` kernels with NVRTC. */
export function simulatedCudaClient(): Promise<ComputeClient> {
  return createClient({
    backend: "cuda",
    library: SIM_LIBRARY,
    nvrtcLibrary: Deno.env.get(NVRTC_LIBRARY_ENV),
  }) as Promise<ComputeClient>;
}
