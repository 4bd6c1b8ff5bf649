/**
 * Real-world WGSL on depth and multisampled textures, comparison samplers and a bgra8unorm
 * storage texture: Tint's end-to-end builtin tests (google/dawn `test/tint/builtins/gen/`),
 * each verbatim from its first declaration on. The client refused every such module
 * (UNSUPPORTED: "the runtime makes color textures with one sample"; a bgra8unorm storage
 * texture: "storage textures: rgba8unorm, ...") until it made these textures;
 * `webgpu_texture_depth_test.ts` runs them bit-identical to plain WebGPU.
 */
import { B, type CorpusCase } from "./_wgsl_corpus_qa_base.ts";

/** `n` distinct depth16unorm values below 1.0 (65535 is 1.0). */
const depths = (n: number) => Uint16Array.from({ length: n }, (_, i) => (i * 7919 + 13) % 65535);

/** Tint's textureGatherCompare/182fd4, verbatim from its first declaration on. */
const GATHER_COMPARE_CUBE = `@group(0) @binding(0) var<storage, read_write> prevent_dce : vec4<f32>;

@group(1) @binding(0) var arg_0: texture_depth_cube;
@group(1) @binding(1) var arg_1: sampler_comparison;

// fn textureGatherCompare(texture: texture_depth_cube, sampler: sampler_comparison, coords: vec3<f32>, depth_ref: f32) -> vec4<f32>
fn textureGatherCompare_182fd4() -> vec4<f32>{
  var arg_2 = vec3<f32>(1.f);
  var arg_3 = 1.f;
  var res: vec4<f32> = textureGatherCompare(arg_0, arg_1, arg_2, arg_3);
  return res;
}
@fragment
fn fragment_main() {
  prevent_dce = textureGatherCompare_182fd4();
}

@compute @workgroup_size(1)
fn compute_main() {
  prevent_dce = textureGatherCompare_182fd4();
}

struct VertexOutput {
    @builtin(position) pos: vec4<f32>,
    @location(0) @interpolate(flat) prevent_dce : vec4<f32>
};

@vertex
fn vertex_main() -> VertexOutput {
  var out : VertexOutput;
  out.pos = vec4<f32>();
  out.prevent_dce = textureGatherCompare_182fd4();
  return out;
}
`;

/** Tint's textureSampleCompareLevel/4cf3a2, verbatim from its first declaration on. */
const SAMPLE_COMPARE_CUBE_ARRAY = `@group(0) @binding(0) var<storage, read_write> prevent_dce : f32;

@group(1) @binding(0) var arg_0: texture_depth_cube_array;
@group(1) @binding(1) var arg_1: sampler_comparison;

// fn textureSampleCompareLevel(texture: texture_depth_cube_array, sampler: sampler_comparison, coords: vec3<f32>, array_index: i32, depth_ref: f32) -> f32
fn textureSampleCompareLevel_4cf3a2() -> f32{
  var arg_2 = vec3<f32>(1.f);
  var arg_3 = 1i;
  var arg_4 = 1.f;
  var res: f32 = textureSampleCompareLevel(arg_0, arg_1, arg_2, arg_3, arg_4);
  return res;
}
@fragment
fn fragment_main() {
  prevent_dce = textureSampleCompareLevel_4cf3a2();
}

@compute @workgroup_size(1)
fn compute_main() {
  prevent_dce = textureSampleCompareLevel_4cf3a2();
}

struct VertexOutput {
    @builtin(position) pos: vec4<f32>,
    @location(0) @interpolate(flat) prevent_dce : f32
};

@vertex
fn vertex_main() -> VertexOutput {
  var out : VertexOutput;
  out.pos = vec4<f32>();
  out.prevent_dce = textureSampleCompareLevel_4cf3a2();
  return out;
}
`;

/** Tint's textureNumSamples/ecd321, verbatim from its first declaration on. */
const NUM_SAMPLES_DEPTH = `@group(0) @binding(0) var<storage, read_write> prevent_dce : u32;

@group(1) @binding(0) var arg_0: texture_depth_multisampled_2d;

// fn textureNumSamples(texture: texture_depth_multisampled_2d) -> u32
fn textureNumSamples_ecd321() -> u32{
  var res: u32 = textureNumSamples(arg_0);
  return res;
}
@fragment
fn fragment_main() {
  prevent_dce = textureNumSamples_ecd321();
}

@compute @workgroup_size(1)
fn compute_main() {
  prevent_dce = textureNumSamples_ecd321();
}

struct VertexOutput {
    @builtin(position) pos: vec4<f32>,
    @location(0) @interpolate(flat) prevent_dce : u32
};

@vertex
fn vertex_main() -> VertexOutput {
  var out : VertexOutput;
  out.pos = vec4<f32>();
  out.prevent_dce = textureNumSamples_ecd321();
  return out;
}
`;

/** Tint's textureDimensions/fbb15a (literal), license header left out. */
const DIMENSIONS_BGRA8 = `@group(1) @binding(0) var arg_0 : texture_storage_2d<bgra8unorm, write>;

fn textureDimensions_fbb15a() -> vec2<u32> {
  var res : vec2<u32> = textureDimensions(arg_0);
  return res;
}

@group(0) @binding(0) var<storage, read_write> prevent_dce : vec2<u32>;

@fragment
fn fragment_main() {
  prevent_dce = textureDimensions_fbb15a();
}

@compute @workgroup_size(1)
fn compute_main() {
  prevent_dce = textureDimensions_fbb15a();
}

struct VertexOutput {
  @builtin(position)
  pos : vec4<f32>,
  @location(0) @interpolate(flat)
  prevent_dce : vec2<u32>,
}

@vertex
fn vertex_main() -> VertexOutput {
  var out : VertexOutput;
  out.pos = vec4<f32>();
  out.prevent_dce = textureDimensions_fbb15a();
  return out;
}
`;

export const CORPUS_TEXTURE_DEPTH: readonly CorpusCase[] = [
  {
    // https://github.com/google/dawn/blob/main/test/tint/builtins/gen/var/textureGatherCompare/182fd4.wgsl
    // (stored version 6ee6330c3d87845f11e53d85638dfb2baa4dfc69): textureGatherCompare of a
    // texture_depth_cube with a sampler_comparison (greater: each of the 4 texels below 1.0).
    name: "Tint textureGatherCompare/182fd4 (texture_depth_cube, sampler_comparison)",
    source: GATHER_COMPARE_CUBE,
    entryPoint: "compute_main",
    plain: [
      B(0, 0, new Float32Array(4)),
      {
        group: 1,
        binding: 0,
        texture: {
          width: 4,
          height: 4,
          depthOrArrayLayers: 6,
          format: "depth16unorm",
          data: depths(4 * 4 * 6),
        },
        viewDimension: "cube",
      },
      { group: 1, binding: 1, sampler: { compare: "greater" } },
    ],
    workgroups: [1, 1, 1],
    samplers: { arg_1: { compare: "greater" } },
  },
  {
    // https://github.com/google/dawn/blob/main/test/tint/builtins/gen/var/textureSampleCompareLevel/4cf3a2.wgsl
    // (stored version e28f13296b688753b55303bf8b19e1616b12d16a): textureSampleCompareLevel of
    // cube 1 of a texture_depth_cube_array.
    name: "Tint textureSampleCompareLevel/4cf3a2 (cube 1 of a texture_depth_cube_array)",
    source: SAMPLE_COMPARE_CUBE_ARRAY,
    entryPoint: "compute_main",
    plain: [
      B(0, 0, new Float32Array(1)),
      {
        group: 1,
        binding: 0,
        texture: {
          width: 4,
          height: 4,
          depthOrArrayLayers: 12,
          format: "depth16unorm",
          data: depths(4 * 4 * 12),
        },
        viewDimension: "cube-array",
      },
      { group: 1, binding: 1, sampler: { compare: "greater-equal" } },
    ],
    workgroups: [1, 1, 1],
    samplers: { arg_1: { compare: "greater-equal" } },
  },
  {
    // https://github.com/google/dawn/blob/main/test/tint/builtins/gen/var/textureNumSamples/ecd321.wgsl
    // (stored version 6ee6330c3d87845f11e53d85638dfb2baa4dfc69): textureNumSamples of a
    // texture_depth_multisampled_2d (4).
    name: "Tint textureNumSamples/ecd321 (texture_depth_multisampled_2d)",
    source: NUM_SAMPLES_DEPTH,
    entryPoint: "compute_main",
    plain: [
      B(0, 0, new Uint32Array(1)),
      {
        group: 1,
        binding: 0,
        texture: { width: 4, height: 4, format: "depth32float", sampleCount: 4 },
      },
    ],
    workgroups: [1, 1, 1],
  },
  {
    // Tint's test/tint/builtins/gen/literal/textureDimensions/fbb15a.wgsl (until wave 15 in
    // `_wgsl_corpus_qa4_refused.ts`): a `texture_storage_2d<bgra8unorm, write>`, which needs
    // the device feature 'bgra8unorm-storage' (the client asks for it where the adapter has it).
    name: "Tint builtins/gen textureDimensions_fbb15a (bgra8unorm storage texture)",
    entryPoint: "compute_main",
    source: DIMENSIONS_BGRA8,
    plain: [
      B(0, 0, new Uint32Array(2)),
      {
        group: 1,
        binding: 0,
        texture: { width: 4, height: 3, format: "bgra8unorm" },
        storage: true,
      },
    ],
    workgroups: [1, 1, 1],
    features: ["bgra8unorm-storage"],
  },
];
