/**
 * Real-world WGSL compute shaders (QA wave, after issue #27's `_wgsl_corpus_27.ts`), each with
 * its source credited and the launch the user would write; `webgpu_wgsl_corpus_qa_test.ts` runs
 * them through the client and through plain WebGPU and compares the bytes. The cases here were
 * refused or misread before the commit that added them; the two parts ran right when added.
 */
import { B, type CorpusCase, f } from "./_wgsl_corpus_qa_base.ts";
import { SAMPLES } from "./_wgsl_corpus_qa_samples.ts";
import { LIBRARIES } from "./_wgsl_corpus_qa_libraries.ts";
import { MORE } from "./_wgsl_corpus_qa_more.ts";
import { CORPUS_QA2 } from "./_wgsl_corpus_qa2.ts";

export type { CorpusCase } from "./_wgsl_corpus_qa_base.ts";

const FIXED: readonly CorpusCase[] = [
  {
    // Fixed: an `@id(N)` override is keyed "N" in WebGPU's pipeline constants (its name is
    // refused there); the client refused "N" ("is not an override"). Entry parameters in a
    // struct and an override-sized workgroup array as in naga's tests/in/wgsl/overrides.wgsl.
    name: "@id overrides keyed by id, entry parameters in a struct, override-sized array",
    source: /* wgsl */ `
struct In { @builtin(global_invocation_id) gid: vec3u, @builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wg: vec3u }
@id(1000) override scale: f32 = 1.0;
override WG: u32 = 32;
var<workgroup> sh: array<f32, WG>;
@group(0) @binding(0) var<storage, read_write> data: array<f32>;
@compute @workgroup_size(WG)
fn main(input: In) {
  sh[input.li] = data[input.gid.x] * scale;
  workgroupBarrier();
  data[input.gid.x] = sh[WG - 1u - input.li] + f32(input.wg.x) * 1000.0;
}`,
    plain: [B(0, 0, f(128))],
    workgroups: [8, 1, 1],
    threads: 128,
    constants: { "1000": 2.5, WG: 16 },
  },
  {
    // Fixed: a local that shadows a binding counted as a use of it (wgsl_reflect), so the client
    // asked for `other`, which only the second entry point uses ("buffers has 2 handles, but the
    // WGSL declares 3"); plain WebGPU's "auto" layout has 2. A `for` header's local ends with
    // its loop: the `acc` binding after it is used; `1.0 * k` uses `k` (a literal's "." is no
    // member access). Multi-entry module as in webgpu-samples' gameOfLife / Bevy's
    // game_of_life.wgsl, bindings in groups 1 and 2 only.
    name: "a local shadowing a binding of another entry point, for-header scopes",
    entryPoint: "main",
    source: /* wgsl */ `
@group(1) @binding(0) var<storage, read> src: array<f32>;
@group(2) @binding(1) var<storage, read_write> other: array<f32>;
@group(2) @binding(2) var<storage, read_write> acc: array<f32>;
@group(2) @binding(3) var<storage, read_write> dst: array<f32>;
@group(2) @binding(4) var<uniform> k: f32;
fn load(i: u32) -> f32 { let other = src[i]; return other; }
@compute @workgroup_size(16)
fn main(@builtin(global_invocation_id) id: vec3u) {
  let other = 3.0;
  var total = 0.0;
  for (var acc = 0u; acc < 4u; acc++) { total += f32(acc); }
  if (id.x < 40u) { dst[id.x] = load(id.x) + other + total + 1.0 * k; acc[id.x] = total; }
}
@compute @workgroup_size(16)
fn second(@builtin(global_invocation_id) id: vec3u) { other[id.x] = 1.0; }`,
    plain: [
      B(1, 0, f(40)),
      B(2, 2, new Float32Array(40)),
      B(2, 3, new Float32Array(40)),
      B(2, 4, new Float32Array([0.75]), true),
    ],
    params: { k: 0.75 },
    workgroups: [3, 1, 1],
    threads: 40,
  },
  {
    // Fixed: a const-expression `@binding(BASE + 1u)` / `@group((G))` (WGSL allows any
    // const-expression there) was a CompilationError ("reflection cannot read line 6").
    // Hex and suffixed numbers, attributes split by comments, a fixed `array<f32, 4 * 4>`.
    name: "const-expression, hex and suffixed @group/@binding, attributes split by comments",
    source: /* wgsl */ `
const BASE = 2u;
const G = 0;
@group(0x0) /* first */ @binding(0x1)
// the input
var<storage, read> a: array<array<f32, 4>>;
@group((G)) @binding(BASE + 1u) var<storage, read_write> b: array<f32, 4 * 4>;
@group(0i) @binding(BASE)
  var<uniform> k: vec4<f32>;
@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) i: u32) {
  for (var j = 0u; j < 4u; j++) { b[i * 4u + j] = a[i][j] * k[j]; }
}`,
    plain: [
      B(0, 1, f(16, 0.5)),
      B(0, 3, new Float32Array(16)),
      B(0, 2, new Float32Array([1, 2, 3, 4]), true),
    ],
    workgroups: [1, 1, 1],
    threads: 4,
    params: { k: [1, 2, 3, 4] },
  },
  {
    // Fixed: const-expression `@size`/`@align` (the uniform layout the params are packed by)
    // and `@id` arguments were CompilationErrors ("reflection cannot read line 3").
    name: "const-expression @size, @align and @id",
    source: /* wgsl */ `
const S = 8u;
const BASE = 10u;
struct U { @size(S * 2u) a: f32, @align(S) b: f32, @align(0x10) c: f32, d: f32 }
@id(BASE + 2u) override k: f32 = 1.0;
@id(0x3) override m: f32 = 1.0;
@group(0) @binding(0) var<uniform> u: U;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(1)
fn main() { out[0] = u.a * k; out[1] = u.b + m; out[2] = u.c; out[3] = u.d; }`,
    plain: [
      B(0, 0, new Float32Array([1, 0, 0, 0, 2, 0, 0, 0, 3, 4, 0, 0]), true),
      B(0, 1, new Float32Array(4)),
    ],
    workgroups: [1, 1, 1],
    threads: 1,
    params: { a: 1, b: 2, c: 3, d: 4 },
    constants: { "12": 3, "3": 5 },
  },
  {
    // Fixed: WGSL identifiers are Unicode; a Unicode entry point was "'größe' has no
    // @workgroup_size" and a Unicode override "is not an override of the WGSL".
    name: "Unicode entry point and override names",
    entryPoint: "größe",
    source: /* wgsl */ `
override breite: u32 = 32u;
override größenfaktor: f32;
@group(0) @binding(0) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(breite)
fn größe(@builtin(global_invocation_id) g: vec3u, @builtin(num_workgroups) n: vec3u) {
  if (g.x < arrayLength(&o)) { o[g.x] = f32(n.x) * 1000.0 + f32(g.x) * größenfaktor; }
}`,
    plain: [B(0, 0, new Float32Array(100))],
    workgroups: [7, 1, 1],
    threads: 100,
    constants: { breite: 16, größenfaktor: 0.5 },
  },
];

/** Every case: the fixed ones first, then the second wave's (`_wgsl_corpus_qa2.ts`). */
export const CORPUS_QA: readonly CorpusCase[] = [
  ...FIXED,
  ...SAMPLES,
  ...LIBRARIES,
  ...MORE,
  ...CORPUS_QA2,
];
