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
import { CudaDriver } from "../runtime/server/cuda/mod.ts";
import { readPermittedEnv } from "../runtime/core/config.ts";

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

/**
 * Where set (and readable), the driver these tests' clients open instead of the simulator: a
 * device run points it at the real `libcuda.so.1` to run the same programs on a GPU (tests that
 * steer the simulator through `CUDA_SIM_*` or count its hazards then say nothing about it).
 */
export const TEST_CUDA_LIBRARY_ENV = "GPUCOMPUTE_TEST_CUDA_LIBRARY";
const testLibrary = readPermittedEnv(TEST_CUDA_LIBRARY_ENV);
// Opened here, outside the tests, as the simulator is (one opened inside a test trips the
// resource sanitizer); the backend reuses this instance.
if (testLibrary) CudaDriver.open({ library: testLibrary });

/**
 * Whether {@linkcode simulatedCudaClient} opens the simulator (no {@linkcode TEST_CUDA_LIBRARY_ENV}):
 * tests of what only the simulator does (its counters, its one-thread-after-another schedule, what
 * it refuses at load) are ignored on a real driver, saying so in their names.
 */
export const onSimulator: boolean = !testLibrary;

/** A client on the simulated CUDA driver, compiling `{ source }` kernels with NVRTC. */
export function simulatedCudaClient(): Promise<ComputeClient> {
  return createClient({
    backend: "cuda",
    library: testLibrary || SIM_LIBRARY,
    nvrtcLibrary: Deno.env.get(NVRTC_LIBRARY_ENV),
  }) as Promise<ComputeClient>;
}
