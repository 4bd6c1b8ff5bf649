/**
 * WGSL compute shaders in the styles of real-world ones (WebGPU samples, wgpu examples,
 * tfjs-backend-webgpu's generated shaders, webgpufundamentals) that the runtime misread or refused
 * before issue #27, each with how the client launches it and how a plain WebGPU program does.
 * Every case fails without its fix (the comment says which).
 */

/** One binding as plain WebGPU binds it. */
export interface PlainBinding {
  readonly binding: number;
  readonly data: Uint32Array | Float32Array | Int32Array | Float16Array;
  readonly uniform?: boolean;
}

/** One shader, launched through the client and through plain WebGPU. */
export interface Case27 {
  readonly name: string;
  readonly source: string;
  readonly entryPoint?: string;
  /** The client launch: `threads`, buffers (indices into `plain`), params, overrides. */
  readonly threads: number | [number, number];
  readonly buffers: readonly number[];
  readonly params?: Record<string, number | number[]>;
  readonly overrides?: Record<string, number | boolean>;
  /** The plain launch: bindings, workgroups, pipeline constants. */
  readonly plain: readonly PlainBinding[];
  readonly workgroups: readonly [number, number, number];
  readonly constants?: Record<string, number>;
  /** The device feature the case needs. */
  readonly feature?: GPUFeatureName;
}

const iota = (n: number, scale = 1) => Float32Array.from({ length: n }, (_, i) => i * scale);

export const CORPUS_27: readonly Case27[] = [
  {
    // Keyword-named identifiers (wgsl_reflect: "Expected ')'"); webgpu-samples style.
    name: "names that are keywords elsewhere",
    source: /* wgsl */ `
struct block { storage: u32, uniform: f32, }
@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> write: array<f32>;
@group(0) @binding(2) var<uniform> workgroup: block;

fn ptr(read: f32, read_write: f32) -> f32 { return read * workgroup.uniform + read_write; }

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3u) {
  let private = id.x;
  var function = 0.5;
  if (private < workgroup.storage) { write[private] = ptr(input[private], function); }
}`,
    threads: 100,
    buffers: [0, 1],
    params: { storage: 100, uniform: 1.5 },
    plain: [
      { binding: 0, data: iota(100) },
      { binding: 1, data: new Float32Array(100) },
      { binding: 2, data: new Uint32Array([100, 0x3fc00000, 0, 0]), uniform: true },
    ],
    workgroups: [2, 1, 1],
  },
  {
    // `@workgroup_size(256i)` read as 1: 256x the workgroups (num_workgroups shows it).
    name: "suffixed workgroup size",
    source: /* wgsl */ `
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(256i)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) n: vec3u) {
  if (gid.x < arrayLength(&out)) { out[gid.x] = gid.x * 1000u + n.x; }
}`,
    threads: 1000,
    buffers: [0],
    plain: [{ binding: 0, data: new Uint32Array(1000) }],
    workgroups: [4, 1, 1],
  },
  {
    // Const-expression sizes, a trailing comma, alias, const_assert, diagnostic, pointer
    // parameters (tfjs / wgpu-examples style): each failed to parse.
    name: "const expressions, trailing commas, alias, const_assert, diagnostic, pointers",
    source: /* wgsl */ `
diagnostic(off, derivative_uniformity);
const TILE = 32u;
const_assert TILE % 8u == 0u;
alias Row = array<f32>;
@group(0) @binding(0) var<storage, read_write> data: Row;

fn twice(p: ptr<function, f32>,) { *p = *p * 2.0; }
fn bump(acc: ptr<function, array<f32, 2>>, i: u32,) { (*acc)[i] += 1.0; }

@compute @workgroup_size(TILE / 4u, 2u,)
fn main(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) n: vec3u,) {
  let i = id.y * (TILE / 4u) * n.x + id.x;
  if (i >= arrayLength(&data)) { return; }
  var v = data[i];
  twice(&v);
  var acc = array<f32, 2>(0.0, 0.0,);
  bump(&acc, i % 2u);
  data[i] = v + f32(n.x * 100u + n.y * 10000u) + acc[0];
}`,
    threads: [16, 6],
    buffers: [0],
    plain: [{ binding: 0, data: iota(96, 0.5) }],
    workgroups: [2, 3, 1],
  },
  {
    // An override in @workgroup_size set at the launch: the threads arithmetic uses it.
    name: "override workgroup size and an override without default",
    source: /* wgsl */ `
override BLOCK: u32 = 64u;
@id(5) override SCALE: f32;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(BLOCK)
fn main(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) n: vec3u) {
  if (id.x < arrayLength(&out)) { out[id.x] = f32(id.x) * SCALE + f32(n.x) * 1000.0; }
}`,
    threads: 300,
    buffers: [0],
    overrides: { BLOCK: 16, SCALE: 0.25 },
    plain: [{ binding: 0, data: new Float32Array(300) }],
    workgroups: [19, 1, 1],
    constants: { BLOCK: 16, 5: 0.25 },
  },
  {
    // Two entry points: only the bindings the chosen one uses (through a helper) are passed;
    // explicit padding fields of the uniform default to zero (webgpufundamentals style).
    name: "per entry point bindings and padding fields",
    entryPoint: "second",
    source: /* wgsl */ `
struct Uniforms { scale: f32, _pad0: f32, _pad1: f32, _pad2: f32 }
@group(0) @binding(0) var<storage, read_write> unusedHere: array<u32>;
@group(0) @binding(1) var<storage, read_write> values: array<f32>;
@group(0) @binding(2) var<uniform> u: Uniforms;

fn apply(i: u32) { values[i] = values[i] * u.scale + u._pad0 + u._pad1 + u._pad2; }

@compute @workgroup_size(8) fn first(@builtin(global_invocation_id) id: vec3u) {
  unusedHere[id.x] = 7u;
}
@compute @workgroup_size(8) fn second(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < arrayLength(&values)) { apply(id.x); }
}`,
    threads: 40,
    buffers: [0],
    params: { scale: 3 },
    plain: [
      { binding: 1, data: iota(40) },
      { binding: 2, data: new Float32Array([3, 0, 0, 0]), uniform: true },
    ],
    workgroups: [5, 1, 1],
  },
  {
    // `enable f16;` with f16 handles and an f16 param: refused before (device without
    // shader-f16). Runs where the adapter offers shader-f16 (lavapipe through Vulkan).
    name: "f16 handles and params",
    feature: "shader-f16",
    source: /* wgsl */ `
enable f16;
struct P { a: f16, n: u32 }
@group(0) @binding(0) var<storage, read> x: array<f16>;
@group(0) @binding(1) var<storage, read_write> y: array<f16>;
@group(0) @binding(2) var<uniform> p: P;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < p.n) { y[id.x] = p.a * x[id.x] + y[id.x]; }
}`,
    threads: 70,
    buffers: [0, 1],
    params: { a: 1.5, n: 70 },
    plain: [
      { binding: 0, data: Float16Array.from({ length: 70 }, (_, i) => i / 8) },
      { binding: 1, data: Float16Array.from({ length: 70 }, (_, i) => 1 - i / 16) },
      // a: f16 1.5 (0x3e00) in the low half, n: 70 at byte 4.
      { binding: 2, data: new Uint32Array([0x3e00, 70, 0, 0]), uniform: true },
    ],
    workgroups: [2, 1, 1],
  },
];

// Kernels of the bind-group, named-buffer and texture tests (on Deno and in the browser suite).

/** A post-processing pass: per-pass constants in group 1, the data in group 0. */
export const PASS_WGSL = `
struct Pass { gain: f32, bias: f32, frame: u32, _pad: u32 }
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(1) @binding(0) var<uniform> pass_: Pass;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < arrayLength(&src)) {
    dst[id.x] = fma(src[id.x], pass_.gain, pass_.bias) + f32(pass_.frame) * 0.001;
  }
}`;

/** Buffers spread over groups 2 and 0 (group 1 empty): positional order is (group, binding). */
export const SPREAD_WGSL = `
@group(2) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(3) var<storage, read> b: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < arrayLength(&out)) { out[id.x] = a[id.x] * 1000u + b[id.x]; }
}`;

/** A blur: three samples of a `texture_2d<f32>` through a `sampler`, into a storage texture. */
export const BLUR_WGSL = `
@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var smp: sampler;
@group(0) @binding(2) var dst: texture_storage_2d<rgba8unorm, write>;
@compute @workgroup_size(8, 8) fn main(@builtin(global_invocation_id) id: vec3u) {
  let size = textureDimensions(src);
  if (id.x >= size.x || id.y >= size.y) { return; }
  let texel = 1.0 / vec2f(size);
  let uv = (vec2f(id.xy) + 0.5) * texel;
  var sum = vec4f(0.0);
  for (var dx = -1; dx <= 1; dx++) {
    sum += textureSampleLevel(src, smp, uv + vec2f(f32(dx) * 0.5, 0.25) * texel, 0.0);
  }
  textureStore(dst, id.xy, sum / 3.0);
}`;

/** Game of life on r32uint storage textures (read one, write the other), wrapping at the edges. */
export const LIFE_WGSL = `
@group(0) @binding(0) var cur: texture_storage_2d<r32uint, read>;
@group(0) @binding(1) var next: texture_storage_2d<r32uint, write>;
@compute @workgroup_size(8, 8) fn main(@builtin(global_invocation_id) id: vec3u) {
  let size = vec2i(textureDimensions(cur));
  let p = vec2i(id.xy);
  if (p.x >= size.x || p.y >= size.y) { return; }
  var n = 0u;
  for (var dy = -1; dy <= 1; dy++) {
    for (var dx = -1; dx <= 1; dx++) {
      if (dx == 0 && dy == 0) { continue; }
      n += textureLoad(cur, (p + vec2i(dx, dy) + size) % size).x;
    }
  }
  let alive = textureLoad(cur, p).x;
  textureStore(next, p, vec4u(select(0u, 1u, n == 3u || (alive == 1u && n == 2u))));
}`;
