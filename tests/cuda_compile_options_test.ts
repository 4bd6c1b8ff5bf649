/**
 * NVRTC options of a CUDA C kernel (`compileOptions`): macros and include paths reach NVRTC, a
 * program is cached per source and options (the same source with other options is another
 * program), the architecture stays the runtime's, and bad options are typed errors at the call.
 */
import assert from "node:assert/strict";
import { CompilationError, KernelArgumentError } from "../mod.ts";
import type { CudaKernel } from "../runtime/server/cuda/kernel.ts";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { launch } from "./_cuda_user_run.ts";

const ignore = nvrtcSkip !== undefined;
const SCALE = `extern "C" __global__ void scale(float* x, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * SCALE;
}`;
const input = () => new Float32Array([1, 2, 3, 4, 5]);

Deno.test({
  name: nvrtcName("compileOptions: -D macros reach NVRTC, one program per source and options"),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const three: CudaKernel = { source: SCALE, compileOptions: ["-DSCALE=3.0f"] };
    const two: CudaKernel = { source: SCALE, compileOptions: ["-DSCALE=2.0f", "--use_fast_math"] };
    const [x3] = await launch(client, three, 5, [input()], { n: 5 });
    const [x2] = await launch(client, two, 5, [input()], { n: 5 });
    assert.deepEqual([...x3], [3, 6, 9, 12, 15]);
    assert.deepEqual([...x2], [2, 4, 6, 8, 10]);
    // One kernel object whose options change: the next launch compiles the other program.
    const options = ["-DSCALE=4.0f"];
    const four: CudaKernel = { source: SCALE, compileOptions: options };
    assert.deepEqual([...(await launch(client, four, 5, [input()], { n: 5 }))[0]], [
      4,
      8,
      12,
      16,
      20,
    ]);
    options[0] = "-DSCALE=5.0f";
    assert.deepEqual([...(await launch(client, four, 5, [input()], { n: 5 }))[0]], [
      5,
      10,
      15,
      20,
      25,
    ]);
  },
});

Deno.test({
  name: nvrtcName("compileOptions: --include-path finds a header the source includes"),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const folder = new URL("./fixtures/cuda_include", import.meta.url).pathname;
    const source = `#include "scale_by.h"
extern "C" __global__ void k(float* x, unsigned n, float s) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = scale_by(x[i], s);
}`;
    // Without the path, NVRTC cannot open it, and the error says where the option goes.
    await assert.rejects(
      launch(client, { source }, 5, [input()], { n: 5, s: 2 }),
      (e) => e instanceof CompilationError && /compileOptions/.test(e.message),
    );
    const kernel: CudaKernel = { source, compileOptions: [`--include-path=${folder}`] };
    const [x] = await launch(client, kernel, 5, [input()], { n: 5, s: 0.5 });
    assert.deepEqual([...x], [0.5, 1, 1.5, 2, 2.5]);
  },
});

Deno.test({
  name: nvrtcName("compileOptions: the architecture and malformed options are refused at the call"),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    using x = client.createWithData(input());
    const run = (compileOptions: unknown) =>
      client.execute({ source: SCALE, compileOptions } as CudaKernel, {
        threads: 5,
        buffers: [x],
        params: { n: 5 },
      });
    for (const arch of ["-arch=sm_90", "--gpu-architecture=compute_90", "-arch"]) {
      assert.throws(
        () => run(["-DSCALE=1.0f", arch]),
        (e) => e instanceof KernelArgumentError && /compileOptions/.test(e.message),
        arch,
      );
    }
    assert.throws(() => run("-DSCALE=1.0f"), TypeError);
    assert.throws(() => run([""]), /compileOptions\[0\]/);
    assert.throws(() => run(["-DSCALE=1.0f", 5]), /compileOptions\[1\]/);
    assert.throws(() => run(["--no-such-option-at-all"]), CompilationError);
    // The client is still usable.
    const kernel: CudaKernel = { source: SCALE, compileOptions: ["-DSCALE=2.0f"] };
    client.execute(kernel, {
      threads: 5,
      buffers: [x],
      params: { n: 5 },
    });
    assert.deepEqual([...new Float32Array((await client.read(x)).buffer)], [2, 4, 6, 8, 10]);
  },
});
