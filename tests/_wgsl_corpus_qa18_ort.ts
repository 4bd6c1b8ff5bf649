/**
 * QA wave 18, WGSL as onnxruntime-web's WebGPU ops generate it (microsoft/onnxruntime,
 * `js/web/lib/wasm/jsep/webgpu/ops/`, stored versions 02da1ac7 (scatter-nd.ts), 18aeee07
 * (where.ts), 48df43dc (rotary-embedding.ts) and the ShaderHelper's `mainStart` of common.ts):
 * the ops transformers.js runs on WebGPU that the third and fifth waves left out. Their
 * constructs: a `Uniforms` struct of u32 scalars, `vecN<u32>` shapes and strides (vec3 members
 * packing a scalar into their tail) indexed at run time, int64 tensors as `array<vec2<u32>>`,
 * ScatterND's float reduction by an `atomicCompareExchangeWeak` loop on `atomic<i32>`, Where's
 * `bool(u32 & mask)`, RotaryEmbedding's `u32 / vec4<u32> % vec4<u32>` and integer `dot`, an
 * index written into a vector by a uniform (`v[uniforms.axis] = ...`), `enable f16` with
 * workgroup reductions, MatMulNBits' `unpack4xU8`. Each is written after its op's shader
 * builder (the constructs are onnxruntime's, the code is not copied); see `_wgsl_corpus_qa18.ts`.
 */
import { B, type CorpusCase, f } from "./_wgsl_corpus_qa_base.ts";
import { type Member, U } from "./_wgsl_corpus_qa18_base.ts";

/** ShaderHelper.mainStart for a 1-D dispatch (`normalizedDispatchGroup` [x, 1, 1]). */
const MAIN = (size = 64) =>
  `@compute @workgroup_size(${size}, 1, 1)
  fn main(@builtin(global_invocation_id) global_id : vec3<u32>,
    @builtin(workgroup_id) workgroup_id : vec3<u32>,
    @builtin(local_invocation_index) local_idx : u32,
    @builtin(local_invocation_id) local_id : vec3<u32>) {
    let global_idx = global_id.x;
         let workgroup_index = workgroup_id.x;
  `;

/** int64 values as onnxruntime-web stores them (low, high u32 words). */
const i64 = (...v: number[]) =>
  Uint32Array.from(v.flatMap((x) => [x >>> 0, x < 0 ? 0xffffffff : 0]));

const SCATTER_ADD = {
  output_size: ["u32", 5],
  last_index_dimension: ["u32", 1],
  num_updates_elements: ["u32", 3],
  indices_shape: ["vec2u", [5, 1]],
  indices_strides: ["vec2u", [1, 1]],
  updates_shape: ["vec2u", [5, 3]],
  updates_strides: ["vec2u", [3, 1]],
  output_shape: ["vec2u", [4, 3]],
  output_strides: ["vec2u", [3, 1]],
} satisfies Record<string, Member>;

const SCATTER_MAX = {
  output_size: ["u32", 6],
  last_index_dimension: ["u32", 1],
  num_updates_elements: ["u32", 1],
  indices_shape: ["vec2u", [6, 1]],
  indices_strides: ["vec2u", [1, 1]],
  updates_shape: ["u32", 6],
  updates_strides: ["u32", 1],
  output_shape: ["u32", 8],
  output_strides: ["u32", 1],
} satisfies Record<string, Member>;

/** ScatterND's kernel (rank-2 or rank-1 output) with `reduction` rendered. */
const scatter = (rank2: boolean, type: string, reduce: string) => `
struct Uniforms { output_size:u32, last_index_dimension:u32, num_updates_elements:u32, indices_shape:vec2<u32>, indices_strides:vec2<u32>, updates_shape:${
  rank2 ? "vec2<u32>" : "u32"
}, updates_strides:${rank2 ? "vec2<u32>" : "u32"}, output_shape:${
  rank2 ? "vec2<u32>" : "u32"
}, output_strides:${rank2 ? "vec2<u32>" : "u32"} };
@group(0) @binding(3) var<uniform> uniforms: Uniforms;

      @group(0) @binding(0) var<storage, read> indices: array<vec2<u32>>;
@group(0) @binding(1) var<storage, read> updates: array<${type}>;
@group(0) @binding(2) var<storage, read_write> output: array<atomic<i32>>;
      ${MAIN()}
        if (global_idx >= uniforms.output_size) { return; }
  var hasDuplicates = false;
  if (false) {
    let n = ${rank2 ? 5 : 6};
    for (var i = 0; i < n; i = i + 1) {
      for (var j = i + 1; j < n; j = j + 1) {
        var index_i = i32(indices[i].x);
        var index_j = i32(indices[j].x);
        if (index_i == index_j) {
          hasDuplicates = true;
          break;
        }
      }
      if (hasDuplicates) {
        break;
      }
    }
  }

  var data_offset = 0u;
  var indices_start = uniforms.last_index_dimension * global_idx;
  if (false && hasDuplicates) {
    indices_start = 0u;
  }
  let indices_end = indices_start + uniforms.last_index_dimension;
  for (var i = indices_start; i < indices_end; i++) {
    var index = i32(indices[i].x);
    ${
  rank2
    ? `
    let element_count_dim = uniforms.output_strides[i - indices_start];
    let dim_value = uniforms.output_shape[i - indices_start + uniforms.last_index_dimension];`
    : `
    let element_count_dim = uniforms.output_strides;
    let dim_value = uniforms.output_shape;`
}
    if (index >= 0) {
      if (index >= i32(dim_value)) {
        index = i32(dim_value - 1);
      }
    } else {
      if (index < -i32(dim_value)) {
        index = 0;
      } else {
        index += i32(dim_value);
      }
    }
    data_offset += u32((u32(index) * element_count_dim));
  }

  for (var i = 0u; i < uniforms.num_updates_elements; i++) {
    let value = updates[uniforms.num_updates_elements * global_idx + i];
    ${reduce}
  }

      }`;

/** The float `add` reduction: a compare-exchange loop over the f32's bits. */
const CAS_ADD = `
              {
                var oldValue = 0;
                loop {
                  let newValueF32 =bitcast<f32>(oldValue) + (value);
                  let newValue = bitcast<i32>(newValueF32);
                  let res = atomicCompareExchangeWeak(&output[data_offset + i], oldValue, newValue);
                  if res.exchanged {
                    break;
                  }
                  oldValue = res.old_value;
                }
              }`;

const GATHER_ELEMENTS = {
  output_size: ["u32", 24],
  axis_dim_limit: ["i32", 3],
  axis: ["u32", 1],
  input_shape: ["vec3u", [2, 3, 4]],
  input_strides: ["vec3u", [12, 4, 1]],
  indices_shape: ["vec3u", [2, 3, 4]],
  indices_strides: ["vec3u", [12, 4, 1]],
  output_shape: ["vec3u", [2, 3, 4]],
  output_strides: ["vec3u", [12, 4, 1]],
} satisfies Record<string, Member>;

const EXPAND = {
  output_size: ["u32", 240],
  input_shape: ["vec4u2", [[3, 1, 2, 1], [4, 0, 0, 0]]],
  input_strides: ["vec4u2", [[8, 8, 4, 4], [1, 0, 0, 0]]],
  output_shape: ["vec4u2", [[3, 2, 2, 5], [4, 0, 0, 0]]],
  output_strides: ["vec4u2", [[80, 40, 20, 4], [1, 0, 0, 0]]],
} satisfies Record<string, Member>;

const TILE = {
  output_size: ["u32", 72],
  input_shape: ["vec3u", [2, 3, 2]],
  input_strides: ["vec3u", [6, 2, 1]],
  output_shape: ["vec3u", [4, 3, 6]],
  output_strides: ["vec3u", [18, 6, 1]],
} satisfies Record<string, Member>;

const ARGMAX = {
  output_size: ["u32", 6],
  input_shape: ["vec2u", [6, 7]],
  input_strides: ["vec2u", [7, 1]],
  output_shape: ["u32", 6],
  output_strides: ["u32", 1],
} satisfies Record<string, Member>;

const WHERE = {
  vec_size: ["u32", 8],
  c_data_shape: ["vec2u", [4, 1]],
  c_data_strides: ["vec2u", [1, 1]],
  a_data_shape: ["vec2u", [4, 8]],
  a_data_strides: ["vec2u", [8, 1]],
  b_data_shape: ["u32", 8],
  b_data_strides: ["u32", 1],
  output_data_shape: ["vec2u", [4, 8]],
  output_data_strides: ["vec2u", [8, 1]],
} satisfies Record<string, Member>;

const ROTARY = {
  scale: ["f32", 1],
  global_shape: ["vec4u", [1, 3, 2, 2]],
  global_strides: ["vec4u", [12, 4, 2, 1]],
  input_output_strides: ["vec4u", [24, 8, 4, 1]],
  input_shape: ["vec3u", [1, 3, 8]],
  input_strides: ["vec3u", [24, 8, 1]],
  position_ids_shape: ["vec2u", [1, 1]],
  position_ids_strides: ["vec2u", [1, 1]],
  cos_cache_shape: ["vec2u", [8, 2]],
  cos_cache_strides: ["vec2u", [2, 1]],
  sin_cache_shape: ["vec2u", [8, 2]],
  sin_cache_strides: ["vec2u", [2, 1]],
  output_shape: ["vec3u", [1, 3, 8]],
  output_strides: ["vec3u", [24, 8, 1]],
} satisfies Record<string, Member>;

const INSTANCE_NORM = {
  normSize: ["u32", 100],
  C: ["u32", 3],
  epsilon: ["f32", 1e-5],
} satisfies Record<string, Member>;

const NBITS = {
  output_size: ["u32", 6],
  K: ["u32", 32],
  N: ["u32", 6],
} satisfies Record<string, Member>;

const RANGE = {
  start: ["i32", -7],
  delta: ["i32", 3],
  output_size: ["u32", 50],
} satisfies Record<string, Member>;

/** A case of one onnxruntime op: its uniform at binding `at`, the other bindings before it. */
const op = (
  name: string,
  source: string,
  storage: CorpusCase["plain"],
  members: Record<string, Member>,
  workgroups: number,
  extra: Partial<CorpusCase> = {},
): CorpusCase => {
  const u = U(storage.length, members);
  return {
    name,
    source,
    plain: [...storage, u.binding],
    workgroups: [workgroups, 1, 1],
    params: u.params,
    ...extra,
  };
};

/** The cases that run. */
export const ORT: readonly CorpusCase[] = [
  op(
    "onnxruntime-web ScatterND add on f32 (atomicCompareExchangeWeak loop, int64 indices)",
    scatter(true, "f32", CAS_ADD),
    [
      B(0, 0, i64(0, 2, 0, -1, 3)),
      B(0, 1, Float32Array.from({ length: 15 }, (_, i) => i - 4)),
      // The f32 output's bytes, as onnxruntime binds them to its `atomic<i32>` view: the
      // client checks element types, so the data is uploaded as the i32 words of the f32s.
      B(0, 2, new Int32Array(Float32Array.from({ length: 12 }, (_, i) => 100 + i).buffer)),
    ],
    SCATTER_ADD,
    1,
  ),
  op(
    "onnxruntime-web ScatterND max on i32 (atomicMax, rank-1 u32 shape uniforms)",
    scatter(false, "i32", "atomicMax(&output[data_offset + i], bitcast<i32>(value));"),
    [
      B(0, 0, i64(1, 5, -2, 9, 1, -9)),
      B(0, 1, Int32Array.from([40, -3, 12, 7, -50, 60])),
      B(0, 2, Int32Array.from([0, 10, -10, 20, 0, 5, 30, -1])),
    ],
    SCATTER_MAX,
    1,
  ),
  op(
    "onnxruntime-web GatherElements (vec3 uniforms, inputIndices[uniforms.axis] = u32(idx))",
    `
struct Uniforms { output_size:u32, axis_dim_limit:i32, axis:u32, input_shape:vec3<u32>, input_strides:vec3<u32>, indices_shape:vec3<u32>, indices_strides:vec3<u32>, output_shape:vec3<u32>, output_strides:vec3<u32> };
@group(0) @binding(3) var<uniform> uniforms: Uniforms;

      @group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read> indices: array<i32>;
@group(0) @binding(2) var<storage, read_write> output: array<f32>;
fn o2i_output(offset: u32) -> vec3<u32> {
      var indices: vec3<u32>;
      var current = offset;
      let dim0 = current / uniforms.output_strides[0];
      let rest0 = current % uniforms.output_strides[0];
      indices[0] = dim0;
      current = rest0;
      let dim1 = current / uniforms.output_strides[1];
      let rest1 = current % uniforms.output_strides[1];
      indices[1] = dim1;
      current = rest1;
      indices[2] = current;
      return indices;
    }
fn i2o_indices(indices: vec3<u32>) -> u32 {
      return uniforms.indices_strides[2] * (indices[2])+uniforms.indices_strides[1] * (indices[1])+uniforms.indices_strides[0] * (indices[0]);
    }
fn i2o_input(indices: vec3<u32>) -> u32 {
      return uniforms.input_strides[2] * (indices[2])+uniforms.input_strides[1] * (indices[1])+uniforms.input_strides[0] * (indices[0]);
    }
      ${MAIN()}
      if (global_idx >= uniforms.output_size) { return; }

      let outputIndices = o2i_output(global_idx);

      var idx = indices[i2o_indices(outputIndices)];
      if (idx < 0) {
        idx = idx + uniforms.axis_dim_limit;
      }
      var inputIndices = outputIndices;
      inputIndices[uniforms.axis] = u32(idx);
      let value = input[i2o_input(inputIndices)];

      output[global_idx] = value;
  }`,
    [
      B(0, 0, f(24, 0.5, -3)),
      B(0, 1, Int32Array.from({ length: 24 }, (_, i) => ((i * 7) % 6) - 3)),
      B(0, 2, new Float32Array(24)),
    ],
    GATHER_ELEMENTS,
    1,
  ),
  op(
    "onnxruntime-web 5-D Expand (array<u32, 5> indices, shape[i / 4][i % 4] in a loop)",
    `
struct Uniforms { output_size:u32, input_shape:array<vec4<u32>, 2>, input_strides:array<vec4<u32>, 2>, output_shape:array<vec4<u32>, 2>, output_strides:array<vec4<u32>, 2> };
@group(0) @binding(2) var<uniform> uniforms: Uniforms;

      @group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;
fn o2i_output(offset: u32) -> array<u32, 5> {
      var indices: array<u32, 5>;
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
      indices[4] = current;
      return indices;
    }
fn broadcastIndicesToOffsetInput(outputIndices: array<u32, 5>) -> u32 {
      var offset = 0u;
      for (var i: i32 = 0; i < 5; i++) {
        let dim = uniforms.input_shape[i / 4][i % 4];
        let idx = select(outputIndices[i] % dim, 0u, dim == 1u);
        offset += idx * uniforms.input_strides[i / 4][i % 4];
      }
      return offset;
    }
      ${MAIN()}
      if (global_idx >= uniforms.output_size) { return; }
      let outputIndices = o2i_output(global_idx);
      output[global_idx] = input[broadcastIndicesToOffsetInput(outputIndices)];
    }`,
    [B(0, 0, f(24, 1, -11)), B(0, 1, new Float32Array(240))],
    EXPAND,
    4,
  ),
  op(
    "onnxruntime-web Tile (uniforms.input_shape[i] of a vec3 in an i32 loop)",
    `
struct Uniforms { output_size:u32, input_shape:vec3<u32>, input_strides:vec3<u32>, output_shape:vec3<u32>, output_strides:vec3<u32> };
@group(0) @binding(2) var<uniform> uniforms: Uniforms;

      @group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;
fn o2i_output(offset: u32) -> vec3<u32> {
      var indices: vec3<u32>;
      var current = offset;
      for (var i = 0; i < 2; i++) {
        indices[i] = current / uniforms.output_strides[i];
        current = current % uniforms.output_strides[i];
      }
      indices[2] = current;
      return indices;
    }
fn i2o_input(indices: vec3<u32>) -> u32 {
      return uniforms.input_strides[2] * (indices[2])+uniforms.input_strides[1] * (indices[1])+uniforms.input_strides[0] * (indices[0]);
    }
      ${MAIN()}
      if (global_idx >= uniforms.output_size) { return; }
      let output_indices = o2i_output(global_idx);
      var input_indices: vec3<u32>;
      for (var i = 0; i < 3; i++) {
        let input_dim_i = uniforms.input_shape[i];
        let input_dim_value = output_indices[i] % uniforms.input_shape[i];
        input_indices[i] = input_dim_value;
      }
      output[global_idx] = input[i2o_input(input_indices)];
    }`,
    [B(0, 0, f(12, 2, 1)), B(0, 1, new Float32Array(72))],
    TILE,
    2,
  ),
  op(
    "onnxruntime-web ArgMax (int64 out as vec2<u32>, select of 0xFFFFFFFFu, vec2 indices)",
    `
struct Uniforms { output_size:u32, input_shape:vec2<u32>, input_strides:vec2<u32>, output_shape:u32, output_strides:u32 };
@group(0) @binding(2) var<uniform> uniforms: Uniforms;

      @group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<vec2<u32>>;
fn i2o_input(indices: vec2<u32>) -> u32 {
      return uniforms.input_strides[1] * (indices[1])+uniforms.input_strides[0] * (indices[0]);
    }
      ${MAIN()}
        if (global_idx >= uniforms.output_size) { return; }
        var input_indices: vec2<u32>;
        let output_indices = global_idx;

        input_indices[0] = output_indices;
        var value = input[i2o_input(input_indices)];
        var best_index : i32 = 0;
        for(var k: u32 = 0u; k < uniforms.input_shape[1]; k++) {
          input_indices[1] = k;
          let element = input[i2o_input(input_indices)];
          if (element > value) {
            value = element;
            best_index = i32(k);
          }
        }
        output[global_idx] = vec2<u32>(u32(best_index), select(0u, 0xFFFFFFFFu, best_index < 0));
      }`,
    [B(0, 0, f(42, 0.25, -5)), B(0, 1, new Uint32Array(12).fill(7))],
    ARGMAX,
    1,
  ),
  op(
    "onnxruntime-web Where broadcast (bool(u32 & mask) of packed bools, vec4 components)",
    `
struct Uniforms { vec_size:u32, c_data_shape:vec2<u32>, c_data_strides:vec2<u32>, a_data_shape:vec2<u32>, a_data_strides:vec2<u32>, b_data_shape:u32, b_data_strides:u32, output_data_shape:vec2<u32>, output_data_strides:vec2<u32> };
@group(0) @binding(4) var<uniform> uniforms: Uniforms;

        @group(0) @binding(0) var<storage, read> c_data: array<u32>;
@group(0) @binding(1) var<storage, read> a_data: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> b_data: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> output_data: array<vec4<f32>>;
fn o2i_output_data(offset: u32) -> vec2<u32> {
      var indices: vec2<u32>;
      var current = offset;
      let dim0 = current / uniforms.output_data_strides[0];
      let rest0 = current % uniforms.output_data_strides[0];
      indices[0] = dim0;
      current = rest0;
      indices[1] = current;
      return indices;
    }
fn broadcastIndicesToOffsetA(outputIndices: vec2<u32>) -> u32 {
      return uniforms.a_data_strides[0] * (outputIndices[0] % uniforms.a_data_shape[0])
        + uniforms.a_data_strides[1] * (outputIndices[1] % uniforms.a_data_shape[1]);
    }
fn broadcastIndicesToOffsetB(outputIndices: vec2<u32>) -> u32 {
      return uniforms.b_data_strides * (outputIndices[1] % uniforms.b_data_shape);
    }
fn broadcastIndicesToOffsetC(outputIndices: vec2<u32>) -> u32 {
      return uniforms.c_data_strides[0] * (outputIndices[0] % uniforms.c_data_shape[0])
        + uniforms.c_data_strides[1] * (outputIndices[1] % uniforms.c_data_shape[1]);
    }
        ${MAIN()}
        if (global_idx >= uniforms.vec_size) { return; }
${
      [0, 1, 2, 3].map((x) => `
            let output_indices${x} = o2i_output_data(global_idx * 4u + ${x}u);
            let offset_a${x} = broadcastIndicesToOffsetA(output_indices${x});
            let offset_b${x} = broadcastIndicesToOffsetB(output_indices${x});
            let offset_c${x} = broadcastIndicesToOffsetC(output_indices${x});
            let index_a${x} = offset_a${x} / 4u;
            let index_b${x} = offset_b${x} / 4u;
            let index_c${x} = offset_c${x} / 4u;
            let component_a${x} = offset_a${x} % 4u;
            let component_b${x} = offset_b${x} % 4u;
            output_data[global_idx][${x}] = (select(b_data[index_b${x}][component_b${x}], a_data[index_a${x}][component_a${x}], bool(c_data[index_c${x}] & ${
        0xff000000 >>> ((3 - x) * 8)
      }u)));`).join("\n")
    }
      }`,
    [
      B(0, 0, Uint32Array.from([0x01000100])),
      B(0, 1, f(32, 1, 0)),
      B(0, 2, f(8, -1, -1)),
      B(0, 3, new Float32Array(32)),
    ],
    WHERE,
    1,
  ),
  op(
    "onnxruntime-web RotaryEmbedding (u32 / vec4 % vec4, integer dot, select(0, u32, c))",
    `
struct Uniforms { scale:f32, global_shape:vec4<u32>, global_strides:vec4<u32>, input_output_strides:vec4<u32>, input_shape:vec3<u32>, input_strides:vec3<u32>, position_ids_shape:vec2<u32>, position_ids_strides:vec2<u32>, cos_cache_shape:vec2<u32>, cos_cache_strides:vec2<u32>, sin_cache_shape:vec2<u32>, sin_cache_strides:vec2<u32>, output_shape:vec3<u32>, output_strides:vec3<u32> };
@group(0) @binding(5) var<uniform> uniforms: Uniforms;

        @group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read> position_ids: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read> cos_cache: array<f32>;
@group(0) @binding(3) var<storage, read> sin_cache: array<f32>;
@group(0) @binding(4) var<storage, read_write> output: array<f32>;
fn broadcastIndicesToOffsetPositionIds(outputIndices: vec2<u32>) -> u32 {
      return uniforms.position_ids_strides[0] * select(outputIndices[0], 0u, uniforms.position_ids_shape[0] == 1u)
        + uniforms.position_ids_strides[1] * select(outputIndices[1], 0u, uniforms.position_ids_shape[1] == 1u);
    }
fn i2o_cos_cache(indices: vec2<u32>) -> u32 {
      return uniforms.cos_cache_strides[1] * (indices[1])+uniforms.cos_cache_strides[0] * (indices[0]);
    }
fn i2o_sin_cache(indices: vec2<u32>) -> u32 {
      return uniforms.sin_cache_strides[1] * (indices[1])+uniforms.sin_cache_strides[0] * (indices[0]);
    }

        ${MAIN()}
          let half_rotary_emb_dim = uniforms.cos_cache_shape[1];
          let bsnh = global_idx / uniforms.global_strides % uniforms.global_shape;
          let size = uniforms.global_shape[0] * uniforms.global_strides[0];
          if (global_idx >= size) { return; }

          if (bsnh[3] < half_rotary_emb_dim) {
            let position_ids_idx = broadcastIndicesToOffsetPositionIds(bsnh.xy);
            let position_id =
                u32(i32(position_ids[position_ids_idx].x)) + select(0, bsnh[1], position_ids_idx == 0);
            let i = dot(bsnh, uniforms.input_output_strides) + select(0, bsnh[3], false);
            let j = i + select(half_rotary_emb_dim, 1, false);
            let re = input[i] * cos_cache[i2o_cos_cache(vec2<u32>(position_id, bsnh[3]))] -
                input[j] * sin_cache[i2o_sin_cache(vec2<u32>(position_id, bsnh[3]))];
            output[i] = re;
            let im = input[i] * sin_cache[i2o_sin_cache(vec2<u32>(position_id, bsnh[3]))] +
                input[j] * cos_cache[i2o_cos_cache(vec2<u32>(position_id, bsnh[3]))];
            output[j] = im;
          } else {
            let k = dot(bsnh, uniforms.input_output_strides) + half_rotary_emb_dim;
            output[k] = input[k];
          }
        }`,
    [
      B(0, 0, f(24, 0.125, -2)),
      B(0, 1, i64(2)),
      B(0, 2, Float32Array.from({ length: 16 }, (_, i) => Math.cos(i * 0.3))),
      B(0, 3, Float32Array.from({ length: 16 }, (_, i) => Math.sin(i * 0.3))),
      B(0, 4, new Float32Array(24).fill(-1)),
    ],
    ROTARY,
    1,
  ),
  op(
    "onnxruntime-web Range on i32 (i32 start/delta uniforms, i32(global_idx))",
    `
struct Uniforms { start:i32, delta:i32, output_size:u32 };
@group(0) @binding(1) var<uniform> uniforms: Uniforms;

        @group(0) @binding(0) var<storage, read_write> output: array<i32>;
        ${MAIN()}
        if (global_idx >= uniforms.output_size) { return; }
        let value = i32(global_idx) * uniforms.delta;
        output[global_idx] = uniforms.start + value;
      }`,
    [B(0, 0, new Int32Array(64))],
    RANGE,
    1,
  ),
];

/** The cases that need `shader-f16`. */
export const ORT_F16: readonly CorpusCase[] = [
  op(
    "onnxruntime-web InstanceNormalization f16 (vec2<f32> workgroup tree, f32 workgroup scalars)",
    `enable f16;

struct Uniforms { normSize:u32, C:u32, epsilon:f32 };
@group(0) @binding(4) var<uniform> uniforms: Uniforms;

  @group(0) @binding(0) var<storage, read> x: array<f16>;
@group(0) @binding(1) var<storage, read> scale: array<f16>;
@group(0) @binding(2) var<storage, read> bias: array<f16>;
@group(0) @binding(3) var<storage, read_write> output: array<f16>;
  var<workgroup> meanShared : f32;
  var<workgroup> squaredNormShared : f32;
  var<workgroup> workgroupShared : array<vec2<f32>, 64>;
  const workgroupSize = 64u;
  ${MAIN()}
    let norm = global_idx / workgroupSize;
    let channel = norm % uniforms.C;
    let offset = norm * uniforms.normSize;
    let localIndex = local_id.x;

    var threadSum = vec2<f32>(0);
    for (var h = localIndex; h < uniforms.normSize; h += workgroupSize) {
      let value = f32(x[h + offset]);
      threadSum += vec2<f32>(value, value * value);
    }
    workgroupShared[localIndex] = threadSum;
    workgroupBarrier();

    for (var currSize = workgroupSize >> 1;  currSize > 0; currSize = currSize >> 1) {
      if (localIndex < currSize) {
        workgroupShared[localIndex] += workgroupShared[localIndex + currSize];
      }
      workgroupBarrier();
    }
    if (localIndex == 0) {
      let sum = workgroupShared[0];
      let mean = sum.x / f32(uniforms.normSize);
      meanShared = mean;
      squaredNormShared = sum.y / f32(uniforms.normSize) - mean * mean;
    }
    workgroupBarrier();

    let invStdDev = inverseSqrt(squaredNormShared + f32(uniforms.epsilon));
    let channelScale = invStdDev * f32(scale[channel]);
    let channelShift = f32(bias[channel]) - meanShared * channelScale;
    for (var h = localIndex; h < uniforms.normSize; h += workgroupSize) {
      let value = f16(f32(x[h + offset]) * channelScale + channelShift);
      output[h + offset] = value;
    }
  }`,
    [
      B(0, 0, Float16Array.from(f(600, 0.0625, -3))),
      B(0, 1, Float16Array.from([1.5, -0.75, 2, 0])),
      B(0, 2, Float16Array.from([0.25, 1, -0.5, 0])),
      B(0, 3, new Float16Array(600)),
    ],
    INSTANCE_NORM,
    6,
    { features: ["shader-f16"] },
  ),
  op(
    "onnxruntime-web MatMulNBits 4-bit (unpack4xU8 of nibbles, f16 scales, zero point 8)",
    `enable f16;

struct Uniforms { output_size:u32, K:u32, N:u32 };
@group(0) @binding(4) var<uniform> uniforms: Uniforms;

  @group(0) @binding(0) var<storage, read> a: array<vec4<f16>>;
@group(0) @binding(1) var<storage, read> b: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read> scales: array<f16>;
@group(0) @binding(3) var<storage, read_write> output: array<f16>;
  alias a_value_t = vec4<f16>;
  const zero_point = vec4<f16>(8.0);
  ${MAIN(8)}
    if (global_idx >= uniforms.output_size) { return; }
    let col = global_idx % uniforms.N;
    let row = global_idx / uniforms.N;
    var sum = f16(0);
    let blocks = uniforms.K / 16u;
    for (var block = 0u; block < blocks; block++) {
      let scale = scales[col * blocks + block];
      let b_data = b[col * blocks + block];
      for (var half_word: u32 = 0; half_word < 2; half_word++) {
        let b_value = b_data[half_word];
        let b_value_lower = vec4<f16>(unpack4xU8(b_value & 0x0F0F0F0Fu)) - zero_point;
        let b_value_upper = vec4<f16>(unpack4xU8((b_value >> 4) & 0x0F0F0F0Fu)) - zero_point;
        let a_index = (row * uniforms.K + block * 16u + half_word * 8u) / 4u;
        let a0: a_value_t = a[a_index];
        let a1: a_value_t = a[a_index + 1u];
        sum += dot(a0, vec4<f16>(b_value_lower[0], b_value_upper[0], b_value_lower[1], b_value_upper[1])) * scale;
        sum += dot(a1, vec4<f16>(b_value_lower[2], b_value_upper[2], b_value_lower[3], b_value_upper[3])) * scale;
      }
    }
    output[global_idx] = sum;
  }`,
    [
      B(0, 0, Float16Array.from(f(32, 0.125, -6))),
      B(0, 1, Uint32Array.from({ length: 24 }, (_, i) => (i * 2654435761) >>> 0)),
      B(0, 2, Float16Array.from({ length: 12 }, (_, i) => 0.01 * (i + 1))),
      B(0, 3, new Float16Array(8)),
    ],
    NBITS,
    1,
    { features: ["shader-f16"] },
  ),
];
