/**
 * QA wave 12, web-rwkv's softmax and matrix-vector kernels (a bare `u32` or `vec4<u32>` uniform
 * beside two `View` structs, a `mat4x4<f32>` built column by column from packed f16 rows); see
 * `_wgsl_corpus_qa12_rwkv.ts`.
 */
import { B, type CorpusCase, f } from "./_wgsl_corpus_qa_base.ts";
import { halves, view } from "./_wgsl_corpus_qa12_rwkv.ts";

// https://github.com/cryscan/web-rwkv/blob/main/src/shaders/softmax.wgsl (stored version
// 20378a505fe0601eb2807d5e2acc165b75c59461) verbatim.
const SOFTMAX = /* wgsl */ `@group(0) @binding(0) var<uniform> dim: u32;

@group(0) @binding(1) var<storage, read> x: array<vec4<f32>>;               // (T, C)
@group(0) @binding(2) var<storage, read_write> output: array<vec4<f32>>;    // (T, C)

const BLOCK_SIZE: u32 = 128u;

var<workgroup> sketch: array<vec4<f32>, BLOCK_SIZE>;
var<workgroup> sum: f32;
var<workgroup> maximum: f32;

fn reduce_max(index: u32, stride: u32) {
    if index < stride {
        sketch[index] = max(sketch[index], sketch[index + stride]);
    }
    workgroupBarrier();
}

fn reduce_sum(index: u32, stride: u32) {
    if index < stride {
        sketch[index] += sketch[index + stride];
    }
    workgroupBarrier();
}

@compute @workgroup_size(128, 1, 1)
fn softmax(@builtin(global_invocation_id) invocation_id: vec3<u32>) {
    let index = invocation_id.x;
    let token = invocation_id.y;
    let stride = dim / 4u;

    sketch[index] = vec4<f32>(-1.0e30);
    for (var i = index; i < stride; i += BLOCK_SIZE) {
        let value = x[stride * token + i];
        sketch[index] = max(sketch[index], value);
    }
    workgroupBarrier();

    reduce_max(index, 64u);
    reduce_max(index, 32u);

    if index < 32u {
        sketch[index] = max(sketch[index], sketch[index + 16u]);
        sketch[index] = max(sketch[index], sketch[index + 8u]);
        sketch[index] = max(sketch[index], sketch[index + 4u]);
        sketch[index] = max(sketch[index], sketch[index + 2u]);
        sketch[index] = max(sketch[index], sketch[index + 1u]);
    }
    workgroupBarrier();

    if index == 0u {
        maximum = sketch[0].x;
        maximum = max(maximum, sketch[0].y);
        maximum = max(maximum, sketch[0].z);
        maximum = max(maximum, sketch[0].w);
    }
    workgroupBarrier();

    sketch[index] = vec4<f32>(0.0);
    for (var i = index; i < stride; i += BLOCK_SIZE) {
        let value = x[stride * token + i];
        sketch[index] += exp(value - maximum);
    }
    workgroupBarrier();

    reduce_sum(index, 64u);
    reduce_sum(index, 32u);

    if index < 32u {
        sketch[index] += sketch[index + 16u];
        sketch[index] += sketch[index + 8u];
        sketch[index] += sketch[index + 4u];
        sketch[index] += sketch[index + 2u];
        sketch[index] += sketch[index + 1u];
    }
    workgroupBarrier();

    if index == 0u {
        sum = dot(sketch[0], vec4<f32>(1.0));
    }
    workgroupBarrier();

    for (var i = index; i < stride; i += BLOCK_SIZE) {
        let value = x[stride * token + i];
        output[stride * token + i] = exp(value - maximum) / sum;
    }
}`;

// https://github.com/cryscan/web-rwkv/blob/main/src/shaders/matmul_vec_fp16.wgsl (stored version
// 01b130d74c86ea30f79f2225a84e4c6158da840e) verbatim.
const MATMUL_VEC_FP16 = /* wgsl */ `struct View {
    stride: vec4<u32>,
    offset: vec4<u32>,
    shape: vec4<u32>,  
};

@group(0) @binding(0) var<uniform> shape: vec4<u32>;                        // [C, R, B]
@group(0) @binding(1) var<uniform> source: View;                            // [R, T, B]
@group(0) @binding(2) var<uniform> destination: View;                       // [R, T, B]

@group(0) @binding(3) var<storage, read> matrix: array<vec2<u32>>;          // (B, R, C)
@group(0) @binding(4) var<storage, read> input: array<vec4<f32>>;           // (B, T, C)
@group(0) @binding(5) var<storage, read_write> output: array<vec4<f32>>;    // (B, T, R)

const BLOCK_SIZE: u32 = 128u;

var<workgroup> sketch: array<vec4<f32>, BLOCK_SIZE>;

fn compute_index(view: View, batch: u32, token: u32, index: u32) -> u32 {
    let stride = view.stride.x / 4u;
    let offset = view.offset.x / 4u;
    return ((view.offset.z + batch) * view.stride.y + view.offset.y + token) * stride + offset + index;
}

fn unpack4x16float(x: vec2<u32>) -> vec4<f32> {
    return vec4<f32>(unpack2x16float(x.x), unpack2x16float(x.y));
}

fn reduce_sum(index: u32, stride: u32) {
    if index < stride {
        sketch[index] += sketch[index + stride];
    }
    workgroupBarrier();
}

@compute @workgroup_size(128, 1, 1)
fn matmul(@builtin(global_invocation_id) invocation_id: vec3<u32>) {
    let stride = shape.x / 4u;
    let index = invocation_id.x % BLOCK_SIZE;
    let channel = invocation_id.x / BLOCK_SIZE;     // 1 channel: 4 rows in matrix
    let token = invocation_id.y;
    let batch = invocation_id.z;

    // let bb = (batch * destination.shape[1] + token) * stride.x;
    let bb = compute_index(source, batch, token, 0u);
    let cb = batch * shape.y * stride + channel * 4u * stride;

    var local_sum = vec4<f32>(0.0);
    for (var i = index; i < stride; i += BLOCK_SIZE) {
        let bti = bb + i;
        var ci = cb + i;

        // read 4 elements from the input
        let x = input[bti];

        // read 4 rows from the matrix, each with 4 unpacked floats, forming a 4x4 sub-block
        var m: mat4x4<f32>;

        m[0] = unpack4x16float(matrix[ci]); ci += stride;
        m[1] = unpack4x16float(matrix[ci]); ci += stride;
        m[2] = unpack4x16float(matrix[ci]); ci += stride;
        m[3] = unpack4x16float(matrix[ci]);
        local_sum += transpose(m) * x;
    }
    sketch[index] = local_sum;
    workgroupBarrier();

    reduce_sum(index, 64u);
    reduce_sum(index, 32u);
    reduce_sum(index, 16u);
    reduce_sum(index, 8u);
    reduce_sum(index, 4u);
    reduce_sum(index, 2u);
    reduce_sum(index, 1u);

    if index == 0u {
        // output[(batch * shape[1] + token) * stride.y + channel] = sketch[0];
        let btc = compute_index(destination, batch, token, channel);
        output[btc] = sketch[0];
    }
}`;

// C = 32 input channels, R = 8 rows (two 4-row channels), T = 2 tokens, B = 1.
const SOURCE = view([32, 2, 1, 0], [0, 0, 0, 0], [32, 2, 1, 0]);
const DESTINATION = view([8, 2, 1, 0], [0, 0, 0, 0], [8, 2, 1, 0]);
export const RWKV_MATMUL12: readonly CorpusCase[] = [
  {
    name: "web-rwkv softmax (bare u32 uniform, vec4 workgroup max/sum reductions)",
    source: SOFTMAX,
    plain: [
      B(0, 0, Uint32Array.from([32]), true),
      B(0, 1, f(16, 0.1, -2)),
      B(0, 2, new Float32Array(16)),
    ],
    workgroups: [1, 2, 1],
    params: { dim: 32 },
  },
  {
    // Three uniforms (a bare vec4<u32> and two Views), a `var m: mat4x4<f32>` set column by
    // column, `transpose(m) * x`.
    name: "web-rwkv matmul_vec_fp16 (three uniforms, packed f16 matrix, mat4x4 columns)",
    source: MATMUL_VEC_FP16,
    plain: [
      B(0, 0, Uint32Array.from([32, 8, 1, 0]), true),
      B(0, 1, SOURCE.words, true),
      B(0, 2, DESTINATION.words, true),
      B(0, 3, halves(128)),
      B(0, 4, f(64, 0.0625, -3)),
      B(0, 5, new Float32Array(16)),
    ],
    workgroups: [2, 2, 1],
    params: { shape: [32, 8, 1, 0], source: SOURCE.params, destination: DESTINATION.params },
  },
];
