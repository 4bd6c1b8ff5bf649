/**
 * The QA corpus, part 2: generated kernels of ML and graphics libraries (tfjs-backend-webgpu,
 * onnxruntime-web, TVM/WebLLM, three.js, Bevy) and layout edge cases (see `_wgsl_corpus_qa.ts`).
 */
import { B, type CorpusCase, f } from "./_wgsl_corpus_qa_base.ts";

export const LIBRARIES: readonly CorpusCase[] = [
  {
    name:
      "onnxruntime-web elementwise (vec4 arrays, array<vec4<u32>,2> shape uniforms, flattened workgroup index)",
    source: `
enable f16;
struct Uniforms { vec_size: u32, a_shape: array<vec4<u32>, 2>, a_strides: array<vec4<u32>, 2>, alpha: f32 };
@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> outputData: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> uniforms: Uniforms;
fn i2o_a(indices: vec4<u32>) -> u32 { return uniforms.a_strides[0].x * indices.x + uniforms.a_strides[0].y * indices.y + uniforms.a_strides[0].z * indices.z + indices.w; }
@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) global_id : vec3<u32>, @builtin(workgroup_id) workgroup_id : vec3<u32>, @builtin(local_invocation_index) local_idx : u32, @builtin(local_invocation_id) local_id : vec3<u32>, @builtin(num_workgroups) num_workgroups : vec3<u32>) {
  let global_idx = (workgroup_id.z * num_workgroups[0] * num_workgroups[1] + workgroup_id.y * num_workgroups[0] + workgroup_id.x) * 64u + local_idx;
  if (global_idx >= uniforms.vec_size) { return; }
  let v = a[global_idx];
  outputData[global_idx] = select(v * uniforms.alpha, v, v >= vec4<f32>(0.0)) + vec4<f32>(f32(uniforms.a_shape[1].y), f32(i2o_a(vec4<u32>(0u, 0u, 1u, 1u))), 0.0, 0.0);
}`,
    plain: [
      B(0, 0, f(400, 0.1, -5)),
      B(0, 1, new Float32Array(400)),
      B(
        0,
        2,
        new Uint32Array([
          100,
          0,
          0,
          0,
          1,
          2,
          3,
          4,
          5,
          6,
          7,
          8,
          40,
          20,
          4,
          1,
          0,
          0,
          0,
          0,
          0x3dcccccd,
          0,
          0,
          0,
        ]),
        true,
      ),
    ],
    workgroups: [2, 1, 1],
    threads: 100,
    params: {
      vec_size: 100,
      a_shape: [[1, 2, 3, 4], [5, 6, 7, 8]],
      a_strides: [[40, 20, 4, 1], [0, 0, 0, 0]],
      alpha: 0.1,
    },
    features: ["shader-f16"],
  },
  {
    name: "TVM/WebLLM generated kernel (PODArgs uniform, blockIdx names, packGridDimX)",
    source: `
@group(0) @binding(0) var<storage, read_write> T_add : array<f32>;
@group(0) @binding(1) var<storage, read> A : array<f32>;
@group(0) @binding(2) var<storage, read> B : array<f32>;
struct PODArgs { n: i32, packGridDimX: u32 }
@group(0) @binding(3) var<uniform> podArgs : PODArgs;
@compute @workgroup_size(256, 1, 1)
fn add_kernel(@builtin(workgroup_id) blockIdx : vec3<u32>, @builtin(num_workgroups) gridDim : vec3<u32>, @builtin(local_invocation_id) threadIdx : vec3<u32>) {
  if (blockIdx.z * gridDim.x + blockIdx.x > podArgs.packGridDimX) { return; }
  let v__1 : i32 = i32(blockIdx.z * gridDim.x + blockIdx.x);
  if (((v__1 * 256i) + i32(threadIdx.x)) < podArgs.n) {
    T_add[((v__1 * 256i) + i32(threadIdx.x))] = (A[((v__1 * 256i) + i32(threadIdx.x))] + B[((v__1 * 256i) + i32(threadIdx.x))]);
  }
}`,
    plain: [
      B(0, 0, new Float32Array(1000)),
      B(0, 1, f(1000, 0.5)),
      B(0, 2, f(1000, 0.25, 1)),
      B(0, 3, new Int32Array([1000, 3]), true),
    ],
    workgroups: [4, 1, 1],
    threads: 1000,
    params: { n: 1000, packGridDimX: 3 },
  },
  {
    name:
      "three.js WebGPURenderer compute (binding before group, spaced attributes, var<private> instanceIndex)",
    source: `
// global
var<private> instanceIndex : u32;
// uniforms
struct NodeBuffer_6Struct { value : array< vec3<f32> > };
@binding( 0 ) @group( 0 )
var<storage, read_write> NodeBuffer_6 : NodeBuffer_6Struct;
struct NodeBuffer_7Struct { value : array< vec4<f32> > };
@binding( 1 ) @group( 0 )
var<storage, read_write> NodeBuffer_7 : NodeBuffer_7Struct;
// codes
@compute @workgroup_size( 64, 1, 1 )
fn main( @builtin( global_invocation_id ) id : vec3<u32>,
	@builtin( workgroup_id ) workgroupId : vec3<u32>,
	@builtin( local_invocation_id ) localId : vec3<u32>,
	@builtin( num_workgroups ) numWorkgroups : vec3<u32> ) {
	// system
	instanceIndex = id.x + id.y * numWorkgroups.x * u32(64) + id.z * numWorkgroups.x * numWorkgroups.y * u32(64);
	// vars
	var nodeVar0 : vec3<f32>;
	// flow
	// code
	if ( instanceIndex >= 200u ) { return; }
	nodeVar0 = NodeBuffer_6.value[ instanceIndex ];
	NodeBuffer_6.value[ instanceIndex ] = ( nodeVar0 + ( NodeBuffer_7.value[ instanceIndex ].xyz * vec3<f32>( 0.016 ) ) );
}`,
    plain: [B(0, 0, f(800, 0.1)), B(0, 1, f(800, 0.3, 1))],
    workgroups: [4, 1, 1],
    threads: 200,
  },
  {
    name: "atomic<u32> scalar counter binding + struct-header storage (count, runtime array)",
    source: `
struct Out { count: u32, pad: u32, values: array<vec2<f32>> }
@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> counter: atomic<u32>;
@group(0) @binding(2) var<storage, read_write> out: Out;
@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x >= arrayLength(&input)) { return; }
  if (input[id.x] > 50.0) { atomicAdd(&counter, 1u); }
  out.values[id.x] = vec2f(input[id.x], f32(arrayLength(&out.values)));
  if (id.x == 0u) { out.count = arrayLength(&input); }
}`,
    plain: [B(0, 0, f(100)), B(0, 1, new Uint32Array(1)), B(0, 2, new Float32Array(2 + 200))],
    workgroups: [4, 1, 1],
    threads: 100,
  },
  {
    name: "naga bits.wgsl pack/unpack + extractBits/insertBits/countOneBits, firstLeadingBit",
    source: `
@group(0) @binding(0) var<storage, read> inp: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<u32>>;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let v = inp[gid.x];
  let p1 = pack4x8snorm(v * 0.01);
  let p2 = pack4x8unorm(fract(v));
  let p3 = pack2x16snorm(v.xy * 0.001);
  let p4 = pack2x16float(v.zw);
  let u1 = unpack2x16float(p4);
  let i = bitcast<u32>(v.x);
  out[gid.x] = vec4<u32>(p1 ^ p2, p3, insertBits(i, countOneBits(p4), 5u, 7u), extractBits(i, 3u, 9u) + firstLeadingBit(i) + bitcast<u32>(u1.y) + reverseBits(p2));
}`,
    plain: [B(0, 0, f(64, 1.37, -40)), B(0, 1, new Uint32Array(64))],
    workgroups: [16, 1, 1],
    threads: 16,
  },
  {
    name: "Bevy compute game of life (storage textures read/write, two entry points: update)",
    source: `
@group(0) @binding(0) var input: texture_storage_2d<r32float, read>;
@group(0) @binding(1) var output: texture_storage_2d<r32float, write>;
fn hash(value: u32) -> u32 {
    var state = value;
    state = state ^ 2747636419u; state = state * 2654435769u; state = state ^ state >> 16u;
    state = state * 2654435769u; state = state ^ state >> 16u; state = state * 2654435769u;
    return state;
}
fn randomFloat(value: u32) -> f32 { return f32(hash(value)) / 4294967295.0; }
@compute @workgroup_size(8, 8, 1)
fn init(@builtin(global_invocation_id) invocation_id: vec3<u32>, @builtin(num_workgroups) num_workgroups: vec3<u32>) {
    let location = vec2<i32>(i32(invocation_id.x), i32(invocation_id.y));
    let randomNumber = randomFloat(invocation_id.y << 16u | invocation_id.x);
    let alive = randomNumber > 0.9;
    let color = vec4<f32>(f32(alive));
    textureStore(output, location, color);
}
fn is_alive(location: vec2<i32>, offset_x: i32, offset_y: i32) -> i32 {
    let value: vec4<f32> = textureLoad(input, location + vec2<i32>(offset_x, offset_y));
    return i32(value.x);
}
fn count_alive(location: vec2<i32>) -> i32 {
    return is_alive(location, -1, -1) + is_alive(location, -1,  0) + is_alive(location, -1,  1) +
           is_alive(location,  0, -1) + is_alive(location,  0,  1) + is_alive(location,  1, -1) +
           is_alive(location,  1,  0) + is_alive(location,  1,  1);
}
@compute @workgroup_size(8, 8, 1)
fn update(@builtin(global_invocation_id) invocation_id: vec3<u32>) {
    let location = vec2<i32>(i32(invocation_id.x), i32(invocation_id.y));
    let n_alive = count_alive(location);
    var alive: bool;
    if (n_alive == 3) { alive = true; } else if (n_alive == 2) {
        let currently_alive = is_alive(location, 0, 0);
        alive = bool(currently_alive);
    } else { alive = false; }
    let color = vec4<f32>(f32(alive));
    textureStore(output, location, color);
}`,
    entryPoint: "update",
    plain: [
      {
        group: 0,
        binding: 0,
        texture: {
          width: 16,
          height: 16,
          format: "r32float",
          data: Float32Array.from({ length: 256 }, (_, i) => ((i * 7) % 3 === 0 ? 1 : 0)),
        },
        storage: true,
      },
      {
        group: 0,
        binding: 1,
        texture: { width: 16, height: 16, format: "r32float" },
        storage: true,
      },
    ],
    workgroups: [2, 2, 1],
    threads: [16, 16],
  },
  {
    name: "webgpu-samples imageBlur (sampler, two uniforms in two groups, workgroup tile)",
    source: `
struct Params { filterDim : i32, blockDim : u32, }
@group(0) @binding(0) var samp : sampler;
@group(0) @binding(1) var<uniform> params : Params;
@group(1) @binding(1) var inputTex : texture_2d<f32>;
@group(1) @binding(2) var outputTex : texture_storage_2d<rgba8unorm, write>;
struct Flip { value : u32, }
@group(1) @binding(3) var<uniform> flip : Flip;
var<workgroup> tile : array<array<vec3f, 128>, 4>;
@compute @workgroup_size(32, 1, 1)
fn main(@builtin(workgroup_id) WorkGroupID : vec3u, @builtin(local_invocation_id) LocalInvocationID : vec3u) {
  let filterOffset = (params.filterDim - 1) / 2;
  let dims = vec2i(textureDimensions(inputTex, 0));
  let baseIndex = vec2i(WorkGroupID.xy * vec2(params.blockDim, 4) + LocalInvocationID.xy * vec2(4, 1)) - vec2(filterOffset, 0);
  for (var r = 0; r < 4; r++) {
    for (var c = 0; c < 4; c++) {
      var loadIndex = baseIndex + vec2(c, r);
      if (flip.value != 0u) { loadIndex = loadIndex.yx; }
      tile[r][4 * LocalInvocationID.x + u32(c)] = textureSampleLevel(inputTex, samp, (vec2f(loadIndex) + vec2f(0.25, 0.25)) / vec2f(dims), 0.0).rgb;
    }
  }
  workgroupBarrier();
  for (var r = 0; r < 4; r++) {
    for (var c = 0; c < 4; c++) {
      var writeIndex = baseIndex + vec2(c, r);
      if (flip.value != 0) { writeIndex = writeIndex.yx; }
      let center = i32(4 * LocalInvocationID.x) + c;
      if (center >= filterOffset && center < 128 - filterOffset && all(writeIndex < dims)) {
        var acc = vec3(0.0);
        for (var f = 0; f < params.filterDim; f++) {
          var i = center + f - filterOffset;
          acc = acc + (1.0 / f32(params.filterDim)) * tile[r][i];
        }
        textureStore(outputTex, writeIndex, vec4(acc, 1.0));
      }
    }
  }
}`,
    plain: [
      { group: 0, binding: 0, sampler: { magFilter: "linear", minFilter: "linear" } },
      B(0, 1, new Int32Array([15, 128 - 14]), true),
      {
        group: 1,
        binding: 1,
        texture: {
          width: 64,
          height: 32,
          format: "rgba8unorm",
          data: Uint8Array.from({ length: 64 * 32 * 4 }, (_, i) => (i * 73) & 255),
        },
      },
      {
        group: 1,
        binding: 2,
        texture: { width: 64, height: 32, format: "rgba8unorm" },
        storage: true,
      },
      B(1, 3, new Uint32Array([0]), true),
    ],
    workgroups: [1, 8, 1],
    samplers: { samp: { magFilter: "linear", minFilter: "linear" } },
    params: { params: { filterDim: 15, blockDim: 114 }, flip: { value: 0 } },
  },
  {
    name: "explicit @size/@align uniform fields, vec3 then f32, @align(16) nested struct",
    source: `
struct Inner { x: f32, y: f32 }
struct U { @size(16) a: f32, @align(16) b: f32, c: vec3<f32>, d: f32, @align(16) inner: Inner, @align(16) e: u32, m: mat2x2<f32>, k: vec2<f32> }
@group(0) @binding(0) var<uniform> u: U;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(1)
fn main() { out[0] = u.a; out[1] = u.b; out[2] = u.c.z; out[3] = u.d; out[4] = u.inner.y; out[5] = f32(u.e); out[6] = u.m[1].x; out[7] = u.k.y; }`,
    plain: [
      B(
        0,
        0,
        new Float32Array([
          1,
          0,
          0,
          0,
          2,
          0,
          0,
          0,
          3,
          4,
          5,
          6,
          7,
          8,
          0,
          0,
          1.4e-45,
          0,
          9,
          10,
          11,
          12,
          13,
          14,
        ]),
        true,
      ),
      B(0, 1, new Float32Array(8)),
    ],
    workgroups: [1, 1, 1],
    threads: 1,
    params: {
      a: 1,
      b: 2,
      c: [3, 4, 5],
      d: 6,
      inner: { x: 7, y: 8 },
      e: 1,
      m: [9, 10, 11, 12],
      k: [13, 14],
    },
  },
  {
    name: "nested block comments hiding bindings, unicode identifiers",
    source: `
/* outer /* inner @group(0) @binding(0) var<storage, read_write> fake: array<f32>; */
   @group(0) @binding(1) var<storage, read_write> fake2: array<f32>; */
@group(0) @binding(2) var<storage, read> données: array<f32>;
// @group(0) @binding(3) var<storage, read_write> fake3: array<f32>;
@group(0) @binding(4) var<storage, read_write> résultat: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < arrayLength(&résultat)) { résultat[id.x] = données[id.x] * 2.0 + 1.0; }
}`,
    plain: [B(0, 2, f(100)), B(0, 4, new Float32Array(100))],
    workgroups: [2, 1, 1],
    threads: 100,
  },
  {
    name: "f16 storage (vec3<f16> stride 8) and f16 uniform fields",
    source: `
enable f16;
struct U { a: f16, b: f16, c: vec2<f16>, d: f32, e: vec3<f16> }
@group(0) @binding(0) var<storage, read> x: array<vec3<f16>>;
@group(0) @binding(1) var<storage, read_write> y: array<f16>;
@group(0) @binding(2) var<uniform> u: U;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x >= arrayLength(&y)) { return; }
  let v = x[id.x];
  y[id.x] = v.x * u.a + v.y * u.b + v.z * u.c.y + f16(u.d) + u.e.z;
}`,
    plain: [
      B(0, 0, Float16Array.from({ length: 80 }, (_, i) => (i % 13) * 0.25)),
      B(0, 1, new Float16Array(20)),
      B(0, 2, new Float16Array([1.5, -2, 0.5, 0.25, 0, 0, 0, 0, 1, 2, 3, 0]), true),
    ],
    workgroups: [3, 1, 1],
    threads: 20,
    params: { a: 1.5, b: -2, c: [0.5, 0.25], d: 0, e: [1, 2, 3] },
    features: ["shader-f16"],
  },
];
