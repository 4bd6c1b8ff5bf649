/**
 * User CUDA C: a kernel's declaration specifiers in any order C++ takes (`void __global__ k`,
 * `__global__ inline void k`, launch attributes on either side of `void`), and struct fields
 * aligned by `alignas(N)` / `__align__(N)`: each was "no extern "C" __global__ functions" or a
 * struct refused before, though NVRTC compiles them.
 */
import assert from "node:assert/strict";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { launch } from "./_cuda_user_run.ts";
import { cudaSignatures } from "../runtime/server/cuda/compile/signature.ts";

const ignore = nvrtcSkip !== undefined;

const HEADS = [
  'extern "C" void __global__ k(float* o, int n)',
  'extern "C" __global__ inline void k(float* o, int n)',
  'extern "C" inline __global__ void k(float* o, int n)',
  'extern "C" void __global__ __launch_bounds__(64) k(float* o, int n)',
  'extern "C" __launch_bounds__(64, 2) void __global__ k(float* o, int n)',
  'extern "C" { void __forceinline__ __global__ k(float* o, int n)',
];

Deno.test({
  name: nvrtcName("a kernel's specifiers in any order: void __global__, __global__ inline void"),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    for (const head of HEADS) {
      const close = head.includes("{") ? "}" : "";
      const source = `${head} { o[threadIdx.x] = n * 2.0f + threadIdx.x; }${close}`;
      const [out] = await launch(client, { source }, 2, [new Float32Array(2)], { n: 21 });
      assert.deepEqual([...out], [42, 43], head);
      const [signature] = cudaSignatures(source);
      assert.equal(signature.name, "k", head);
      assert.equal(signature.maxThreads, head.includes("__launch_bounds__") ? 64 : undefined);
    }
  },
});

Deno.test({
  name: nvrtcName(
    "struct fields aligned by alignas(N) / __align__(N) are packed where NVRTC puts them",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const cases: [string, Record<string, number>, number[]][] = [
      // a at 0 aligned to 8: the struct is 8 bytes, aligned to 8
      ["struct S { alignas(8) float a; int b; };", { a: 1.5, b: 2 }, [1.5, 2, 8]],
      // b at 16, c at 20: 32 bytes, aligned to 16 (the int after it lands at 32)
      ["struct S { float a; alignas(16) int b; float c; };", { a: 1.5, b: 2, c: 0.25 }, [
        1.5,
        2.25,
        32,
      ]],
      // both declarators aligned: a at 8, b at 16
      ["struct S { char c; __align__(8) float a, b; };", { c: 3, a: 1.5, b: 2 }, [4.5, 2, 24]],
    ];
    for (const [struct, s, want] of cases) {
      const source = `${struct}
extern "C" __global__ void k(float* o, S s, int t) {
  o[0] = s.a${struct.includes("char c") ? " + s.c" : ""}; o[1] = s.b${
        struct.includes("float c") ? " + s.c" : ""
      }; o[2] = sizeof(S); o[3] = t;
}`;
      const [out] = await launch(client, { source }, 1, [new Float32Array(4)], {
        s,
        t: 7,
      } as never);
      assert.deepEqual([...out], [...want, 7], struct);
    }
  },
});
