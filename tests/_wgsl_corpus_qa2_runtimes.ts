/**
 * The QA corpus, second wave, part 5: more ML runtimes' kernels (huggingface/ratchet,
 * cryscan/web-rwkv, milhidaka/webgpu-blas, webonnx/wonnx, tracel-ai/cubecl's generated WGSL), the
 * WGSL spec's literal forms, a uniform echo and Dawn's storage texture tests. Each is written
 * after the credited file (not copied).
 */
import { B, type CorpusCase, f, u } from "./_wgsl_corpus_qa_base.ts";

/** The bytes of the echo case's uniform `U` (160 bytes; offsets in its WGSL's comments). */
function uniformU(): Uint8Array<ArrayBuffer> {
  const view = new DataView(new ArrayBuffer(160));
  const f32 = (at: number, ...v: number[]) =>
    v.forEach((x, i) => view.setFloat32(at + 4 * i, x, true));
  const f16 = (at: number, ...v: number[]) =>
    v.forEach((x, i) => view.setFloat16(at + 2 * i, x, true));
  f32(0, 1, 2, 3); // m3: columns of 16 bytes
  f32(16, 4, 5, 6);
  f32(32, 7, 8, 9);
  f32(48, 10, 11, 12); // a3: stride 16
  f32(64, 13, 14, 15);
  f16(80, 0.5, 1.5, 2.5, 3.5); // h: mat2x2<f16>, 8 bytes
  f32(96, 16, 17, 18, 19, 20, 21, 22, 23); // k at 96 (@align(16)), stride 16
  view.setInt32(128, -1, true); // i: vec3i
  view.setInt32(132, -2, true);
  view.setInt32(136, 3, true);
  view.setUint32(140, 7, true); // b
  f16(144, 0.25, -0.75, 8, 1024); // ah: vec4<f16> at 144
  return new Uint8Array(view.buffer);
}

export const RUNTIMES: readonly CorpusCase[] = [
  {
    // Fixed: the const evaluator did not read hex floats (`0x1p4`), so an array count or a
    // @workgroup_size written with one was a CompilationError. The literal forms of the WGSL
    // spec's § Numeric literals (0x1p4, 0x1.8p1f, 0xa.fp+2, 0X1P-3).
    name: "spec hex float literals in an array count, a workgroup size and expressions",
    source: /* wgsl */ `
const SIXTEEN = 0x1p4;
const THREE = 0x1.8p1f;
@group(0) @binding(0) var<storage, read_write> o: array<f32, u32(SIXTEEN)>;
@compute @workgroup_size(u32(0x1p3))
fn main(@builtin(local_invocation_index) i: u32) {
  o[i] = f32(i) * THREE + 0xa.fp+2;
  o[i + 8u] = f32(i) * 0x.8p1 - 0X1P-3;
}`,
    plain: [B(0, 0, new Float32Array(16))],
    workgroups: [1, 1, 1],
    threads: 8,
  },
  {
    // After ratchet's softmax kernel: storage in group 0 and the metadata uniform in group 1,
    // a workgroup vec4 reduction in a helper that itself calls workgroupBarrier(), workgroup
    // scalars, a BLOCK_SIZE const in the workgroup size.
    name: "ratchet softmax (uniform in group 1, barrier inside a helper, workgroup vec4 smem)",
    source: /* wgsl */ `
@group(0) @binding(0) var<storage, read_write> X: array<vec4<f32>>;
struct Meta { M: u32, N: u32, ND4: u32, }
@group(1) @binding(0) var<uniform> metadata: Meta;
const BLOCK_SIZE = 32u;
var<workgroup> smem: array<vec4<f32>, BLOCK_SIZE>;
var<workgroup> maximum: f32;
var<workgroup> sum: f32;
fn block_sum(index: u32, stride: u32) {
    if index < stride { smem[index] += smem[index + stride]; }
    workgroupBarrier();
}
fn block_max(index: u32, stride: u32) {
    if index < stride { smem[index] = max(smem[index], smem[index + stride]); }
    workgroupBarrier();
}
@compute @workgroup_size(32, 1, 1)
fn main(@builtin(local_invocation_id) local_id: vec3<u32>, @builtin(workgroup_id) group_id: vec3<u32>) {
    let index = local_id.x;
    let row_start = group_id.x * metadata.ND4;
    smem[index] = vec4<f32>(-3.40282e38);
    for (var i: u32 = index; i < metadata.ND4; i += BLOCK_SIZE) { smem[index] = max(smem[index], X[row_start + i]); }
    workgroupBarrier();
    block_max(index, 16u); block_max(index, 8u); block_max(index, 4u); block_max(index, 2u); block_max(index, 1u);
    if index == 0u { maximum = max(max(smem[0].x, smem[0].y), max(smem[0].z, smem[0].w)); }
    workgroupBarrier();
    smem[index] = vec4<f32>(0.0);
    for (var i: u32 = index; i < metadata.ND4; i += BLOCK_SIZE) { smem[index] += exp(X[row_start + i] - maximum); }
    workgroupBarrier();
    block_sum(index, 16u); block_sum(index, 8u); block_sum(index, 4u); block_sum(index, 2u); block_sum(index, 1u);
    if index == 0u { sum = dot(smem[0], vec4<f32>(1.0)); }
    workgroupBarrier();
    for (var i: u32 = index; i < metadata.ND4; i += BLOCK_SIZE) { X[row_start + i] = exp(X[row_start + i] - maximum) / sum; }
}`,
    plain: [B(0, 0, f(6 * 40 * 4, 0.02, -1)), B(1, 0, new Uint32Array([6, 160, 40]), true)],
    workgroups: [6, 1, 1],
    params: { M: 6, N: 160, ND4: 40 },
  },
  {
    // After web-rwkv's shaders (e.g. layer_norm.wgsl): a non-struct vec4<u32> shape uniform,
    // f16 pairs packed in array<vec2<u32>> unpacked with unpack2x16float, an override without
    // a default sizing both the workgroup and a workgroup array.
    name:
      "web-rwkv (vec4<u32> shape uniform, packed f16 in vec2<u32>, override BLOCK_SIZE without default)",
    source: /* wgsl */ `
@group(0) @binding(0) var<uniform> shape: vec4<u32>; // [C / 4, T, B]
@group(0) @binding(1) var<storage, read> x: array<vec2<u32>>; // (B, T, C) as f16
@group(0) @binding(2) var<storage, read_write> output: array<vec4<f32>>; // (B, T, C)
override BLOCK_SIZE: u32;
var<workgroup> sketch: array<vec4<f32>, BLOCK_SIZE>;
fn unpack4x16float(v: vec2<u32>) -> vec4<f32> { return vec4<f32>(unpack2x16float(v.x), unpack2x16float(v.y)); }
fn reduce_sum(index: u32, stride: u32) {
    if index < stride { sketch[index] += sketch[index + stride]; }
    workgroupBarrier();
}
@compute @workgroup_size(BLOCK_SIZE, 1, 1)
fn main(@builtin(global_invocation_id) invocation_id: vec3<u32>, @builtin(workgroup_id) workgroup_id: vec3<u32>) {
    let stride = shape[0];
    let index = invocation_id.x;
    let token = workgroup_id.y;
    let batch = workgroup_id.z;
    let bb = (batch * shape[1] + token) * stride;
    var local_sum = vec4<f32>(0.0);
    for (var i = index; i < stride; i += BLOCK_SIZE) { local_sum += unpack4x16float(x[bb + i]); }
    sketch[index] = local_sum;
    workgroupBarrier();
    for (var s = BLOCK_SIZE >> 1u; s > 0u; s >>= 1u) { reduce_sum(index, s); }
    let mean = dot(sketch[0], vec4<f32>(1.0)) / f32(stride * 4u);
    for (var i = index; i < stride; i += BLOCK_SIZE) { output[bb + i] = unpack4x16float(x[bb + i]) - mean; }
}`,
    plain: [
      B(0, 0, new Uint32Array([24, 3, 2, 0]), true),
      B(
        0,
        1,
        Uint32Array.from(u(24 * 3 * 2 * 2, 0x7bff), (v) => ((v & 0x3fff) << 16) | (v & 0x37ff)),
      ),
      B(0, 2, new Float32Array(24 * 3 * 2 * 4)),
    ],
    workgroups: [1, 3, 2],
    constants: { BLOCK_SIZE: 16 },
    params: { shape: [24, 3, 2, 0] },
  },
  {
    // After webgpu-blas's sgemm shaders: the matrix sizes and alpha in a read-only storage
    // struct (not a uniform), vec4 rows, `var<storage,read>` without spaces.
    name: "webgpu-blas sgemm (meta in a read-only storage struct, array<vec4<f32>> rows)",
    source: /* wgsl */ `
struct CMeta { M: u32, N: u32, ND4: u32, KD4: u32, alpha: f32, }
@group(0) @binding(0) var<storage,read> array_a: array<vec4<f32>>;
@group(0) @binding(1) var<storage,read> array_b: array<vec4<f32>>;
@group(0) @binding(2) var<storage,read> cmeta: CMeta;
@group(0) @binding(3) var<storage,read_write> array_c: array<vec4<f32>>;
@compute @workgroup_size(8, 8, 1)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
  var M: u32 = cmeta.M;
  var ND4: u32 = cmeta.ND4;
  var KD4: u32 = cmeta.KD4;
  var x: u32 = global_id.x;
  var y: u32 = global_id.y;
  if (x >= ND4 || y >= M) { return; }
  var sum: vec4<f32> = vec4<f32>(0.0);
  for (var k = 0u; k < KD4; k = k + 1u) {
    var arow: vec4<f32> = array_a[y * KD4 + k];
    sum = sum + vec4<f32>(arow.x) * array_b[(k * 4u + 0u) * ND4 + x];
    sum = sum + vec4<f32>(arow.y) * array_b[(k * 4u + 1u) * ND4 + x];
    sum = sum + vec4<f32>(arow.z) * array_b[(k * 4u + 2u) * ND4 + x];
    sum = sum + vec4<f32>(arow.w) * array_b[(k * 4u + 3u) * ND4 + x];
  }
  array_c[x + y * ND4] = sum * cmeta.alpha;
}`,
    plain: [
      B(0, 0, f(12 * 16, 0.25, -3)),
      B(0, 1, f(16 * 8, 0.5, 1)),
      B(0, 2, new Uint32Array([12, 8, 2, 4, 0x3fc00000])),
      B(0, 3, new Float32Array(12 * 8)),
    ],
    workgroups: [1, 2, 1],
    threads: [8, 16],
  },
  {
    // After wonnx's templates (structs.wgsl: Array, ArrayVector, ArrayMatrix wrappers) as its
    // Gemm/MatMul kernels use them: runtime arrays of mat4x4<f32> and vec4 inside structs.
    name: "wonnx matrix-vector (struct-wrapped array<mat4x4<f32>> and array<vec4<f32>>)",
    source: /* wgsl */ `
struct Array { data: array<f32>, };
struct ArrayVector { data: array<vec4<f32>>, };
struct ArrayMatrix { data: array<mat4x4<f32>>, };
@group(0) @binding(0) var<storage, read> input_0: ArrayMatrix;
@group(0) @binding(1) var<storage, read> input_1: ArrayVector;
@group(0) @binding(2) var<storage, read> input_2: Array;
@group(0) @binding(3) var<storage, read_write> output_0: ArrayVector;
@compute @workgroup_size(16, 1, 1)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
  let gidx = global_id.x;
  if (gidx >= arrayLength(&output_0.data)) { return; }
  var product = vec4<f32>(0.0);
  for (var k: u32 = 0u; k < 2u; k = k + 1u) {
    product = product + input_0.data[gidx * 2u + k] * input_1.data[k];
  }
  output_0.data[gidx] = product + vec4<f32>(input_2.data[gidx % 4u]);
}`,
    plain: [
      B(0, 0, f(20 * 2 * 16, 0.125, -2)),
      B(0, 1, f(8, 1)),
      B(0, 2, f(4, 0.5)),
      B(0, 3, new Float32Array(20 * 4)),
    ],
    workgroups: [2, 1, 1],
    threads: 20,
  },
  {
    // After CubeCL's WGSL compiler output (cubecl-wgpu): buffers named `buffer_N_global`, the
    // scalars in a fixed-size storage array, an `info` runtime array, `let _0 = ...` locals,
    // a trailing comma after the last entry parameter, local_invocation_index + workgroup ids.
    name:
      "CubeCL generated kernel (buffer_N_global, array<u32, 2> scalars binding, info, trailing comma)",
    source: /* wgsl */ `
@group(0) @binding(0) var<storage, read_write> buffer_0_global: array<f32>;
@group(0) @binding(1) var<storage, read_write> buffer_1_global: array<f32>;
@group(0) @binding(2) var<storage, read_write> info: array<u32>;
@group(0) @binding(3) var<storage, read_write> scalars_u32: array<u32, 2>;
const WORKGROUP_SIZE_X = 64u;
const WORKGROUP_SIZE_Y = 1u;
const WORKGROUP_SIZE_Z = 1u;
@compute
@workgroup_size(64, 1, 1)
fn main(
    @builtin(local_invocation_index) local_idx: u32,
    @builtin(workgroup_id) workgroup_id: vec3<u32>,
    @builtin(num_workgroups) num_workgroups: vec3<u32>,
) {
    let id = (workgroup_id.z * num_workgroups.x * num_workgroups.y) + (workgroup_id.y * num_workgroups.x) + workgroup_id.x;
    let absolute_pos = id * 64u + local_idx;
    let _0 = info[0u];
    let _1 = absolute_pos < _0;
    if _1 {
        let _2 = buffer_0_global[absolute_pos];
        let _3 = f32(scalars_u32[0u]) * _2;
        let _4 = _3 + f32(scalars_u32[1u]);
        var l_0_0: f32;
        l_0_0 = select(_4, 0.0, _4 < 0.0);
        buffer_1_global[absolute_pos] = l_0_0;
    }
}`,
    plain: [
      B(0, 0, f(100, 0.5, -20)),
      B(0, 1, new Float32Array(100)),
      B(0, 2, new Uint32Array([100])),
      B(0, 3, new Uint32Array([3, 7])),
    ],
    workgroups: [2, 1, 1],
    threads: 128,
  },
  {
    // After naga's tests/in/wgsl/globals.wgsl and Dawn's ComputeLayoutMemoryBufferTests
    // (uniform matrices, arrays of vec3 and of matrices, f16 matrices and vectors): every
    // scalar of one uniform echoed, so each param offset is checked against the device's.
    name:
      "uniform of mat3x3f, array<vec3f>, mat2x2<f16>, @align(16) array<mat2x2f>, vec3i, vec4<f16>",
    source: /* wgsl */ `
enable f16;
struct U {
  m3: mat3x3f,
  a3: array<vec3f, 2>,
  h: mat2x2<f16>,
  @align(16) k: array<mat2x2f, 2>,
  i: vec3i,
  b: u32,
  ah: vec4<f16>,
}
@group(0) @binding(0) var<uniform> u: U;
@group(0) @binding(1) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(1)
fn main() {
  var n = 0u;
  for (var c = 0; c < 3; c++) { for (var r = 0; r < 3; r++) { o[n] = u.m3[c][r]; n++; } }
  for (var e = 0; e < 2; e++) { o[n] = u.a3[e].x; o[n + 1] = u.a3[e].y; o[n + 2] = u.a3[e].z; n += 3; }
  let h = mat2x2f(u.h);
  o[n] = h[0].x; o[n + 1] = h[0].y; o[n + 2] = h[1].x; o[n + 3] = h[1].y; n += 4;
  for (var e = 0; e < 2; e++) { let k = u.k[e]; o[n] = k[0].x; o[n + 1] = k[0].y; o[n + 2] = k[1].x; o[n + 3] = k[1].y; n += 4; }
  o[n] = f32(u.i.x); o[n + 1] = f32(u.i.y); o[n + 2] = f32(u.i.z); o[n + 3] = f32(u.b);
  let ah = vec4f(u.ah);
  o[n + 4] = ah.x; o[n + 5] = ah.y; o[n + 6] = ah.z; o[n + 7] = ah.w;
}`,
    plain: [B(0, 0, uniformU(), true), B(0, 1, new Float32Array(36))],
    workgroups: [1, 1, 1],
    threads: 1,
    params: {
      m3: [1, 2, 3, 4, 5, 6, 7, 8, 9],
      a3: [[10, 11, 12], [13, 14, 15]],
      h: [0.5, 1.5, 2.5, 3.5],
      k: [[16, 17, 18, 19], [20, 21, 22, 23]],
      i: [-1, -2, 3],
      b: 7,
      ah: [0.25, -0.75, 8, 1024],
    },
    features: ["shader-f16"],
  },
  {
    // After Dawn's end2end StorageTextureTests (read-write storage textures, integer formats)
    // and webgpufundamentals.org "Storage Textures": an r32sint read_write texture updated in
    // place, a texture_2d<u32> of rgba8uint read with textureLoad, an rg32float written, the
    // sizes from textureDimensions.
    name:
      "Dawn StorageTextureTests (r32sint read_write, texture_2d<u32> rgba8uint, rg32float write)",
    source: /* wgsl */ `
@group(0) @binding(0) var counts: texture_storage_2d<r32sint, read_write>;
@group(0) @binding(1) var lut: texture_2d<u32>;
@group(0) @binding(2) var flow: texture_storage_2d<rg32float, write>;
@compute @workgroup_size(4, 4)
fn main(@builtin(global_invocation_id) g: vec3u) {
  let size = textureDimensions(counts);
  if (any(g.xy >= size)) { return; }
  let c = textureLoad(counts, g.xy).x;
  let l = textureLoad(lut, g.xy % textureDimensions(lut, 0), 0);
  textureStore(counts, g.xy, vec4i(c * 3 - i32(l.r) + i32(l.a), 0, 0, 0));
  textureStore(flow, g.xy, vec4f(f32(l.g) / 255.0, f32(c) * 0.5, 0.0, 0.0));
}`,
    plain: [
      {
        group: 0,
        binding: 0,
        texture: {
          width: 8,
          height: 8,
          format: "r32sint",
          data: Int32Array.from(u(64, 200), (x) => x - 100),
        },
        storage: true,
      },
      {
        group: 0,
        binding: 1,
        texture: { width: 4, height: 4, format: "rgba8uint", data: Uint8Array.from(u(64, 256)) },
      },
      {
        group: 0,
        binding: 2,
        texture: { width: 8, height: 8, format: "rg32float" },
        storage: true,
      },
    ],
    workgroups: [2, 2, 1],
    threads: [8, 8],
  },
];
