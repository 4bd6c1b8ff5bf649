/**
 * QA wave 18, webonnx/wonnx's Tera templates (`wonnx/templates/`, stored version c62f5d33)
 * rendered with concrete values, as wonnx's compiler renders them for one ONNX node: the
 * `structs.wgsl` prologue (aliases `Scalar`, `Vec4`, `Mat4x4`, storage structs wrapping a
 * runtime-sized array), shapes and chunk sizes baked in as `u`-suffixed literals, inputs spread
 * over several groups. Each kernel is written after its template (the constructs are wonnx's,
 * the code is not copied); see `_wgsl_corpus_qa18.ts`.
 */
import { B, type CorpusCase, f } from "./_wgsl_corpus_qa_base.ts";

/** The `structs.wgsl` prologue as wonnx renders it for f32. */
const STRUCTS = `
alias Scalar = f32;
alias Vec3 = vec3<f32>;
alias Vec4 = vec4<f32>;

struct Array {
\tdata: array<Scalar>
};

struct ArrayVector {
\tdata: array<Vec4>
};

\talias Mat3x3 = mat3x3<f32>;
\talias Mat4x4 = mat4x4<f32>;
\talias Mat4x3 = mat4x3<f32>;

\tstruct ArrayMatrix {
\t\tdata: array<Mat4x4>
\t};
`;

/** The cases that run. */
export const WONNX: readonly CorpusCase[] = [
  {
    // After templates/endomorphism/onehot.wgsl: i32 indices wrapped when negative, the depth a
    // storage struct holding one bare i32, off/on values from a third binding.
    name: "wonnx OneHot (a storage struct of one i32, negative indices wrapped, i32 loop)",
    source: `${STRUCTS}
struct Indices {
\tdata: array<i32>
};

struct Depth {
\tdata: i32
};

@group(0) @binding(0)
var<storage, read> input_indexes: Indices;

@group(0) @binding(1)
var<storage, read> input_depth: Depth;

@group(0) @binding(2)
var<storage, read> input_values: Array;

@group(0) @binding(3)
var<storage, read_write> output_0: Array;

@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
\tlet index_of_index = global_id.x;
\tlet depth = u32(input_depth.data);
\tvar index = input_indexes.data[index_of_index];
\tif(index < 0) {
\t\tindex = i32(depth) + index;
\t}
\tlet offset = index_of_index * depth;
\tfor(var i = 0; i < i32(depth); i = i + 1) {
\t\toutput_0.data[offset + u32(i)] = input_values.data[0];
\t}
\tif(index < i32(depth)) {
\t\toutput_0.data[offset + u32(index)] = input_values.data[1];
\t}
}`,
    plain: [
      B(0, 0, Int32Array.from([0, 3, -1, 5, 2, -5, 9, 1])),
      B(0, 1, Int32Array.from([5])),
      B(0, 2, Float32Array.from([-0.5, 2.25])),
      B(0, 3, new Float32Array(40)),
    ],
    workgroups: [8, 1, 1],
  },
  {
    // After templates/matrix/gemm.wgsl, kernel_size 4, an 8x8 by 8x8 product with a bias of
    // shape [8, 1] (broadcast over columns) and beta 0.5: mat4x4 values built from four vec4
    // reads, `mat_right * mat_left` accumulated, a column of the sum indexed at run time.
    name: "wonnx Gemm (mat4x4 from vec4 rows, column broadcast bias, matrix column by index)",
    source: `
alias Scalar = f32;
alias GemmVec = vec4<f32>;
alias GemmMat = mat4x4<f32>;

struct GemmArrayVector {
\tdata: array<GemmVec>
};

@group(0) @binding(0)
var<storage, read> input_left: GemmArrayVector;

@group(0) @binding(1)
var<storage, read> input_right: GemmArrayVector;

 // Bias
\t@group(0) @binding(2)
\tvar<storage, read> input_bias: GemmArrayVector;

\t@group(0) @binding(3)
\tvar<storage, read_write> output_0: GemmArrayVector;

@compute @workgroup_size(4, 1)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
\tlet y = global_id.x % 2u;
\tlet x = global_id.x / 2u;
\tlet stack_index = global_id.y;
\tlet left_offset = stack_index * 16u;
\tlet right_offset = stack_index * 16u;
\tlet output_offset = stack_index * 16u;
\tlet index = output_offset + (x * 8u) + y;
\tlet zero_vec = GemmVec(
\t\t\tScalar(),
\t\t\tScalar(),
\t\t\tScalar(),
\t\t\tScalar()
\t);
\tlet zero_matrix = GemmMat(
\t\t\tzero_vec,
\t\t\tzero_vec,
\t\t\tzero_vec,
\t\t\tzero_vec
\t);
\tvar tmpsum = zero_matrix;
\tvar product = zero_matrix;
\tfor(var k: u32 = 0u; k < 2u; k = k + 1u) {
\t\tlet index_left = left_offset + (x * 8u) + k;
\t\tlet index_right = right_offset + (k * 8u) + y;
\t\tlet mat_left = GemmMat(
\t\t\t\tinput_left.data[index_left + 0u],
\t\t\t\tinput_left.data[index_left + 2u],
\t\t\t\tinput_left.data[index_left + 4u],
\t\t\t\tinput_left.data[index_left + 6u]
\t\t);
\t\tlet mat_right = GemmMat(
\t\t\t\tinput_right.data[index_right + (0u)],
\t\t\t\tinput_right.data[index_right + (2u)],
\t\t\t\tinput_right.data[index_right + (4u)],
\t\t\t\tinput_right.data[index_right + (6u)]
\t\t);
\t\tproduct = mat_right * mat_left;
\t\ttmpsum = tmpsum + product;
\t}
\t\tlet bias_index =
\t\t\t (x * 1u) + 
\t\t\t 0u ;
\t\tfor(var index_mat: u32 = 0u; index_mat < 4u; index_mat = index_mat + 1u) {
\t\t\t\tlet bias_number = input_bias.data[bias_index][index_mat];
\t\t\t\tlet bias = GemmVec(
\t\t\t\t\t\tbias_number,
\t\t\t\t\t\tbias_number,
\t\t\t\t\t\tbias_number,
\t\t\t\t\t\tbias_number
\t\t\t\t);
\t\t\toutput_0.data[index + (index_mat * 2u)] =tmpsum[index_mat] +0.5 *bias;
\t\t}
}`,
    plain: [
      B(0, 0, f(64, 0.125, -6)),
      B(0, 1, f(64, 0.0625, -3)),
      B(0, 2, f(8, 1, -50)),
      B(0, 3, new Float32Array(64)),
    ],
    workgroups: [1, 1, 1],
  },
  {
    // After templates/matrix/concat.wgsl for five inputs: four bindings a group, so inputs 0-3
    // in @group(0), input 4 and the output in @group(1); a 16x16 workgroup whose flat index
    // uses num_workgroups, ranges from the cumulative lengths.
    name: "wonnx Concat of five inputs (bindings spread over two groups, num_workgroups)",
    source: (() => {
      const lens = [10, 20, 7, 33, 5];
      const cum = lens.map((_, i) => lens.slice(0, i + 1).reduce((a, b) => a + b));
      const inputs = lens.map((_, i) =>
        `\n@group(${i >> 2}) @binding(${i % 4})\nvar<storage, read> input_${i}: Array;\n`
      ).join("");
      const copies = lens.map((_, i) =>
        i === 0
          ? `\n\t\t\tif (actual_idx < ${
            lens[0]
          }u) {\n\t\t\t\toutput_0.data[actual_idx] = input_0.data[actual_idx];\n\t\t\t}\n`
          : `\n\t\t\tif ((actual_idx >= ${cum[i - 1]}u) && (actual_idx < ${
            cum[i]
          }u)) {\n\t\t\t\toutput_0.data[actual_idx] = input_${i}.data[actual_idx - ${
            cum[i - 1]
          }u];\n\t\t\t}\n`
      ).join("");
      return `${STRUCTS}${inputs}
@group(1) @binding(1)
var<storage, read_write> output_0: Array;

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>, @builtin(num_workgroups) num_workgroups: vec3<u32>) {
\tlet gidx = global_id.x;
        let gidy = global_id.y;

        let x_executions = num_workgroups.x * 16u;

        let actual_idx = gidx + gidy * x_executions;
${copies}}`;
    })(),
    plain: [
      B(0, 0, f(10, 1, 0)),
      B(0, 1, f(20, 1, 200)),
      B(0, 2, f(7, 1, 400)),
      B(0, 3, f(33, 1, 600)),
      B(1, 0, f(5, 1, 800)),
      B(1, 1, new Float32Array(75)),
    ],
    workgroups: [1, 1, 1],
  },
  {
    // After templates/endomorphism/batchnormalization.wgsl: five inputs and the output over
    // @group(0) and @group(1), a workgroup of one, channel and batch from global_id.y and .z.
    name: "wonnx BatchNormalization (two groups, @workgroup_size(1), channel from global_id.y)",
    source: `${STRUCTS}
struct Block {
\tdata: array<f32>
};

// X (input)
@group(0) @binding(0)
var<storage, read> input_0: Block;

// Scale
@group(0) @binding(1)
var<storage, read> input_1: Array;

// B (bias)
@group(0) @binding(2)
var<storage, read> input_2: Array;

// Input mean
@group(0) @binding(3)
var<storage, read> input_3: Array;

// Input variance
@group(1) @binding(0)
var<storage, read> input_4: Array;

// Y (Output)
@group(1) @binding(1)
var<storage, read_write> output_0: Block;

@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
\tlet channel = global_id.y;
\tlet batch = global_id.z;
\tlet index = global_id.x + batch * 18u + channel * 6u;
\tlet x = input_0.data[index];
\tlet channel_scale = input_1.data[channel];
\tlet channel_bias = input_2.data[channel];
\tlet channel_mean = input_3.data[channel];
\tlet channel_var = input_4.data[channel];
\toutput_0.data[index] = (x - channel_mean) / sqrt(channel_var + 0.000009999999747378752) * channel_scale + channel_bias;
}`,
    plain: [
      B(0, 0, f(36, 0.5, -10)),
      B(0, 1, Float32Array.from([1.5, -0.5, 2])),
      B(0, 2, Float32Array.from([0.25, 1, -2])),
      B(0, 3, Float32Array.from([3, -1, 0.5])),
      B(1, 0, Float32Array.from([4, 0.25, 9])),
      B(1, 1, new Float32Array(36)),
    ],
    workgroups: [6, 3, 2],
  },
  {
    // After templates/matrix/pad.wgsl, a [3, 4] input padded to [5, 7] (begin 1, 2; end 1, 1)
    // with 0.5: u32 index arithmetic that wraps below the copy start, `f32(0.5)` constant.
    name: "wonnx Pad (u32 subtraction wrapping before its check, unrolled index digits)",
    source: `${STRUCTS}
@group(0) @binding(0)
var<storage, read> input_0: Array;

@group(0) @binding(1)
var<storage, read_write> output_0: Array;

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
\tlet gidx = global_id.x;
\tif (gidx < 35u) {
\t\tvar rest = gidx;
\t\trest = gidx;
\t\t\t\tlet d_0 = rest / 7u; 
\t\t\t\trest = gidx % 7u; 
\t\t\t\tlet d_1 = rest; 
\t\tvar pad = false;
\t\t\tlet id_0 = d_0
\t\t\t\t- 1u;
\t\t\tif (d_0 < 1u) {
\t\t\t\tpad = true;
\t\t\t}
\t\t\tif (d_0 > 3u) {
\t\t\t\tpad = true;
\t\t\t}
\t\t\tlet id_1 = d_1
\t\t\t\t- 2u;
\t\t\tif (d_1 < 2u) {
\t\t\t\tpad = true;
\t\t\t}
\t\t\tif (d_1 > 5u) {
\t\t\t\tpad = true;
\t\t\t}
\t\tif (pad) {
\t\t\toutput_0.data[gidx] = f32(0.5);
\t\t} else {
\t\t\tlet index =id_0 * 4u
\t\t\t\t\t\t+id_1 * 1u;
\t\t\toutput_0.data[gidx] = input_0.data[index];
\t\t}
\t}
}`,
    plain: [B(0, 0, f(12, 1, 1)), B(0, 1, new Float32Array(35))],
    workgroups: [1, 1, 1],
  },
  {
    // After templates/matrix/resize.wgsl (nearest), [1, 1, 3, 4] to [1, 1, 6, 8]: scales
    // rendered as bare integers dividing an f32 (`/ 1`, `/ 2`), `u32(floor(...))` per digit.
    name: "wonnx Resize nearest (f32 divided by an abstract integer scale, u32(floor()))",
    source: `${STRUCTS}
@group(0) @binding(0)
var<storage, read> input_0: Array;

@group(0) @binding(1)
var<storage, read_write> output_0: Array;

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
\tlet gidx = global_id.x;
\tif (gidx < 48u) {
\t\tvar rest = gidx;
\t\t\t\tlet d_0 = rest / 48u; 
\t\t\t\trest = gidx % 48u; 
\t\t\t\tlet d_1 = rest / 48u; 
\t\t\t\trest = gidx % 48u; 
\t\t\t\tlet d_2 = rest / 8u; 
\t\t\t\trest = gidx % 8u; 
\t\t\t\tlet d_3 = rest; 
\t\tlet index =u32(floor(
\t\t\t\t\t(f32(d_0) + 0.5) / 1
\t\t\t\t)) * 12u 
\t\t\t\t\t+u32(floor(
\t\t\t\t\t(f32(d_1) + 0.5) / 1
\t\t\t\t)) * 12u 
\t\t\t\t\t+u32(floor(
\t\t\t\t\t(f32(d_2) + 0.5) / 2
\t\t\t\t)) * 4u 
\t\t\t\t\t+u32(floor(
\t\t\t\t\t(f32(d_3) + 0.5) / 2
\t\t\t\t)) * 1u;
\t\toutput_0.data[gidx] = input_0.data[index];
\t}
}`,
    plain: [B(0, 0, f(12, 1.5, -4)), B(0, 1, new Float32Array(48))],
    workgroups: [1, 1, 1],
  },
  {
    // After templates/pool/reduce.wgsl, ReduceMean over axis 1 of [2, 3, 4] (keepdims): the
    // reduced digit a loop variable shadowing nothing, typed `let d_0: u32`, the mean as
    // accumulator / f32(count).
    name: "wonnx ReduceMean (nested loop over the reduced axis, typed digit lets, count)",
    source: `${STRUCTS}
@group(0) @binding(0)
var<storage, read> input_0: Array;

@group(0) @binding(1)
var<storage, read_write> output_0: Array;

@compute @workgroup_size(8, 1, 1)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
\tlet gidx = global_id.x;
\tif (gidx < 8u) {
\t\tvar rest = gidx;
\t\t\t\t\tlet d_0: u32 = rest / 4u; 
\t\t\t\trest = gidx % 4u; 
\t\t\t\t\tlet d_2: u32 = rest; 
\t\tvar accumulator = Scalar(); 
\t\tvar count = 0u;
\t\t\tfor(var d_1 = 0u; d_1 < 3u; d_1 = d_1 + 1u) {
\t\t\t\tlet input_val = input_0.data[
\t\t\t\t\t\t(d_0 * 12u)  + 
\t\t\t\t\t\t(d_1 * 4u)  + 
\t\t\t\t\t\t(d_2 * 1u) 
\t\t\t\t];
\t\t\t\t\taccumulator = accumulator + input_val;
\t\t\t\tcount = count + 1u;
\t\t\t}
\t\toutput_0.data[gidx] = accumulator / Scalar(count);
\t}
}`,
    plain: [B(0, 0, f(24, 0.75, -9)), B(0, 1, new Float32Array(8))],
    workgroups: [1, 1, 1],
  },
];

/** The cases plain WebGPU refuses. */
export const WONNX_REFUSED: readonly CorpusCase[] = [
  {
    // After templates/endomorphism/softmax.wgsl (opset 13) for a [2, 3, 4] input, axis 1: the
    // max starts at log(Scalar()), wonnx's -infinity; naga evaluates log(0.0) as a const
    // expression and refuses it (out of log's domain), so the template does not compile.
    name: "wonnx softmax: log(Scalar()) as -infinity (a const log(0.0), out of its domain)",
    source: `${STRUCTS}
@group(0) @binding(0)
var<storage, read> input_0: Array;

@group(0) @binding(1)
var<storage, read_write> output_0: Array;

@compute @workgroup_size(1, 4)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
\tlet gidx = global_id.x;
\tlet chunk_start = gidx * 12u + global_id.y;
\t\tlet n_elements = 3u;
\t\tlet element_stride = 4u;
\tvar max_element: Scalar = log(Scalar());
\tfor(var k: u32 = 0u; k < n_elements; k = k + 1u) {
\t\tlet element = input_0.data[chunk_start + (k * element_stride)];
\t\tmax_element = max(max_element, element);
\t}
\tvar sum: Scalar = Scalar();
\tfor(var k: u32 = 0u; k < n_elements; k = k + 1u) {
\t\tsum  = sum + exp(input_0.data[chunk_start + (k * element_stride)] - max_element);
\t}
\tfor(var k: u32 = 0u; k < n_elements; k = k + 1u) {
\t\tlet element = input_0.data[chunk_start + (k * element_stride)];
\t\toutput_0.data[chunk_start + (k * element_stride)] = exp(element - max_element) / sum;
\t}
}`,
    plain: [B(0, 0, f(24, 0.25, -6)), B(0, 1, new Float32Array(24))],
    workgroups: [2, 1, 1],
  },
];
