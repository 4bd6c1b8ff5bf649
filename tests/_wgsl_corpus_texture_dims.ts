/**
 * Real-world WGSL with textures beyond 2-D: Tint's end-to-end builtin tests (google/dawn
 * `test/tint/builtins/gen/var/`) on a 2-D array, a cube array, a 3-D texture and a 3-D storage
 * texture, each verbatim from its first declaration on. The client refused every such module
 * (UNSUPPORTED: "the runtime makes 2-D textures") until it made textures of every dimension;
 * `webgpu_texture_dims_test.ts` runs them bit-identical to plain WebGPU.
 */
import { B, type CorpusCase } from "./_wgsl_corpus_qa_base.ts";

/** `n` distinct bytes. */
const texels = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 29 + 7) % 251);

/** Tint's textureGather/17baac, verbatim from its first declaration on. */
const GATHER_2D_ARRAY = `@group(0) @binding(0) var<storage, read_write> prevent_dce : vec4<f32>;

@group(1) @binding(1) var arg_1: texture_2d_array<f32>;
@group(1) @binding(2) var arg_2: sampler;

// fn textureGather(@const component: i32, texture: texture_2d_array<f32>, sampler: sampler, coords: vec2<f32>, array_index: u32) -> vec4<f32>
fn textureGather_17baac() -> vec4<f32>{
  const arg_0 = 1i;
  var arg_3 = vec2<f32>(1.f);
  var arg_4 = 1u;
  var res: vec4<f32> = textureGather(arg_0, arg_1, arg_2, arg_3, arg_4);
  return res;
}
@fragment
fn fragment_main() {
  prevent_dce = textureGather_17baac();
}

@compute @workgroup_size(1)
fn compute_main() {
  prevent_dce = textureGather_17baac();
}

struct VertexOutput {
    @builtin(position) pos: vec4<f32>,
    @location(0) @interpolate(flat) prevent_dce : vec4<f32>
};

@vertex
fn vertex_main() -> VertexOutput {
  var out : VertexOutput;
  out.pos = vec4<f32>();
  out.prevent_dce = textureGather_17baac();
  return out;
}
`;

/** Tint's textureSampleLevel/0bdd9a, verbatim from its first declaration on. */
const SAMPLE_CUBE_ARRAY = `@group(0) @binding(0) var<storage, read_write> prevent_dce : vec4<f32>;

@group(1) @binding(0) var arg_0: texture_cube_array<f32>;
@group(1) @binding(1) var arg_1: sampler;

// fn textureSampleLevel(texture: texture_cube_array<f32>, sampler: sampler, coords: vec3<f32>, array_index: i32, level: f32) -> vec4<f32>
fn textureSampleLevel_0bdd9a() -> vec4<f32>{
  var arg_2 = vec3<f32>(1.f);
  var arg_3 = 1i;
  var arg_4 = 1.f;
  var res: vec4<f32> = textureSampleLevel(arg_0, arg_1, arg_2, arg_3, arg_4);
  return res;
}
@fragment
fn fragment_main() {
  prevent_dce = textureSampleLevel_0bdd9a();
}

@compute @workgroup_size(1)
fn compute_main() {
  prevent_dce = textureSampleLevel_0bdd9a();
}

struct VertexOutput {
    @builtin(position) pos: vec4<f32>,
    @location(0) @interpolate(flat) prevent_dce : vec4<f32>
};

@vertex
fn vertex_main() -> VertexOutput {
  var out : VertexOutput;
  out.pos = vec4<f32>();
  out.prevent_dce = textureSampleLevel_0bdd9a();
  return out;
}
`;

/** Tint's textureSampleLevel/abfcc0, verbatim from its first declaration on. */
const SAMPLE_3D = `@group(0) @binding(0) var<storage, read_write> prevent_dce : vec4<f32>;

@group(1) @binding(0) var arg_0: texture_3d<f32>;
@group(1) @binding(1) var arg_1: sampler;

// fn textureSampleLevel(texture: texture_3d<f32>, sampler: sampler, coords: vec3<f32>, level: f32) -> vec4<f32>
fn textureSampleLevel_abfcc0() -> vec4<f32>{
  var arg_2 = vec3<f32>(1.f);
  var arg_3 = 1.f;
  var res: vec4<f32> = textureSampleLevel(arg_0, arg_1, arg_2, arg_3);
  return res;
}
@fragment
fn fragment_main() {
  prevent_dce = textureSampleLevel_abfcc0();
}

@compute @workgroup_size(1)
fn compute_main() {
  prevent_dce = textureSampleLevel_abfcc0();
}

struct VertexOutput {
    @builtin(position) pos: vec4<f32>,
    @location(0) @interpolate(flat) prevent_dce : vec4<f32>
};

@vertex
fn vertex_main() -> VertexOutput {
  var out : VertexOutput;
  out.pos = vec4<f32>();
  out.prevent_dce = textureSampleLevel_abfcc0();
  return out;
}
`;

/** Tint's textureStore/5ec6b2, verbatim from its first declaration on. */
const STORE_3D = `@group(1) @binding(0) var arg_0: texture_storage_3d<r32float, read_write>;

// fn textureStore(texture: texture_storage_3d<r32float, read_write>, coords: vec3<u32>, value: vec4<f32>)
fn textureStore_5ec6b2() {
  var arg_1 = vec3<u32>(1u);
  var arg_2 = vec4<f32>(1.f);
  textureStore(arg_0, arg_1, arg_2);
}
@fragment
fn fragment_main() {
  textureStore_5ec6b2();
}

@compute @workgroup_size(1)
fn compute_main() {
  textureStore_5ec6b2();
}
`;

export const CORPUS_TEXTURE_DIMS: readonly CorpusCase[] = [
  {
    // https://github.com/google/dawn/blob/main/test/tint/builtins/gen/var/textureGather/17baac.wgsl
    // (stored version 6ee6330c3d87845f11e53d85638dfb2baa4dfc69): textureGather of layer 1 of a
    // texture_2d_array<f32> with a sampler.
    name: "Tint textureGather/17baac (gathers layer 1 of a texture_2d_array<f32>)",
    source: GATHER_2D_ARRAY,
    plain: [
      B(0, 0, new Float32Array(4)),
      {
        group: 1,
        binding: 1,
        texture: {
          width: 4,
          height: 4,
          depthOrArrayLayers: 3,
          format: "rgba8unorm",
          data: texels(4 * 4 * 3 * 4),
        },
        viewDimension: "2d-array",
      },
      { group: 1, binding: 2, sampler: {} },
    ],
    workgroups: [1, 1, 1],
    samplers: { arg_2: {} },
  },
  {
    // https://github.com/google/dawn/blob/main/test/tint/builtins/gen/var/textureSampleLevel/0bdd9a.wgsl
    // (stored version e28f13296b688753b55303bf8b19e1616b12d16a): textureSampleLevel of cube 1 of
    // a texture_cube_array<f32>.
    name: "Tint textureSampleLevel/0bdd9a (samples cube 1 of a texture_cube_array<f32>)",
    source: SAMPLE_CUBE_ARRAY,
    plain: [
      B(0, 0, new Float32Array(4)),
      {
        group: 1,
        binding: 0,
        texture: {
          width: 4,
          height: 4,
          depthOrArrayLayers: 12,
          format: "rgba8unorm",
          data: texels(4 * 4 * 12 * 4),
        },
        viewDimension: "cube-array",
      },
      { group: 1, binding: 1, sampler: {} },
    ],
    workgroups: [1, 1, 1],
    samplers: { arg_1: {} },
  },
  {
    // https://github.com/google/dawn/blob/main/test/tint/builtins/gen/var/textureSampleLevel/abfcc0.wgsl
    // (stored version 6ee6330c3d87845f11e53d85638dfb2baa4dfc69): textureSampleLevel of a
    // texture_3d<f32>.
    name: "Tint textureSampleLevel/abfcc0 (samples a texture_3d<f32>)",
    source: SAMPLE_3D,
    plain: [
      B(0, 0, new Float32Array(4)),
      {
        group: 1,
        binding: 0,
        texture: {
          width: 4,
          height: 4,
          depthOrArrayLayers: 4,
          dimension: "3d",
          format: "rgba8unorm",
          data: texels(4 * 4 * 4 * 4),
        },
      },
      { group: 1, binding: 1, sampler: {} },
    ],
    workgroups: [1, 1, 1],
    samplers: { arg_1: {} },
  },
  {
    // https://github.com/google/dawn/blob/main/test/tint/builtins/gen/var/textureStore/5ec6b2.wgsl
    // (stored version 58fc3f1cc918266ac6aa993524c4336b5dd2b2c7): textureStore into slice 1 of a
    // texture_storage_3d<r32float, read_write>, read back whole.
    name: "Tint textureStore/5ec6b2 (stores into a texture_storage_3d<r32float, read_write>)",
    source: STORE_3D,
    plain: [
      {
        group: 1,
        binding: 0,
        texture: {
          width: 4,
          height: 4,
          depthOrArrayLayers: 4,
          dimension: "3d",
          format: "r32float",
          data: Float32Array.from({ length: 64 }, (_, i) => i * 0.5 - 3),
        },
        storage: true,
      },
    ],
    workgroups: [1, 1, 1],
  },
];
