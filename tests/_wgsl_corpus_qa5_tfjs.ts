/**
 * QA wave 5, TensorFlow.js' WebGPU backend kernels inside its generated prologue (makeShader:
 * vec5/vec6 structs, user `isnan`/`isinf`, private copies of the builtins, a `_start` entry
 * calling `main(index)`); see `_wgsl_corpus_qa5.ts`.
 */
import { B, type CorpusCase, f } from "./_wgsl_corpus_qa_base.ts";
import { w } from "./_wgsl_corpus_qa3_base.ts";

/** TensorFlow.js' prologue (`webgpu_program.ts` makeShader, commonSnippet), any rank. */
export const TFJS_COMMON = /* wgsl */ `
  struct vec5 {x: i32, y: i32, z: i32, w: i32, u: i32};
  struct vec6 {x: i32, y: i32, z: i32, w: i32, u: i32, v: i32};

  // Checks whether coordinates lie within the bounds of the shape.
  fn coordsInBounds2D(coord : vec2<i32>, shape : vec2<i32>) -> bool {
    return all(coord >= vec2<i32>(0)) && all(coord < shape);
  }
  fn coordsInBounds3D(coord : vec3<i32>, shape : vec3<i32>) -> bool {
    return all(coord >= vec3<i32>(0)) && all(coord < shape);
  }
  fn coordsInBounds4D(coord : vec4<i32>, shape : vec4<i32>) -> bool {
    return all(coord >= vec4<i32>(0)) && all(coord < shape);
  }

  fn getIndexFromCoords1D(coord : i32, shape : i32) -> i32 {
    return coord;
  }
  fn getIndexFromCoords2D(coords : vec2<i32>, shape : vec2<i32>) -> i32 {
    return dot(coords, vec2<i32>(shape.y, 1));
  }
  fn getIndexFromCoords3D(coords : vec3<i32>, shape : vec3<i32>) -> i32 {
    return dot(coords, vec3<i32>(shape.y * shape.z, shape.z, 1));
  }
  fn getIndexFromCoords4D(coords : vec4<i32>, shape : vec4<i32>) -> i32 {
    return dot(coords, vec4<i32>(
        shape.y * shape.z * shape.w, shape.z * shape.w, shape.w, 1));
  }
  fn getIndexFromCoords5D(coords : vec5, shape : vec5) -> i32 {
    let shapeStrides: vec5 = vec5(shape.y * shape.z * shape.w * shape.u, shape.z * shape.w * shape.u, shape.w * shape.u, shape.u, 1);
    return coords.x*shapeStrides.x + coords.y*shapeStrides.y + coords.z*shapeStrides.z + coords.w*shapeStrides.w + coords.u*shapeStrides.u;
  }

  // NaN defination in IEEE 754-1985 is :
  //   - sign = either 0 or 1.
  //   - biased exponent = all 1 bits.
  //   - fraction = anything except all 0 bits (since all 0 bits represents infinity).
  // https://en.wikipedia.org/wiki/IEEE_754-1985#Representation_of_non-numbers
  fn isnan(val: f32) -> bool {
    let floatToUint: u32 = bitcast<u32>(val);
    return (floatToUint & 0x7fffffffu) > 0x7f800000u;
  }
  fn isnanVec4(val : vec4<f32>) -> vec4<bool> {
    let floatToUint: vec4<u32> = bitcast<vec4<u32>>(val);
    return (floatToUint & vec4<u32>(0x7fffffffu)) > vec4<u32>(0x7f800000u);
  }

  fn isinf(val: f32) -> bool {
    return abs(val) == uniforms.INFINITY;
  }

  fn idiv(a: i32, b: i32, sign: f32) -> i32 {
    var res: i32 = a / b;
    let modulo: i32 = a % b;
    if (sign < 0. && modulo != 0) {
      res = res - 1;
    }
    return res;
  }

  var<private> localId: vec3<u32>;
  var<private> localIndex: u32;
  var<private> globalId: vec3<u32>;
  var<private> numWorkgroups: vec3<u32>;
  var<private> workgroupId: vec3<u32>;

  // Only used when the y/z dimension of workgroup size is 1.
  fn getGlobalIndex() -> i32 {
      return i32(globalId.x);
  }

  fn setOutputAtIndex(flatIndex : i32, value : f32) {
    result[flatIndex] = f32(value);
  }
  fn setOutputAtIndexI32(flatIndex : i32, value : i32) {
    result[flatIndex] = f32(value);
  }
`;

/** Its output and `x` helpers for a 4-D output (getCoordsFromIndex, getX...). */
const TFJS_4D = /* wgsl */ `
  fn getOutputIndexFromCoords(coords : vec4<i32>) -> i32 {
    return dot(coords, vec4<i32>(
      uniforms.outShapeStrides.x, uniforms.outShapeStrides.y, uniforms.outShapeStrides.z, 1));
  }
  fn setOutputAtCoords(d0 : i32, d1 : i32, d2 : i32, d3 : i32, value : f32) {
    let flatIndex = getOutputIndexFromCoords(vec4<i32>(d0, d1, d2, d3));
    setOutputAtIndex(flatIndex, value);
  }
  fn getCoordsFromIndex(index : i32) -> vec4<i32> {
    var index2 = index;let d0 = index2 / uniforms.outShapeStrides.x; index2 = index2 - d0 * uniforms.outShapeStrides.x;let d1 = index2 / uniforms.outShapeStrides.y; index2 = index2 - d1 * uniforms.outShapeStrides.y;let d2 = index2 / uniforms.outShapeStrides.z; let d3 = index2 - d2 * uniforms.outShapeStrides.z;
    return vec4<i32>(d0,d1,d2,d3);
  }
  fn getX(d0 : i32, d1 : i32, d2 : i32, d3 : i32) -> f32 {
    return f32(x[getIndexFromCoords4D(vec4<i32>(d0,d1,d2,d3),
      uniforms.xShape)]);
  }
`;

/** The `_start` entry point TensorFlow.js wraps every program's `main(index)` in. */
export const TFJS_START = /* wgsl */ `
  @compute @workgroup_size(64, 1, 1)
  fn _start(@builtin(local_invocation_id) LocalId : vec3<u32>,
            @builtin(global_invocation_id) GlobalId : vec3<u32>,
            @builtin(local_invocation_index) LocalIndex: u32,
            @builtin(workgroup_id) WorkgroupId : vec3<u32>,
            @builtin(num_workgroups) NumWorkgroups : vec3<u32>) {
    localId = LocalId;
    localIndex = LocalIndex;
    globalId = GlobalId;
    numWorkgroups = NumWorkgroups;
    workgroupId = WorkgroupId;
    main(getGlobalIndex());;
  }
`;

const TFJS_POOL = /* wgsl */ `
  struct Uniforms { NAN : f32, INFINITY : f32, xShape : vec4<i32>, outShape : vec4<i32>,
    outShapeStrides: vec3<i32>, size : i32, strides : vec2<i32>, pads : vec2<i32>,
    dilations : vec2<i32>, convDims : vec2<i32>, filterDims : vec2<i32>, };
  @group(0) @binding(0) var<storage, read_write> result: array<f32>;
  @group(0) @binding(1) var<storage, read> x: array<f32>;
  @group(0) @binding(2) var<uniform> uniforms: Uniforms;
${TFJS_COMMON}${TFJS_4D}
      fn main(index : i32) {
        let coords = getCoordsFromIndex(index);
        if (index < uniforms.size) {
          let batch = coords[0];
          let xRCCorner = vec2<i32>(coords.yz) * uniforms.strides - uniforms.pads;
          let xRCorner = xRCCorner.x;
          let xCCorner = xRCCorner.y;

          var minMaxValue = -1e38;
          var avgValue = 0.0;
          var count = 0.0;

          for (var wR = 0; wR < uniforms.filterDims.x; wR = wR + uniforms.dilations.x) {
            let xR = xRCorner + wR;

            if (xR < 0 || xR >= uniforms.convDims.x) {
              continue;
            }

            for (var wC = 0; wC < uniforms.filterDims.y; wC = wC + uniforms.dilations.y) {
              let xC = xCCorner + wC;
              if (xC < 0 || xC >= uniforms.convDims.y) {
                continue;
              }

              let value = getX(batch, xR, xC, coords[3]);
              minMaxValue = max(value, minMaxValue);
              avgValue = avgValue + value;
              count = count + 1.0;
            }
          }
          setOutputAtIndex(index, minMaxValue + avgValue / count * select(0.0, 1.0, !isnan(count)));
        }
      }
${TFJS_START}`;

const TFJS_ARGMAX = /* wgsl */ `
  struct Uniforms { NAN : f32, INFINITY : f32, xShape : vec2<i32>, outShape : i32, size : i32,
    infinityValue : f32, };
  @group(0) @binding(0) var<storage, read_write> result: array<f32>;
  @group(0) @binding(1) var<storage, read> x: array<f32>;
  @group(0) @binding(2) var<uniform> uniforms: Uniforms;
  const workGroupSizeX = 64u;
${TFJS_COMMON}
  fn getCoordsFromIndex(index : i32) -> i32 { return index; }
  fn getX(d0 : i32, d1 : i32) -> f32 {
    return f32(x[getIndexFromCoords2D(vec2<i32>(d0,d1), uniforms.xShape)]);
  }
      fn DIV_CEIL(a : u32, b : u32) -> u32 {
        return ((a - 1u) / b + 1u);
      }

      var<workgroup> xBestIndices : array<i32, 64>;
      var<workgroup> xBestValues : array<f32, 64>;

      fn main(index : i32) {
        let outputIndex = index / i32(workGroupSizeX);
        let reduceLength = uniforms.xShape.y;

        var bestIndex = i32(localId.x);
        var bestValue = uniforms.infinityValue;
        let outputCoords = getCoordsFromIndex(outputIndex);
        for (var k = i32(localId.x); k < reduceLength && outputIndex < uniforms.size;
            k = k + i32(workGroupSizeX)) {
          let candidate = getX(outputCoords, k);
          if (!isnan(candidate) && candidate > bestValue) {
            bestValue = candidate;
            bestIndex = k;
          }
        }
        xBestValues[localId.x] = bestValue;
        xBestIndices[localId.x] = bestIndex;
        workgroupBarrier();

        var reduceSize = min(u32(reduceLength), workGroupSizeX);
        for (var currentSize = reduceSize / 2u; reduceSize > 1u;
            currentSize = reduceSize / 2u) {
          let interval = DIV_CEIL(reduceSize, 2u);
          if (localId.x < currentSize) {
            let candidate = xBestValues[localId.x + interval];
            if (candidate > bestValue) {
              bestValue = candidate;
              xBestValues[localId.x] = bestValue;
              xBestIndices[localId.x] = xBestIndices[localId.x + interval];
            }
          }
          reduceSize = interval;
          workgroupBarrier();
        }

        if (localId.x == 0u && outputIndex < uniforms.size) {
          setOutputAtIndexI32(outputIndex, xBestIndices[localId.x]);
        }
      }
${TFJS_START}`;

const TFJS_GATHER_ND = /* wgsl */ `
  struct Uniforms { NAN : f32, INFINITY : f32, AShape : vec2<i32>, indicesShape : vec2<i32>,
    outShape : vec2<i32>, outShapeStrides : i32, size : i32, sliceDim : i32, strides : vec2<i32>, };
  @group(0) @binding(0) var<storage, read_write> result: array<f32>;
  @group(0) @binding(1) var<storage, read> A: array<f32>;
  @group(0) @binding(2) var<storage, read> indices: array<i32>;
  @group(0) @binding(3) var<uniform> uniforms: Uniforms;
${TFJS_COMMON}
  fn getCoordsFromIndex(index : i32) -> vec2<i32> {
    let d0 = index / uniforms.outShapeStrides; let d1 = index - d0 * uniforms.outShapeStrides;
    return vec2<i32>(d0,d1);
  }
  fn getA(d0 : i32, d1 : i32) -> f32 {
    return f32(A[getIndexFromCoords2D(vec2<i32>(d0,d1), uniforms.AShape)]);
  }
  fn getIndices(d0 : i32, d1 : i32) -> f32 {
    return f32(indices[getIndexFromCoords2D(vec2<i32>(d0,d1), uniforms.indicesShape)]);
  }
      fn main(index : i32) {
        if (index < uniforms.size) {
          let coords = getCoordsFromIndex(index);
          var flattenIndex = 0;
          for (var j = 0; j < uniforms.sliceDim; j = j + 1) {
            let indexTemp = i32(round(getIndices(coords[0], j)));
            let strideNum = uniforms.strides[j];
            flattenIndex = flattenIndex + indexTemp * strideNum;
          }

          setOutputAtIndex(index, getA(flattenIndex, coords[1]));
        }
      }
${TFJS_START}`;

export const TFJS5: readonly CorpusCase[] = [
  {
    // tfjs-backend-webgpu's Pool2DProgram (pool_webgpu.ts, max and average) inside makeShader's
    // prologue (webgpu_program.ts: vec5/vec6 structs, user `isnan`/`isinf`, private builtins,
    // `_start` calling `main(getGlobalIndex())`); the two pools' results summed to one output.
    name: "tfjs pool2d (makeShader prologue: user isnan/isinf, vec5 struct, _start wrapper)",
    source: TFJS_POOL,
    entryPoint: "_start",
    plain: [
      B(0, 0, new Float32Array(2 * 3 * 3 * 2)),
      B(0, 1, f(2 * 6 * 6 * 2, 0.25, -10)),
      B(
        0,
        2,
        w(
          { f: NaN },
          { f: Infinity },
          0,
          0,
          ...[2, 6, 6, 2].map((i) => ({ i })),
          ...[2, 3, 3, 2].map((i) => ({ i })),
          ...[18, 6, 2].map((i) => ({ i })),
          { i: 36 },
          ...[2, 2, 1, 1, 1, 1, 6, 6, 3, 3, 0, 0].map((i) => ({ i })),
        ),
        true,
      ),
    ],
    workgroups: [1, 1, 1],
    params: {
      NAN: NaN,
      INFINITY: Infinity,
      xShape: [2, 6, 6, 2],
      outShape: [2, 3, 3, 2],
      outShapeStrides: [18, 6, 2],
      size: 36,
      strides: [2, 2],
      pads: [1, 1],
      dilations: [1, 1],
      convDims: [6, 6],
      filterDims: [3, 3],
    },
  },
  {
    // tfjs-backend-webgpu's ArgMinMaxProgram
    // (https://github.com/tensorflow/tfjs/blob/master/tfjs-backend-webgpu/src/argminmax_webgpu.ts,
    // argMax of a [4, 100] tensor on its last axis) in the prologue: workgroup arrays of the
    // best values and indices, a halving reduction with `DIV_CEIL`, the module-scope
    // `workGroupSizeX` its makeShader declared (`let` then, a `const` in today's WGSL).
    name: "tfjs argMax (workgroup best-value reduction, i32 indices out)",
    source: TFJS_ARGMAX,
    entryPoint: "_start",
    plain: [
      B(0, 0, new Float32Array(4)),
      B(0, 1, f(400, 0.5, -20)),
      B(
        0,
        2,
        w({ f: NaN }, { f: Infinity }, { i: 4 }, { i: 100 }, { i: 4 }, { i: 4 }, {
          f: -Infinity,
        }, 0),
        true,
      ),
    ],
    workgroups: [4, 1, 1],
    params: {
      NAN: NaN,
      INFINITY: Infinity,
      xShape: [4, 100],
      outShape: 4,
      size: 4,
      infinityValue: -Infinity,
    },
  },
  {
    // tfjs-backend-webgpu's GatherNDProgram
    // (https://github.com/tensorflow/tfjs/blob/master/tfjs-backend-webgpu/src/gather_nd_webgpu.ts,
    // sliceDim 2 into params [3, 4, 2]) in the prologue: `i32(round(getIndices(...)))` of i32
    // indices read as f32, `uniforms.strides[j]` indexing a uniform vec2 at run time.
    name: "tfjs gatherND (uniform vec2 indexed at run time, rounded indices)",
    source: TFJS_GATHER_ND,
    entryPoint: "_start",
    plain: [
      B(0, 0, new Float32Array(10)),
      B(0, 1, f(24, 0.75, -3)),
      B(0, 2, Int32Array.of(0, 1, 2, 3, 1, 0, 2, 2, 0, 3)),
      B(
        0,
        3,
        w(
          { f: NaN },
          { f: Infinity },
          ...[12, 2, 5, 2, 5, 2, 2, 10, 2, 0, 4, 1].map((i) => ({ i })),
        ),
        true,
      ),
    ],
    workgroups: [1, 1, 1],
    params: {
      NAN: NaN,
      INFINITY: Infinity,
      AShape: [12, 2],
      indicesShape: [5, 2],
      outShape: [5, 2],
      outShapeStrides: 2,
      size: 10,
      sliceDim: 2,
      strides: [4, 1],
    },
  },
];
