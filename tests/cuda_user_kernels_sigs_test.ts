/**
 * User CUDA C, QA wave 14: kernel signatures written in ways real kernels write them, found by a
 * differential sweep of the runtime's signature reader against the `.param` lists NVRTC compiles
 * (each was refused, or its kernel not found, though NVRTC compiled it): integer specifiers in
 * any order (`long unsigned int`), `const __grid_constant__` structs, array parameters (`float
 * a[]`, the pointers C makes of them), a type named by a `#define`, `__attribute__((...))` on the
 * kernel. Each kernel copies its scalar parameters' bits into a buffer: the sharpest probe of the
 * packing.
 */
import assert from "node:assert/strict";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { launch } from "./_cuda_user_run.ts";
import type { CudaKernel } from "../runtime/server/cuda/kernel.ts";
import { cudaSignatures } from "../runtime/server/cuda/compile/signature.ts";

const ignore = nvrtcSkip !== undefined;

Deno.test({
  name: nvrtcName(
    "integer specifiers in any order: long unsigned int, int unsigned, int long; clock_t",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const source = `extern "C" __global__ void k(unsigned long long* out, long unsigned int a,
    int unsigned b, short unsigned c, int long d, long long unsigned int e, signed char f,
    clock_t g) {
  out[0] = a; out[1] = b; out[2] = c; out[3] = (unsigned long long)d; out[4] = e;
  out[5] = (unsigned long long)(long long)f; out[6] = (unsigned long long)g;
}`;
    const [out] = await launch(client, { source }, 1, [new BigUint64Array(7)], {
      a: 2 ** 40 + 5,
      b: 3e9,
      c: 65000,
      d: -7,
      e: 2 ** 52 + 1,
      f: -3,
      g: -(2 ** 33),
    });
    assert.deepEqual(
      [...(out as unknown as BigUint64Array)],
      [
        2n ** 40n + 5n,
        3000000000n,
        65000n,
        2n ** 64n - 7n,
        2n ** 52n + 1n,
        2n ** 64n - 3n,
        2n ** 64n - 2n ** 33n,
      ],
    );
  },
});

Deno.test({
  name: nvrtcName("a struct field's integer specifiers in any order (long unsigned int a)"),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const source = `struct S { long unsigned int a; char b; int unsigned c; short unsigned d; };
extern "C" __global__ void k(double* out, S s) { out[0] = s.a; out[1] = s.b; out[2] = s.c; out[3] = s.d; }`;
    const [out] = await launch(client, { source }, 1, [new Float64Array(4)], {
      s: { a: 2 ** 40, b: -3, c: 3e9, d: 65000 },
    } as never);
    assert.deepEqual([...out], [2 ** 40, -3, 3e9, 65000]);
  },
});

Deno.test({
  name: nvrtcName("a const __grid_constant__ struct is passed as the struct"),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const source = `struct P { float a; int b; double c; };
extern "C" __global__ void k(double* out, const __grid_constant__ P p, int __grid_constant__ const n) {
  out[0] = p.a; out[1] = p.b; out[2] = p.c; out[3] = n;
}`;
    const [out] = await launch(client, { source }, 1, [new Float64Array(4)], {
      p: { a: 1.5, b: -9, c: 0.1 },
      n: 12,
    } as never);
    assert.deepEqual([...out], [1.5, -9, 0.1, 12]);
  },
});

Deno.test({
  name: nvrtcName("array parameters are pointers: float a[], const float b[4] (read-only)"),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const kernel = {
      source: `extern "C" __global__ void k(float out[], const float in[4], int n) {
  out[threadIdx.x] = in[threadIdx.x] * n;
}`,
    };
    const [out] = await launch(
      client,
      kernel,
      4,
      [new Float32Array(4), Float32Array.of(1, 2, 3, 4)],
      { n: 3 },
    );
    assert.deepEqual([...out], [3, 6, 9, 12]);
  },
});

Deno.test({
  name: nvrtcName("a type a #define names (#define real double) is read as that type"),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const source = `#define real double
#define index_t unsigned int
extern "C" __global__ void k(real* out, real s, index_t i) { out[0] = s; out[1] = i; }`;
    const [out] = await launch(client, { source }, 1, [new Float64Array(2)], {
      s: 0.1,
      i: 4e9,
    });
    assert.deepEqual([...out], [0.1, 4e9]);
  },
});

Deno.test({
  name: nvrtcName("__attribute__((...)) on a kernel or a parameter: found and read"),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const source = `extern "C" __global__ void __attribute__((noinline)) k(float* out, float s) {
  out[0] = s;
}`;
    const [out] = await launch(client, { source }, 1, [new Float32Array(1)], { s: 2.5 });
    assert.deepEqual([...out], [2.5]);
    // on a parameter: `int n __attribute__((unused))` was a parameter named 'unused'
    const params = `extern "C" __global__ void k(float* out, int n __attribute__((unused)),
    float __attribute__((unused)) s) { out[0] = s; }`;
    const [two] = await launch(client, { source: params }, 1, [new Float32Array(1)], {
      n: 1,
      s: 0.5,
    });
    assert.deepEqual([...two], [0.5]);
  },
});

Deno.test({
  name: nvrtcName(
    "#if 0 branches and string literals are not read: no ghost kernels, no variants",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    // an old kernel kept under #if 0 was a second kernel (the entry point had to be named), and
    // a redefinition under #if 1 / #else made the params unreadable
    const disabled = `#if 0
extern "C" __global__ void old(double* out, double s) { out[0] = s; }
#endif
#if 1
extern "C" __global__ void k(double* out, int s) { out[0] = s + 0.5; }
#else
extern "C" __global__ void k(double* out, double s) { out[0] = s; }
#endif`;
    const [a] = await launch(client, { source: disabled }, 1, [new Float64Array(1)], { s: 3 });
    assert.deepEqual([...a], [3.5]);
    // a "/*" in a string started a comment that hid the kernel; "__global__ void f(...) {" in a
    // string was a kernel; a '}' closed the extern "C" block early
    const strings = `__device__ const char open[] = "/*";
__device__ const char fake[] = "extern \\"C\\" __global__ void fake(double d) {";
extern "C" {
__device__ char brace() { return '}'; }
__global__ void k(float* out, float s) { out[0] = s + (brace() == '}'); }
}
__device__ const char close[] = "*/";`;
    const [b] = await launch(client, { source: strings }, 1, [new Float32Array(1)], { s: 2 });
    assert.deepEqual([...b], [3]);
  },
});

Deno.test({
  name: nvrtcName("a -D compile option redefining a type's macro makes it unknown, not misread"),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const source = `#ifndef real
#define real float
#endif
extern "C" __global__ void k(double* out, real s) { out[0] = s; }`;
    // without the option the default (float) is read and passed
    const [a] = await launch(client, { source }, 1, [new Float64Array(1)], { s: 1.5 });
    assert.deepEqual([...a], [1.5]);
    // -Dreal=int: NVRTC compiles an int; packing a float's bits there is a silent wrong result
    for (const option of ["-Dreal=int", "--define-macro=real=int"]) {
      const kernel: CudaKernel = { source, compileOptions: [option] };
      const out = client.zeros(1, "f64");
      assert.throws(
        () => client.execute(kernel, { threads: 1, buffers: [out], params: { s: 7 } }),
        (e: Error) => e.name === "KernelArgumentError" && /real s/.test(e.message),
        option,
      );
      out.dispose();
    }
  },
});

Deno.test({
  name: nvrtcName('a kernel a macro declares (#define KERNEL extern "C" __global__) is read'),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const source = `#define KERNEL extern "C" __global__ __launch_bounds__(64)
KERNEL void k(float* out, float s, int n) { out[threadIdx.x] = s * n; }`;
    const [out] = await launch(client, { source }, 2, [new Float32Array(2)], { s: 1.5, n: 3 });
    assert.deepEqual([...out], [4.5, 4.5]);
  },
});

Deno.test({
  name: nvrtcName(
    'a static kernel or one of an anonymous namespace in an extern "C" block keeps its C++ name',
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    // internal linkage: NVRTC mangles these names (_Z1kPfi), which the load then looked for as `k`
    for (
      const source of [
        `extern "C" {\nstatic __global__ void k(float* out, int n) { out[0] = n * 2; }\n}`,
        `extern "C" {\n__global__ static void k(float* out, int n) { out[0] = n * 2; }\n}`,
        `extern "C" { namespace {\n__global__ void k(float* out, int n) { out[0] = n * 2; }\n} }`,
      ]
    ) {
      const [out] = await launch(client, { source }, 1, [new Float32Array(1)], { n: 21 });
      assert.deepEqual([...out], [42], source);
      const [named] = await launch(client, { source, entryPoint: "k" }, 1, [
        new Float32Array(1),
      ], { n: 4 });
      assert.deepEqual([...named], [8], source);
    }
  },
});

Deno.test({
  name: nvrtcName(
    "pointer typedefs: fptr a is a float*, const fptr a still writable, cfptr read-only",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const source = `typedef float* fptr;
typedef const float *cfptr;
using uptr = unsigned int*;
extern "C" __global__ void k(cfptr a, const fptr b, fptr __restrict__ c, uptr d, int fptr) {
  int n = fptr; // a parameter named like a typedef is that parameter
  unsigned i = threadIdx.x;
  if (i < n) { b[i] = a[i] * 2.0f; c[i] = a[i] + 1.0f; d[i] = 7u * i; }
}`;
    const [k] = cudaSignatures(source);
    const pointers = k.params.filter((p) => p.kind === "pointer");
    assert.deepEqual(
      pointers.map((p) => [p.name, p.element, p.readOnly, p.declared]),
      [
        ["a", "f32", true, "cfptr a"],
        ["b", "f32", false, "const fptr b"], // the const is the pointer's own: float* const
        ["c", "f32", false, "fptr __restrict__ c"],
        ["d", "u32", false, "uptr d"],
      ],
    );
    using a = client.createWithData(new Float32Array([1, 2, 3]));
    using b = client.createWithData(new Float32Array(3));
    using c = client.createWithData(new Float32Array(3));
    using d = client.createWithData(new Uint32Array(3));
    const kernel: CudaKernel = { source };
    client.execute(kernel, { threads: 3, buffers: [a, b, c, d], params: { fptr: 3 } });
    assert.deepEqual([...await client.read(b)], [2, 4, 6]);
    assert.deepEqual([...await client.read(c)], [2, 3, 4]);
    assert.deepEqual([...await client.read(d)], [0, 7, 14]);
  },
});

Deno.test({
  name: nvrtcName(
    "a pointer typedef the reader cannot read (two declarators) is refused naming it",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const source = `typedef float *fptr, *gptr;
extern "C" __global__ void k(gptr a, float* b, int n) { if (threadIdx.x < n) b[threadIdx.x] = a[threadIdx.x]; }`;
    using a = client.createWithData(new Float32Array([1, 2]));
    using b = client.createWithData(new Float32Array([0, 0]));
    const kernel: CudaKernel = { source };
    assert.throws(
      () => client.execute(kernel, { threads: 2, buffers: [a, b], params: { n: 2 } }),
      (e: Error) =>
        e.name === "KernelArgumentError" && /takes 1 pointers \(float\* b\)/.test(e.message) &&
        /does not know the type of 'gptr a': if it is a pointer, declare it T\*$/.test(e.message),
    );
    // the client stays usable: a kernel with the pointer spelled out runs
    const plain: CudaKernel = {
      source: source.replace("(gptr a", "(float* a"),
    };
    client.execute(plain, { threads: 2, buffers: [a, b], params: { n: 2 } });
    assert.deepEqual([...await client.read(b)], [1, 2]);
  },
});
