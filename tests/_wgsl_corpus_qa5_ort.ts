/**
 * QA wave 5, more onnxruntime-generated kernels (dumps of its WebGPU programs found in public
 * code): a vec4 naive matmul and a 6-D transpose; see `_wgsl_corpus_qa5.ts`.
 */
import { B, type CorpusCase, f } from "./_wgsl_corpus_qa_base.ts";
import { w } from "./_wgsl_corpus_qa3_base.ts";

const ORT_MATMUL = /* wgsl */ `const workgroup_size_x: u32 = 64;
const workgroup_size_y: u32 = 1;
const workgroup_size_z: u32 = 1;
@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> output: array<vec4<f32>>;
struct Uniforms {
  a_shape: vec2<u32>,
  a_stride: u32,
  b_shape: vec2<u32>,
  b_stride: u32,
  output_shape: vec3<u32>,
  output_stride: vec2<u32>,
  output_size: u32,
  M: u32,
  N: u32,
  K: u32
};
@group(0) @binding(3) var<uniform> uniforms: Uniforms;

alias a_value_t = vec4<f32>;
alias a_indices_t = vec2<u32>;
alias a_element_t = f32;
fn i2o_a(indices : a_indices_t)->u32 {
  return indices[0] * uniforms.a_stride + indices[1];
}
alias b_value_t = vec4<f32>;
alias b_indices_t = vec2<u32>;
alias b_element_t = f32;
fn i2o_b(indices : b_indices_t)->u32 {
  return indices[0] * uniforms.b_stride + indices[1];
}
alias output_value_t = vec4<f32>;
alias output_indices_t = vec3<u32>;
alias output_element_t = f32;
fn i2o_output(indices : output_indices_t)->u32 {
  return indices[0] * uniforms.output_stride[0] + indices[1] * uniforms.output_stride[1] + indices[2];
}

@compute @workgroup_size(workgroup_size_x, workgroup_size_y, workgroup_size_z)
fn main(@builtin(global_invocation_id) global_id : vec3<u32>,
        @builtin(workgroup_id) workgroup_id : vec3<u32>,
        @builtin(local_invocation_index) local_idx : u32,
        @builtin(local_invocation_id) local_id : vec3<u32>) {
  let global_idx = global_id.x;
  let workgroup_idx = workgroup_id.x;
  if (global_idx >= uniforms.output_size) { return; }
let col = (global_idx % (uniforms.N / 4)) * 4;
var index1 = global_idx / (uniforms.N / 4);
let stride1 = uniforms.M / 4;
let row = (index1 % stride1) * 4;
let batch = index1 / stride1;
var a_indices: a_indices_t;
a_indices[0]=0;
a_indices[1]=0;
let a_offset = i2o_a(a_indices)*4;
var b_indices: b_indices_t;
b_indices[0]=0;
b_indices[1]=0;
let b_offset = i2o_b(b_indices) * 4;
var values: array<output_value_t, 4>;
for (var k: u32 = 0u; k < uniforms.K; k = k + 4) {
var a_data: a_value_t;
let b_data0 = b[(b_offset + (k + 0) * uniforms.N + col) / 4];
let b_data1 = b[(b_offset + (k + 1) * uniforms.N + col) / 4];
let b_data2 = b[(b_offset + (k + 2) * uniforms.N + col) / 4];
let b_data3 = b[(b_offset + (k + 3) * uniforms.N + col) / 4];
a_data = a[(a_offset + (row + 0) * uniforms.K + k) / 4];
values[0] = fma(b_value_t(a_data[0]), b_data0, values[0]);
values[0] = fma(b_value_t(a_data[1]), b_data1, values[0]);
values[0] = fma(b_value_t(a_data[2]), b_data2, values[0]);
values[0] = fma(b_value_t(a_data[3]), b_data3, values[0]);
a_data = a[(a_offset + (row + 1) * uniforms.K + k) / 4];
values[1] = fma(b_value_t(a_data[0]), b_data0, values[1]);
values[1] = fma(b_value_t(a_data[1]), b_data1, values[1]);
values[1] = fma(b_value_t(a_data[2]), b_data2, values[1]);
values[1] = fma(b_value_t(a_data[3]), b_data3, values[1]);
a_data = a[(a_offset + (row + 2) * uniforms.K + k) / 4];
values[2] = fma(b_value_t(a_data[0]), b_data0, values[2]);
values[2] = fma(b_value_t(a_data[1]), b_data1, values[2]);
values[2] = fma(b_value_t(a_data[2]), b_data2, values[2]);
values[2] = fma(b_value_t(a_data[3]), b_data3, values[2]);
a_data = a[(a_offset + (row + 3) * uniforms.K + k) / 4];
values[3] = fma(b_value_t(a_data[0]), b_data0, values[3]);
values[3] = fma(b_value_t(a_data[1]), b_data1, values[3]);
values[3] = fma(b_value_t(a_data[2]), b_data2, values[3]);
values[3] = fma(b_value_t(a_data[3]), b_data3, values[3]);

}
for (var i = 0u; i < 4u; i++) {
  var value = values[i];


  let cur_indices = output_indices_t(batch, row + i, col/ 4);
  let offset = i2o_output(cur_indices);
output[offset]=value;}

}
`;

const ORT_TRANSPOSE6 = /* wgsl */ `// enable f32;
// For right now, just assume f32...
// type f32 = f32;


struct Uniforms { 
    output_size:u32,
    a_shape:array<vec4<u32>, 2>,
    a_strides:array<vec4<u32>, 2>,
    output_shape:array<vec4<u32>, 2>,
    output_strides:array<vec4<u32>, 2>,
};


@group(0) @binding(2) var<uniform> uniforms: Uniforms;
fn i2o_a(indices: array<u32, 6>) -> u32 {
  return uniforms.a_strides[1][1] * (indices[5])+uniforms.a_strides[1][0] * (indices[4])+uniforms.a_strides[0][3] * (indices[3])+uniforms.a_strides[0][2] * (indices[2])+uniforms.a_strides[0][1] * (indices[1])+uniforms.a_strides[0][0] * (indices[0]);
}

fn get_aByIndices(indices: array<u32, 6>) -> f32 {
  return a[i2o_a(indices)];
}

fn o2i_output(offset: u32) -> array<u32, 6> {
  var indices: array<u32, 6>;
  var current = offset;
  
  let dim0 = current / uniforms.output_strides[0][0];
  let rest0 = current % uniforms.output_strides[0][0];
  indices[0] = dim0;
  current = rest0;
  
  let dim1 = current / uniforms.output_strides[0][1];
  let rest1 = current % uniforms.output_strides[0][1];
  indices[1] = dim1;
  current = rest1;
  
  let dim2 = current / uniforms.output_strides[0][2];
  let rest2 = current % uniforms.output_strides[0][2];
  indices[2] = dim2;
  current = rest2;
  
  let dim3 = current / uniforms.output_strides[0][3];
  let rest3 = current % uniforms.output_strides[0][3];
  indices[3] = dim3;
  current = rest3;
  
  let dim4 = current / uniforms.output_strides[1][0];
  let rest4 = current % uniforms.output_strides[1][0];
  indices[4] = dim4;
  current = rest4;
  indices[5] = current;
  return indices;
}

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;

fn perm(i: array<u32, 6>) -> array<u32, 6> {
    var a: array<u32, 6>;
  a[0]=i[0];
  a[1]=i[1];
  a[3]=i[2];
  a[2]=i[3];
  a[4]=i[4];
  a[5]=i[5];
  return a;
}

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) global_id : vec3<u32>,
  @builtin(workgroup_id) workgroup_id : vec3<u32>,
  @builtin(local_invocation_id) local_id : vec3<u32>) {
  let global_idx = global_id.x; let local_idx = local_id.x;

  if (global_idx >= uniforms.output_size) { return; }

  let indices = o2i_output(global_idx);
  let aIndices = perm(indices);

  output[global_idx]=get_aByIndices(aIndices);
}`;

const T6 = {
  output_size: 48,
  a_shape: [[2, 1, 3, 4], [1, 2, 0, 0]],
  a_strides: [[24, 24, 8, 2], [2, 1, 0, 0]],
  output_shape: [[2, 1, 4, 3], [1, 2, 0, 0]],
  output_strides: [[24, 24, 6, 2], [2, 1, 0, 0]],
};

export const ORT5: readonly CorpusCase[] = [
  {
    // onnxruntime's WebGPU EP MatMulNaiveProgram
    // (https://github.com/microsoft/onnxruntime/blob/main/onnxruntime/core/providers/webgpu/math/matmul.cc)
    // as generated for an 8x8x8 vec4 matmul (a dump in public code), less `enable subgroups` and
    // the subgroup builtins it never reads: `fma` of splatted aliases, a struct of vec2/vec3 and
    // scalars whose offsets interleave, `output_indices_t(...)` constructing through an alias.
    name: "onnxruntime matmul naive vec4 (alias constructors, interleaved uniform layout)",
    source: ORT_MATMUL,
    plain: [
      B(0, 0, f(64, 0.125, -4)),
      B(0, 1, f(64, 0.0625, -2)),
      B(0, 2, new Float32Array(64)),
      B(0, 3, w(8, 2, 2, 0, 8, 2, 2, 0, 1, 8, 2, 0, 16, 2, 4, 8, 8, 8, 0, 0), true),
    ],
    workgroups: [1, 1, 1],
    params: {
      a_shape: [8, 2],
      a_stride: 2,
      b_shape: [8, 2],
      b_stride: 2,
      output_shape: [1, 8, 2],
      output_stride: [16, 2],
      output_size: 4,
      M: 8,
      N: 8,
      K: 8,
    },
  },
  {
    // A 6-D Transpose as onnxruntime-web's transpose op generates it
    // (https://github.com/microsoft/onnxruntime/blob/main/js/web/lib/wasm/jsep/webgpu/ops/transpose.ts;
    // a dump in public code): shapes and strides packed as `array<vec4<u32>, 2>` uniform members,
    // indices as `array<u32, 6>` returned by value, a local `a` shadowing the binding `a`.
    name: "onnxruntime-style 6-D transpose (array<vec4<u32>, 2> uniforms, local shadows binding)",
    source: ORT_TRANSPOSE6,
    plain: [
      B(0, 0, f(48, 0.5, -7)),
      B(0, 1, new Float32Array(48)),
      B(
        0,
        2,
        w(
          48,
          0,
          0,
          0,
          ...T6.a_shape.flat(),
          ...T6.a_strides.flat(),
          ...T6.output_shape.flat(),
          ...T6.output_strides.flat(),
        ),
        true,
      ),
    ],
    workgroups: [1, 1, 1],
    params: T6,
  },
];
