/**
 * User CUDA C, QA wave 12 (continued): what real-world kernels need that is out of scope here,
 * and the typed error each gets, naming the cause: tensor-core PTX (`mma.sync`, `ldmatrix`, as
 * hand-written HGEMM kernels use it) is refused by the simulator at load (a real driver runs it),
 * a kernel that launches a kernel (dynamic parallelism) is a `CompilationError` with a note on
 * what to do.
 */
import assert from "node:assert/strict";
import { CompilationError } from "../mod.ts";
import { nvrtcName, nvrtcSkip, onSimulator, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { launch } from "./_cuda_user_run.ts";
import { withSimEnv } from "./fixtures/cuda_sim.ts";

const ignore = nvrtcSkip !== undefined;

/** The error a one-buffer launch of `source` ends with. */
async function failure(source: string): Promise<Error> {
  using client = await simulatedCudaClient();
  try {
    await launch(client, { source, blockSize: [32, 1, 1] }, 32, [new Float32Array(32)]);
  } catch (error) {
    return error as Error;
  }
  assert.fail("the launch ran");
}

Deno.test({
  name: nvrtcName(
    "out of scope: tensor-core PTX (mma.sync, ldmatrix) is refused at load by the simulator, " +
      "naming the instruction (ignored on a real driver, which runs it)",
  ),
  ignore: ignore || !onSimulator,
  async fn() {
    await withSimEnv({ CUDA_SIM_CC: "80" }, async () => {
      const mma = await failure(`extern "C" __global__ void k(float* o) {
  unsigned a0 = 0, a1 = 0, b0 = 0;
  float c[4] = {0, 0, 0, 0};
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]) : "r"(a0), "r"(a1), "r"(b0));
  o[threadIdx.x] = c[0];
}`);
      assert.ok(mma instanceof CompilationError, String(mma));
      assert.match(mma.message, /CUDA_ERROR_INVALID_PTX \(218\)/);
      assert.match(mma.message, /error {3}: cuda_sim does not implement the instruction 'mma'/);
      const ldmatrix = await failure(`extern "C" __global__ void k(float* o) {
  __shared__ int s[256];
  s[threadIdx.x] = threadIdx.x;
  __syncwarp();
  unsigned a, x = (unsigned)__cvta_generic_to_shared(&s[(threadIdx.x % 8) * 4]);
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(a) : "r"(x));
  o[threadIdx.x] = a;
}`);
      assert.ok(ldmatrix instanceof CompilationError, String(ldmatrix));
      assert.match(ldmatrix.message, /cuda_sim does not implement the instruction 'ldmatrix'/);
    });
  },
});

Deno.test({
  name: nvrtcName(
    "out of scope: a kernel launching a kernel (dynamic parallelism) is a CompilationError " +
      "with a note to launch the child from the host",
  ),
  ignore,
  async fn() {
    const error = await failure(`__global__ void child(float* o) { o[threadIdx.x] = 1.0f; }
extern "C" __global__ void k(float* o) { if (threadIdx.x == 0) child<<<1, 32>>>(o); }`);
    assert.ok(error instanceof CompilationError, String(error));
    // Named as the kernel launched (the extern "C" one), not the first __global__ declared.
    assert.match(error.message, /^Kernel 'k'/);
    assert.match(error.message, /device-side kernel launch could not be processed/); // NVRTC's
    assert.match(
      error.message,
      /note: a kernel launch inside a kernel \(dynamic parallelism\) needs relocatable device code .*launch the child kernel from the host/,
    );
  },
});
