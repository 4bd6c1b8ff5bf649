/**
 * QA wave 12, compute shaders of applications: jgnes' integer texture scaler (one entry point
 * per workgroup size over a `texture_2d<f32>` and a write-only rgba8unorm storage texture,
 * coordinates as `vec2<u32>`); see `_wgsl_corpus_qa12.ts`.
 */
import { type CorpusCase, u } from "./_wgsl_corpus_qa_base.ts";

// https://github.com/jsgroth/jgnes/blob/master/jgnes-native-driver/src/texture_scale.wgsl
// (stored version e7f5640910aaa95c452a163ca9e5bf5f49df499d) verbatim.
const TEXTURE_SCALE = /* wgsl */ `// Compute shaders

@group(0) @binding(0)
var texture_in: texture_2d<f32>;
@group(0) @binding(1)
var texture_out: texture_storage_2d<rgba8unorm, write>;

// This repetition is pathological (all of these shaders have the same body with different workgroup sizes), but I
// can't figure out a better way to do this

@compute @workgroup_size(2, 2, 1)
fn texture_scale_2x(
    @builtin(global_invocation_id) global_invocation_id: vec3<u32>,
    @builtin(workgroup_id) workgroup_id: vec3<u32>,
) {
    let pixel = textureLoad(texture_in, workgroup_id.xy, 0);
    textureStore(texture_out, global_invocation_id.xy, pixel);
}

@compute @workgroup_size(3, 3, 1)
fn texture_scale_3x(
    @builtin(global_invocation_id) global_invocation_id: vec3<u32>,
    @builtin(workgroup_id) workgroup_id: vec3<u32>,
) {
    let pixel = textureLoad(texture_in, workgroup_id.xy, 0);
    textureStore(texture_out, global_invocation_id.xy, pixel);
}

@compute @workgroup_size(4, 4, 1)
fn texture_scale_4x(
    @builtin(global_invocation_id) global_invocation_id: vec3<u32>,
    @builtin(workgroup_id) workgroup_id: vec3<u32>,
) {
    let pixel = textureLoad(texture_in, workgroup_id.xy, 0);
    textureStore(texture_out, global_invocation_id.xy, pixel);
}

@compute @workgroup_size(5, 5, 1)
fn texture_scale_5x(
    @builtin(global_invocation_id) global_invocation_id: vec3<u32>,
    @builtin(workgroup_id) workgroup_id: vec3<u32>,
) {
    let pixel = textureLoad(texture_in, workgroup_id.xy, 0);
    textureStore(texture_out, global_invocation_id.xy, pixel);
}

@compute @workgroup_size(6, 6, 1)
fn texture_scale_6x(
    @builtin(global_invocation_id) global_invocation_id: vec3<u32>,
    @builtin(workgroup_id) workgroup_id: vec3<u32>,
) {
    let pixel = textureLoad(texture_in, workgroup_id.xy, 0);
    textureStore(texture_out, global_invocation_id.xy, pixel);
}

@compute @workgroup_size(7, 7, 1)
fn texture_scale_7x(
    @builtin(global_invocation_id) global_invocation_id: vec3<u32>,
    @builtin(workgroup_id) workgroup_id: vec3<u32>,
) {
    let pixel = textureLoad(texture_in, workgroup_id.xy, 0);
    textureStore(texture_out, global_invocation_id.xy, pixel);
}

@compute @workgroup_size(8, 8, 1)
fn texture_scale_8x(
    @builtin(global_invocation_id) global_invocation_id: vec3<u32>,
    @builtin(workgroup_id) workgroup_id: vec3<u32>,
) {
    let pixel = textureLoad(texture_in, workgroup_id.xy, 0);
    textureStore(texture_out, global_invocation_id.xy, pixel);
}`;

/** jgnes' scaler at `scale`x over a 4 x 3 rgba8unorm image. */
const scaled = (scale: number): CorpusCase => ({
  name: `jgnes texture_scale_${scale}x (entry ${
    scale - 1
  } of 7, ${scale}x${scale} workgroups, textures)`,
  source: TEXTURE_SCALE,
  entryPoint: `texture_scale_${scale}x`,
  plain: [
    {
      group: 0,
      binding: 0,
      texture: { width: 4, height: 3, format: "rgba8unorm", data: Uint8Array.from(u(48, 256)) },
    },
    {
      group: 0,
      binding: 1,
      texture: { width: 4 * scale, height: 3 * scale, format: "rgba8unorm" },
      storage: true,
    },
  ],
  workgroups: [4, 3, 1],
});

export const APPS12: readonly CorpusCase[] = [scaled(3), scaled(5)];
