/**
 * QA wave 3: WGSL that Deno's WebGPU may refuse on the fallback adapter (features it lacks,
 * constructs its naga does not implement yet, invalid modules). `webgpu_wgsl_corpus_qa3_test.ts`
 * runs each with plain WebGPU first: what plain WebGPU runs must run through the client
 * bit-identical, what it refuses the client must refuse with a typed error.
 */
import { B, type CorpusCase, f, u } from "./_wgsl_corpus_qa_base.ts";
import { T } from "./_wgsl_corpus_qa3_base.ts";

export const REFUSED3: readonly CorpusCase[] = [
  {
    // https://github.com/gfx-rs/wgpu/blob/trunk/naga/tests/in/wgsl/bounds-check-zero.wgsl
    // verbatim: `index_vector_by_value(vec4f(2, 3, 4, 5), 6)`, a constant index past a vector.
    name: "naga bounds-check-zero verbatim (constant index 6 into a vec4)",
    source: /* wgsl */ `
struct Globals {
    a: array<f32, 10>,
    v: vec4<f32>,
    m: mat3x4<f32>,
    d: array<f32>,
}

@group(0) @binding(0) var<storage, read_write> globals: Globals;

fn index_array(i: i32) -> f32 {
   return globals.a[i];
}

fn index_dynamic_array(i: i32) -> f32 {
   return globals.d[i];
}

fn index_vector(i: i32) -> f32 {
   return globals.v[i];
}

fn index_vector_by_value(v: vec4<f32>, i: i32) -> f32 {
   return v[i];
}

fn index_matrix(i: i32) -> vec4<f32> {
   return globals.m[i];
}

fn index_twice(i: i32, j: i32) -> f32 {
   return globals.m[i][j];
}

fn index_expensive(i: i32) -> f32 {
   return globals.a[i32(sin(f32(i) / 100.0) * 100.0)];
}

fn index_in_bounds() -> f32 {
   return globals.a[9] + globals.v[3] + globals.m[2][3];
}

fn set_array(i: i32, v: f32) {
   globals.a[i] = v;
}

fn set_dynamic_array(i: i32, v: f32) {
   globals.d[i] = v;
}

fn set_vector(i: i32, v: f32) {
   globals.v[i] = v;
}

fn set_matrix(i: i32, v: vec4<f32>) {
   globals.m[i] = v;
}

fn set_index_twice(i: i32, j: i32, v: f32) {
   globals.m[i][j] = v;
}

fn set_expensive(i: i32, v: f32) {
   globals.a[i32(sin(f32(i) / 100.0) * 100.0)] = v;
}

fn set_in_bounds(v: f32) {
   globals.a[9] = v;
   globals.v[3] = v;
   globals.m[2][3] = v;
}

fn index_dynamic_array_constant_index() -> f32 {
   return globals.d[1000];
}

fn set_dynamic_array_constant_index(v: f32) {
   globals.d[1000] = v;
}

@compute @workgroup_size(1)
fn main() {
    index_array(1);
    index_dynamic_array(1);
    index_vector(1);
    index_vector_by_value(vec4f(2, 3, 4, 5), 6);
    index_matrix(1);
    index_twice(1, 2);
    index_expensive(1);
    index_in_bounds();
    set_array(1, 2.);
    set_dynamic_array(1, 2.);
    set_vector(1, 2.);
    set_matrix(1, vec4f(2, 3, 4, 5));
    set_index_twice(1, 2, 1.);
    set_expensive(1, 1.);
    set_in_bounds(1.);
    index_dynamic_array_constant_index();
    set_dynamic_array_constant_index(1.);
}`,
    plain: [B(0, 0, f(28 + 16, 0.5))],
    workgroups: [1, 1, 1],
    threads: 1,
  },
  {
    // https://github.com/gfx-rs/wgpu/blob/trunk/naga/tests/in/wgsl/const-nested-zero-value.wgsl
    // verbatim (wgpu issue 10463: zero-value vectors inside constructors).
    name: "naga const-nested-zero-value verbatim (wgpu issue 10463)",
    source: /* wgsl */ `
// Constant evaluation of vectors composed from zero-valued vectors.
// See https://github.com/gfx-rs/wgpu/issues/10463.

const composed = vec4u(vec2u(), 7u, 9u);

@group(0) @binding(0)
var<storage, read_write> o: array<u32, 8>;

@group(0) @binding(1)
var<storage, read_write> v: vec4u;

@compute @workgroup_size(1)
fn main() {
    o[0] = vec4u(vec2u(), 7u, 9u).y;
    o[1] = vec4u(vec2u(), 7u, 9u).z;
    o[2] = vec4u(vec2u(), 7u, 9u)[1];
    o[3] = bitcast<u32>(vec4f(1.0, vec2f(), 2.0).z);
    o[4] = bitcast<u32>(vec4f(vec3f(), 1.0).w);
    o[5] = vec4u(7u, vec2u(), 9u).y;
    o[6] = vec4u(vec2u(), 7u, 9u).wzyx.x;
    o[7] = composed.z;
    v = composed;
}`,
    plain: [B(0, 0, u(8, 100)), B(0, 1, u(4, 100))],
    workgroups: [1, 1, 1],
    threads: 1,
  },
  {
    // The WGSL spec's statement attributes (https://www.w3.org/TR/WGSL/#diagnostic-attribute):
    // `@diagnostic` on a loop, an if and a compound statement.
    name: "@diagnostic attributes on a function, a loop, an if and a compound statement",
    source: /* wgsl */ `
diagnostic(warning, derivative_uniformity);
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@diagnostic(off, derivative_uniformity)
fn twice(x: f32) -> f32 { return 2.0 * x; }
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) g: vec3u) {
  var acc = 0.0;
  @diagnostic(off, derivative_uniformity) for (var i = 0u; i < 3u; i++) { acc += twice(f32(i)); }
  @diagnostic(info, derivative_uniformity) if (g.x > 1u) { acc += 100.0; }
  @diagnostic(off, derivative_uniformity) { acc += out[g.x]; }
  out[g.x] = acc;
}`,
    plain: [B(0, 0, f(8))],
    workgroups: [2, 1, 1],
    threads: 8,
  },
  {
    // After the WGSL spec's subgroup built-ins and Dawn's SubgroupsTests: `enable subgroups;`,
    // a `diagnostic(off, subgroup_uniformity)` directive, subgroup builtins in a struct.
    name: "subgroups: enable, diagnostic off subgroup_uniformity, builtins in a struct",
    source: /* wgsl */ `
enable subgroups;
diagnostic(off, subgroup_uniformity);
struct In { @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_size) size: u32, @builtin(global_invocation_id) g: vec3u }
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(32)
fn main(input: In) {
  out[input.g.x] = subgroupBroadcastFirst(input.g.x) * 1000u + input.lane + subgroupMax(input.size);
}`,
    plain: [B(0, 0, new Uint32Array(32))],
    workgroups: [1, 1, 1],
    threads: 32,
  },
  {
    // WGSL's atomic overload of workgroupUniformLoad (https://www.w3.org/TR/WGSL/#workgroupUniformLoad-builtin).
    name: "workgroupUniformLoad of a workgroup atomic<u32>",
    source: /* wgsl */ `
var<workgroup> count: atomic<u32>;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(local_invocation_index) li: u32) {
  atomicAdd(&count, li);
  let total = workgroupUniformLoad(&count);
  out[li] = total;
}`,
    plain: [B(0, 0, new Uint32Array(8))],
    workgroups: [1, 1, 1],
    threads: 8,
  },
  {
    // f16 values without `enable f16;` (invalid WGSL).
    name: "f16 without enable f16",
    source: /* wgsl */ `
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) g: vec3u) { out[g.x] = f32(f16(out[g.x]) * 2h); }`,
    plain: [B(0, 0, f(4))],
    workgroups: [1, 1, 1],
    threads: 4,
  },
  {
    // A write to storage declared read-only behind comments in var<...> (invalid WGSL): the
    // runtime widens such declarations for compilation, the original must still be refused.
    name: "a write to var<storage, /* c */ read> is refused",
    source: /* wgsl */ `
@group(0) @binding(0) var<storage, /* in */ read> a: array<f32>;
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) g: vec3u) { a[g.x] = 1.0; }`,
    plain: [B(0, 0, f(4))],
    workgroups: [1, 1, 1],
    threads: 4,
  },
  {
    // A read_write storage texture of a format without read_write storage (invalid).
    name: "texture_storage_2d<rgba8unorm, read_write>",
    source: /* wgsl */ `
@group(0) @binding(0) var img: texture_storage_2d<rgba8unorm, read_write>;
@compute @workgroup_size(4, 4)
fn main(@builtin(global_invocation_id) g: vec3u) {
  textureStore(img, g.xy, textureLoad(img, g.xy) * 0.5);
}`,
    plain: [T(0, 0, 4, 4, "rgba8unorm", Uint8Array.from(u(64, 256)), true)],
    workgroups: [1, 1, 1],
    threads: [4, 4],
  },
  {
    // One entry point using a texture and a storage texture declared at the same binding
    // (after webgpu-samples' probabilityMap.wgsl; invalid in one layout).
    name: "one entry point using two variables at @binding(3)",
    source: /* wgsl */ `
@binding(3) @group(0) var tex_in : texture_2d<f32>;
@binding(3) @group(0) var tex_out : texture_storage_2d<rgba8unorm, write>;
@compute @workgroup_size(4, 4)
fn main(@builtin(global_invocation_id) g: vec3u) {
  textureStore(tex_out, g.xy, textureLoad(tex_in, g.xy, 0));
}`,
    plain: [T(0, 3, 4, 4, "rgba8unorm", undefined, true)],
    workgroups: [1, 1, 1],
    threads: [4, 4],
  },
  {
    // After the WGSL spec's uniform layout rule (array strides a multiple of 16): a uniform
    // `array<f32, 4>` (invalid; the client names the stride).
    name: "uniform array<f32, 4> (stride 4 in the uniform address space)",
    source: /* wgsl */ `
@group(0) @binding(0) var<uniform> k: array<f32, 4>;
@group(0) @binding(1) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(4) fn main(@builtin(global_invocation_id) g: vec3u) { o[g.x] = k[g.x]; }`,
    plain: [B(0, 0, f(4), true), B(0, 1, f(4))],
    workgroups: [1, 1, 1],
    threads: 4,
    params: { k: [1, 2, 3, 4] },
  },
  {
    // A struct of an atomic in read-only storage (WGSL allows atomics only in read_write
    // storage; Deno's wgpu runs it, so the client must run it alike).
    name: "atomicLoad from var<storage, read> of a struct of atomic<u32>",
    source: /* wgsl */ `
struct C { n: atomic<u32> }
@group(0) @binding(0) var<storage, read> c: C;
@group(0) @binding(1) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(4) fn main(@builtin(global_invocation_id) g: vec3u) {
  o[g.x] = atomicLoad(&c.n) + g.x;
}`,
    plain: [B(0, 0, u(4, 9)), B(0, 1, u(4, 9))],
    workgroups: [1, 1, 1],
    threads: 4,
  },
  {
    // The entry point named is a vertex stage (after wgpu's timestamp_queries module).
    name: "entryPoint naming a @vertex function",
    entryPoint: "vs",
    source: /* wgsl */ `
@group(0) @binding(0) var<storage, read_write> o: array<f32>;
@vertex fn vs() -> @builtin(position) vec4f { return vec4f(0.0); }
@compute @workgroup_size(1) fn main() { o[0] = 1.0; }`,
    plain: [B(0, 0, f(4))],
    workgroups: [1, 1, 1],
    threads: 1,
  },
  {
    // An override as a switch case selector (WGSL wants const-expressions there; Deno's wgpu
    // refuses "invalid `switch` case selector value").
    name: "an override as a switch case selector",
    source: /* wgsl */ `
override LIMIT: u32 = 3u;
const TWO = 2u;
@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(8) fn main(@builtin(global_invocation_id) g: vec3u) {
  switch (g.x) {
    case LIMIT: { o[g.x] = 100u; }
    case TWO, 7u: { o[g.x] = 200u; }
    default: { o[g.x] = g.x; }
  }
}`,
    plain: [B(0, 0, new Uint32Array(8))],
    workgroups: [1, 1, 1],
    threads: 8,
    constants: { LIMIT: 5 },
  },
];
