/**
 * The QA corpus, second wave, part 2: ML kernels as their libraries write or generate them
 * (AnswerDotAI/gpu.cpp, microsoft/onnxruntime's WebGPU EP, tracel-ai/burn and CubeCL,
 * huggingface/ratchet, cryscan/web-rwkv, milhidaka/webgpu-blas, webonnx/wonnx). Each is written
 * after the credited file (templates instantiated, not copied), sized to run fast.
 */
import { B, type CorpusCase, f } from "./_wgsl_corpus_qa_base.ts";

/** A u32 view of mixed u32/f32 uniform words (`[1, 2.5]`: u32 1, then f32 2.5 where marked). */
function words(values: readonly (number | { f: number })[]): Uint32Array<ArrayBuffer> {
  const out = new Uint32Array(Math.ceil(values.length / 4) * 4);
  const floats = new Float32Array(out.buffer);
  values.forEach((v, i) => typeof v === "number" ? (out[i] = v) : (floats[i] = v.f));
  return out;
}

export const ML: readonly CorpusCase[] = [
  {
    // After gpu.cpp experimental/kernels/kernels.h kShaderGelu ({{precision}} = f32,
    // {{workgroupSize}} = 256): a typed const, a literal with a leading dot, select().
    name: "gpu.cpp GELU (typed const, .044715 literal, select, arrayLength of an input)",
    source: /* wgsl */ `
const GELU_SCALING_FACTOR: f32 = 0.7978845608028654; // sqrt(2.0 / PI)
@group(0) @binding(0) var<storage, read_write> inp: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(256)
fn main(
    @builtin(global_invocation_id) GlobalInvocationID: vec3<u32>) {
    let i: u32 = GlobalInvocationID.x;
    if (i < arrayLength(&inp)) {
        let x: f32 = inp[i];
        out[i] = select(0.5 * x * (1.0 + tanh(GELU_SCALING_FACTOR
                  * (x + .044715 * x * x * x))), x, x > 10.0);
    }
}`,
    plain: [B(0, 0, f(300, 0.125, -6)), B(0, 1, new Float32Array(300))],
    workgroups: [2, 1, 1],
    threads: 300,
  },
  {
    // After gpu.cpp kernels.h kShaderSoftmax1: the uniform's struct declared after the
    // binding, a -3.0e38 const, `1.0f`, one invocation per row.
    name: "gpu.cpp softmax (uniform struct declared after its binding, 1.0f, -3.0e38 const)",
    source: /* wgsl */ `
@group(0) @binding(0) var<storage, read_write> inp : array<f32>;
@group(0) @binding(1) var<storage, read_write> out : array<f32>;
@group(0) @binding(2) var<uniform> params : Params;
struct Params {
    N: u32,
    C: u32,
};
const NEG_INFINITY: f32 = -3.0e38;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) global_id : vec3<u32>) {
    let N : u32 = params.N;
    let C : u32 = params.C;
    let i : u32 = global_id.x;
    if (i < N) {
        let inp_row_start : u32 = i * C;
        var maxval : f32 = NEG_INFINITY;
        for (var j : u32 = 0u; j < C; j++) { maxval = max(maxval, inp[inp_row_start + j]); }
        var sum : f32 = 0.0;
        for (var j : u32 = 0u; j < C; j++) {
            let exp_val : f32 = exp(inp[inp_row_start + j] - maxval);
            out[inp_row_start + j] = exp_val;
            sum += exp_val;
        }
        let norm : f32 = 1.0f / sum;
        for (var j : u32 = 0u; j < C; j++) { out[inp_row_start + j] *= norm; }
    }
}`,
    plain: [
      B(0, 0, f(70 * 16, 0.05, -2)),
      B(0, 1, new Float32Array(70 * 16)),
      B(0, 2, new Uint32Array([70, 16]), true),
    ],
    workgroups: [2, 1, 1],
    threads: 70,
    params: { N: 70, C: 16 },
  },
  {
    // After gpu.cpp kernels.h kShaderLayerNorm1: five bindings, the uniform last, its struct
    // after it, one invocation per row computing mean and rstd.
    name: "gpu.cpp LayerNorm (weight/bias bindings, Params after the uniform, rstd)",
    source: /* wgsl */ `
@group(0) @binding(0) var<storage, read_write> inp: array<f32>;
@group(0) @binding(1) var<storage, read_write> weight: array<f32>;
@group(0) @binding(2) var<storage, read_write> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@group(0) @binding(4) var<uniform> params: Params;
struct Params { N: u32, C: u32, };
@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) GlobalInvocationID: vec3<u32>,
        @builtin(local_invocation_id) LocalInvocationID: vec3<u32>,
        @builtin(workgroup_id) WorkgroupID: vec3<u32>) {
    let idx: u32 = GlobalInvocationID.x;
    if (idx >= params.N) { return; }
    let C: u32 = params.C;
    var sum: f32 = 0.0;
    for (var i: u32 = 0; i < C; i = i + 1) { sum += inp[idx * C + i]; }
    let mean_val: f32 = sum / f32(C);
    sum = 0.0;
    for (var i: u32 = 0; i < C; i = i + 1) {
        let diff: f32 = inp[idx * C + i] - mean_val;
        sum += diff * diff;
    }
    let rstd_val: f32 = 1.0 / sqrt(sum / f32(C) + 1e-5);
    for (var i: u32 = 0; i < C; i = i + 1) {
        let n: f32 = rstd_val * (inp[idx * C + i] - mean_val);
        out[idx * C + i] = n * weight[i] + bias[i];
    }
}`,
    plain: [
      B(0, 0, f(40 * 24, 0.1, -3)),
      B(0, 1, f(24, 0.01, 0.5)),
      B(0, 2, f(24, 0.02, -1)),
      B(0, 3, new Float32Array(40 * 24)),
      B(0, 4, new Uint32Array([40, 24]), true),
    ],
    workgroups: [2, 1, 1],
    threads: 40,
    params: { N: 40, C: 24 },
  },
  {
    // After gpu.cpp examples/matmul/run.cpp's 2D block-tiling kernel (its {{BM}}, {{TM}}...
    // written as consts): workgroup tiles sized by const expressions, per-thread register
    // arrays, a const-expression @workgroup_size, a 2-D grid of workgroups.
    name: "gpu.cpp 2D-tiled matmul (const-expression tile sizes and workgroup size, local arrays)",
    source: /* wgsl */ `
const M = 32u; const K = 32u; const N = 32u;
const BM = 16u; const BN = 16u; const BK = 8u; const TM = 4u; const TN = 4u;
const NUM_THREADS = (BM * BN) / (TM * TN);
@group(0) @binding(0) var<storage, read_write> A: array<f32>;
@group(0) @binding(1) var<storage, read_write> B: array<f32>;
@group(0) @binding(2) var<storage, read_write> C: array<f32>;
var<workgroup> tileA: array<f32, BM * BK>;
var<workgroup> tileB: array<f32, BN * BK>;
@compute @workgroup_size(NUM_THREADS, 1, 1)
fn main(@builtin(local_invocation_id) localID: vec3<u32>, @builtin(workgroup_id) groupid: vec3<u32>) {
  var threadResults: array<f32, TM * TN>;
  var localM: array<f32, TM>;
  var localN: array<f32, TN>;
  let cRow = groupid.x; let cCol = groupid.y;
  let threadRow = localID.x / (BN / TN); let threadCol = localID.x % (BN / TN);
  var aPtr = cRow * BM * K; var bPtr = cCol * BN; let cPtr = cRow * BM * N + cCol * BN;
  for (var bkidx = 0u; bkidx < K; bkidx += BK) {
    for (var idx = localID.x; idx < BM * BK; idx += NUM_THREADS) {
      tileA[idx] = A[aPtr + (idx / BK) * K + idx % BK];
    }
    for (var idx = localID.x; idx < BN * BK; idx += NUM_THREADS) {
      tileB[idx] = B[bPtr + (idx / BN) * N + idx % BN];
    }
    aPtr += BK; bPtr += BK * N;
    workgroupBarrier();
    for (var dotIdx = 0u; dotIdx < BK; dotIdx++) {
      for (var i = 0u; i < TM; i++) { localM[i] = tileA[(threadRow * TM + i) * BK + dotIdx]; }
      for (var i = 0u; i < TN; i++) { localN[i] = tileB[dotIdx * BN + threadCol * TN + i]; }
      for (var resM = 0u; resM < TM; resM++) {
        for (var resN = 0u; resN < TN; resN++) { threadResults[resM * TN + resN] += localM[resM] * localN[resN]; }
      }
    }
    workgroupBarrier();
  }
  for (var resM = 0u; resM < TM; resM++) {
    for (var resN = 0u; resN < TN; resN++) {
      C[cPtr + (threadRow * TM + resM) * N + threadCol * TN + resN] = threadResults[resM * TN + resN];
    }
  }
}`,
    plain: [
      B(0, 0, f(32 * 32, 0.25, -10)),
      B(0, 1, f(32 * 32, 0.125, 2)),
      B(0, 2, new Float32Array(1024)),
    ],
    workgroups: [2, 2, 1],
  },
  {
    // After onnxruntime js/web/lib/wasm/jsep/webgpu/ops/softmax.ts's generated WGSL: an alias
    // for the value type, workgroup scalars and a reduction array, getValue/setValue helpers,
    // i32 uniform fields, one workgroup per row.
    name: "onnxruntime-web Softmax (alias x_value_t, workgroup reductions, i32 uniforms)",
    source: /* wgsl */ `
struct Uniforms { packedCols: i32, cols: i32 };
@group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> result: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> uniforms: Uniforms;
alias x_value_t = vec4<f32>;
var<workgroup> rowMaxShared: x_value_t;
var<workgroup> rowSumShared: x_value_t;
var<workgroup> threadShared: array<x_value_t, 64>;
fn getValue(row: i32, col: i32, row_stride: i32) -> x_value_t { return x[row * row_stride + col]; }
fn setValue(row: i32, col: i32, row_stride: i32, value: x_value_t) { result[row * row_stride + col] = value; }
@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>, @builtin(workgroup_id) workgroup_id: vec3<u32>,
        @builtin(local_invocation_index) local_idx: u32, @builtin(local_invocation_id) local_id: vec3<u32>,
        @builtin(num_workgroups) num_workgroups: vec3<u32>) {
  let gindex = i32(global_id.x);
  let lindex = i32(local_idx);
  const wg = 64;
  let row = gindex / wg;
  let cols = uniforms.packedCols;
  let row_stride: i32 = uniforms.packedCols;
  var threadMax = x_value_t(-3.402823e+38f);
  for (var col = lindex; col < cols; col += wg) { threadMax = max(getValue(row, col, row_stride), threadMax); }
  threadShared[lindex] = threadMax;
  workgroupBarrier();
  var reduceSize = min(cols, wg);
  for (var currSize = reduceSize >> 1; currSize > 0; currSize = reduceSize >> 1) {
    reduceSize = currSize + (reduceSize & 1);
    if (lindex < currSize) { threadShared[lindex] = max(threadShared[lindex], threadShared[lindex + reduceSize]); }
    workgroupBarrier();
  }
  if (lindex == 0) { rowMaxShared = x_value_t(max(max(threadShared[0].x, threadShared[0].y), max(threadShared[0].z, threadShared[0].w))); }
  workgroupBarrier();
  var threadSum = x_value_t(0.0);
  for (var col = lindex; col < cols; col += wg) { threadSum += exp(getValue(row, col, row_stride) - rowMaxShared); }
  threadShared[lindex] = threadSum;
  workgroupBarrier();
  for (var currSize = wg / 2; currSize > 0; currSize /= 2) {
    if (lindex < currSize) { threadShared[lindex] = threadShared[lindex] + threadShared[lindex + currSize]; }
    workgroupBarrier();
  }
  if (lindex == 0) { rowSumShared = x_value_t(threadShared[0].x + threadShared[0].y + threadShared[0].z + threadShared[0].w); }
  workgroupBarrier();
  for (var col = lindex; col < cols; col += wg) { setValue(row, col, row_stride, exp(getValue(row, col, row_stride) - rowMaxShared) / rowSumShared); }
}`,
    plain: [
      B(0, 0, f(4 * 100 * 4, 0.03, -1)),
      B(0, 1, new Float32Array(4 * 100 * 4)),
      B(0, 2, new Int32Array([100, 400]), true),
    ],
    workgroups: [4, 1, 1],
    params: { packedCols: 100, cols: 400 },
  },
  {
    // After onnxruntime ops/transpose.ts's generated WGSL: a perm() taking and returning an
    // array, offset-to-indices helpers over vec2<u32> shape/stride uniform fields.
    name:
      "onnxruntime-web Transpose (fn perm(array) -> array, o2i/i2o helpers, vec2<u32> uniforms)",
    source: /* wgsl */ `
struct Uniforms { output_size: u32, a_shape: vec2<u32>, a_strides: vec2<u32>, output_shape: vec2<u32>, output_strides: vec2<u32> };
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;
@group(0) @binding(2) var<uniform> uniforms: Uniforms;
alias a_indices_t = vec2<u32>;
alias output_indices_t = vec2<u32>;
fn o2i_output(offset: u32) -> output_indices_t {
  var indices: output_indices_t;
  var current = offset;
  let dim1 = uniforms.output_shape[1];
  let rest1 = current % dim1; indices[1] = rest1; current = current / dim1;
  indices[0] = current;
  return indices;
}
fn i2o_a(indices: a_indices_t) -> u32 { return uniforms.a_strides[1] * (indices[1]) + uniforms.a_strides[0] * (indices[0]); }
fn perm(i: output_indices_t) -> a_indices_t {
  var a: a_indices_t;
  a[1] = i[0];
  a[0] = i[1];
  return a;
}
fn permArray(i: array<u32, 2>) -> array<u32, 2> { return array<u32, 2>(i[1], i[0]); }
@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>, @builtin(local_invocation_index) local_idx: u32) {
  let global_idx = global_id.x;
  if (global_idx >= uniforms.output_size) { return; }
  let indices = o2i_output(global_idx);
  let aIndices = perm(indices);
  let viaArray = permArray(array(indices[0], indices[1]));
  output[global_idx] = a[i2o_a(aIndices)] + f32(viaArray[0] - aIndices[0]);
}`,
    plain: [
      B(0, 0, f(12 * 20, 0.5)),
      B(0, 1, new Float32Array(240)),
      B(0, 2, new Uint32Array([240, 0, 12, 20, 20, 1, 20, 12, 12, 1, 0, 0]), true),
    ],
    workgroups: [4, 1, 1],
    threads: 240,
    params: {
      output_size: 240,
      a_shape: [12, 20],
      a_strides: [20, 1],
      output_shape: [20, 12],
      output_strides: [12, 1],
    },
  },
  {
    // After onnxruntime ops/layer-norm.ts with f16 tensors: `enable f16;`, vec4<f16> data, the
    // sums in f32 through an alias, an epsilon uniform field after three u32s.
    name: "onnxruntime-web LayerNormalization f16 (array<vec4<f16>>, f32 accumulation alias)",
    source: /* wgsl */ `
enable f16;
struct Uniforms { norm_count: u32, norm_size: u32, norm_size_vectorized: u32, epsilon: f32 };
@group(0) @binding(0) var<storage, read> x: array<vec4<f16>>;
@group(0) @binding(1) var<storage, read> scale: array<vec4<f16>>;
@group(0) @binding(2) var<storage, read_write> output: array<vec4<f16>>;
@group(0) @binding(3) var<uniform> uniforms: Uniforms;
alias f32_val_t = vec4<f32>;
fn sum_vec(v: f32_val_t) -> f32 { return v.x + v.y + v.z + v.w; }
@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
  let global_idx = global_id.x;
  if (global_idx >= uniforms.norm_count) { return; }
  let offset = global_idx * uniforms.norm_size_vectorized;
  var mean_vector = f32_val_t(0);
  var mean_square_vector = f32_val_t(0);
  for (var h: u32 = 0u; h < uniforms.norm_size_vectorized; h++) {
    let value = f32_val_t(x[h + offset]);
    mean_vector += value;
    mean_square_vector += value * value;
  }
  let mean = sum_vec(mean_vector) / f32(uniforms.norm_size);
  let inv_std_dev = inverseSqrt(sum_vec(mean_square_vector) / f32(uniforms.norm_size) - mean * mean + uniforms.epsilon);
  for (var j: u32 = 0; j < uniforms.norm_size_vectorized; j++) {
    let f32input = f32_val_t(x[j + offset]);
    let f32scale = f32_val_t(scale[j]);
    output[j + offset] = vec4<f16>((f32input - mean) * inv_std_dev * f32scale);
  }
}`,
    plain: [
      B(0, 0, Float16Array.from(f(10 * 32, 0.125, -5))),
      B(0, 1, Float16Array.from(f(32, 0.01, 0.5))),
      B(0, 2, new Float16Array(10 * 32)),
      B(0, 3, words([10, 32, 8, { f: 1e-5 }]), true),
    ],
    workgroups: [1, 1, 1],
    threads: 10,
    params: { norm_count: 10, norm_size: 32, norm_size_vectorized: 8, epsilon: 1e-5 },
    features: ["shader-f16"],
  },
  {
    // After burn-wgpu's template kernels (binary_elemwise.wgsl): an `info` storage binding of
    // ranks, strides and shapes, WORKGROUP_SIZE consts, a 2-D workgroup, a trailing comma in
    // the entry's parameter list, a helper with the `{{ elem }}` type instantiated as f32.
    name:
      "burn-wgpu binary elementwise (info: array<u32> strides/shapes, 16x16 workgroup, trailing comma)",
    source: /* wgsl */ `
@group(0) @binding(0) var<storage, read> lhs: array<f32>;
@group(0) @binding(1) var<storage, read> rhs: array<f32>;
@group(0) @binding(2) var<storage, read_write> output: array<f32>;
@group(0) @binding(3) var<storage, read> info: array<u32>;
const WORKGROUP_SIZE_X = 16u;
const WORKGROUP_SIZE_Y = 16u;
fn powf(lhs: f32, rhs: f32) -> f32 {
    let modulo = rhs % 2.0;
    if (modulo == 0.0) { return pow(abs(lhs), rhs); }
    else if (modulo == 1.0 && lhs < 0.0) { return -pow(-lhs, rhs); }
    return pow(lhs, rhs);
}
@compute
@workgroup_size(16, 16, 1)
fn main(
    @builtin(global_invocation_id) global_id: vec3<u32>,
    @builtin(num_workgroups) num_workgroups: vec3<u32>,
) {
    let id = global_id.y * (num_workgroups.x * WORKGROUP_SIZE_X) + global_id.x;
    let dim: u32 = info[0];
    var index_lhs: u32 = 0u;
    var index_rhs: u32 = 0u;
    for (var i: u32 = 1u; i <= dim; i++) {
        let stride_lhs = info[i];
        let stride_rhs = info[i + dim];
        let stride_output = info[i + 2u * dim];
        let shape_lhs = info[i + 3u * dim];
        let shape_rhs = info[i + 4u * dim];
        index_lhs += id / stride_output % shape_lhs * stride_lhs;
        index_rhs += id / stride_output % shape_rhs * stride_rhs;
    }
    if (id < arrayLength(&output)) { output[id] = powf(lhs[index_lhs], rhs[index_rhs]); }
}`,
    plain: [
      B(0, 0, f(16 * 32, 0.05, -2)),
      B(0, 1, Float32Array.from({ length: 32 }, (_, i) => i % 4)),
      B(0, 2, new Float32Array(16 * 32)),
      // rank 2: lhs [16, 32] strides [32, 1]; rhs [1, 32] (broadcast) strides [0, 1]; out [16, 32]
      B(0, 3, new Uint32Array([2, 32, 1, 0, 1, 32, 1, 16, 32, 1, 32])),
    ],
    workgroups: [2, 1, 1],
    threads: [32, 16],
  },
];
