/**
 * The WGSL of the passes that fill and read depth and multisampled textures
 * (`_texture_passes.ts`): per format, how a texel's words in a storage buffer become the value a
 * fragment writes, and how a loaded sample becomes those words again, bit for bit.
 *
 * @module
 */

import { TEXTURE_FORMATS, type TextureFormat } from "../../../core/handles/texture_format.ts";

/**
 * How a fill's fragment turns the words `w0`, `w1` of element `e` into its output (the value of
 * `return`), and the output's type, per format. A 2-byte format's element is half a word.
 */
const UNPACK: Readonly<Partial<Record<TextureFormat, readonly [string, string]>>> = {
  depth32float: ["f32", "bitcast<f32>(w0)"],
  depth16unorm: ["f32", "f32((w0 >> ((e & 1u) * 16u)) & 0xffffu) / 65535.0"],
  rgba8unorm: ["vec4f", "unpack4x8unorm(w0)"],
  bgra8unorm: ["vec4f", "unpack4x8unorm(w0).zyxw"],
  rgba8uint: ["vec4u", "(vec4u(w0) >> vec4u(0u, 8u, 16u, 24u)) & vec4u(0xffu)"],
  rgba8sint: ["vec4i", "(vec4i(i32(w0)) << vec4u(24u, 16u, 8u, 0u)) >> vec4u(24u)"],
  rgba16float: ["vec4f", "vec4f(unpack2x16float(w0), unpack2x16float(w1))"],
  rgba16uint: ["vec4u", "vec4u(w0 & 0xffffu, w0 >> 16u, w1 & 0xffffu, w1 >> 16u)"],
  rgba16sint: [
    "vec4i",
    "(vec4i(i32(w0), i32(w0), i32(w1), i32(w1)) << vec4u(16u, 0u, 16u, 0u)) >> vec4u(16u)",
  ],
  r32float: ["vec4f", "vec4f(bitcast<f32>(w0), 0.0, 0.0, 1.0)"],
};

/**
 * How a read turns a loaded sample `v` into its words (`out[o]`, `out[o + 1]`), per format;
 * a 2-byte format's sample gets a word of its own (narrowed on the host).
 */
const PACK: Readonly<Partial<Record<TextureFormat, readonly [string, string]>>> = {
  depth32float: ["texture_depth_multisampled_2d", "out[o] = bitcast<u32>(v);"],
  depth16unorm: ["texture_depth_multisampled_2d", "out[o] = u32(round(v * 65535.0));"],
  rgba8unorm: ["texture_multisampled_2d<f32>", "out[o] = pack4x8unorm(v);"],
  bgra8unorm: ["texture_multisampled_2d<f32>", "out[o] = pack4x8unorm(v.zyxw);"],
  rgba8uint: ["texture_multisampled_2d<u32>", "out[o] = bytes(v);"],
  rgba8sint: ["texture_multisampled_2d<i32>", "out[o] = bytes(bitcast<vec4u>(v));"],
  rgba16float: [
    "texture_multisampled_2d<f32>",
    "out[o] = pack2x16float(v.xy); out[o + 1u] = pack2x16float(v.zw);",
  ],
  rgba16uint: [
    "texture_multisampled_2d<u32>",
    "out[o] = halves(v.xy); out[o + 1u] = halves(v.zw);",
  ],
  rgba16sint: [
    "texture_multisampled_2d<i32>",
    "let u = bitcast<vec4u>(v); out[o] = halves(u.xy); out[o + 1u] = halves(u.zw);",
  ],
  r32float: ["texture_multisampled_2d<f32>", "out[o] = bitcast<u32>(v.x);"],
};

/** The fill's shaders: `vs` (a full-screen triangle) and `fs` (one sample's value). */
export function fillShader(format: TextureFormat): string {
  const [type, value] = UNPACK[format]!;
  const bytes = TEXTURE_FORMATS[format].bytes;
  const word = bytes === 2 ? "e >> 1u" : bytes === 8 ? "e * 2u" : "e";
  const output = TEXTURE_FORMATS[format].depth ? "@builtin(frag_depth)" : "@location(0)";
  return `struct Layer { width: u32, height: u32, samples: u32, pad: u32, words: array<u32> }
@group(0) @binding(0) var<storage, read> layer: Layer;

@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4f {
  return vec4f(f32((i << 1u) & 2u) * 2.0 - 1.0, f32(i & 2u) * 2.0 - 1.0, 0.0, 1.0);
}

@fragment fn fs(@builtin(position) p: vec4f, @builtin(sample_index) s: u32) -> ${output} ${type} {
  let e = (u32(p.y) * layer.width + u32(p.x)) * layer.samples + s;
  let w0 = layer.words[${word}];
  let w1 = layer.words[min(${word} + 1u, arrayLength(&layer.words) - 1u)];
  return ${value};
}
`;
}

/** The read's compute shader: every sample of the texture into `out`, in the fill's layout. */
export function readShader(format: TextureFormat): string {
  const [texture, store] = PACK[format]!;
  const words = Math.max(1, TEXTURE_FORMATS[format].bytes / 4);
  return `@group(0) @binding(0) var t: ${texture};
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

fn bytes(v: vec4u) -> u32 {
  return (v.x & 0xffu) | ((v.y & 0xffu) << 8u) | ((v.z & 0xffu) << 16u) | (v.w << 24u);
}
fn halves(v: vec2u) -> u32 { return (v.x & 0xffffu) | (v.y << 16u); }

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3u, @builtin(num_workgroups) n: vec3u) {
  let size = textureDimensions(t);
  let samples = textureNumSamples(t);
  let e = g.y * n.x * 64u + g.x;
  if (e >= size.x * size.y * samples) { return; }
  let s = e % samples;
  let xy = vec2u((e / samples) % size.x, (e / samples) / size.x);
  let v = textureLoad(t, xy, s);
  let o = e * ${words}u;
  ${store}
}
`;
}
