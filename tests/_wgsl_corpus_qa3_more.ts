/**
 * QA wave 3, more constructs: compute.toys' prelude, member names equal to builtins, textures
 * and samplers across groups, atomics at the end of a struct, overrides only another entry
 * point uses, template lists with trailing commas and blankspace; see `_wgsl_corpus_qa3.ts`.
 */
import { B, type CorpusCase, f, u } from "./_wgsl_corpus_qa_base.ts";
import { T, w } from "./_wgsl_corpus_qa3_base.ts";

const h = (...xs: number[]) => Float16Array.from(xs);

export const MORE3: readonly CorpusCase[] = [
  {
    // After compute.toys' shader prelude as its editor shows it (https://compute.toys, engine
    // https://github.com/compute-toys/wgpu-compute-toy; reconstructed, not copied from a file):
    // `alias int = i32; ... float4`, the `time`, `mouse`, `_keyboard`, `custom`, `dispatch`
    // uniforms and the rgba16float `screen`. Five uniforms, so params by variable with nested
    // structs and an `array<vec4<u32>, 2>`; float-alias arithmetic, `.5` literals.
    name: "compute.toys prelude: several uniforms of structs, params by variable",
    source: `
alias int = i32; alias uint = u32; alias float = f32; alias int2 = vec2<i32>; alias uint2 = vec2<u32>;
alias float2 = vec2<f32>; alias float3 = vec3<f32>; alias float4 = vec4<f32>;
struct Time { frame: uint, elapsed: float, delta: float }
struct Mouse { pos: uint2, click: int }
struct DispatchInfo { id: uint }
struct Custom { speed: float, zoom: float }
@group(0) @binding(0) var<uniform> time: Time;
@group(0) @binding(1) var<uniform> mouse: Mouse;
@group(0) @binding(2) var<uniform> _keyboard: array<vec4<u32>,2>;
@group(0) @binding(3) var<uniform> custom: Custom;
@group(0) @binding(4) var<uniform> dispatch: DispatchInfo;
@group(0) @binding(5) var screen: texture_storage_2d<rgba16float,write>;
fn keyDown(keycode: uint) -> bool { return ((_keyboard[keycode / 128u][(keycode % 128u) / 32u] >> (keycode % 32u)) & 1u) == 1u; }
@compute @workgroup_size(16, 16)
fn main_image(@builtin(global_invocation_id) id: vec3u) {
    let screen_size = textureDimensions(screen);
    if (id.x >= screen_size.x || id.y >= screen_size.y) { return; }
    let fragCoord = float2(float(id.x) + .5, float(screen_size.y - id.y) - .5);
    let uv = fragCoord / float2(screen_size);
    var col = .5 + .5 * cos(time.elapsed * custom.speed + uv.xyx * custom.zoom + float3(0.,2.,4.));
    if (keyDown(65u)) { col.x = 1.0; }
    col += float3(float2(mouse.pos) / 100.0, float(mouse.click) + float(dispatch.id + time.frame));
    textureStore(screen, int2(id.xy), float4(col, 1.));
}`,
    entryPoint: "main_image",
    plain: [
      B(0, 0, w(7, { f: 1.5 }, { f: 0.016 }, 0), true),
      B(0, 1, w(30, 40, { i: -1 }, 0), true),
      B(0, 2, w(0, 0, 2, 0, 0, 0, 0, 0), true),
      B(0, 3, w({ f: 2 }, { f: 3 }, 0, 0), true),
      B(0, 4, w(1, 0, 0, 0), true),
      T(0, 5, 16, 16, "rgba16float", undefined, true),
    ],
    workgroups: [1, 1, 1],
    threads: [16, 16],
    params: {
      time: { frame: 7, elapsed: 1.5, delta: 0.016 },
      mouse: { pos: [30, 40], click: -1 },
      _keyboard: [[0, 0, 2, 0], [0, 0, 0, 0]],
      custom: { speed: 2, zoom: 3 },
      dispatch: { id: 1 },
    },
  },
  {
    // After the WGSL spec's separate member namespace (https://www.w3.org/TR/WGSL/#struct-types)
    // and ORT's `uniforms.min`/`uniforms.max` clip uniforms: members named like builtins and
    // type generators (`min`, `select`, `vec4f`, `array`, `atomic`, `ptr`), params by them.
    name: "uniform fields named like builtins and types, struct members named array/vec4f",
    source: `
struct U { min: f32, max: f32, select: u32, vec4f: f32, array: u32 }
struct S { vec4f: f32, array: u32, atomic: f32, ptr: u32 }
@group(0) @binding(0) var<uniform> u: U;
@group(0) @binding(1) var<storage, read_write> s: array<S>;
@compute @workgroup_size(4) fn main(@builtin(global_invocation_id) g: vec3u) {
  s[g.x].vec4f = clamp(s[g.x].vec4f, u.min, u.max) + u.vec4f;
  s[g.x].array = s[g.x].array + u.select + u.array;
  s[g.x].atomic = max(s[g.x].atomic, 0.0); s[g.x].ptr += 1u;
}`,
    plain: [
      B(0, 0, w({ f: -1 }, { f: 1 }, 3, { f: 0.5 }, 9, 0, 0, 0), true),
      B(0, 1, f(32, 0.1, -1.5)),
    ],
    workgroups: [2, 1, 1],
    threads: 8,
    params: { min: -1, max: 1, select: 3, vec4f: 0.5, array: 9 },
  },
  {
    // After webgpu-samples' imageBlur (sampler and textures in other groups) and Dawn's
    // end2end TextureFormatTests (u32/i32 sampled textures): textures in groups 1 and 2, the
    // sampler alone in group 3, a uniform vec4f in group 0.
    name: "textures across groups 1-3 with a sampler, u32 and i32 sampled textures",
    source: `
@group(2) @binding(0) var src: texture_2d<f32>;
@group(2) @binding(1) var isrc: texture_2d<i32>;
@group(1) @binding(5) var dst: texture_storage_2d<rgba32float, write>;
@group(3) @binding(0) var smp: sampler;
@group(1) @binding(2) var usrc: texture_2d<u32>;
@group(0) @binding(0) var<uniform> k: vec4f;
@compute @workgroup_size(4, 4) fn main(@builtin(global_invocation_id) g: vec3u) {
  let uv = (vec2f(g.xy) + 0.5) / vec2f(textureDimensions(dst));
  let c = textureSampleLevel(src, smp, uv, 0.0);
  let a = vec4f(textureLoad(usrc, g.xy, 0)) + vec4f(textureLoad(isrc, g.xy, 0));
  textureStore(dst, g.xy, c * k + a);
}`,
    plain: [
      B(0, 0, new Float32Array([1, 2, 3, 4]), true),
      T(2, 0, 8, 8, "rgba8unorm", Uint8Array.from(u(256, 256))),
      T(2, 1, 8, 8, "r32sint", Int32Array.from(u(64, 100), (x) => x - 50)),
      T(1, 5, 8, 8, "rgba32float", undefined, true),
      T(1, 2, 8, 8, "r32uint", u(64, 1000)),
      { group: 3, binding: 0, sampler: { magFilter: "linear", minFilter: "linear" } },
    ],
    workgroups: [2, 2, 1],
    threads: [8, 8],
    params: { k: [1, 2, 3, 4] },
    samplers: { smp: { magFilter: "linear", minFilter: "linear" } },
  },
  {
    // After the WGSL spec's runtime-sized arrays (the last member of a struct,
    // https://www.w3.org/TR/WGSL/#runtime-sized) and naga's tests/in/wgsl/atomicOps.wgsl: a
    // struct ending in `array<atomic<u32>>` (arrayLength of the member), a bare mat4x4f uniform
    // and a uniform typed by an alias declared before its struct (two uniforms: by variable).
    name:
      "struct with trailing runtime array of atomics, arrayLength of it; non-struct mat4x4f uniform; alias uniform",
    source: `
struct Counters { total: atomic<u32>, bins: array<atomic<u32>> }
alias P = Params;
struct Params { scale: f32, bias: f32 }
@group(0) @binding(0) var<storage, read_write> c: Counters;
@group(0) @binding(1) var<uniform> m: mat4x4f;
@group(0) @binding(2) var<uniform> p: P;
@group(0) @binding(3) var<storage, read_write> o: array<vec4f>;
@compute @workgroup_size(8) fn main(@builtin(global_invocation_id) g: vec3u) {
  let n = arrayLength(&c.bins);
  atomicAdd(&c.bins[g.x % n], g.x);
  atomicAdd(&c.total, 1u);
  o[g.x] = m * o[g.x] * p.scale + p.bias;
}`,
    plain: [
      B(0, 0, u(6, 10)),
      B(0, 1, new Float32Array([1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3, 0, 1, 1, 1, 1]), true),
      B(0, 2, new Float32Array([0.5, 0.25, 0, 0]), true),
      B(0, 3, f(64, 0.1)),
    ],
    workgroups: [2, 1, 1],
    threads: 16,
    params: { m: [1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3, 0, 1, 1, 1, 1], p: { scale: 0.5, bias: 0.25 } },
  },
  {
    // After the WebGPU spec's pipeline-overridable constants (an override without a default
    // must be given only when the entry point uses it): `onlyB` is used by the other entry.
    name: "override without default used only by the other entry point",
    entryPoint: "a",
    source: `
override onlyB: f32;
override both: f32 = 2.0;
@group(0) @binding(0) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(4) fn a(@builtin(global_invocation_id) g: vec3u) { o[g.x] = o[g.x] * both; }
@compute @workgroup_size(4) fn b(@builtin(global_invocation_id) g: vec3u) { o[g.x] = onlyB; }`,
    plain: [B(0, 0, f(8))],
    workgroups: [2, 1, 1],
    threads: 8,
  },
  {
    // The same module, `onlyB` given although the launched entry point does not use it.
    name: "override set that only the other entry point uses",
    entryPoint: "a",
    source: `
override onlyB: f32 = 1.0;
override both: f32 = 2.0;
@group(0) @binding(0) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(4) fn a(@builtin(global_invocation_id) g: vec3u) { o[g.x] = o[g.x] * both; }
@compute @workgroup_size(4) fn b(@builtin(global_invocation_id) g: vec3u) { o[g.x] = onlyB; }`,
    plain: [B(0, 0, f(8))],
    workgroups: [2, 1, 1],
    threads: 8,
    constants: { onlyB: 5, both: 3 },
  },
  {
    // After Dawn's ShaderTests.OverridableConstants* and ShaderF16Tests: a negative i32
    // override, an f16 override, `@id(0)` (keyed "0"), overrides used only in a helper.
    name: "negative i32 override, f16 override, override in a helper only",
    source: `
enable f16;
override neg: i32 = -5;
override h: f16 = 1.5h;
@id(0) override zero: u32 = 0u;
@group(0) @binding(0) var<storage, read_write> o: array<i32>;
fn helper(x: i32) -> i32 { return x * neg + i32(f32(h) * 2.0) + i32(zero); }
@compute @workgroup_size(4) fn main(@builtin(global_invocation_id) g: vec3u) { o[g.x] = helper(o[g.x]); }`,
    plain: [B(0, 0, Int32Array.from(u(8, 100), (x) => x - 50))],
    workgroups: [2, 1, 1],
    threads: 8,
    constants: { neg: -7, h: 0.25, "0": 3 },
    features: ["shader-f16"],
  },
  {
    // After ratchet/ORT kernels that name their uniform `params`: uniforms of one struct type
    // in groups 1 and 0, one of them named `params` (params by variable).
    name: "uniforms in several groups with same field names, uniform named params",
    source: `
struct A { x: f32, y: f32 }
@group(1) @binding(0) var<uniform> params: A;
@group(0) @binding(3) var<uniform> other: A;
@group(2) @binding(1) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(4) fn main(@builtin(global_invocation_id) g: vec3u) { o[g.x] = o[g.x] * params.x + params.y - other.x * other.y; }`,
    plain: [
      B(1, 0, new Float32Array([2, 3, 0, 0]), true),
      B(0, 3, new Float32Array([5, 7, 0, 0]), true),
      B(2, 1, f(8)),
    ],
    workgroups: [2, 1, 1],
    threads: 8,
    params: { params: { x: 2, y: 3 }, other: { x: 5, y: 7 } },
  },
  {
    // After the WGSL spec's template lists (https://www.w3.org/TR/WGSL/#template-lists-sec, a
    // trailing comma allowed): `array<u32, 3,>`, `vec2<f32,>`, `var<storage, read_write,>`, a
    // uniform `array<vec4<f32,>, 2,>`, `texture_storage_2d<r32float, write,>`.
    name: "trailing commas in template lists",
    source: `
struct S { a: array<u32, 3,>, v: vec2<f32,>, m: mat2x2<f32,> }
@group(0) @binding(0) var<storage, read_write,> d: array<vec4<f32,>, 4,>;
@group(0) @binding(1) var<storage, read_write> s: array<S,>;
@group(0) @binding(2) var<uniform> k: array<vec4<f32,>, 2,>;
@group(0) @binding(3) var img: texture_storage_2d<r32float, write,>;
@compute @workgroup_size(4,) fn main(@builtin(global_invocation_id) g: vec3u) {
  d[g.x] = d[g.x] * k[0] + k[1];
  s[g.x].a[2] = s[g.x].a[0] + arrayLength(&s);
  s[g.x].m = s[g.x].m * 2.0;
  textureStore(img, vec2u(g.x, 0u), vec4f(d[g.x].x));
}`,
    plain: [
      B(0, 0, f(16)),
      B(0, 1, u(4 * 10, 100)),
      B(0, 2, new Float32Array([1, 2, 3, 4, 5, 6, 7, 8]), true),
      T(0, 3, 4, 1, "r32float", undefined, true),
    ],
    workgroups: [1, 1, 1],
    threads: 4,
    params: { k: [[1, 2, 3, 4], [5, 6, 7, 8]] },
  },
  {
    // After the WGSL spec's blankspace rules (tokens may be separated by any blankspace, or
    // none): `@ group ( 0 )`, `var < storage , read >`, `b [ g . x ]`, no spaces at all.
    name: "spaces inside templates and around attributes",
    source: `
@ group ( 0 ) @ binding ( 0 ) var < storage , read > a : array < vec2 < f32 > , 8 > ;
@group(0)@binding(1)var<storage,read_write>b:array<f32>;
@ compute @ workgroup_size ( 8 , 1 ) fn main ( @ builtin ( global_invocation_id ) g : vec3u ) {
  b [ g . x ] = a [ g . x ] . x + a[g.x].y;
}`,
    plain: [B(0, 0, f(16)), B(0, 1, new Float32Array(8))],
    workgroups: [1, 1, 1],
    threads: 8,
  },
  {
    // After the WebGPU spec's default pipeline layout (a texture sampled with a filtering
    // sampler is "float", one only loaded "unfilterable-float") and Dawn's ReadOnlyStorageTextureTests:
    // an r32float texture_2d only loaded beside a sampled rgba8unorm one, a read-only storage texture.
    name:
      "a filtering sampler for one texture, an r32float texture only loaded, read-only storage texture",
    source: `
@group(0) @binding(0) var color: texture_2d<f32>;
@group(0) @binding(1) var depthish: texture_2d<f32>;
@group(0) @binding(2) var smp: sampler;
@group(0) @binding(3) var ro: texture_storage_2d<r32float, read>;
@group(0) @binding(4) var<storage, read_write> o: array<vec4f>;
@compute @workgroup_size(4, 4) fn main(@builtin(global_invocation_id) g: vec3u) {
  let uv = (vec2f(g.xy) + 0.25) / 4.0;
  o[g.y * 4u + g.x] = textureSampleLevel(color, smp, uv, 0.0) + textureLoad(depthish, g.xy, 0) + textureLoad(ro, g.xy);
}`,
    plain: [
      T(0, 0, 4, 4, "rgba8unorm", Uint8Array.from(u(64, 256))),
      T(0, 1, 4, 4, "r32float", f(16, 0.5)),
      { group: 0, binding: 2, sampler: { magFilter: "linear", minFilter: "linear" } },
      T(0, 3, 4, 4, "r32float", f(16, 0.25), true),
      B(0, 4, new Float32Array(64)),
    ],
    workgroups: [1, 1, 1],
    threads: [4, 4],
    samplers: { smp: { magFilter: "linear", minFilter: "linear" } },
  },
  {
    // After WGSL's scoping rules (https://www.w3.org/TR/WGSL/#declaration-and-scope: a
    // local's scope starts after its declaration and ends with its block) and Tint's
    // test/tint/shadowing/ tests: bindings used after blocks (if/else, switch case, loop) whose
    // locals shadowed them, and before a later local of the same name.
    name:
      "a binding used after a block whose local shadowed it, and before a later shadowing local",
    entryPoint: "main",
    source: `
@group(0) @binding(0) var<storage, read_write> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<storage, read_write> d: array<f32>;
@compute @workgroup_size(4) fn main(@builtin(global_invocation_id) g: vec3u) {
  { let a = 1.0; _ = a; }
  a[g.x] = 2.0;
  if (g.x > 100u) { let b = 3.0; _ = b; } else { var b = 4.0; b += 1.0; }
  b[g.x] += 1.0;
  switch (g.x) { case 0u: { let c = 5.0; _ = c; } default: {} }
  loop { let c = 1u; if (c == 1u) { break; } }
  c[g.x] = 6.0;
  d[g.x] = 7.0;
  let d = 8.0;
  _ = d;
}
@compute @workgroup_size(4) fn other() { }`,
    plain: [B(0, 0, f(4)), B(0, 1, f(4)), B(0, 2, f(4)), B(0, 3, f(4))],
    workgroups: [1, 1, 1],
    threads: 4,
  },
  {
    // Tint's test/tint/shadowing/function/param.wgsl pattern: a helper's parameter named like
    // a binding that another helper of the same entry point uses.
    name: "a helper's parameter shadowing a binding in one helper, the binding used in another",
    source: `
@group(0) @binding(0) var<storage, read_write> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> b: array<f32>;
fn twice(b: f32) -> f32 { return b * 2.0; }
fn load(i: u32) -> f32 { return b[i]; }
@compute @workgroup_size(4) fn main(@builtin(global_invocation_id) g: vec3u) {
  a[g.x] = twice(a[g.x]) + load(g.x);
}`,
    plain: [B(0, 0, f(4)), B(0, 1, f(4, 2))],
    workgroups: [1, 1, 1],
    threads: 4,
  },
  {
    // After naga's tests/in/wgsl/f16.wgsl (f16 matrices in structs) and Dawn's ShaderF16Tests:
    // mat3x3<f16> at byte 8 of a 40-byte storage struct, a uniform mat2x2<f16> at byte 4 then
    // a vec3<f16> at 16 (params packed by field), an `array<mat4x2<f16>>` (stride 16).
    name: "f16 matrices in storage and uniform structs",
    source: `
enable f16;
struct S { a: f16, m: mat3x3<f16>, b: vec3<f16>, c: f16 }
struct U { h: f16, m: mat2x2<f16>, v: vec3<f16>, k: f16 }
@group(0) @binding(0) var<storage, read_write> s: array<S>;
@group(0) @binding(1) var<uniform> u: U;
@group(0) @binding(2) var<storage, read_write> o: array<mat4x2<f16>>;
@compute @workgroup_size(4) fn main(@builtin(global_invocation_id) g: vec3u) {
  let x = s[g.x];
  s[g.x].b = x.m * x.b + vec3h(u.v.x, u.m[1]) * u.h;
  s[g.x].a = x.c + u.k + f16(arrayLength(&s)) + f16(arrayLength(&o));
  o[g.x][g.x] = u.m[0] * x.a;
}`,
    plain: [
      B(0, 0, h(...Array.from({ length: 4 * 20 }, (_, i) => ((i * 7) % 13) * 0.25 - 1))),
      B(0, 1, h(1.5, 0, 2, 3, 4, 5, 0, 0, 6, 7, 8, 0.5, 0, 0, 0, 0), true),
      B(0, 2, h(...Array.from({ length: 4 * 8 }, (_, i) => i * 0.5))),
    ],
    workgroups: [1, 1, 1],
    threads: 4,
    params: { h: 1.5, m: [2, 3, 4, 5], v: [6, 7, 8], k: 0.5 },
    features: ["shader-f16"],
  },
];
