/**
 * QA wave 4, graphics compute: storage-texture writers of a Terraria clone's light map and a
 * shader-toy style page, with explicit `_padding` uniform fields; see `_wgsl_corpus_qa4.ts`.
 */
import { B, type CorpusCase } from "./_wgsl_corpus_qa_base.ts";
import { T, w } from "./_wgsl_corpus_qa3_base.ts";

/** The Terraria clone's light shader, with its storage texture's format. */
export const lightSources = (format: string): string =>
  /* wgsl */ `@group(0) @binding(0)
var light_texture: texture_storage_2d<${format}, write>;

@group(0) @binding(1)
var<storage> lights_source_buffer: LightSourceBuffer;

struct LightSource {
    pos: vec2<u32>,
    size: vec2<u32>,
}

struct LightSourceBuffer {
    count: u32,
    data: array<LightSource>,
}
`;

export const GRAPHICS4: readonly CorpusCase[] = [
  {
    // https://github.com/st0rmbtw/TerrariaClone/blob/main/assets/shaders/light_map/light_sources.wgsl
    // (its rgba8unorm version) verbatim: the storage texture's binding line apart from its
    // declaration, `var<storage>` (read) of a struct declared after it with a runtime array
    // after a u32 (offset 8), `textureStore` at `vec2<i32>(light.pos) + vec2(x, y)` (abstract
    // vector constructors), stores outside the texture dropped.
    name: "TerrariaClone light_sources (rgba8unorm storage texture, struct declared after)",
    source: lightSources("rgba8unorm") + /* wgsl */ `
@compute @workgroup_size(1, 1, 1)
fn light_sources(@builtin(global_invocation_id) invocation_id: vec3<u32>) {
    let light = lights_source_buffer.data[invocation_id.x];
    let width = i32(light.size.x);
    let height = i32(light.size.y);
    
    for (var x: i32 = -width / 2; x < height / 2; x++) {
        for (var y: i32 = -height / 2; y < height / 2; y++) {
            textureStore(light_texture, vec2<i32>(light.pos) + vec2(x, y), vec4(vec3(1., 0., 0.), 1.0));
        }   
    }
}`,
    plain: [
      T(0, 0, 16, 16, "rgba8unorm", undefined, true),
      B(0, 1, w(3, 0, 2, 3, 4, 4, 12, 12, 6, 2, 0, 15, 2, 8)),
    ],
    workgroups: [3, 1, 1],
  },
  {
    // https://github.com/d-k-ivanov/d-k-ivanov.github.io/blob/main/shaders/collection/shared/default.compute.wgsl
    // verbatim: a shader-toy uniform struct with explicit `_padding0: f32` and
    // `_padding1: vec2f` (left out of params: zeroed), a write-only rgba8unorm storage texture
    // sized by `textureDimensions`, braces on their own lines.
    name: "shader collection default.compute (uniform _padding fields, textureDimensions)",
    source: /* wgsl */ `struct ShaderUniforms
{
    iResolution : vec3f,
    _padding0 : f32,
    iTime : f32,
    iTimeDelta : f32,
    iFrame : u32,
    iFrameRate : f32,
    _padding1 : vec2f,
    iMouse : vec4f,
};

@group(0) @binding(0) var<uniform> shaderUniforms : ShaderUniforms;
@group(0) @binding(1) var outputTex : texture_storage_2d<rgba8unorm, write>;

// Minimal compute shader used when a specific compute shader is not provided.

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid : vec3u)
{
    let dims = textureDimensions(outputTex);
    if (gid.x >= dims.x || gid.y >= dims.y)
    {
        return;
    }

    let uv = (vec2f(gid.xy) + 0.5) / vec2f(dims);
    let t = shaderUniforms.iTime * 10.0;
    let band = 0.5 + 0.2 * sin((uv.x + uv.y) / 2.0 * 35.0 + t);

    textureStore(outputTex, vec2u(gid.xy), vec4f(vec3f(band), 1.0));
}
`,
    plain: [
      B(
        0,
        0,
        w(
          ...[{ f: 12 }, { f: 10 }, { f: 1 }, 0, { f: 1.25 }, { f: 0.016 }, 42, { f: 60 }],
          ...[0, 0, 0, 0, { f: 1 }, { f: 2 }, { f: 0 }, { f: 0 }],
        ),
        true,
      ),
      T(0, 1, 12, 10, "rgba8unorm", undefined, true),
    ],
    workgroups: [2, 2, 1],
    params: {
      iResolution: [12, 10, 1],
      iTime: 1.25,
      iTimeDelta: 0.016,
      iFrame: 42,
      iFrameRate: 60,
      iMouse: [1, 2, 0, 0],
    },
  },
];
