/**
 * QA wave 3, layouts and declarations: directives on one line, every predeclared matrix alias
 * in storage structs, overrides whose type comes from the initializer, `>` inside template
 * lists and attributes, keyword-like names, const arrays, nested @align/@size structs; see
 * `_wgsl_corpus_qa3.ts`.
 */
import { B, type CorpusCase, f } from "./_wgsl_corpus_qa_base.ts";

const h = (n: number) => Float16Array.from(f(n, 0.125, -2));

export const LAYOUT3: readonly CorpusCase[] = [
  {
    // After the WGSL spec's directive grammar (https://www.w3.org/TR/WGSL/#directives: any
    // number of directives before the declarations, blankspace between them) and minified
    // WGSL from bundlers: a diagnostic, an enable and a requires directive on one line.
    name: "directives on one line (diagnostic; enable f16; requires ...)",
    source:
      `diagnostic(off, derivative_uniformity); enable f16; requires readonly_and_readwrite_storage_textures;
@group(0) @binding(0) var<storage, read_write> o: array<f16>;
@compute @workgroup_size(4) fn main(@builtin(global_invocation_id) g: vec3u) { o[g.x] = o[g.x] * 2.0h; }`,
    plain: [B(0, 0, h(8))],
    workgroups: [2, 1, 1],
    threads: 8,
    features: ["shader-f16"],
  },
  {
    // After the WGSL spec's predeclared aliases (https://www.w3.org/TR/WGSL/#predeclared-aliases)
    // and its alignment table: every matNxMf and matNxMh alias as a struct member (f32: a
    // 384-byte struct, f16: 192 bytes), one column element of each read.
    name: "every predeclared matNxMf/matNxMh alias in storage structs (384 and 192 bytes)",
    source: `enable f16;
struct S { a: mat2x2f, b: mat2x3f, c: mat2x4f, d: mat3x2f, e: mat3x3f, f: mat3x4f, g: mat4x2f, h: mat4x3f, i: mat4x4f, x: f32 }
struct H { a: mat2x2h, b: mat2x3h, c: mat2x4h, d: mat3x2h, e: mat3x3h, f: mat3x4h, g: mat4x2h, h: mat4x3h, i: mat4x4h, x: f16 }
@group(0) @binding(0) var<storage, read_write> s: array<S>;
@group(0) @binding(1) var<storage, read_write> t: array<H>;
@compute @workgroup_size(2) fn main(@builtin(global_invocation_id) g: vec3u) {
  s[g.x].x = s[g.x].a[1].y + s[g.x].b[1].z + s[g.x].c[1].w + s[g.x].d[2].y + s[g.x].e[2].z + s[g.x].f[2].w + s[g.x].g[3].y + s[g.x].h[3].z + s[g.x].i[3].w + f32(arrayLength(&s));
  t[g.x].x = t[g.x].a[1].y + t[g.x].b[1].z + t[g.x].c[1].w + t[g.x].d[2].y + t[g.x].e[2].z + t[g.x].f[2].w + t[g.x].g[3].y + t[g.x].h[3].z + t[g.x].i[3].w + f16(arrayLength(&t));
}`,
    plain: [B(0, 0, f(2 * 96, 0.25)), B(0, 1, h(2 * 96))],
    workgroups: [1, 1, 1],
    threads: 2,
    features: ["shader-f16"],
  },
  {
    // After the WGSL spec's override declarations without a type
    // (https://www.w3.org/TR/WGSL/#override-decls: the type of the initializer, abstract
    // ones concretized) and Dawn's OverridableConstants tests: i32, f32, f16, a u32 past
    // i32, bool, and an override of an override, given as numbers and a boolean.
    name: "overrides with inferred types (i32, f32, f16, large u32, bool, derived)",
    source: `enable f16;
override n = -3;
override x = 1.5;
override hh = 1.5h;
override big = 4000000000u;
override flag = true;
override derived = n * 2;
@group(0) @binding(0) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(4) fn main(@builtin(global_invocation_id) g: vec3u) {
  o[g.x] = f32(n) + x * 10.0 + f32(hh) * 100.0 + f32(big % 1000u) + select(0.0, 0.5, flag) + f32(derived) * 1000.0;
}`,
    plain: [B(0, 0, f(8))],
    workgroups: [2, 1, 1],
    threads: 8,
    constants: { n: -4, x: 2.25, hh: 0.75, big: 3999999999, flag: 0 },
    overrides: { n: -4, x: 2.25, hh: 0.75, big: 3999999999, flag: false },
    features: ["shader-f16"],
  },
  {
    // After the WGSL spec's template list discovery (https://www.w3.org/TR/WGSL/#template-list-discovery:
    // `>` inside parentheses is an operator) and generated kernels that size arrays by
    // const expressions: `array<f32, (N >> 1u)>`, `array<u32, select(1u, 3u, N > 4u)>` in a
    // storage struct (32 bytes), a uniform `array<vec4f, max(1u, (N >> 2u))>`.
    name: "array counts with > and >> inside parentheses (a 32-byte struct, a 2-element uniform)",
    source: `
const N = 8u;
struct S { a: array<f32, (N >> 1u)>, b: array<u32, select(1u, 3u, N > 4u)>, c: f32 }
@group(0) @binding(0) var<storage, read_write> s: array<S>;
@group(0) @binding(1) var<uniform> k: array<vec4f, max(1u, (N >> 2u))>;
@compute @workgroup_size(2) fn main(@builtin(global_invocation_id) g: vec3u) {
  s[g.x].c = s[g.x].a[3] + f32(s[g.x].b[2]) + k[1].w + f32(arrayLength(&s));
}`,
    plain: [B(0, 0, f(2 * 8 * 2, 0.5)), B(0, 1, new Float32Array([1, 2, 3, 4, 5, 6, 7, 8]), true)],
    workgroups: [1, 1, 1],
    threads: 2,
    params: { k: [[1, 2, 3, 4], [5, 6, 7, 8]] },
  },
  {
    // The same rule in `@workgroup_size(select(4u, 8u, N > 4u), (N >> 2u), 1)`: 8 x 2.
    name: "@workgroup_size of const expressions with > and >> inside calls and parentheses",
    source: `
const N = 8u;
@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(select(4u, 8u, N > 4u), (N >> 2u), 1)
fn main(@builtin(global_invocation_id) g: vec3u, @builtin(num_workgroups) n: vec3u) {
  o[g.y * 8u * n.x + g.x] = g.x * 100u + g.y;
}`,
    plain: [B(0, 0, new Uint32Array(16 * 4))],
    workgroups: [2, 2, 1],
    threads: [16, 4],
  },
  {
    // Names the WGSL grammar allows and a WGSL reader may take for keywords (`read`, `write`,
    // `storage`, `workgroup`, `private`, `block`, `read_write`; after Tint's shadowing tests):
    // struct members, a struct, a const used as the workgroup size, a binding, locals and a
    // parameter. (A module-scope `uniform` or `function` would shadow the enumerants.)
    name:
      "names a WGSL reader may take for keywords (read, write, storage, workgroup, private, block)",
    source: `
struct block { read: f32, write: u32, storage: vec2f }
override function_scale: f32 = 1.0;
const private = 3u;
@group(0) @binding(0) var<storage, read_write> workgroup: array<block>;
@group(0) @binding(1) var<uniform> ptr_: block;
fn add(p: ptr<function, f32>, storage: f32) { let read_write = storage; *p = *p + read_write; }
@compute @workgroup_size(private, 1) fn main(@builtin(global_invocation_id) g: vec3u) {
  var read = workgroup[g.x].read;
  add(&read, ptr_.read * function_scale);
  let write = ptr_.write + private;
  workgroup[g.x].read = read;
  workgroup[g.x].write += write;
  workgroup[g.x].storage = ptr_.storage * f32(arrayLength(&workgroup));
}`,
    plain: [B(0, 0, f(6 * 4, 0.5)), B(0, 1, new Float32Array([1.5, 0, 2, 3]), true)],
    workgroups: [2, 1, 1],
    threads: 6,
    constants: { function_scale: 2 },
    params: { read: 1.5, write: 0, storage: [2, 3] },
  },
  {
    // After vello's `firstTrailingBit(WG_SIZE)` loop bounds and the WGSL spec's const-expression
    // builtins: array counts and a workgroup size of firstTrailingBit, countOneBits, u32(3.9),
    // abs, clamp, shifts, u32(sqrt(16.0)), i32(2.5) + 1 (a 108-byte struct, 4 x 3 workgroups).
    name: "const-expression builtins in array counts and @workgroup_size (108-byte struct)",
    source: `
const WG = 256u;
const LG = firstTrailingBit(WG);
const K = countOneBits(0xF0u) + u32(3.9) + u32(abs(-2i));
struct S { a: array<f32, LG>, b: array<u32, clamp(K, 1u, 16u)>, c: array<f32, (1u << 2u) | 1u>, d: array<f32, u32(sqrt(16.0))>, e: f32 }
@group(0) @binding(0) var<storage, read_write> s: array<S>;
@compute @workgroup_size(WG / 64u, i32(2.5) + 1, 1) fn main(@builtin(global_invocation_id) g: vec3u, @builtin(num_workgroups) n: vec3u) {
  let i = g.y * 4u * n.x + g.x;
  if (i < arrayLength(&s)) { s[i].e = s[i].a[LG - 1u] + f32(s[i].b[K - 1u]) + s[i].c[4] + s[i].d[3]; }
}`,
    plain: [B(0, 0, f(48 * 27, 0.5))],
    workgroups: [1, 4, 1],
    threads: [4, 12],
  },
  {
    // The template rule's counterpart in attributes (const expressions with `>` and `>>`):
    // `@size(select(8u, 16u, N > 4u))`, `@align(max(8u, (N >> 1u)))`, `@binding(N >> 2u)`,
    // `@group(u32(N > 4u))` (a 32-byte uniform at group 0 binding 2, storage in group 1).
    name: "@size/@align/@binding/@group of const expressions with > and >>",
    source: `
const N = 8u;
struct U { @size(select(8u, 16u, N > 4u)) a: f32, @align(max(8u, (N >> 1u))) b: vec2f, c: f32 }
@group(0) @binding(N >> 2u) var<uniform> k: U;
@group(u32(N > 4u)) @binding(0) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(4) fn main(@builtin(global_invocation_id) g: vec3u) {
  o[g.x] = k.a + k.b.y * 10.0 + k.c * 100.0 + o[g.x];
}`,
    plain: [B(0, 2, new Float32Array([1, 0, 0, 0, 2, 3, 4, 0]), true), B(1, 0, f(4))],
    workgroups: [1, 1, 1],
    threads: 4,
    params: { a: 1, b: [2, 3], c: 4 },
  },
  {
    // After separable-blur kernels' tap tables (webgpu-samples imageBlur's weights, made
    // const) and the WGSL spec's inferred `array(...)` constructor: a const array of structs
    // indexed at run time, `array(1u, 2u, 3u, 5u)` copied to a local, `array(vec2f(..), vec2(..))`.
    name: "const arrays of structs and inferred array(...) constructors indexed at run time",
    source: `
struct Tap { offset: i32, weight: f32 }
const TAPS = array<Tap, 3>(Tap(-1, 0.25), Tap(0, 0.5), Tap(1, 0.25));
const W = array(1u, 2u, 3u, 5u);
const M = array(vec2f(1.0, 2.0), vec2(3.0, 4.0));
override bias: f32 = 0.0;
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@compute @workgroup_size(8) fn main(@builtin(global_invocation_id) g: vec3u) {
  var acc = bias;
  for (var t = 0u; t < 3u; t++) {
    let i = clamp(i32(g.x) + TAPS[t].offset, 0, i32(arrayLength(&src)) - 1);
    acc += src[i] * TAPS[t].weight;
  }
  let lut = W;
  dst[g.x] = acc * f32(lut[g.x % 4u]) + M[g.x % 2u].y;
}`,
    plain: [B(0, 0, f(16, 0.5)), B(0, 1, new Float32Array(16))],
    workgroups: [2, 1, 1],
    threads: 16,
    constants: { bias: 0.125 },
  },
  {
    // After Dawn's ComputeLayoutMemoryBufferTests (nested structs, @align/@size members,
    // arrays of vec3 and of structs) and the WGSL spec's layout rules: Inner 48 bytes, Mid
    // 256 (an @align(32) last member), Outer's runtime array of Mid at byte 320 after an
    // @align(64) member; arrayLength of the member.
    name:
      "nested @align/@size structs: arrays of vec3f and of structs, a runtime array at byte 320",
    source: `
struct Inner { @align(16) x: f32, y: vec3f, @size(20) z: u32 }
struct Mid { a: array<vec3f, 3>, b: f32, c: Inner, d: array<Inner, 2>, @align(32) e: vec2<i32> }
struct Outer { n: u32, @align(64) m: Mid, tail: array<Mid> }
@group(0) @binding(0) var<storage, read_write> o: Outer;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(1) fn main() {
  let n = arrayLength(&o.tail);
  o.n = n;
  var acc = o.m.b + o.m.c.x + o.m.d[1].y.z + f32(o.m.d[1].z) + f32(o.m.e.y) + o.m.a[2].z;
  for (var i = 0u; i < n; i++) { acc += o.tail[i].a[1].y + o.tail[i].d[0].x + f32(o.tail[i].e.x); o.tail[i].b = acc; }
  out[0] = acc;
}`,
    plain: [B(0, 0, f(16 + 3 * 64, 0.25)), B(0, 1, new Float32Array(4))],
    workgroups: [1, 1, 1],
    threads: 1,
  },
  {
    // Entry points named like words a WGSL reader may take for keywords (`block`, `read`; the
    // runtime renames those for its parser) with builtins typed by an alias (`u3`) and an
    // override named `write`; each entry point launched by name.
    name: "entry point named block (alias-typed builtins, an override named write)",
    entryPoint: "block",
    source: `
alias u3 = vec3<u32>;
override write: u32 = 1u;
@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(4) fn block(@builtin(global_invocation_id) g: u3, @builtin(num_workgroups) n: u3) { o[g.x] = g.x * write + n.x; }
@compute @workgroup_size(4) fn read(@builtin(global_invocation_id) g: u3) { o[g.x] = 0u; }`,
    plain: [B(0, 0, new Uint32Array(8))],
    workgroups: [2, 1, 1],
    threads: 8,
    constants: { write: 3 },
  },
  {
    // The same module shape launching `read`.
    name: "entry point named read",
    entryPoint: "read",
    source: `
alias u3 = vec3<u32>;
@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(4) fn block(@builtin(global_invocation_id) g: u3) { o[g.x] = 1u; }
@compute @workgroup_size(4) fn read(@builtin(global_invocation_id) g: u3) { o[g.x] = g.x + 7u; }`,
    plain: [B(0, 0, new Uint32Array(8))],
    workgroups: [2, 1, 1],
    threads: 8,
  },
];
