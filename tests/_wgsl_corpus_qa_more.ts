/**
 * The QA corpus, part 3: overrides in workgroup sizes, layouts of storage and uniform structs,
 * multi-entry and render+compute modules (see `_wgsl_corpus_qa.ts`). Sources: tfjs-backend-webgpu's
 * program shape (webgpu_program.ts), wgpu's hello_synchronization, naga's tests/in/wgsl, a
 * sine-field particle shader (vertex, fragment and compute in one module), webgpufundamentals'
 * histogram (workgroup atomics over a texture).
 */
import { B, type CorpusCase, f } from "./_wgsl_corpus_qa_base.ts";

export const MORE: readonly CorpusCase[] = [
  {
    name: "@id override in workgroup_size given by id, override expression size",
    source: `
@id(0) override wgx: u32 = 64;
override neg: i32 = -1;
override flag: bool = false;
@group(0) @binding(0) var<storage, read_write> o: array<i32>;
@compute @workgroup_size(wgx * 2u)
fn main(@builtin(global_invocation_id) g: vec3u, @builtin(num_workgroups) n: vec3u) {
  if (g.x < arrayLength(&o)) { o[g.x] = i32(g.x) * neg + select(0, 1000, flag) + i32(n.x) * 100000; }
}`,
    plain: [B(0, 0, new Int32Array(200))],
    workgroups: [13, 1, 1],
    threads: 200,
    constants: { "0": 8, neg: -3, flag: 1 },
    overrides: { "0": 8, neg: -3, flag: true },
  },
  {
    name:
      "fixed-size storage array of structs, array<mat4x4<f32>>, array<atomic<u32>>, alias types, const-expression uniform array",
    source: `
alias float4 = vec4<f32>;
const N = 2u * 3u;
struct P { pos: vec3f, mass: f32, vel: float4 }
struct U { v: array<vec4<u32>, N>, s: float4 }
@group(0) @binding(0) var<storage, read_write> ps: array<P, 8>;
@group(0) @binding(1) var<storage, read> ms: array<mat4x4<f32>>;
@group(0) @binding(2) var<storage, read_write> hist: array<atomic<u32>>;
@group(0) @binding(3) var<uniform> u: U;
const_assert N == 6u;
@must_use fn twice(x: f32) -> f32 { return x * 2.0; }
@compute @workgroup_size(8)
fn main(@builtin(local_invocation_index) i: u32) {
  let m = ms[i % arrayLength(&ms)];
  ps[i].vel = m * ps[i].vel + u.s;
  ps[i].mass = twice(ps[i].mass) + f32(u.v[i % N].y);
  atomicAdd(&hist[u32(ps[i].mass) % arrayLength(&hist)], 1u);
}`,
    plain: [
      B(0, 0, f(96, 0.1)),
      B(0, 1, f(48, 0.01)),
      B(0, 2, new Uint32Array(5)),
      B(
        0,
        3,
        new Uint32Array([...Array.from({ length: 24 }, (_, i) => i), 0x3f800000, 0x40000000, 0, 0]),
        true,
      ),
    ],
    workgroups: [1, 1, 1],
    threads: 8,
    params: {
      v: Array.from({ length: 6 }, (_, k) => [4 * k, 4 * k + 1, 4 * k + 2, 4 * k + 3]),
      s: [1, 2, 0, 0],
    },
  },
  {
    name:
      "workgroup pointers in helpers, switch on consts, loop/continuing, read_write storage texture",
    source: `
const A = 1u;
const Bc = 2u;
@group(0) @binding(0) var img: texture_storage_2d<r32float, read_write>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
var<workgroup> sh: array<u32, 64>;
fn bump(p: ptr<function, u32>) { *p += 1u; }
@compute @workgroup_size(8, 8)
fn main(@builtin(local_invocation_index) li: u32, @builtin(global_invocation_id) g: vec3u) {
  sh[li] = li;
  var t = sh[li]; bump(&t); sh[li] = t;
  var k = 0u; var acc = 0u;
  loop { if k >= 3u { break; } switch k { case A: { acc += 10u; } case Bc, 7u: { acc += 100u; } default: { acc += 1u; } } continuing { k++; } }
  out[li] = sh[li] + acc;
  let c = textureLoad(img, vec2i(g.xy));
  textureStore(img, vec2i(g.xy), c * 2.0 + vec4f(f32(acc)));
}`,
    plain: [
      {
        group: 0,
        binding: 0,
        texture: { width: 8, height: 8, format: "r32float", data: f(64, 0.5) },
        storage: true,
      },
      B(0, 1, new Uint32Array(64)),
    ],
    workgroups: [1, 1, 1],
    threads: [8, 8],
  },
  {
    name:
      "tfjs-backend-webgpu program shape: entry _start calling a user fn main(index), private builtins",
    source: `
var<private> localId: vec3<u32>;
var<private> localIndex: u32;
var<private> globalId: vec3<u32>;
var<private> numWorkgroups: vec3<u32>;
var<private> workgroupId: vec3<u32>;
fn getGlobalIndex() -> i32 {
  return i32((workgroupId.z * numWorkgroups.x * numWorkgroups.y + workgroupId.y * numWorkgroups.x + workgroupId.x) * 64u + localIndex);
}
struct Uniforms { NAN : f32, INFINITY : f32, aShape : i32, bShape : i32, outShape : i32, size : i32, };
@group(0) @binding(0) var<storage, read_write> result: array<f32>;
@group(0) @binding(1) var<storage, read> A: array<f32>;
@group(0) @binding(2) var<storage, read> B: array<f32>;
@group(0) @binding(3) var<uniform> uniforms: Uniforms;
override workgroupSizeX = 64;
@compute @workgroup_size(workgroupSizeX, 1, 1)
fn _start(@builtin(local_invocation_id) LocalId : vec3<u32>, @builtin(global_invocation_id) GlobalId : vec3<u32>, @builtin(local_invocation_index) LocalIndex: u32, @builtin(workgroup_id) WorkgroupId : vec3<u32>, @builtin(num_workgroups) NumWorkgroups : vec3<u32>) {
  localId = LocalId; localIndex = LocalIndex; globalId = GlobalId; numWorkgroups = NumWorkgroups; workgroupId = WorkgroupId;
  main(getGlobalIndex());
}
fn binaryOperation(a : f32, b : f32) -> f32 { return a * b; }
fn main(index : i32) {
  if (index < uniforms.size) {
    let a = A[index % uniforms.aShape];
    let b = B[index % uniforms.bShape];
    result[index] = binaryOperation(a, b);
  }
}`,
    plain: [
      B(0, 0, new Float32Array(300)),
      B(0, 1, f(300, 0.5)),
      B(0, 2, f(30, 0.25, 1)),
      B(0, 3, new Int32Array([0x7fc00000, 0x7f800000, 300, 30, 300, 300]), true),
    ],
    workgroups: [5, 1, 1],
    threads: 300,
    params: { NAN: NaN, INFINITY: Infinity, aShape: 300, bShape: 30, outShape: 300, size: 300 },
  },
  {
    name: "wgpu hello_synchronization (storageBarrier, workgroupBarrier, two entry points)",
    source: `
@group(0) @binding(0) var<storage, read_write> output: array<u32>;
var<workgroup> count: atomic<u32>;
@compute @workgroup_size(16)
fn patient_main(@builtin(local_invocation_id) local_id: vec3<u32>) {
    atomicAdd(&count, 1u);
    workgroupBarrier();
    if (local_id.x == 0u) { output[0] = atomicLoad(&count); }
}
@compute @workgroup_size(16)
fn hasty_main(@builtin(local_invocation_id) local_id: vec3<u32>) {
    atomicAdd(&count, 1u);
    if (local_id.x == 0u) { output[1] = 7u; }
}`,
    entryPoint: "patient_main",
    plain: [B(0, 0, new Uint32Array(2))],
    workgroups: [1, 1, 1],
    threads: 16,
  },
  {
    name: "uniform array of structs (lights), vec3u then u32, mat3x3",
    source: `
struct Light { pos: vec3f, intensity: f32, color: vec2f }
struct Scene { lights: array<Light, 3>, count: vec3u, n: u32, m: mat3x3f }
@group(0) @binding(0) var<uniform> scene: Scene;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(3)
fn main(@builtin(local_invocation_index) i: u32) {
  let l = scene.lights[i];
  out[i] = l.pos.x + l.pos.z * 10.0 + l.intensity * 100.0 + l.color.y * 1000.0 + f32(scene.count.z + scene.n) + scene.m[i].z;
}`,
    plain: [
      B(
        0,
        0,
        new Float32Array([
          1,
          2,
          3,
          4,
          5,
          6,
          0,
          0,
          7,
          8,
          9,
          10,
          11,
          12,
          0,
          0,
          13,
          14,
          15,
          16,
          17,
          18,
          0,
          0,
          1.4e-45,
          2.8e-45,
          4.2e-45,
          5.6e-45,
          1,
          2,
          3,
          0,
          4,
          5,
          6,
          0,
          7,
          8,
          9,
          0,
        ]),
        true,
      ),
      B(0, 1, new Float32Array(3)),
    ],
    workgroups: [1, 1, 1],
    threads: 3,
    params: {
      lights: [{ pos: [1, 2, 3], intensity: 4, color: [5, 6] }, {
        pos: [7, 8, 9],
        intensity: 10,
        color: [11, 12],
      }, { pos: [13, 14, 15], intensity: 16, color: [17, 18] }],
      count: [1, 2, 3],
      n: 4,
      m: [1, 2, 3, 4, 5, 6, 7, 8, 9],
    },
  },
  {
    name: "render+compute module (vertex/fragment entries share bindings), sine-field particles",
    source: `
struct Particle { pos: vec2<f32>, vel: vec2<f32>, };
struct Uniforms { w: f32, h: f32, dpr: f32, color: vec4<f32>, };
@group(0) @binding(0) var<storage, read_write> particles: array<Particle>;
@group(0) @binding(1) var<uniform> uniforms: Uniforms;
@group(1) @binding(0) var<uniform> camera: mat4x4<f32>;
@compute @workgroup_size(256)
fn update(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= arrayLength(&particles)) { return; }
  var p = particles[i];
  let k: f32 = 0.002; let amp: f32 = 4.0; let dt: f32 = 1.0/120.0;
  p.vel.x += sin(p.pos.y * k) * amp * dt;
  p.vel.y += cos(p.pos.x * k) * amp * dt;
  let w: f32 = uniforms.w; let h: f32 = uniforms.h;
  p.pos += p.vel * dt;
  if (p.pos.x < 0.0)  { p.pos.x += w; }
  if (p.pos.x > w)    { p.pos.x -= w; }
  if (p.pos.y < 0.0)  { p.pos.y += h; }
  if (p.pos.y > h)    { p.pos.y -= h; }
  particles[i] = p;
}
@vertex
fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
  let p = particles[i].pos;
  return camera * vec4<f32>(p.x / uniforms.w * 2.0 - 1.0, 1.0 - p.y / uniforms.h * 2.0, 0.0, 1.0);
}
@fragment
fn fs() -> @location(0) vec4<f32> { return uniforms.color; }`,
    plain: [
      B(0, 0, f(1200, 3.7, -20)),
      B(0, 1, new Float32Array([300, 200, 1, 0, 1, 0.5, 0.25, 1]), true),
    ],
    workgroups: [2, 1, 1],
    threads: 300,
    params: { w: 300, h: 200, dpr: 1, color: [1, 0.5, 0.25, 1] },
  },
  {
    name: "scalar uniforms (f32, vec2u) next to a struct uniform, in group 1",
    source: `
struct Cfg { bias: f32, n: u32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(1) @binding(0) var<uniform> scale: f32;
@group(1) @binding(1) var<uniform> dims: vec2u;
@group(1) @binding(2) var<uniform> cfg: Cfg;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x < cfg.n) { y[g.x] = x[g.x] * scale + cfg.bias + f32(dims.x * dims.y); }
}`,
    plain: [
      B(0, 0, f(100)),
      B(0, 1, new Float32Array(100)),
      B(1, 0, new Float32Array([2.5]), true),
      B(1, 1, new Uint32Array([3, 4]), true),
      B(1, 2, new Float32Array([0.25, 1.4e-43]), true),
    ],
    workgroups: [2, 1, 1],
    threads: 100,
    params: { scale: 2.5, dims: [3, 4], cfg: { bias: 0.25, n: 100 } },
  },
  {
    name:
      "webgpufundamentals histogram (const chunk sizes, workgroup atomics, texture at const-expression binding, Unicode texture name)",
    source: `
const chunkWidth = 16;
const chunkHeight = 16;
const chunkSize = chunkWidth * chunkHeight;
const T = 1u;
var<workgroup> bins: array<atomic<u32>, chunkSize>;
@group(0) @binding(0) var<storage, read_write> chunks: array<array<u32, chunkSize>>;
@group(0) @binding(T) var bildé: texture_2d<f32>;
const kSRGBLuminanceFactors = vec3f(0.2126, 0.7152, 0.0722);
fn srgbLuminance(color: vec3f) -> f32 { return saturate(dot(color, kSRGBLuminanceFactors)); }
@compute @workgroup_size(chunkWidth, chunkHeight, 1)
fn cs(@builtin(workgroup_id) workgroup_id: vec3u, @builtin(local_invocation_id) local_invocation_id: vec3u) {
  let size = textureDimensions(bildé, 0);
  let position = workgroup_id.xy * vec2u(chunkWidth, chunkHeight) + local_invocation_id.xy;
  if (all(position < size)) {
    let numBins = f32(chunkSize);
    let lastBinIndex = u32(numBins - 1);
    let color = textureLoad(bildé, position, 0);
    let v = srgbLuminance(color.rgb);
    let bin = min(u32(v * numBins), lastBinIndex);
    atomicAdd(&bins[bin], 1u);
  }
  workgroupBarrier();
  let chunksAcross = (size.x + chunkWidth - 1) / chunkWidth;
  let chunk = workgroup_id.y * chunksAcross + workgroup_id.x;
  let bin = local_invocation_id.y * chunkWidth + local_invocation_id.x;
  chunks[chunk][bin] = atomicLoad(&bins[bin]);
}`,
    plain: [B(0, 0, new Uint32Array(256 * 4)), {
      group: 0,
      binding: 1,
      texture: {
        width: 32,
        height: 32,
        format: "rgba8unorm",
        data: Uint8Array.from({ length: 32 * 32 * 4 }, (_, i) => (i * 91) & 255),
      },
    }],
    workgroups: [2, 2, 1],
    threads: [32, 32],
  },
];
