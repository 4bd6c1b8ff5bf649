/**
 * QA wave 5, CubeCL's WGSL snapshots (the kernels burn's wgpu backend runs): an `info: array<u32>`
 * binding of sizes, `const` arrays with trailing commas, pointers to whole storage bindings,
 * blocks opening on the line of their first statement; see `_wgsl_corpus_qa5.ts`.
 */
import { B, type CorpusCase, f } from "./_wgsl_corpus_qa_base.ts";

export const CUBECL5: readonly CorpusCase[] = [
  {
    // https://github.com/tracel-ai/cubecl/blob/main/crates/cubecl-wgpu/tests/constant_array.wgsl
    // verbatim: `array(f32(3u),f32(5u),f32(1u),)` (trailing
    // comma) as a module `const`, indexed at run time; the `WORKGROUP_SIZE_*` consts.
    name: "CubeCL constant_array (const array with a trailing comma, indexed at run time)",
    source: /* wgsl */ `@group(0)
@binding(0)
var<storage, read_write> output_0_global: array<f32>;

@group(0)
@binding(1)
var<storage, read_write> info: array<u32>;

const arrays_0: array<f32, 3> = array(f32(3u),f32(5u),f32(1u),);

const WORKGROUP_SIZE_X = 16u;
const WORKGROUP_SIZE_Y = 16u;
const WORKGROUP_SIZE_Z = 1u;

@compute
@workgroup_size(16, 16, 1)
fn constant_array_kernel_f32(
    @builtin(global_invocation_id) global_id: vec3<u32>,
    @builtin(num_workgroups) num_workgroups: vec3<u32>,
) {
let id = (global_id.z * num_workgroups.x * WORKGROUP_SIZE_X * num_workgroups.y * WORKGROUP_SIZE_Y) + (global_id.y * num_workgroups.x * WORKGROUP_SIZE_X) + global_id.x;
let l_0_0 = info[1u];
let l_0_1 = id < l_0_0;
if l_0_1 {
let l_1_0 = arrays_0[id];
var l_mut_1_1: u32;
var l_mut_1_2: bool;
l_mut_1_1 = info[0u];
l_mut_1_2 = id < l_mut_1_1;
if l_mut_1_2 {
output_0_global[id] = l_1_0;
}
}
}`,
    plain: [B(0, 0, new Float32Array(4)), B(0, 1, Uint32Array.of(3, 3))],
    workgroups: [1, 1, 1],
  },
  {
    // https://github.com/tracel-ai/cubecl/blob/main/crates/cubecl-wgpu/tests/slice_assign.wgsl
    // (the stored version): a `let` pointer to a whole storage
    // binding (`&output_0_global`) written through `(*ptr)[i]`, `select(0f, ...)`.
    name: "CubeCL slice_assign (writes through a let pointer to a whole binding)",
    source: /* wgsl */ `@group(0)
@binding(0)
var<storage, read_write> input_0_global: array<f32>;

@group(0)
@binding(1)
var<storage, read_write> output_0_global: array<f32>;

@group(0)
@binding(2)
var<storage, read_write> info: array<u32>;

const WORKGROUP_SIZE_X = 1u;
const WORKGROUP_SIZE_Y = 1u;
const WORKGROUP_SIZE_Z = 1u;

@compute
@workgroup_size(1, 1, 1)
fn slice_assign_kernel(
    @builtin(local_invocation_index) local_idx: u32,
) {
let _0 = local_idx == 0u;
if _0 {
var l_1_0: u32;
l_1_0 = info[1u];
let slice_1_0_offset = 2u;
let slice_1_0_length = min(l_1_0, 3u) - 2u;
let slice_1_0_ptr = &output_0_global;
var l_1_1: u32;
var l_1_2: bool;
var l_1_3: f32;
l_1_1 = info[0u];
l_1_2 = 0u < l_1_1;
l_1_3 = input_0_global[0u];
let _1 = select(0f, l_1_3, l_1_2);
var l_1_4: u32;
var l_1_5: bool;
l_1_4 = slice_1_0_length;
l_1_5 = 0u < l_1_4;
if l_1_5 {
(*slice_1_0_ptr)[0u + slice_1_0_offset] = _1;
}
}
}
`,
    plain: [B(0, 0, f(4, 1, 7)), B(0, 1, new Float32Array(5)), B(0, 2, Uint32Array.of(4, 5))],
    workgroups: [1, 1, 1],
  },
  {
    // https://github.com/tracel-ai/cubecl/blob/main/crates/cubecl-wgpu/tests/sequence_for_loop.wgsl
    // verbatim: `{let rank: u32 = info[0];` opening the
    // body on the signature's line, an early `return` for all but one invocation.
    name: "CubeCL sequence_for_loop (body opening on the signature's closing line)",
    source: /* wgsl */ `@group(0)
@binding(0)
var<storage, read_write> output_0_global: array<f32>;

@group(0)
@binding(1)
var<storage, read_write> info: array<u32>;

const WORKGROUP_SIZE_X = 16u;
const WORKGROUP_SIZE_Y = 16u;
const WORKGROUP_SIZE_Z = 1u;

@compute
@workgroup_size(16, 16, 1)
fn main(
    @builtin(local_invocation_index) local_idx: u32,
) {let rank: u32 = info[0];
let _0 = local_idx != 0u;
if _0 {
return;
}
let _1 = output_0_global[0u];
let _2 = _1 + 1f;
output_0_global[0u] = _2;
let _3 = output_0_global[0u];
let _4 = _3 + 4f;
output_0_global[0u] = _4;
}`,
    plain: [B(0, 0, f(2, 1, 0.5)), B(0, 1, Uint32Array.of(1))],
    workgroups: [1, 1, 1],
  },
  {
    // https://github.com/tracel-ai/cubecl/blob/main/crates/cubecl-wgpu/tests/unary_bench.wgsl
    // verbatim: vec4 bindings, a 256-iteration loop alternating
    // `output -= cos(a * b)` and `+=`, the element count in `info[5]`.
    name: "CubeCL unary_bench (vec4 cos accumulation, count from info[5])",
    source: /* wgsl */ `@group(0)
@binding(0)
var<storage, read_write> input_0_global: array<vec4<f32>>;

@group(0)
@binding(1)
var<storage, read_write> input_1_global: array<vec4<f32>>;

@group(0)
@binding(2)
var<storage, read_write> output_0_global: array<vec4<f32>>;

@group(0)
@binding(3)
var<storage, read_write> info: array<u32>;

const WORKGROUP_SIZE_X = 16u;
const WORKGROUP_SIZE_Y = 16u;
const WORKGROUP_SIZE_Z = 1u;

@compute
@workgroup_size(16, 16, 1)
fn execute_unary_kernel(
    @builtin(global_invocation_id) global_id: vec3<u32>,
    @builtin(num_workgroups) num_workgroups: vec3<u32>,
) {
let id = (global_id.z * num_workgroups.x * WORKGROUP_SIZE_X * num_workgroups.y * WORKGROUP_SIZE_Y) + (global_id.y * num_workgroups.x * WORKGROUP_SIZE_X) + global_id.x;
let _0 = info[5u];
let _1 = id < _0;
if _1 {

for (var l_2_2: u32 = 0u; l_2_2 < 256u; l_2_2++) {
let _3 = l_2_2 % 2u;
let _4 = _3 == 0u;
if _4 {
let _5 = input_0_global[id];
let _6 = input_1_global[id];
let _7 = _5 * _6;
let _8 = cos(_7);
let _9 = output_0_global[id];
let _10 = _9 - _8;
output_0_global[id] = _10;
} else {
let _11 = input_0_global[id];
let _12 = input_1_global[id];
let _13 = _11 * _12;
let _14 = cos(_13);
let _15 = output_0_global[id];
let _16 = _15 + _14;
output_0_global[id] = _16;
}
}
}
}`,
    plain: [
      B(0, 0, f(4 * 80, 0.01, -0.5)),
      B(0, 1, f(4 * 80, 0.02, 0.25)),
      B(0, 2, f(4 * 80, 1 / 3, 0.1)),
      B(0, 3, Uint32Array.of(0, 0, 0, 0, 0, 80)),
    ],
    workgroups: [1, 1, 1],
  },
];
