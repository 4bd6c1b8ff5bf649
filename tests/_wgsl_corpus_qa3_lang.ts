/**
 * QA wave 3, language: naga's snapshot inputs not used before, Tint's shadowing tests, Dawn's
 * shared-memory tests, the spec's pointer and layout rules; see `_wgsl_corpus_qa3.ts`.
 */
import { B, type CorpusCase, f, u } from "./_wgsl_corpus_qa_base.ts";

export const LANG3: readonly CorpusCase[] = [
  {
    // https://github.com/gfx-rs/wgpu/blob/trunk/naga/tests/in/wgsl/bounds-check-zero.wgsl verbatim: a storage struct of a fixed array, a vec4, a
    // mat3x4 and a runtime array (which starts at byte 112), indexed in and out of bounds
    // (`globals.d[1000]`): the result depends on the buffer's exact size. Its
    // `index_vector_by_value(vec4f(...), 6)` (wgpu refuses the constant index) takes 3 here;
    // the verbatim module is among the refusals of `webgpu_wgsl_corpus_qa3_test.ts`.
    name: "naga bounds-check-zero (struct of array/vec4/mat3x4/runtime array, out-of-bounds index)",
    source: /* wgsl */ `
struct Globals {
    a: array<f32, 10>,
    v: vec4<f32>,
    m: mat3x4<f32>,
    d: array<f32>,
}

@group(0) @binding(0) var<storage, read_write> globals: Globals;

fn index_array(i: i32) -> f32 {
   return globals.a[i];
}

fn index_dynamic_array(i: i32) -> f32 {
   return globals.d[i];
}

fn index_vector(i: i32) -> f32 {
   return globals.v[i];
}

fn index_vector_by_value(v: vec4<f32>, i: i32) -> f32 {
   return v[i];
}

fn index_matrix(i: i32) -> vec4<f32> {
   return globals.m[i];
}

fn index_twice(i: i32, j: i32) -> f32 {
   return globals.m[i][j];
}

fn index_expensive(i: i32) -> f32 {
   return globals.a[i32(sin(f32(i) / 100.0) * 100.0)];
}

fn index_in_bounds() -> f32 {
   return globals.a[9] + globals.v[3] + globals.m[2][3];
}

fn set_array(i: i32, v: f32) {
   globals.a[i] = v;
}

fn set_dynamic_array(i: i32, v: f32) {
   globals.d[i] = v;
}

fn set_vector(i: i32, v: f32) {
   globals.v[i] = v;
}

fn set_matrix(i: i32, v: vec4<f32>) {
   globals.m[i] = v;
}

fn set_index_twice(i: i32, j: i32, v: f32) {
   globals.m[i][j] = v;
}

fn set_expensive(i: i32, v: f32) {
   globals.a[i32(sin(f32(i) / 100.0) * 100.0)] = v;
}

fn set_in_bounds(v: f32) {
   globals.a[9] = v;
   globals.v[3] = v;
   globals.m[2][3] = v;
}

fn index_dynamic_array_constant_index() -> f32 {
   return globals.d[1000];
}

fn set_dynamic_array_constant_index(v: f32) {
   globals.d[1000] = v;
}

@compute @workgroup_size(1)
fn main() {
    index_array(1);
    index_dynamic_array(1);
    index_vector(1);
    index_vector_by_value(vec4f(2, 3, 4, 5), 3);
    index_matrix(1);
    index_twice(1, 2);
    index_expensive(1);
    index_in_bounds();
    set_array(1, 2.);
    set_dynamic_array(1, 2.);
    set_vector(1, 2.);
    set_matrix(1, vec4f(2, 3, 4, 5));
    set_index_twice(1, 2, 1.);
    set_expensive(1, 1.);
    set_in_bounds(1.);
    index_dynamic_array_constant_index();
    set_dynamic_array_constant_index(1.);
}`,
    plain: [B(0, 0, f(28 + 16, 0.5))],
    workgroups: [1, 1, 1],
    threads: 1,
  },
  {
    // https://github.com/gfx-rs/wgpu/blob/trunk/naga/tests/in/wgsl/const-nested-zero-value.wgsl:
    // a fixed-size `array<u32, 8>` and a bare `vec4u` as storage bindings, vectors composed
    // of vectors in const expressions. Deno's wgpu has the bug the file tests (zero-value
    // vectors inside a constructor are misevaluated, refused): here they are `vec2u(1u)` and
    // `vec3f(0.5)`; the verbatim module is among the refusals of `webgpu_wgsl_corpus_qa3_test.ts`.
    name: "naga const-nested-zero-value (array<u32, 8> and bare vec4u storage bindings)",
    source: /* wgsl */ `
// Constant evaluation of vectors composed from zero-valued vectors.
// See https://github.com/gfx-rs/wgpu/issues/10463.

const composed = vec4u(vec2u(1u), 7u, 9u);

@group(0) @binding(0)
var<storage, read_write> o: array<u32, 8>;

@group(0) @binding(1)
var<storage, read_write> v: vec4u;

@compute @workgroup_size(1)
fn main() {
    o[0] = vec4u(vec2u(1u), 7u, 9u).y;
    o[1] = vec4u(vec2u(1u), 7u, 9u).z;
    o[2] = vec4u(vec2u(1u), 7u, 9u)[1];
    o[3] = bitcast<u32>(vec4f(1.0, vec2f(0.5), 2.0).z);
    o[4] = bitcast<u32>(vec4f(vec3f(0.5), 1.0).w);
    o[5] = vec4u(7u, vec2u(1u), 9u).y;
    o[6] = vec4u(vec2u(1u), 7u, 9u).wzyx.x;
    o[7] = composed.z;
    v = composed;
}`,
    plain: [B(0, 0, u(8, 100)), B(0, 1, u(4, 100))],
    workgroups: [1, 1, 1],
    threads: 1,
  },
  {
    // https://github.com/gfx-rs/wgpu/blob/trunk/naga/tests/in/wgsl/9489-loop-local-var-init.wgsl verbatim: a `var` without initializer inside a loop
    // body is zeroed on every iteration; fixed-size read-only input and output arrays.
    name: "naga 9489 loop-local var re-initialised (array<f32, 64> in, array<f32, 8> out)",
    source: /* wgsl */ `
@group(0) @binding(0) var<storage, read> input: array<f32, 64>;
@group(0) @binding(1) var<storage, read_write> output: array<f32, 8>;

@compute @workgroup_size(1)
fn main() {
    for (var t = 0u; t < 4u; t++) {
        var acc_noinit: vec4<f32>;                // no explicit initializer
        var acc_init: vec4<f32> = vec4<f32>();    // explicit initializer

        for (var d = 0u; d < 16u; d++) {
            let v = vec4<f32>(input[t * 16u + d]);
            acc_noinit += v;
            acc_init += v;
        }

        output[t * 2u] = acc_noinit.x;
        output[t * 2u + 1u] = acc_init.x;
    }
}`,
    plain: [B(0, 0, f(64, 0.25)), B(0, 1, new Float32Array(8))],
    workgroups: [1, 1, 1],
    threads: 1,
  },
  {
    // https://github.com/gfx-rs/wgpu/blob/trunk/naga/tests/in/wgsl/8820-multiple-local-invocation-index-id.wgsl, its workgroup value stored: the
    // builtins in a struct whose members have their attributes on the line before.
    name: "naga 8820 builtins struct with attributes on their own lines (workgroup u32)",
    source: /* wgsl */ `
var<workgroup> wg_var: u32;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

struct Input {
    @builtin(local_invocation_id)
    local_invocation_id: vec3<u32>,
    @builtin(local_invocation_index)
    local_invocation_index: u32,
    @builtin(workgroup_id)
    workgroup_id: vec3<u32>,
}

@compute
@workgroup_size(1)
fn compute1(input: Input) {
    wg_var = input.local_invocation_index * 2;
    wg_var += input.local_invocation_id.x;
    out[input.workgroup_id.x] = wg_var + input.workgroup_id.x * 3u + 1u;
}`,
    plain: [B(0, 0, new Uint32Array(5))],
    workgroups: [5, 1, 1],
    threads: 5,
  },
  {
    // https://github.com/gfx-rs/wgpu/blob/trunk/naga/tests/in/wgsl/9883-atomic_sub-negative.wgsl, its result stored: `atomicSub(&a, -1i)` on a
    // workgroup atomic<i32>.
    name: "naga 9883 atomicSub of -1i on a workgroup atomic<i32>",
    source: /* wgsl */ `
var<workgroup> a: atomic<i32>;
@group(0) @binding(0) var<storage, read_write> out: array<i32>;

@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) i: u32, @builtin(workgroup_id) g: vec3u) {
    //  In GLSL, we accidentally printed \`atomicAdd(a, --1)\`. Oops!
    let x = atomicSub(&a, -1i);
    workgroupBarrier();
    if i == 0u { out[g.x] = atomicLoad(&a) * 10 + i32(g.x) + x * 0; }
}`,
    plain: [B(0, 0, new Int32Array(3))],
    workgroups: [3, 1, 1],
    threads: 12,
  },
  {
    // https://github.com/gfx-rs/wgpu/blob/trunk/naga/tests/in/wgsl/array-in-function-return-type.wgsl (a fragment entry point) with a compute entry
    // point beside it: functions returning arrays of arrays, a bare vec4<f32> storage binding.
    name: "naga array-in-function-return-type (array<array<f32, 2>, 3> returns, fragment beside)",
    entryPoint: "cs",
    source: /* wgsl */ `
fn ret_array() -> array<f32, 2> {
    return array<f32, 2>(1.0, 2.0);
}

fn ret_array_array() -> array<array<f32, 2>, 3> {
    return array<array<f32, 2>, 3>(ret_array(), ret_array(), ret_array());
}

@fragment
fn main() -> @location(0) vec4<f32> {
    let a = ret_array_array();
    return vec4<f32>(a[0][0], a[0][1], 0.0, 1.0);
}

@group(0) @binding(0) var<storage, read_write> color: vec4<f32>;

@compute @workgroup_size(1)
fn cs() {
    let a = ret_array_array();
    color = vec4<f32>(a[0][0], a[0][1], a[2][1] + color.z, 1.0);
}`,
    plain: [B(0, 0, new Float32Array([9, 9, 5, 9]))],
    workgroups: [1, 1, 1],
    threads: 1,
  },
  {
    // After Dawn's end2end ComputeSharedMemoryTests.AssortedTypes
    // (https://dawn.googlesource.com/dawn/+/refs/heads/main/src/dawn/tests/end2end/ComputeSharedMemoryTests.cpp):
    // workgroup variables of a struct of a matrix, a matrix, an array and a vector copied into
    // a storage struct (a mat2x2 at 0, one at 16, array<u32, 4> at 32, vec4 at 48).
    name: "Dawn ComputeSharedMemoryTests AssortedTypes (workgroup struct/matrix/array/vector)",
    source: /* wgsl */ `
struct StructValues {
  m: mat2x2<f32>
};

struct Dst {
  d_struct : StructValues,
  d_matrix : mat2x2<f32>,
  d_array : array<u32, 4>,
  d_vector : vec4<f32>,
};

@group(0) @binding(0) var<storage, read_write> dst : Dst;

var<workgroup> wg_struct : StructValues;
var<workgroup> wg_matrix : mat2x2<f32>;
var<workgroup> wg_array : array<u32, 4>;
var<workgroup> wg_vector : vec4<f32>;

@compute @workgroup_size(4,1,1)
fn main(@builtin(local_invocation_id) LocalInvocationID : vec3<u32>) {

  let i = 4u * LocalInvocationID.x;
  if (LocalInvocationID.x == 0u) {
    wg_struct.m = mat2x2<f32>(
      vec2<f32>(f32(i), f32(i + 1u)),
      vec2<f32>(f32(i + 2u), f32(i + 3u)));
  } else if (LocalInvocationID.x == 1u) {
    wg_matrix = mat2x2<f32>(
      vec2<f32>(f32(i), f32(i + 1u)),
      vec2<f32>(f32(i + 2u), f32(i + 3u)));
  } else if (LocalInvocationID.x == 2u) {
    wg_array[0u] = i;
    wg_array[1u] = i + 1u;
    wg_array[2u] = i + 2u;
    wg_array[3u] = i + 3u;
  } else if (LocalInvocationID.x == 3u) {
    wg_vector = vec4<f32>(
      f32(i), f32(i + 1u), f32(i + 2u), f32(i + 3u));
  }

  workgroupBarrier();

  if (LocalInvocationID.x == 0u) {
    dst.d_struct = wg_struct;
    dst.d_matrix = wg_matrix;
    dst.d_array = wg_array;
    dst.d_vector = wg_vector;
  }
}`,
    plain: [B(0, 0, new Float32Array(16))],
    workgroups: [1, 1, 1],
    threads: 4,
  },
  {
    // After the WebGPU CTS's shader,execution,expression,call,builtin,workgroupUniformLoad
    // (https://github.com/gpuweb/cts/blob/main/src/webgpu/shader/execution/expression/call/builtin/workgroupUniformLoad.spec.ts):
    // workgroupUniformLoad of a whole struct and of an array, the loaded count as a loop bound.
    name: "CTS workgroupUniformLoad of a struct and an array (uniform loop bound)",
    source: /* wgsl */ `
struct Cfg { n: u32, scale: f32, offs: vec2<f32> }
var<workgroup> cfg: Cfg;
var<workgroup> table: array<f32, 8>;
@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;
@compute @workgroup_size(8)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wg: vec3u) {
  if (li == 0u) { cfg = Cfg(3u + wg.x, 0.5, vec2(1.0, 2.0)); }
  table[li] = input[wg.x * 8u + li];
  let c = workgroupUniformLoad(&cfg);
  let t = workgroupUniformLoad(&table);
  var acc = c.offs.y;
  for (var k = 0u; k < c.n; k++) { acc += t[(li + k) % 8u] * c.scale; }
  output[wg.x * 8u + li] = acc + c.offs.x;
}`,
    plain: [B(0, 0, f(32, 0.125)), B(0, 1, new Float32Array(32))],
    workgroups: [4, 1, 1],
    threads: 32,
  },
];
