/**
 * QA wave 3, ML kernels: onnxruntime-web's generated Gather, CumSum, grouped Conv, MaxPool and
 * shared-memory ReduceMean (what transformers.js runs on WebGPU), and a tiled matmul from the
 * "Optimizing a WebGPU Matmul Kernel" blog; see `_wgsl_corpus_qa3.ts`.
 */
import { B, type CorpusCase, f } from "./_wgsl_corpus_qa_base.ts";
import { w } from "./_wgsl_corpus_qa3_base.ts";

/** The conv's uniforms, 144 bytes: u32, then vec2u x3, u32, then vec4u x6 from byte 48. */
const CONV_U = {
  output_size: 100,
  dilations: [1, 1],
  strides: [1, 1],
  pads: [1, 1],
  output_channels_per_group: 2,
  x_shape: [1, 2, 5, 5],
  x_strides: [50, 25, 5, 1],
  w_shape: [4, 1, 3, 3],
  w_strides: [9, 9, 3, 1],
  output_shape: [1, 4, 5, 5],
  output_strides: [100, 25, 5, 1],
};

export const ML3: readonly CorpusCase[] = [
  {
    // After https://github.com/microsoft/onnxruntime/blob/main/js/web/lib/wasm/jsep/webgpu/ops/gather.ts's generated WGSL (transformers.js' embedding lookups): i32 indices,
    // a negative index wrapped by the data's shape, vec2<u32> shape/stride uniforms after a
    // u32, offset-to-indices by strides.
    name: "onnxruntime-web Gather (i32 indices, negative index wrap, vec2<u32> shape uniforms)",
    source: /* wgsl */ `
struct Uniforms { output_size: u32, data_shape: vec2<u32>, data_strides: vec2<u32>, indices_shape: u32, output_shape: vec2<u32>, output_strides: vec2<u32> };
@group(0) @binding(0) var<storage, read> data: array<f32>;
@group(0) @binding(1) var<storage, read> input_indices: array<i32>;
@group(0) @binding(2) var<storage, read_write> output: array<f32>;
@group(0) @binding(3) var<uniform> uniforms: Uniforms;

  fn o2i_output(offset: u32) -> vec2<u32> {
    var indices: vec2<u32>;
    var current = offset;
    let dim0 = current / uniforms.output_strides[0];
    let rest0 = current % uniforms.output_strides[0];
    indices[0] = dim0;
    current = rest0;
    indices[1] = current;
    return indices;
  }

  @compute @workgroup_size(64, 1, 1)
  fn main(@builtin(global_invocation_id) global_id : vec3<u32>,
        @builtin(workgroup_id) workgroup_id : vec3<u32>,
        @builtin(local_invocation_id) local_id : vec3<u32>) {
    let global_idx = global_id.x;
    if (global_idx >= uniforms.output_size) { return; }
    let output_indices = o2i_output(global_idx);
    var data_indices: vec2<u32>;
    var idx = input_indices[output_indices[0]];
    if (idx < 0) {
      idx = idx + i32(uniforms.data_shape[0]);
    }
    data_indices[0] = u32(idx);
    data_indices[1] = output_indices[1];
    output[global_idx] = data[data_indices[0] * uniforms.data_strides[0] + data_indices[1] * uniforms.data_strides[1]];
  }`,
    plain: [
      B(0, 0, f(10 * 6, 0.5)),
      B(0, 1, new Int32Array([3, -1, 0, 9, -10, 4, 7])),
      B(0, 2, new Float32Array(7 * 6)),
      B(0, 3, w(42, 0, 10, 6, 6, 1, 7, 0, 7, 6, 6, 1), true),
    ],
    workgroups: [1, 1, 1],
    threads: 42,
    params: {
      output_size: 42,
      data_shape: [10, 6],
      data_strides: [6, 1],
      indices_shape: 7,
      output_shape: [7, 6],
      output_strides: [6, 1],
    },
  },
  {
    // After https://github.com/microsoft/onnxruntime/blob/main/js/web/lib/wasm/jsep/webgpu/ops/cumsum.ts: the axis a uniform indexing a vector at run time, exclusive and
    // reverse as u32 uniforms selecting the loop bounds, an i32 loop over u32 indices.
    name: "onnxruntime-web CumSum (runtime vector index by a uniform axis, exclusive/reverse)",
    source: /* wgsl */ `
alias output_value_t = f32;
struct Uniforms { outputSize: u32, axis: u32, exclusive: u32, reverse: u32, input_shape: vec2<u32>, input_strides: vec2<u32> };
@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;
@group(0) @binding(2) var<uniform> uniforms: Uniforms;
fn o2i_input(offset: u32) -> vec2<u32> {
  var indices: vec2<u32>;
  indices[0] = offset / uniforms.input_strides[0];
  indices[1] = offset % uniforms.input_strides[0];
  return indices;
}
@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) global_id : vec3<u32>) {
  let global_idx = global_id.x;
  if (global_idx >= uniforms.outputSize) { return; }
  var inputIndices = o2i_input(global_idx);
  var sum = output_value_t(0);
  let index = i32(inputIndices[uniforms.axis]);
  let axisValue = i32(uniforms.input_shape[uniforms.axis]);
  let first : i32 = select(0, index + select(0, 1, uniforms.exclusive == 1u), uniforms.reverse == 1u);
  let last : i32 = select(index + select(1, 0, uniforms.exclusive == 1u), axisValue, uniforms.reverse == 1u);
  for (var i : i32 = first; i < last; i++) {
    inputIndices[uniforms.axis] = u32(i);
    sum = sum + input[inputIndices[0] * uniforms.input_strides[0] + inputIndices[1] * uniforms.input_strides[1]];
  }
  output[global_idx] = sum;
}`,
    plain: [
      B(0, 0, f(48, 0.25, -3)),
      B(0, 1, new Float32Array(48)),
      B(0, 2, w(48, 1, 1, 1, 6, 8, 8, 1), true),
    ],
    workgroups: [1, 1, 1],
    threads: 48,
    params: {
      outputSize: 48,
      axis: 1,
      exclusive: 1,
      reverse: 1,
      input_shape: [6, 8],
      input_strides: [8, 1],
    },
  },
  {
    // After https://github.com/microsoft/onnxruntime/blob/main/js/web/lib/wasm/jsep/webgpu/ops/conv-grouped.ts (createGroupedConvProgramInfo): a 144-byte uniform of a
    // u32, three vec2<u32>, a u32 and six vec4<u32> (the first at byte 48), corners
    // `vec2<u32> * strides - pads` wrapping below zero, `continue` on out-of-range rows.
    name:
      "onnxruntime-web grouped Conv2D (vec2/vec4<u32> uniforms from byte 48, u32 wrap, continue)",
    source: /* wgsl */ `
struct Uniforms { output_size: u32, dilations: vec2<u32>, strides: vec2<u32>, pads: vec2<u32>, output_channels_per_group: u32, x_shape: vec4<u32>, x_strides: vec4<u32>, w_shape: vec4<u32>, w_strides: vec4<u32>, output_shape: vec4<u32>, output_strides: vec4<u32> };
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(2) var<storage, read_write> output: array<f32>;
@group(0) @binding(3) var<uniform> uniforms: Uniforms;
fn o2i_output(offset: u32) -> vec4<u32> {
  var indices: vec4<u32>;
  var current = offset;
  for (var i = 0u; i < 3u; i++) {
    let q = current / uniforms.output_strides[i];
    indices[i] = q;
    current = current - q * uniforms.output_strides[i];
  }
  indices[3] = current;
  return indices;
}
@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) global_id : vec3<u32>) {
  let global_idx = global_id.x;
  if (global_idx >= uniforms.output_size) { return; }
  let outputIndices = o2i_output(global_idx);
  let batch: u32 = outputIndices[0];
  let output_channel: u32 = outputIndices[1];
  let xRCCorner: vec2<u32> = vec2<u32>(outputIndices[2], outputIndices[3]) * uniforms.strides - uniforms.pads;
  let group_id: u32 = output_channel / uniforms.output_channels_per_group;
  var value: f32 = f32(0);
  for (var wInChannel: u32 = 0u; wInChannel < uniforms.w_shape[1]; wInChannel++) {
    let input_channel = group_id * uniforms.w_shape[1] + wInChannel;
    for (var wHeight: u32 = 0u; wHeight < uniforms.w_shape[2]; wHeight++) {
      let xHeight = xRCCorner.x + wHeight * uniforms.dilations[0];
      if (xHeight < 0u || xHeight >= uniforms.x_shape[2]) {
        continue;
      }
      for (var wWidth: u32 = 0u; wWidth < uniforms.w_shape[3]; wWidth++) {
        let xWidth = xRCCorner.y + wWidth * uniforms.dilations[1];
        if (xWidth < 0u || xWidth >= uniforms.x_shape[3]) {
          continue;
        }
        let xVal = x[dot(vec4<u32>(batch, input_channel, xHeight, xWidth), uniforms.x_strides)];
        let wVal = w[dot(vec4<u32>(output_channel, wInChannel, wHeight, wWidth), uniforms.w_strides)];
        value += xVal * wVal;
      }
    }
  }
  output[global_idx] = value;
}`,
    plain: [
      B(0, 0, f(50, 0.1, -2)),
      B(0, 1, f(36, 0.05, -1)),
      B(0, 2, new Float32Array(100)),
      B(
        0,
        3,
        w(
          100,
          0,
          1,
          1,
          1,
          1,
          1,
          1,
          2,
          0,
          0,
          0,
          ...Object.values(CONV_U).slice(5).flat() as number[],
        ),
        true,
      ),
    ],
    workgroups: [2, 1, 1],
    threads: 100,
    params: CONV_U,
  },
  {
    // After https://github.com/microsoft/onnxruntime/blob/main/js/web/lib/wasm/jsep/webgpu/ops/pool.ts's MaxPool: kernel and stride sizes as u32 uniforms, a -3.4e38
    // start value, `select` for the padding, a 4-D vec4<u32> output shape.
    name: "onnxruntime-web MaxPool (u32 window uniforms, -3.4028234663852886e+38 start, select)",
    source: /* wgsl */ `
struct Uniforms { output_size: u32, kw: u32, kh: u32, sw: u32, sh: u32, pwStart: u32, phStart: u32, x_shape: vec4<u32>, output_shape: vec4<u32> };
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;
@group(0) @binding(2) var<uniform> uniforms: Uniforms;
@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) global_id : vec3<u32>) {
  let global_idx = global_id.x;
  if (global_idx >= uniforms.output_size) { return; }
  let ow = global_idx % uniforms.output_shape[3];
  let oh = (global_idx / uniforms.output_shape[3]) % uniforms.output_shape[2];
  let nc = global_idx / (uniforms.output_shape[3] * uniforms.output_shape[2]);
  var value = f32(-3.4028234663852886e+38);
  var pad = 0;
  for (var j = 0u; j < uniforms.kh; j++) {
    let yi = oh * uniforms.sh - uniforms.phStart + j;
    for (var i = 0u; i < uniforms.kw; i++) {
      let xi = ow * uniforms.sw - uniforms.pwStart + i;
      if (xi < 0u || xi >= uniforms.x_shape[3] || yi < 0u || yi >= uniforms.x_shape[2]) {
        pad++;
        continue;
      }
      let xv = x[(nc * uniforms.x_shape[2] + yi) * uniforms.x_shape[3] + xi];
      value = select(value, xv, xv > value);
    }
  }
  output[global_idx] = value + f32(pad) * 0.001;
}`,
    plain: [
      B(0, 0, f(2 * 7 * 7, 0.3, -10)),
      B(0, 1, new Float32Array(2 * 4 * 4)),
      B(0, 2, w(32, 3, 3, 2, 2, 1, 1, 0, 1, 2, 7, 7, 1, 2, 4, 4), true),
    ],
    workgroups: [1, 1, 1],
    threads: 32,
    params: {
      output_size: 32,
      kw: 3,
      kh: 3,
      sw: 2,
      sh: 2,
      pwStart: 1,
      phStart: 1,
      x_shape: [1, 2, 7, 7],
      output_shape: [1, 2, 4, 4],
    },
  },
  {
    // After https://github.com/microsoft/onnxruntime/blob/main/js/web/lib/wasm/jsep/webgpu/ops/reduce-shared.ts (ReduceMean over the last axis): a module const
    // `workgroupSize = 32u` as the workgroup size and a workgroup array length, a halving
    // tree with an odd-size `interval`, one workgroup per output.
    name: "onnxruntime-web shared ReduceMean (const workgroupSize, odd-size halving tree)",
    source: /* wgsl */ `
const workgroupSize = 32u;
struct Uniforms { reduceSize: u32 };
@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;
@group(0) @binding(2) var<uniform> uniforms: Uniforms;
var<workgroup> aBestValues : array<f32, workgroupSize>;
@compute @workgroup_size(workgroupSize, 1, 1)
fn main(@builtin(local_invocation_index) local_idx: u32, @builtin(workgroup_id) workgroup_id: vec3<u32>) {
  let outputIndex = workgroup_id.x;
  let offset = outputIndex * uniforms.reduceSize;
  var bestValue = f32(0);
  let Length = uniforms.reduceSize;
  for (var k = local_idx; k < Length; k = k + workgroupSize) {
    let candidate = f32(input[offset + k]);
    bestValue = bestValue + candidate;
  }
  aBestValues[local_idx] = bestValue;
  workgroupBarrier();
  var reduceSize = min(Length, workgroupSize);
  for (var currentSize = reduceSize / 2u; reduceSize > 1u; currentSize = reduceSize / 2u) {
    let interval = currentSize + (reduceSize % 2u);
    if (local_idx < currentSize) {
      let candidate = aBestValues[local_idx + interval];
      aBestValues[local_idx] = aBestValues[local_idx] + candidate;
    }
    reduceSize = interval;
    workgroupBarrier();
  }
  if (local_idx == 0u) {
    output[outputIndex] = aBestValues[0] / f32(uniforms.reduceSize);
  }
}`,
    plain: [B(0, 0, f(5 * 77, 0.5, -20)), B(0, 1, new Float32Array(5)), B(0, 2, w(77), true)],
    workgroups: [5, 1, 1],
    threads: 5 * 32,
    params: { reduceSize: 77 },
  },
  {
    // After "Optimizing a WebGPU Matmul Kernel for 1TFLOP+" (Zach Nussbaum,
    // https://www.nuss-and-bolts.com/p/optimizing-a-webgpu-matmul-kernel, kernel 4: 2-D
    // register tiling): typed consts from abstract ints in @workgroup_size, a function-scope
    // `array<array<f32, TILE_N>, TILE_M>` accumulator, a Dimensions uniform at binding 0.
    name: "WebGPU matmul blog 2-D tiled kernel (typed consts, local array<array<f32,4>,4>)",
    source: /* wgsl */ `
struct Dimensions {
  M: u32,
  K: u32,
  N: u32,
}

@group(0) @binding(0) var<uniform> dimensions: Dimensions;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> result: array<f32>;

const BLOCKSIZE: u32 = 8;
const TILE_M: u32 = 4;  // Tile size in M dimension
const TILE_N: u32 = 4;  // Tile size in N dimension

@compute @workgroup_size(BLOCKSIZE, BLOCKSIZE)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
    let row = global_id.y * TILE_M;
    let col = global_id.x * TILE_N;

    var sums: array<array<f32, TILE_N>, TILE_M>;

    for (var k = 0u; k < dimensions.K; k++) {
        for (var i = 0u; i < TILE_M; i++) {
            let a_element = a[(row + i) * dimensions.K + k];
            for (var j = 0u; j < TILE_N; j++) {
                sums[i][j] += a_element * b[k * dimensions.N + (col + j)];
            }
        }
    }

    for (var i = 0u; i < TILE_M; i++) {
        for (var j = 0u; j < TILE_N; j++) {
            if (row + i < dimensions.M && col + j < dimensions.N) {
                result[(row + i) * dimensions.N + (col + j)] = sums[i][j];
            }
        }
    }
}`,
    plain: [
      B(0, 0, w(64, 16, 64), true),
      B(0, 1, f(64 * 16, 0.01, -0.5)),
      B(0, 2, f(16 * 64, 0.02, -1)),
      B(0, 3, new Float32Array(64 * 64)),
    ],
    workgroups: [2, 2, 1],
    threads: [16, 16],
    params: { M: 64, K: 16, N: 64 },
  },
];
