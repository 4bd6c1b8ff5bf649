/**
 * Structs and vector types passed by value to user CUDA C kernels (compiled by NVRTC, run by the
 * simulated driver's PTX interpreter): their layout read from the source, `params` given as
 * objects of fields (or bytes), checked field by field, exact against the CPU; graph replays
 * with new struct params; the structs the runtime cannot pass refused naming why.
 */
import assert from "node:assert/strict";
import { type CudaClient, KernelArgumentError } from "../mod.ts";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { structTypes, vectorLayout } from "../runtime/server/cuda/compile/_struct_layout.ts";
import type { StorageType } from "../backend.ts";
import { cudaSignatures } from "../runtime/server/cuda/compile/signature.ts";

const affine = {
  source: `
struct Affine { int n; float scale; double shift; };  // 16 bytes, align 8
typedef struct { unsigned char on; float weights[3]; } Mix;  // 16 bytes
extern "C" __global__ void affine(float* y, const float* x, Affine a, float4 bias, Mix m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  float v = x[i] * a.scale + (float)a.shift + bias.x + bias.w;
  if (m.on) v = v * m.weights[0] + m.weights[2];
  y[i] = v;
}`,
};

function cpu(x: Float32Array, a: { n: number; scale: number; shift: number }, bias: number[], m: {
  on: number;
  weights: number[];
}): Float32Array {
  const f = Math.fround;
  return x.map((xi, i) => {
    if (i >= a.n) return 0;
    let v = f(f(f(f(xi * a.scale) + f(a.shift)) + bias[0]) + bias[3]);
    if (m.on) v = f(f(v * m.weights[0]) + m.weights[2]);
    return v;
  });
}

const TYPES: Record<string, StorageType> = {
  char: "i8",
  double: "f64",
  short: "i16",
  float: "f32",
  int: "i32",
  bool: "u8",
};

Deno.test("cuda structs: layouts as nvcc lays them out (alignment, padding, arrays, vector types)", () => {
  const text = `
    struct A { char c; double d; short s; };
    struct __align__(16) B { float x; };
    typedef struct { A a; int v[2]; bool flag; } C;
    struct P { float* data; int n; };
    union U { int i; float f; };
    using D = A;`;
  const structs = structTypes(
    text,
    (name) => TYPES[name],
  );
  const a = structs.get("A")!;
  assert.ok(!("unsupported" in a));
  assert.deepEqual(a.fields.map((f) => f.offset), [0, 8, 16]);
  assert.equal(a.size, 24);
  assert.equal(a.align, 8);
  const b = structs.get("B")!;
  assert.ok(!("unsupported" in b) && b.size === 16 && b.align === 16);
  const c = structs.get("C")!;
  assert.ok(!("unsupported" in c));
  assert.deepEqual(c.fields.map((f) => [f.name, f.offset, f.count]), [
    ["a", 0, undefined],
    ["v", 24, 2],
    ["flag", 32, undefined],
  ]);
  assert.equal(c.size, 40);
  assert.match((structs.get("P") as { unsupported: string }).unsupported, /pointer/);
  assert.match((structs.get("U") as { unsupported: string }).unsupported, /union/);
  assert.equal(structs.get("D"), a);
  assert.deepEqual(
    [vectorLayout("float3")!.size, vectorLayout("float3")!.align, vectorLayout("double2")!.align],
    [12, 4, 16],
  );
  assert.deepEqual([vectorLayout("float4")!.align, vectorLayout("char2")!.align], [16, 2]);
  assert.deepEqual([vectorLayout("dim3")!.size, vectorLayout("dim3")!.fields[2].type], [12, "u32"]);
  const [signature] = cudaSignatures(`struct S { int a; };
    extern "C" __global__ void k(S s, const struct S t, float2 v) {}`);
  assert.deepEqual(signature.params.map((p) => p.kind === "scalar" && p.size), [4, 4, 8]);
});

Deno.test({
  name: nvrtcName(
    "cuda structs: a kernel taking structs and a float4 by value runs exact against the CPU",
  ),
  ignore: nvrtcSkip !== undefined,
  async fn() {
    using client = await simulatedCudaClient() as CudaClient;
    const n = 300;
    const x = Float32Array.from({ length: n }, (_, i) => (i % 17) - 8.25);
    using xs = client.createWithData(x);
    using ys = client.zeros(n, "f32");
    const a = { n: 290, scale: 1.5, shift: -0.75 };
    const bias = [0.5, 9, 9, 0.25];
    const m = { on: 1, weights: [2, 7, -1] };
    const params = { a, bias, m };
    client.execute(affine, { threads: n, buffers: [ys, xs], params });
    assert.deepEqual(await client.read(ys), cpu(x, a, bias, m));
    // The fields by name for the vector type, the struct as its exact bytes.
    const bytes = new Uint8Array(16);
    new DataView(bytes.buffer).setInt32(0, n, true);
    new DataView(bytes.buffer).setFloat32(4, 2, true);
    new DataView(bytes.buffer).setFloat64(8, 1, true);
    const off = { on: 0, weights: new Float32Array([1, 1, 1]) };
    const named = { x: 1, y: 0, z: 0, w: 0 };
    client.execute(affine, {
      threads: n,
      buffers: [ys, xs],
      params: { a: bytes, bias: named, m: off },
    });
    assert.deepEqual(
      await client.read(ys),
      cpu(x, { n, scale: 2, shift: 1 }, [1, 0, 0, 0], { on: 0, weights: [1, 1, 1] }),
    );
  },
});

Deno.test({
  name: nvrtcName(
    "cuda structs: a missing, unknown or ill-typed field is refused naming it, nothing runs",
  ),
  ignore: nvrtcSkip !== undefined,
  async fn() {
    using client = await simulatedCudaClient() as CudaClient;
    using xs = client.createWithData(new Float32Array(4).fill(1));
    using ys = client.zeros(4, "f32");
    const good = {
      a: { n: 4, scale: 1, shift: 0 },
      bias: [0, 0, 0, 0],
      m: { on: 0, weights: [0, 0, 0] },
    };
    const refused = (params: unknown, what: string, message: RegExp) =>
      assert.throws(
        () => client.execute(affine, { threads: 4, buffers: [ys, xs], params: params as never }),
        (e) => {
          assert.ok(e instanceof KernelArgumentError, `${what}: ${e}`);
          assert.equal(e.argument, what);
          assert.match(e.message, message);
          return true;
        },
      );
    refused({ ...good, a: { n: 4, scale: 1 } }, "params.a.shift", /missing/);
    refused({ ...good, a: { ...good.a, extra: 1 } }, "params.a.extra", /not a field of Affine/);
    refused({ ...good, a: { ...good.a, n: 1.5 } }, "params.a.n", /does not fit/);
    refused({ ...good, m: { on: 0, weights: [1, 2] } }, "params.m.weights", /array of 3/);
    refused({ ...good, m: { on: 300, weights: [1, 2, 3] } }, "params.m.on", /does not fit/);
    refused({ ...good, bias: [1, 2, 3] }, "params.bias", /4/);
    refused({ ...good, a: 7 }, "params.a", /object of Affine's fields/);
    refused({ ...good, a: new ArrayBuffer(12) }, "params.a", /12 bytes.*16/);
    refused({ bias: good.bias, m: good.m }, "params.a", /missing/);
    assert.deepEqual([...await client.read(ys)], [0, 0, 0, 0], "nothing ran");
    client.execute(affine, { threads: 4, buffers: [ys, xs], params: good });
    assert.deepEqual([...await client.read(ys)], [1, 1, 1, 1], "usable after");
  },
});

Deno.test({
  name: nvrtcName(
    "cuda structs: one the runtime cannot pass is refused naming why; a graph replays new struct params",
  ),
  ignore: nvrtcSkip !== undefined,
  async fn() {
    using client = await simulatedCudaClient() as CudaClient;
    const withPointer = {
      source: `struct View { float* data; int n; };
        extern "C" __global__ void k(float* y, View v) { y[0] = (float)v.n; }`,
    };
    using y = client.zeros(1, "f32");
    assert.throws(
      () =>
        client.execute(withPointer, {
          threads: 1,
          buffers: [y],
          params: { v: { data: 0, n: 1 } },
        }),
      (e) => e instanceof KernelArgumentError && /pointer or a reference/.test(e.message),
    );
    using xs = client.createWithData(new Float32Array([1, 2, 3, 4]));
    using ys = client.zeros(4, "f32");
    const m = { on: 0, weights: [0, 0, 0] };
    const graph = await client.capture(() => {
      client.execute(affine, {
        threads: 4,
        buffers: [ys, xs],
        params: { a: { n: 4, scale: 1, shift: 0 }, bias: [0, 0, 0, 0], m },
      });
    });
    graph.replay({ params: { a: { n: 4, scale: 3, shift: 1 } } });
    assert.deepEqual([...await client.read(ys)], [4, 7, 10, 13]);
    graph.replay({ params: { bias: [1, 0, 0, 1] } });
    assert.deepEqual([...await client.read(ys)], [6, 9, 12, 15]);
    graph.dispose();
  },
});

Deno.test({
  name: nvrtcName(
    "cuda structs: a PTX kernel's .b8 parameters take the struct's bytes by position",
  ),
  ignore: nvrtcSkip !== undefined,
  async fn() {
    const { Nvrtc, NVRTC_LIBRARY_ENV } = await import("../runtime/server/cuda/compile/_nvrtc.ts");
    const ptx = Nvrtc.open(Deno.env.get(NVRTC_LIBRARY_ENV)!).compile(
      "affine",
      affine.source,
      "affine.cu",
      "compute_75", // the simulator's default device (CUDA 13's NVRTC has no compute_52)
    );
    assert.match(ptx, /\.param \.align 8 \.b8 affine_param_2\[16\]/);
    using client = await simulatedCudaClient() as CudaClient;
    const x = new Float32Array([1, 2, 3, 4]);
    using xs = client.createWithData(x);
    using ys = client.zeros(4, "f32");
    const a = new Uint8Array(16), bias = new Float32Array([0.5, 0, 0, 0.5]);
    const m = new Uint8Array(16);
    new DataView(a.buffer).setInt32(0, 4, true);
    new DataView(a.buffer).setFloat32(4, 2, true);
    new DataView(a.buffer).setFloat64(8, -1, true);
    client.execute({ ptx, entryPoint: "affine" }, {
      threads: 4,
      buffers: [ys, xs],
      params: [a, bias, m],
    });
    assert.deepEqual([...await client.read(ys)], [2, 4, 6, 8]);
    assert.throws(
      () =>
        client.execute({ ptx, entryPoint: "affine" }, {
          threads: 4,
          buffers: [ys, xs],
          params: [a, bias, 7],
        }),
      (e) =>
        e instanceof KernelArgumentError && e.argument === "params[2]" &&
        /16 bytes/.test(e.message),
    );
  },
});
