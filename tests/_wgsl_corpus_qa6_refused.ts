/**
 * QA wave 6: real-world WGSL plain WebGPU refuses on this adapter, which the client must refuse
 * with a typed error; see `_wgsl_corpus_qa6.ts`.
 */
import type { PlainBinding } from "./_plain_webgpu.ts";
import type { CorpusCase } from "./_wgsl_corpus_qa_base.ts";

const tex = (binding: number, storage = false): PlainBinding => ({
  group: 0,
  binding,
  texture: { width: 8, height: 8, format: "rgba8unorm" },
  storage,
});

export const REFUSED6: readonly CorpusCase[] = [
  {
    // https://github.com/Orillusion/orillusion/blob/main/src/assets/shader/compute/MergeRGBA_cs.ts
    // verbatim: samples `atlasTexture` with `atlasTextureSampler` at `targetUV`, none of them
    // declared (the engine never compiles this shader), and builds a vec4 of four vec4s.
    name: "Orillusion MergeRGBA_cs (undeclared identifiers)",
    source: /* wgsl */ `
    @group(0) @binding(0) var textureR : texture_2d<f32>;
    @group(0) @binding(1) var textureG : texture_2d<f32>;
    @group(0) @binding(2) var textureB : texture_2d<f32>;
    @group(0) @binding(3) var textureA : texture_2d<f32>;
    @group(0) @binding(4) var outTex : texture_storage_2d<rgba8unorm, write>;

    @compute @workgroup_size(8, 8, 1)
    fn main(@builtin(global_invocation_id) GlobalInvocationID : vec3<u32>) {
        let size = textureDimensions(outTex);
        let fragCoord : vec2<i32> = vec2<i32>(GlobalInvocationID.xy); 
        var uv:vec2<f32>;
        uv.x = f32(fragCoord.x)/f32(size.x);
        uv.y = f32(fragCoord.y)/f32(size.y);
        var oc:vec4<f32> = textureSampleLevel(atlasTexture, atlasTextureSampler, targetUV, 0.0);

        let sizeR = textureDimensions(textureR);
        let sizeG = textureDimensions(textureG);
        let sizeB = textureDimensions(textureB);
        let sizeA = textureDimensions(textureA);
        
        var tr = textureLoad(textureR, vec2<i32>(uv * sizeR) , 0 ) ;
        var tg = textureLoad(textureG, vec2<i32>(uv * sizeG) , 0 ) ;
        var tb = textureLoad(textureB, vec2<i32>(uv * sizeB) , 0 ) ;
        var ta = textureLoad(textureA, vec2<i32>(uv * sizeA) , 0 ) ;

        let color = vec4<f32>(tr,tg,tb,ta);
        textureStore(outTex, fragCoord , vec4(color));
    }
`,
    plain: [tex(0), tex(1), tex(2), tex(3), tex(4, true)],
    workgroups: [1, 1, 1],
  },
];
