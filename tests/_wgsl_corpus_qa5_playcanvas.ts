/**
 * QA wave 5, PlayCanvas engine compute examples: a texture luminance histogram, a Sobel edge
 * filter in f16 through PlayCanvas' `half` aliases, a vertex buffer update; see `_wgsl_corpus_qa5.ts`.
 */
import { B, type CorpusCase, f } from "./_wgsl_corpus_qa_base.ts";
import { T, w } from "./_wgsl_corpus_qa3_base.ts";

export const PLAYCANVAS5: readonly CorpusCase[] = [
  {
    // https://github.com/playcanvas/engine/blob/main/examples/src/examples/compute/histogram.compute-shader.wgsl
    // verbatim (the example's template-string indentation kept): a luminance histogram of a
    // sampled `texture_2d<f32>` read by `textureLoad`, bins counted from `arrayLength`.
    name: "PlayCanvas histogram example (textureLoad luminance, atomic bins by arrayLength)",
    source: /* wgsl */ `

            @group(0) @binding(0) var inputTexture: texture_2d<f32>;
            @group(0) @binding(1) var<storage, read_write> bins: array<atomic<u32>>;
    
            fn luminance(color: vec3f) -> f32 {
                return saturate(dot(color, vec3f(0.2126, 0.7152, 0.0722)));
            }
            
            @compute @workgroup_size(1, 1, 1)
            fn main(@builtin(global_invocation_id) global_invocation_id: vec3u) {
                let numBins = f32(arrayLength(&bins));
                let lastBinIndex = u32(numBins - 1);
                let position = global_invocation_id.xy;
                let color = textureLoad(inputTexture, position, 0);
                let v = luminance(color.rgb);
                let bin = min(u32(v * numBins), lastBinIndex);
                atomicAdd(&bins[bin], 1u);
            }
        `,
    plain: [
      T(0, 0, 8, 8, "rgba8unorm", Uint8Array.from({ length: 256 }, (_, i) => (i * 37) % 256)),
      B(0, 1, new Uint32Array(16)),
    ],
    workgroups: [8, 8, 1],
  },
  {
    // https://github.com/playcanvas/engine/blob/main/examples/src/examples/compute/edge-detect.compute-shader.wgsl
    // with its `#include "halfTypesCS"` expanded as PlayCanvas does on f16 devices
    // (`enable f16;` and the CAPS_SHADER_F16 branch of the chunk: `alias half = f16;`,
    // `half3 = vec3<f16>`...): alias constructors (`half4(...)`), `array<half, 9>`, a sampler.
    name: "PlayCanvas edge-detect example (f16 aliases, sampled Sobel into a storage texture)",
    source: /* wgsl */ `enable f16;
    alias half = f16;
    alias half2 = vec2<f16>;
    alias half3 = vec3<f16>;
    alias half4 = vec4<f16>;
    alias half2x2 = mat2x2<f16>;
    alias half3x3 = mat3x3<f16>;
    alias half4x4 = mat4x4<f16>;

@group(0) @binding(0) var inputTexture: texture_2d<f32>;
@group(0) @binding(1) var inputTexture_sampler: sampler;
@group(0) @binding(2) var outputTexture: texture_storage_2d<rgba8unorm, write>;

@compute @workgroup_size(8, 8, 1)
fn main(@builtin(global_invocation_id) global_id : vec3u) {
    let uv = vec2u(global_id.xy);
    let texSize = textureDimensions(inputTexture);
    
    // Skip if outside texture bounds
    if (uv.x >= texSize.x || uv.y >= texSize.y) {
        return;
    }
    
    // Sample the center pixel
    let uvFloat = (vec2f(uv) + vec2f(0.5)) / vec2f(texSize);
    var color = half4(textureSampleLevel(inputTexture, inputTexture_sampler, uvFloat, 0.0));
    
    // Sobel edge detection using 3x3 kernel
    let texelSize = 1.0 / vec2f(texSize);
    
    // Sample 3x3 neighborhood and convert to grayscale (using half precision)
    var samples: array<half, 9>;
    var idx = 0;
    for (var y = -1; y <= 1; y++) {
        for (var x = -1; x <= 1; x++) {
            let offset = vec2f(f32(x), f32(y)) * texelSize;
            let sampleUV = uvFloat + offset;
            let sampleColor = half3(textureSampleLevel(inputTexture, inputTexture_sampler, sampleUV, 0.0).rgb);
            // Convert to grayscale using standard luminance weights
            samples[idx] = dot(sampleColor, half3(0.299, 0.587, 0.114));
            idx++;
        }
    }
    
    // Sobel horizontal and vertical kernels
    let gx: half = -samples[0] + samples[2] - half(2.0) * samples[3] + half(2.0) * samples[5] - samples[6] + samples[8];
    let gy: half = -samples[0] - half(2.0) * samples[1] - samples[2] + samples[6] + half(2.0) * samples[7] + samples[8];
    
    // Calculate edge magnitude
    let edgeStrength: half = sqrt(gx * gx + gy * gy);
    
    // Make edges red: stronger edges = more red
    let edgeAmount: half = clamp(edgeStrength * half(3.0), half(0.0), half(1.0));
    let edgeColor = half3(1.0, 0.0, 0.0); // Red
    
    // Blend original color with red edges
    var finalColor: half3 = mix(color.rgb, edgeColor, edgeAmount);
    
    // Write to output storage texture (convert half back to f32 for storage)
    textureStore(outputTexture, vec2i(uv), vec4f(vec3f(finalColor), f32(color.a)));
}
`,
    plain: [
      T(0, 0, 16, 16, "rgba8unorm", Uint8Array.from({ length: 1024 }, (_, i) => (i * 53) % 256)),
      { group: 0, binding: 1, sampler: { magFilter: "linear", minFilter: "linear" } },
      T(0, 2, 16, 16, "rgba8unorm", undefined, true),
    ],
    workgroups: [2, 2, 1],
    samplers: { inputTexture_sampler: { magFilter: "linear", minFilter: "linear" } },
    features: ["shader-f16"],
  },
  {
    // https://github.com/playcanvas/engine/blob/main/examples/src/examples/compute/vertex-update/compute-shader.wgsl
    // verbatim: a uniform struct with `//` comments after each member, positions and normals
    // interleaved in one f32 vertex buffer at uniform offsets, abstract-int times f32 (`10 * y`).
    name: "PlayCanvas vertex-update example (commented uniform members, offsets into one buffer)",
    source: /* wgsl */ `

            struct ub_compute {
                count: u32,             // number of vertices
                positionOffset: u32,    // offset of the vertex positions in the vertex buffer
                normalOffset: u32,      // offset of the vertex normals in the vertex buffer
                time: f32               // time
            }

            // uniform buffer
            @group(0) @binding(0) var<uniform> ubCompute : ub_compute;

            // vertex buffer
            @group(0) @binding(1) var<storage, read_write> vertices: array<f32>;
    
            @compute @workgroup_size(64)
            fn main(@builtin(global_invocation_id) global_invocation_id: vec3u) {

                // vertex index - ignore if out of bounds (as they get batched into groups of 64)
                let index = global_invocation_id.x;
                if (index >= ubCompute.count) { return; }

                // read the position from the vertex buffer
                let positionOffset = ubCompute.positionOffset + index * 3;
                var position = vec3f(vertices[positionOffset], vertices[positionOffset + 1], vertices[positionOffset + 2]);

                // read normal
                let normalOffset = ubCompute.normalOffset + index * 3;
                let normal = vec3f(vertices[normalOffset], vertices[normalOffset + 1], vertices[normalOffset + 2]);

                // generate position from the normal by offsetting (0,0,0) by normal * strength
                let strength = vec3f(
                    1.0 + sin(ubCompute.time + 10 * position.y) * 0.1,
                    1.0 + cos(ubCompute.time + 5 * position.x) * 0.1,
                    1.0 + sin(ubCompute.time + 2 * position.z) * 0.2
                );
                position = normal * strength;

                // write the position back to the vertex buffer
                vertices[positionOffset + 0] = position.x;
                vertices[positionOffset + 1] = position.y;
                vertices[positionOffset + 2] = position.z;
            }
        `,
    plain: [B(0, 0, w(70, 0, 210, { f: 1.25 }), true), B(0, 1, f(420, 0.03, -1.5))],
    workgroups: [2, 1, 1],
    params: { count: 70, positionOffset: 0, normalOffset: 210, time: 1.25 },
  },
];
