/**
 * The runtime's struct layouts against NVRTC's own (QA wave 8): a kernel compiled by NVRTC and
 * run by the simulated driver reports `sizeof`, `alignof` and every field's offset of the structs
 * it takes, which must be the ones the runtime read from the source; the layouts it cannot follow
 * (`#pragma pack`, an attribute after the definition, one name defined twice) are refused, not
 * guessed; typed arrays as bytes only of their fields' type; values field by field, exact.
 */
import assert from "node:assert/strict";
import { CpuTimelineSignal, type CudaClient, KernelArgumentError } from "../mod.ts";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";
import { cudaSignatures } from "../runtime/server/cuda/compile/signature.ts";
import type { StructEntry, StructLayout } from "../runtime/server/cuda/compile/_struct_layout.ts";

const STRUCTS = `
typedef float real;
typedef unsigned long long u64;
enum Small : char { S0, S1 };
enum class Mode : unsigned short { A, B };
enum Plain { P0 = -1, P1 = 0x7fffffff };
struct Mixed { char c; short s; int i; long long ll; double d; bool b; unsigned char uc; };
struct Inner { char c; double d; };
struct Outer { int n; Inner in[2]; char tail; };
struct Multi { float m[2][3]; char c; };
struct Vecs { char k; float2 a; float3 b; float4 c; int2 d; double2 e; char4 f; short3 g; dim3 h; };
struct __align__(16) Al16 { float x; };
struct alignas(8) Al8 { char x; };
struct Typed { real r; u64 u; real rs[3]; Small sm; Mode mo; long l; unsigned un; Plain pl; };
struct Defaults { float eps = 1e-5f; int n = 3; char c; float v[2] = {1, 2}; int m{4}; double d = {0.5}; };
extern "C" { struct InC { short a; double b; }; }
struct Fwd;
struct Fwd { char a; long l; };
typedef struct Tag { unsigned short a; unsigned int b; } TagT;
struct Combo { Al16 a; char c; Al8 b; float3 p[2]; int x, y[3], z; };
namespace ns { struct Same { int a; float b; }; struct InNs { char a; double b; }; }
namespace outer { namespace inner { struct Deep { short s; ns::InNs n; }; } }
struct Same { int a; float b; };  // the same layout twice: no doubt which
`;
const TAKEN =
  "Mixed, Outer, Multi, Vecs, Al16, Al8, Typed, Defaults, InC, Fwd, TagT, Combo, Same, ns::InNs, outer::inner::Deep"
    .split(", ");

/** Each field's path (`in[0].d`) and offset, nested structs' fields included. */
function offsets(layout: StructLayout, path = "", base = 0): [string, number][] {
  return layout.fields.flatMap((f): [string, number][] => [
    [`${path}${f.name}`, base + f.offset],
    ...(typeof f.type === "string"
      ? []
      : offsets(f.type, `${path}${f.name}${f.count ? "[0]" : ""}.`, base + f.offset)),
  ]);
}

const layoutOf = (entry: StructEntry | undefined): StructLayout => {
  assert.ok(entry !== undefined && !("unsupported" in entry), JSON.stringify(entry));
  return entry;
};

Deno.test({
  name: nvrtcName(
    "cuda structs: every field's offset, sizeof and alignof are NVRTC's own, for each kind of field",
  ),
  ignore: nvrtcSkip !== undefined,
  async fn() {
    const params = TAKEN.map((name, i) => `${name} s${i}`).join(", ");
    const [signature] = cudaSignatures(`${STRUCTS}
      extern "C" __global__ void k(long long* o, ${params}) {}`);
    const layouts = signature.params.slice(1).map((p) =>
      layoutOf(p.kind === "scalar" ? p.struct : undefined)
    );
    // What the compiler says: sizeof, alignof, then each field's offset, per struct.
    const lines: string[] = [];
    const want: number[] = [];
    layouts.forEach((layout, i) => {
      const name = TAKEN[i];
      lines.push(
        `o[${want.length}] = sizeof(${name});`,
        `o[${want.length + 1}] = alignof(${name});`,
      );
      want.push(layout.size, layout.align);
      for (const [path, offset] of offsets(layout)) {
        lines.push(`o[${want.length}] = (const char*)&s${i}.${path} - (const char*)&s${i};`);
        want.push(offset);
      }
    });
    assert.ok(want.length > 80, `${want.length} values`);
    using client = await simulatedCudaClient() as CudaClient;
    using out = client.zeros(want.length, "i64");
    client.execute({
      source: `${STRUCTS}
        extern "C" __global__ void k(long long* o, ${params}) {\n${lines.join("\n")}\n}`,
    }, {
      threads: 1,
      buffers: [out],
      params: Object.fromEntries(layouts.map((l, i) => [`s${i}`, new Uint8Array(l.size)])),
    });
    const got = [...await client.read(out)].map(Number);
    const wrong = lines.filter((_, i) => got[i] !== want[i]).map((line) => {
      const i = Number(/o\[(\d+)\]/.exec(line)![1]);
      return `${line}: runtime ${want[i]}, NVRTC ${got[i]}`;
    });
    assert.deepEqual(wrong, []);
  },
});

/** Why `source`'s kernel `k` cannot take its parameter `s` by its fields, or its layout. */
const entryOf = (source: string): StructEntry | undefined => {
  const param = cudaSignatures(source).find((s) => s.name === "k")!.params.at(-1)!;
  return param.kind === "scalar" ? param.struct : undefined;
};
const unsupported = (entry: StructEntry | undefined) =>
  entry !== undefined && "unsupported" in entry ? entry.unsupported : JSON.stringify(entry);

Deno.test("cuda structs: a layout the runtime cannot follow is refused, not guessed", () => {
  // Each of these compiles with NVRTC to a struct of the size the runtime would compute, with
  // fields elsewhere: `P` is 8 bytes with b at 1 (not 4); `ns::Dup` has b first.
  const cases: [string, RegExp][] = [
    [
      `#pragma pack(push, 1)
       struct __align__(8) P { char a; int b; };
       #pragma pack(pop)
       extern "C" __global__ void k(float* y, P s) {}`,
      /#pragma pack/,
    ],
    [
      `_Pragma("pack(1)") struct __align__(8) P { char a; int b; };
       extern "C" __global__ void k(float* y, P s) {}`,
      /#pragma pack/,
    ],
    [
      `namespace ns { struct Dup { float b; int a; }; }
       namespace other { struct Dup { int a; float b; }; }
       using namespace ns;
       extern "C" __global__ void k(float* y, Dup s) {}`,
      /'Dup' is defined more than once.*namespaces or #if/,
    ],
    [
      `#if 1
       struct Cond { float b; int a; };
       #else
       struct Cond { int a; float b; };
       #endif
       extern "C" __global__ void k(float* y, Cond s) {}`,
      /'Cond' is defined more than once/,
    ],
    [
      `struct Q { char a; int b; } __attribute__((packed, aligned(8)));
       extern "C" __global__ void k(float* y, Q s) {}`,
      /attribute/,
    ],
    [
      `typedef struct Tag { char a; int b; } __attribute__((packed)) T;
       extern "C" __global__ void k(float* y, struct Tag s) {}`,
      /attribute/,
    ],
    [
      `struct In { char a; int b; } __attribute__((packed));
       struct Out { In in; double d; };
       extern "C" __global__ void k(float* y, Out s) {}`,
      /field 'In in' is a struct the runtime cannot pass \(an attribute/,
    ],
    [
      `struct P1 { int a; float b; }; struct P2 { float b; int a; };
       #ifdef FLIP
       typedef struct P2 T;
       #else
       typedef struct P1 T;
       #endif
       extern "C" __global__ void k(float* y, T s) {}`,
      /'T' is defined more than once/,
    ],
    [
      `namespace ns { struct T { float b; int a; }; }
       struct P1 { int a; float b; };
       using T = P1;
       extern "C" __global__ void k(float* y, T s) {}`,
      /'T' is defined more than once/,
    ],
    [
      // a float under FLIP's absence: {a: 3} would be an int's bits read as a float
      `struct P { int a; };
       #ifdef FLIP
       typedef P T;
       #else
       typedef float T;
       #endif
       extern "C" __global__ void k(float* y, T s) {}`,
      /'T' is defined more than once/,
    ],
    [
      // O::I is no I: O is 4 bytes, I 8
      `struct I { double x; };
       struct O { struct I { int a; } i; };
       extern "C" __global__ void k(float* y, O s) {}`,
      /nested definitions/,
    ],
    [
      // NVRTC makes it 8 bytes: -1 written as an int's 4 would read 4294967295
      `enum Wide { W0 = -1, W1 = 0x100000000LL };
       struct W { Wide w; double d; };
       extern "C" __global__ void k(float* y, W s) {}`,
      /type the runtime does not know \('Wide'\)/,
    ],
  ];
  for (const [source, reason] of cases) assert.match(unsupported(entryOf(source)), reason, source);
  // A comment naming the pragma, or one struct defined twice alike, is no reason to refuse.
  const same = `namespace a { struct S { int x; }; }
    struct S { int x; }; // #pragma pack is not here
    extern "C" __global__ void k(float* y, S s) {}`;
  assert.equal(layoutOf(entryOf(same)).size, 4);
});

Deno.test({
  name: nvrtcName(
    "cuda structs: a launch with a struct of a #pragma pack source is refused naming why",
  ),
  ignore: nvrtcSkip !== undefined,
  async fn() {
    using client = await simulatedCudaClient() as CudaClient;
    using y = client.zeros(2, "f32");
    const packed = {
      source: `#pragma pack(push, 1)
        struct __align__(8) P { char a; int b; };
        #pragma pack(pop)
        extern "C" __global__ void k(float* y, P s) { y[0] = s.a; y[1] = s.b; }`,
    };
    assert.throws(
      () => client.execute(packed, { threads: 1, buffers: [y], params: { s: { a: 1, b: 2 } } }),
      (e) =>
        e instanceof KernelArgumentError && e.argument === "params.s" &&
        /#pragma pack/.test(e.message),
    );
    assert.deepEqual([...await client.read(y)], [0, 0]);
  },
});

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
      on: 1, // `true` works too, but ParamValue has no boolean
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

Deno.test("cuda structs: a field of a typedef of bool is a bool (0 or 1), not any byte", () => {
  const entry = layoutOf(entryOf(`typedef bool flag; using on_t = flag;
    struct S { flag f; on_t g; unsigned char c; };
    extern "C" __global__ void k(float* y, S s) {}`));
  assert.deepEqual(entry.fields.map((f) => f.bool === true), [true, true, false]);
});
