/**
 * The runtime's struct layouts against NVRTC's own (QA wave 8): a kernel compiled by NVRTC and
 * run by the simulated driver reports `sizeof`, `alignof` and every field's offset of the structs
 * it takes, which must be the ones the runtime read from the source; the layouts it cannot follow
 * (`#pragma pack`, an attribute after the definition, one name defined twice) are refused, not
 * guessed. Values: tests/cuda_struct_values_test.ts.
 */
import assert from "node:assert/strict";
import { type CudaClient, KernelArgumentError } from "../mod.ts";
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
      `#if FAST_LAYOUT
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

Deno.test("cuda structs: a field of a typedef of bool is a bool (0 or 1), not any byte", () => {
  const entry = layoutOf(entryOf(`typedef bool flag; using on_t = flag;
    struct S { flag f; on_t g; unsigned char c; };
    extern "C" __global__ void k(float* y, S s) {}`));
  assert.deepEqual(entry.fields.map((f) => f.bool === true), [true, true, false]);
});
