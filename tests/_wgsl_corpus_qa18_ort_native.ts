/**
 * QA wave 18, onnxruntime's native (C++) WebGPU execution provider: its DP4A quantized matmul
 * path, written after `onnxruntime/contrib_ops/webgpu/quantization/dp4a_quantize.wgsl.template` and
 * `dp4a_matmul_common.wgsl.template` (stored version 1ce63071) as the ShaderHelper renders them:
 * typed `workgroup_size_*` consts in `@workgroup_size`, element-type aliases, a
 * `workgroup_idx` flattened from num_workgroups, `pack4x8snorm` of f16 values, and the packed
 * integer builtins `unpack4xU8`, `pack4xI8` and `dot4I8Packed`. Written after the templates (the
 * constructs are onnxruntime's, the code is not copied); see `_wgsl_corpus_qa18.ts`.
 */
import { B, type CorpusCase, f, u } from "./_wgsl_corpus_qa_base.ts";

/** The native EP's prologue and entry: typed size consts, the flattened workgroup index. */
const main = (x: number) =>
  `const workgroup_size_x: u32 = ${x};
const workgroup_size_y: u32 = 1;
const workgroup_size_z: u32 = 1;
@compute @workgroup_size(workgroup_size_x, workgroup_size_y, workgroup_size_z)
fn main(@builtin(global_invocation_id) global_id : vec3<u32>,
        @builtin(workgroup_id) workgroup_id : vec3<u32>,
        @builtin(local_invocation_index) local_idx : u32,
        @builtin(local_invocation_id) local_id : vec3<u32>,
        @builtin(num_workgroups) num_workgroups : vec3<u32>) {
  let workgroup_idx = workgroup_id.z * num_workgroups[0] * num_workgroups[1] + workgroup_id.y * num_workgroups[0] + workgroup_id.x;
  let global_idx = workgroup_idx * (workgroup_size_x * workgroup_size_y * workgroup_size_z) + local_idx;
`;

/** The cases that need `shader-f16`. */
export const ORT_NATIVE: readonly CorpusCase[] = [
  {
    // dp4a_quantize: a function-scope array of 32 vec4<f16> per workgroup, the absolute max
    // as the scale, `pack4x8snorm(vec4<f32>(x / scale))`, an f16 scale per block (`scale/127`,
    // an abstract integer divisor of an f16).
    name: "onnxruntime native DP4A quantize (function array<vec4<f16>, 32>, pack4x8snorm)",
    source: `enable f16;

@group(0) @binding(0) var<storage, read> input_a: array<vec4<f16>>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;
@group(0) @binding(2) var<storage, read_write> scales: array<f16>;

alias input_a_value_t = vec4<f16>;
alias input_a_element_t = f16;

${main(1)}
    var local_a : array<vec4<input_a_element_t>, 32>;
    var max_value:vec4<input_a_element_t> = vec4<input_a_element_t>(0);
    for (var idx:u32=0;idx<32;idx+=1)
    {
        local_a[idx] = input_a[workgroup_idx*32 + idx];
        max_value = max(max_value, abs(local_a[idx]));
    }
    var scale = max(max_value.x, max_value.y);
    scale = max(scale, max_value.z);
    scale = max(scale, max_value.w);
    for (var idx:u32=0;idx<32;idx+=1)
    {
        output[workgroup_idx*32+idx] = pack4x8snorm(vec4<f32>(local_a[idx]/scale));
    }
    scales[workgroup_idx] = scale/127;
}`,
    plain: [
      B(0, 0, Float16Array.from(f(4 * 32 * 4, 0.07, -3.3))),
      B(0, 1, new Uint32Array(4 * 32)),
      B(0, 2, new Float16Array(4)),
    ],
    workgroups: [2, 2, 1],
    features: ["shader-f16"],
  },
  {
    // dp4a_matmul_common (n_bits 4, no zero points) under a one-column-per-invocation loop:
    // 4-bit weights widened to packed i8 by `pack4xI8(vec4<i32>(unpack4xU8(...)) - 8)`, the
    // scaled dot product of eight packed words by `dot4I8Packed`, f16 scales.
    name: "onnxruntime native DP4A matmul (dot4I8Packed, pack4xI8 of unpack4xU8 nibbles)",
    source: `enable f16;

@group(0) @binding(0) var<storage, read> input_a: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read> scales_a: array<f16>;
@group(0) @binding(2) var<storage, read> input_b: array<vec2<u32>>;
@group(0) @binding(3) var<storage, read> scales_b: array<f16>;
@group(0) @binding(4) var<storage, read_write> output: array<f16>;

alias output_element_t = f16;

    fn DequantizedFrom4BitsTo8Bits(in: vec2<u32>, zero: i32) -> vec4<u32>
    {
        var out = vec4<u32>(0);
        var value_lower = vec4<i32>(unpack4xU8(in[0] & 0x0F0F0F0Fu)) - vec4<i32>(zero);
        var value_upper = vec4<i32>(unpack4xU8((in[0] >> 4) & 0x0F0F0F0Fu)) - vec4<i32>(zero);
        out[0] = pack4xI8(vec4<i32>(value_lower[0], value_upper[0], value_lower[1], value_upper[1]));
        out[1] = pack4xI8(vec4<i32>(value_lower[2], value_upper[2], value_lower[3], value_upper[3]));
        value_lower = vec4<i32>(unpack4xU8(in[1] & 0x0F0F0F0Fu)) - vec4<i32>(zero);
        value_upper = vec4<i32>(unpack4xU8((in[1] >> 4) & 0x0F0F0F0Fu)) - vec4<i32>(zero);
        out[2] = pack4xI8(vec4<i32>(value_lower[0], value_upper[0], value_lower[1], value_upper[1]));
        out[3] = pack4xI8(vec4<i32>(value_lower[2], value_upper[2], value_lower[3], value_upper[3]));
        return out;
    }

    fn SDP8AI(a1:vec4<u32>, b1:vec4<u32>, a2:vec4<u32>, b2:vec4<u32>, scale:output_element_t) -> output_element_t
    {
        var local_sum = dot4I8Packed(a1[0], b1[0]);
        local_sum += dot4I8Packed(a1[1], b1[1]);
        local_sum += dot4I8Packed(a1[2], b1[2]);
        local_sum += dot4I8Packed(a1[3], b1[3]);
        local_sum += dot4I8Packed(a2[0], b2[0]);
        local_sum += dot4I8Packed(a2[1], b2[1]);
        local_sum += dot4I8Packed(a2[2], b2[2]);
        local_sum += dot4I8Packed(a2[3], b2[3]);
        return output_element_t(f32(local_sum) * f32(scale));
    }

${main(16)}
  // 2 rows of A (64 i8 values each: 4 blocks of 32), 16 columns of B.
  let row = global_idx / 16u;
  let col = global_idx % 16u;
  var acc = output_element_t(0);
  for (var block = 0u; block < 2u; block++) {
    let a1 = input_a[(row * 2u + block) * 2u];
    let a2 = input_a[(row * 2u + block) * 2u + 1u];
    let b1 = DequantizedFrom4BitsTo8Bits(input_b[(col * 2u + block) * 2u], 8);
    let b2 = DequantizedFrom4BitsTo8Bits(input_b[(col * 2u + block) * 2u + 1u], 8);
    let scale = scales_a[row * 2u + block] * scales_b[col * 2u + block];
    acc += SDP8AI(a1, b1, a2, b2, scale);
  }
  output[global_idx] = acc;
}`,
    plain: [
      B(0, 0, u(16, 0xffffffff)),
      B(0, 1, Float16Array.from([0.02, 0.03, 0.015, 0.025])),
      B(0, 2, u(64, 0xffffffff)),
      B(0, 3, Float16Array.from({ length: 32 }, (_, i) => 0.001 * (i + 3))),
      B(0, 4, new Float16Array(32)),
    ],
    workgroups: [2, 1, 1],
    features: ["shader-f16"],
  },
];
