/**
 * CUDA struct params' values (QA wave 8): fields at their limits reach an NVRTC-compiled kernel
 * exact (bigints, NaN, -0, Infinity, bools), bad ones are refused naming the field, typed arrays
 * are a struct's bytes only where their elements are its fields' type; a held launch, a capture
 * and a replay run the params of their call. Layouts: tests/cuda_struct_layout_test.ts.
 */
import assert from "node:assert/strict";
import { CpuTimelineSignal, type CudaClient, KernelArgumentError } from "../mod.ts";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";

const values = {
  source: `
struct V {
  bool on; char c; unsigned short us; int i; unsigned u; float f; long long ll;
  unsigned long long ull; double d; float v3[3]; float4 q; int constructor;
};
extern "C" __global__ void k(long long* o, double* f, V s, int2 p, float4 q) {
  o[0] = s.on; o[1] = s.c; o[2] = s.us; o[3] = s.i; o[4] = s.u; o[5] = s.ll;
  o[6] = (long long)s.ull; o[7] = s.constructor; o[8] = p.x; o[9] = p.y;
  f[0] = s.f; f[1] = s.d; f[2] = s.v3[0]; f[3] = s.v3[1]; f[4] = s.v3[2];
  f[5] = s.q.x; f[6] = s.q.w; f[7] = q.x; f[8] = q.y; f[9] = q.z; f[10] = q.w;
}`,
};

Deno.test({
  name: nvrtcName(
    "cuda structs: field values at their limits reach the kernel exact; bad ones are refused naming the field",
  ),
  ignore: nvrtcSkip !== undefined,
  async fn() {
    using client = await simulatedCudaClient() as CudaClient;
    using o = client.zeros(10, "i64");
    using f = client.zeros(11, "f64");
    const s = {
      on: true, // a C bool takes true or false (or 0, 1)
      c: -128,
      us: 65535,
      i: -(2 ** 31),
      u: 2 ** 32 - 1,
      f: Number.NaN,
      ll: -(2n ** 63n),
      ull: 2n ** 64n - 1n,
      d: -1e300,
      v3: new Float64Array([0.1, -0, Infinity]),
      q: new Float32Array([1.5, 2, 3, -4.25]), // a vector field's bytes, as a float4 param's
      constructor: 7,
    };
    const floats = new Float32Array([9, 9, 0.5, -2, 1e-3, 3e38, 9]);
    const q = floats.subarray(2, 6); // a view at a byteOffset: its own bytes only
    const p = new Uint32Array([5, 2 ** 32 - 1]); // an int2's bytes from unsigned ints: -1
    client.execute(values, { threads: 1, buffers: [o, f], params: { s, p, q } });
    assert.deepEqual([...await client.read(o)], [
      1n,
      -128n,
      65535n,
      -(2n ** 31n),
      2n ** 32n - 1n,
      -(2n ** 63n),
      -1n,
      7n,
      5n,
      -1n,
    ]);
    const fround = Math.fround;
    assert.deepEqual([...await client.read(f)], [
      NaN,
      -1e300,
      fround(0.1),
      -0,
      Infinity,
      1.5,
      -4.25,
      0.5,
      -2,
      fround(1e-3),
      fround(3e38),
    ]);
    // The same struct as bytes: a DataView over part of a larger buffer.
    const whole = new ArrayBuffer(200);
    const at = new DataView(whole, 24, 96);
    at.setInt32(80, 42, true); // `constructor`: after q, a float4 at 64
    const params = { s: at, p: [0, 0], q: [0, 0, 0, 0] };
    client.execute(values, { threads: 1, buffers: [o, f], params });
    assert.deepEqual((await client.read(o))[7], 42n);

    const refused = (change: Record<string, unknown>, what: string, message: RegExp) =>
      assert.throws(
        () =>
          client.execute(values, {
            threads: 1,
            buffers: [o, f],
            params: { s, p, q, ...change } as never,
          }),
        (e) => {
          assert.ok(e instanceof KernelArgumentError, `${what}: ${e}`);
          assert.equal(e.argument, what);
          assert.match(e.message, message);
          return true;
        },
        what,
      );
    refused({ s: { ...s, on: 2 } }, "params.s.on", /bool/);
    refused({ s: { ...s, u: -1 } }, "params.s.u", /does not fit/);
    refused({ s: { ...s, c: 128 } }, "params.s.c", /does not fit/);
    refused({ s: { ...s, ll: 2n ** 63n } }, "params.s.ll", /does not fit/);
    refused({ s: { ...s, ull: -1n } }, "params.s.ull", /does not fit/);
    refused({ s: { ...s, f: 1e39 } }, "params.s.f", /does not fit/);
    refused({ s: { ...s, v3: new Float32Array(2) } }, "params.s.v3", /array of 3/);
    refused({ s: { ...s, v3: new DataView(new ArrayBuffer(12)) } }, "params.s.v3", /array of 3/);
    refused({ s: { ...s, q: [1, 2, 3] } }, "params.s.q", /4/);
    refused({ s: { ...s, q: new Int32Array(4) } }, "params.s.q", /Int32Array.*f32/);
    const { constructor: _, ...noConstructor } = s;
    refused({ s: noConstructor }, "params.s.constructor", /missing/);
    refused(
      { s: Object.assign(Object.create({ on: true }), { ...s, on: undefined }) },
      "params.s.on",
      /missing/,
    );
    // A typed array's bytes only where its elements are the fields' type: an Int32Array's bits
    // are no float4.
    refused({ q: new Int32Array([1, 2, 3, 4]) }, "params.q", /Int32Array.*f32/);
    refused({ p: new Float32Array([1, 2]) }, "params.p", /Float32Array.*i32/);
    refused({ s: new Float64Array(12) }, "params.s", /Float64Array/);
    refused({ q: new Float32Array(3) }, "params.q", /12 bytes.*16/);
  },
});

Deno.test({
  name: nvrtcName(
    "cuda structs: a held launch, a capture and a replay take the params of their call; bad ones throw at it",
  ),
  ignore: nvrtcSkip !== undefined,
  async fn() {
    using client = await simulatedCudaClient() as CudaClient;
    const k = {
      source: `struct S { int a; float b; };
        extern "C" __global__ void k(float* y, S s, int n) { y[0] = s.a; y[1] = s.b; y[2] = n; }`,
    };
    using y = client.zeros(3, "f32");
    const run = (params: unknown) =>
      client.execute(k, { threads: 1, buffers: [y], params: params as never });
    const gate = new CpuTimelineSignal();
    client.waitFor(gate, 1); // the stream is held: launches wait for the gate
    assert.throws(
      () => run({ s: { a: 1, b: "x" }, n: 1 }),
      (e) => e instanceof KernelArgumentError && e.argument === "params.s.b",
    );
    assert.throws(
      () => run({ s: new Int32Array(2), n: 1 }),
      (e) => e instanceof KernelArgumentError && e.argument === "params.s",
    );
    const params = { s: { a: 1, b: 2 }, n: 3 };
    run(params);
    params.s.a = 100; // after the call: not what the launch runs, as on a free stream
    params.n = 300;
    gate.set(1);
    assert.deepEqual([...await client.read(y)], [1, 2, 3]);

    const captured = { s: { a: 5, b: 6 }, n: 7 };
    const graph = await client.capture(() => run(captured));
    captured.s.a = 50;
    graph.replay();
    assert.deepEqual([...await client.read(y)], [5, 6, 7]);
    const next = { s: { a: 8, b: 9 } };
    graph.replay({ params: next });
    next.s.a = 80;
    graph.replay({ params: { n: 10 } }); // s as the last replay gave it, n new
    assert.deepEqual([...await client.read(y)], [8, 9, 10]);
    assert.throws(
      () => graph.replay({ params: { s: { a: 1 } } }),
      (e) => e instanceof KernelArgumentError && /params\.s\.b/.test(e.message),
    );
    graph.replay();
    assert.deepEqual([...await client.read(y)], [8, 9, 10], "a refused replay changes nothing");
    graph.dispose();
  },
});
