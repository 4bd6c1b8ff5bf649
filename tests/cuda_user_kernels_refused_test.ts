/**
 * What user CUDA C that the simulated setup cannot run gets instead of a result: a typed error
 * that names the cause and says what to do. NVRTC 12.4 has none of the CUDA Toolkit's headers
 * and the runtime gives it no include path (`<cuda_fp16.h>`, `<cooperative_groups.h>`), host
 * macros that nvcc brings in (`INFINITY`, `M_PI`) are missing, and kernels are launched by a
 * name: a struct by value or a template without an instance named is an argument error. (What
 * the PTX interpreter refuses at load is tested with it: tests/cuda_user_kernels_calls_test.ts,
 * tests/cuda_user_kernels_half_test.ts.)
 */
import assert from "node:assert/strict";
import { CompilationError, KernelArgumentError } from "../mod.ts";
import type { ComputeClient } from "../mod.ts";
import type { CudaKernel } from "../runtime/server/cuda/kernel.ts";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { launch } from "./_cuda_user_run.ts";

const ignore = nvrtcSkip !== undefined;

/** The error a one-buffer launch of `source` ends with (thrown at the call or by the read). */
async function failure(client: ComputeClient, source: string, params?: Record<string, number>) {
  const kernel: CudaKernel = { source, blockSize: [32, 1, 1] };
  try {
    await launch(client, kernel, 32, [new Float32Array(32)], params);
  } catch (error) {
    return error as Error;
  }
  assert.fail("the launch ran");
}

Deno.test({
  name: nvrtcName(
    "refused user CUDA C: a toolkit header or host macro NVRTC lacks is named, with what to do",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    for (const header of ["cuda_fp16.h", "cooperative_groups.h", "cooperative_groups/reduce.h"]) {
      const error = await failure(
        client,
        `#include <${header}>\nextern "C" __global__ void k(float* x) { x[threadIdx.x] = 1.0f; }`,
      );
      assert.ok(error instanceof CompilationError, String(error));
      assert.equal(error.line, 1);
      assert.match(error.message, /could not open source file/); // NVRTC's own log
      assert.ok(
        error.message.includes(
          `note: <${header}> is a CUDA Toolkit header, which this NVRTC does not build in, and ` +
            "the runtime compiles CUDA C with no include path",
        ),
        error.message,
      );
    }
    const infinity = await failure(
      client,
      `extern "C" __global__ void k(float* x) { x[threadIdx.x] = -INFINITY; }`,
    );
    assert.ok(infinity instanceof CompilationError);
    assert.match(
      infinity.message,
      /note: INFINITY is a macro of the host's <math\.h>, .*define it in the kernel's source \(`#define INFINITY __int_as_float\(0x7f800000\)`\)/,
    );
    const half = await failure(
      client,
      `extern "C" __global__ void k(float* x) { __half h = x[0]; x[threadIdx.x] = h; }`,
    );
    assert.match(half.message, /note: __half is declared by the CUDA Toolkit's <cuda_fp16\.h>/);
    // the <stdint.h> types that nvcc brings in through cuda_runtime.h (CUDA-Learn-Notes' kernels
    // use uint32_t with no include of their own), and the header itself
    const uint32 = await failure(
      client,
      `extern "C" __global__ void k(float* x) { uint32_t i = threadIdx.x; x[i] = 1.0f; }`,
    );
    assert.ok(uint32 instanceof CompilationError);
    assert.match(
      uint32.message,
      /note: uint32_t is a type of the host's <stdint\.h>, .*declare it in the kernel's source \(`typedef unsigned int uint32_t;`\)/,
    );
    const int64 = await failure(client, `extern "C" __global__ void k(int64_t* x) { x[0] = 1; }`);
    assert.match(int64.message, /`typedef long int64_t;`/);
    const stdint = await failure(
      client,
      `#include <cstdint>\nextern "C" __global__ void k(float* x) { x[threadIdx.x] = 1.0f; }`,
    );
    assert.match(
      stdint.message,
      /note: <cstdint> is a header of the host's C library, which this NVRTC does not build in/,
    );
    // host headers whose functions NVRTC builds in (ggml's pool2d includes <assert.h>): the note
    // says to drop the include, not to find an include path (it was "a host or project header")
    for (
      const [header, says] of [
        ["assert.h", /NVRTC builds in assert\(\), so remove the #include/],
        ["cmath", /NVRTC builds in the math functions \(not its macros: `#define M_PI/],
        ["cstdio", /NVRTC builds in printf\(\), so remove the #include/],
        ["float.h", /define the macros the kernel uses \(`#define FLT_MAX 3\.402823466e\+38f`\)/],
      ] as const
    ) {
      const error = await failure(
        client,
        `#include <${header}>\nextern "C" __global__ void k(float* x) { x[threadIdx.x] = 1.0f; }`,
      );
      assert.match(
        error.message,
        new RegExp(`note: <${header.replace(".", "\\.")}> is a header of`),
      );
      assert.match(error.message, says);
      assert.doesNotMatch(error.message, /include-path/);
    }
    // <sys/types.h>'s uint, as cuda-samples' kernels (recursiveGaussian, particles) use it
    const uint = await failure(
      client,
      `extern "C" __global__ void k(uint* x) { x[threadIdx.x] = 1u; }`,
    );
    assert.match(
      uint.message,
      /note: uint is a type of the host's <sys\/types\.h>, .*\(`typedef unsigned int uint;`\)/,
    );
    // pow(float, double), as users write pow(x, 2.0): nvcc's headers promote it to double
    // through templates NVRTC has not, so NVRTC finds it ambiguous (and fmax(0.0, z) of a float,
    // PyTorch's LLTM tutorial: tests/cuda_user_kernels_24_test.ts)
    for (
      const [call, fn, types] of [["pow(x[0], 2.0)", "pow", "float, double"], [
        "fmax(0.0, x[0])",
        "fmax",
        "double, float",
      ]]
    ) {
      const mixed = await failure(
        client,
        `extern "C" __global__ void k(float* x) { x[0] = ${call}; }`,
      );
      assert.ok(mixed instanceof CompilationError);
      assert.ok(
        mixed.message.includes(
          `note: NVRTC declares ${fn} for float and for double only, so a call of (${types}) ` +
            "matches both; nvcc's CUDA headers add templates that run such a call in double",
        ),
        mixed.message,
      );
    }
    // an error of the kernel's own gets no note
    const own = await failure(client, `extern "C" __global__ void k(float* x) { x[0] = y; }`);
    assert.ok(own instanceof CompilationError);
    assert.doesNotMatch(own.message, /note:/);
  },
});

Deno.test({
  name: nvrtcName(
    "refused user CUDA C: struct parameters and templated entry points are argument errors",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const struct = await failure(
      client,
      `struct P { float a; int n; };
extern "C" __global__ void k(float* x, P p) { if (threadIdx.x < p.n) x[threadIdx.x] *= p.a; }`,
      { p: 1 },
    );
    assert.ok(struct instanceof KernelArgumentError, String(struct));
    // a struct by value takes its fields (tests/cuda_struct_params_test.ts)
    assert.match(struct.message, /params\.p must be an object of P's fields \(a, n\), got 1/);
    const pointer = await failure(
      client,
      `struct P { float* a; int n; };
extern "C" __global__ void k(float* x, P p) { if (threadIdx.x < p.n) x[threadIdx.x] *= *p.a; }`,
      { p: { a: 0, n: 1 } } as never,
    );
    assert.ok(pointer instanceof KernelArgumentError, String(pointer));
    assert.match(pointer.message, /params\.p is declared 'P p', a type the runtime cannot pass/);
    assert.match(pointer.message, /its field 'float\* a' is a pointer or a reference/);
    const template = await failure(
      client,
      `template <typename T> __global__ void k(T* x) { x[threadIdx.x] += T(1); }
template __global__ void k<float>(float*);`,
    );
    assert.match(
      template.message,
      /name an instance of a template __global__ function as entryPoint: 'k<\.\.\.>'/,
    );
  },
});
