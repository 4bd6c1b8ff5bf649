/**
 * QA wave 17, written after pygfx/wgpu-py's compute examples and texture tests (stored version
 * 9d59b27fab7a15c92cd1fc147912b889f08e93d3; the constructs are theirs, the code is not copied):
 * compute_textures (overrides without defaults as the workgroup size, a `texture_2d<f32>` read by
 * `textureLoad` and sampled by a linear sampler, r32float and rg32float storage textures),
 * compute_matmul (shapes in read-only storage arrays), compute_workgroups (a trailing comma
 * after the builtins) and the 1-D, 2-D and 3-D storage texture tests
 * (`texture_storage_1d<rgba16sint,write>` without a blank, `var r_tex1:texture_2d<f32>`);
 * compute_int64's `array<i64>` is refused. See `_wgsl_corpus_qa17.ts`.
 */
import type { PlainBinding } from "./_plain_webgpu.ts";
import { B, type CorpusCase, f, u } from "./_wgsl_corpus_qa_base.ts";

/** A texture binding of any dimension; without data, a storage texture. */
const X = (
  binding: number,
  [width, height, depthOrArrayLayers]: [number, number, number],
  dimension: GPUTextureDimension,
  format: GPUTextureFormat,
  data?: ArrayBufferView<ArrayBuffer>,
): PlainBinding => ({
  group: 0,
  binding,
  texture: { width, height, depthOrArrayLayers, dimension, format, data },
  storage: data === undefined,
});

/** _compute_texture's input (random.randint(0, 20) per channel), here a fixed pattern. */
function upTo20<T extends Int16Array<ArrayBuffer> | Float32Array<ArrayBuffer>>(out: T): T {
  for (let i = 0; i < out.length; i++) out[i] = (i * 7 + (i >> 3)) % 21;
  return out;
}

/** wgpu-py's cases that run. */
export const WGPU_PY: readonly CorpusCase[] = [
  {
    // After examples/compute_textures.py (an RGBA image to Y and subsampled CbCr), launched as
    // the example does on a 16 x 8 image: 8 x 8 blocks (constants block_w/h 8), a linear sampler.
    name: "wgpu-py compute_textures (overrides sizing the workgroup, a sampler, storage textures)",
    source: `
@group(0) @binding(0)
var rgba: texture_2d<f32>;

@group(0) @binding(1)
var luma: texture_storage_2d<r32float, write>;

@group(0) @binding(2)
var chroma: texture_storage_2d<rg32float, write>;

@group(0) @binding(3)
var smp: sampler;

override block_w: u32;
override block_h: u32;

@compute @workgroup_size(block_w, block_h)
fn main(@builtin(workgroup_id) wid: vec3<u32>) {
    let first = wid.xy * vec2u(block_w, block_h);
    let last = first + vec2u(block_w, block_h);
    for (var x: u32 = first.x; x < last.x; x++) {
        for (var y: u32 = first.y; y < last.y; y++) {
            var c: vec4f = textureLoad(rgba, vec2u(x, y), 0);
            textureStore(luma, vec2u(x, y), vec4<f32>(dot(c.rgb, vec3f(0.299, 0.587, 0.114)), 0, 0, 0));
        }
    }
    for (var x: u32 = first.x; x < last.x; x += 2) {
        for (var y: u32 = first.y; y < last.y; y += 2) {
            let uv: vec2f = (vec2f(f32(x), f32(y)) + 1.0) / vec2f(textureDimensions(rgba).xy);
            let s = textureSampleLevel(rgba, smp, uv, 0.0);
            let cb = 0.5 - 0.1687 * s.r - 0.3313 * s.g + 0.5 * s.b;
            let cr = 0.5 + 0.5 * s.r - 0.4187 * s.g - 0.0813 * s.b;
            textureStore(chroma, vec2u(x / 2, y / 2), vec4<f32>(cb, cr, 0, 0));
        }
    }
}
`,
    plain: [
      X(0, [16, 8, 1], "2d", "rgba8unorm", Uint8Array.from(u(16 * 8 * 4, 256))),
      X(1, [16, 8, 1], "2d", "r32float"),
      X(2, [8, 4, 1], "2d", "rg32float"),
      { group: 0, binding: 3, sampler: { minFilter: "linear", magFilter: "linear" } },
    ],
    workgroups: [2, 1, 1],
    constants: { block_w: 8, block_h: 8 },
    samplers: { smp: { minFilter: "linear", magFilter: "linear" } },
  },
  {
    // After examples/compute_matmul.py (m, k, n 6, 7, 8; n=(n, m, 1) workgroups of one): the
    // shapes in read-only u32 storage arrays bound after the output, a helper for the index.
    name: "wgpu-py compute_matmul (shapes in read-only u32 arrays, a helper for the index)",
    source: `
@group(0) @binding(0)
var<storage, read> A: array<f32>;
@group(0) @binding(1)
var<storage, read> B: array<f32>;
@group(0) @binding(2)
var<storage, read_write> C: array<f32>;
@group(0) @binding(3)
var<storage, read> A_shape: array<u32>;
@group(0) @binding(4)
var<storage, read> B_shape: array<u32>;

fn at(row: u32, col: u32, cols: u32) -> u32 {
    return row * cols + col;
}

@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k: u32 = A_shape[1];
    let n: u32 = B_shape[1];
    var acc: f32 = 0.0;
    for (var i: u32 = 0; i < k; i++) {
        acc = acc + A[at(gid.y, i, k)] * B[at(i, gid.x, n)];
    }
    C[at(gid.y, gid.x, n)] = acc;
    return;
}
`,
    plain: [
      B(0, 0, f(42, 0.01)),
      B(0, 1, f(56, 0.02, -0.5)),
      B(0, 2, new Float32Array(48)),
      B(0, 3, Uint32Array.of(6, 7)),
      B(0, 4, Uint32Array.of(7, 8)),
    ],
    workgroups: [8, 6, 1],
  },
  {
    // After examples/compute_workgroups.py (workgroup_size 4, 3 workgroups): three builtins
    // aligned with blanks before the colon, a trailing comma after the last one.
    name: "wgpu-py compute_workgroups (three builtins, a trailing comma, `out[base + 1]`)",
    source: `
@group(0) @binding(0)
var<storage, read_write> out: array<u32>;

@compute
@workgroup_size(4, 1, 1)
fn main(
    @builtin(global_invocation_id) global_id : vec3<u32>,
    @builtin(local_invocation_id)  local_id  : vec3<u32>,
    @builtin(workgroup_id)         wg_id     : vec3<u32>,
) {
    let base: u32 = global_id.x * 3u;
    out[base]     = global_id.x * 100;
    out[base + 1] = local_id.x + 10;
    out[base + 2] = wg_id.x;
}
`,
    plain: [B(0, 0, new Uint32Array(36))],
    workgroups: [3, 1, 1],
  },
  {
    // After tests/test_wgpu_native_compute_tex.py's test_compute_tex_1d_rgba16sint, 128 texels,
    // one workgroup each as _compute_texture dispatches them: `texture_storage_1d<rgba16sint,write>`
    // without a blank after the comma, the module indented as a Python string keeps it.
    name: "wgpu-py texture test 1d rgba16sint (`texture_storage_1d<rgba16sint,write>`)",
    source: `
        @group(0) @binding(0)
        var src: texture_1d<i32>;

        @group(0) @binding(1)
        var dst: texture_storage_1d<rgba16sint,write>;

        @compute @workgroup_size(1)
        fn main(@builtin(global_invocation_id) index: vec3<u32>) {
            let i: i32 = i32(index.x);
            let t : vec4<i32> = textureLoad(src, i, 0);
            textureStore(dst, i, vec4<i32>(t.x - i, t.y * 3, t.z + 7, t.w));
        }
    `,
    plain: [
      X(0, [128, 1, 1], "1d", "rgba16sint", upTo20(new Int16Array(128 * 4))),
      X(1, [128, 1, 1], "1d", "rgba16sint"),
    ],
    workgroups: [128, 1, 1],
  },
  {
    // After the same file's test_compute_tex_1d_r32float: a 1-D r32float texture loaded and
    // stored, the channels a single-channel format drops computed anyway.
    name: "wgpu-py texture test 1d r32float (a texture_1d<f32> into a write-only storage texture)",
    source: `
        @group(0) @binding(0)
        var src: texture_1d<f32>;

        @group(0) @binding(1)
        var dst: texture_storage_1d<r32float,write>;

        @compute @workgroup_size(1)
        fn main(@builtin(global_invocation_id) index: vec3<u32>) {
            let i: i32 = i32(index.x);
            let t : vec4<f32> = textureLoad(src, i, 0);
            textureStore(dst, i, vec4<f32>(t.x * 0.5 + f32(i), t.y + 1.0, t.z, t.a));
        }
    `,
    plain: [
      X(0, [256, 1, 1], "1d", "r32float", upTo20(new Float32Array(256))),
      X(1, [256, 1, 1], "1d", "r32float"),
    ],
    workgroups: [256, 1, 1],
  },
  {
    // After the same file's test_compute_tex_2d_r32float, 64 x 8 texels (the test's 256
    // wide): `var src:texture_2d<f32>;` without a blank after the colon.
    name: "wgpu-py texture test 2d r32float (`var src:texture_2d<f32>` without a blank)",
    source: `
        @group(0) @binding(0)
        var src:texture_2d<f32>;

        @group(0) @binding(1)
        var dst: texture_storage_2d<r32float, write>;

        @compute @workgroup_size(1)
        fn main(@builtin(global_invocation_id) index: vec3<u32>) {
            let i = vec2<i32>(index.xy);
            let t: vec4<f32> = textureLoad(src, i, 0);
            textureStore(dst, i, vec4<f32>(t.x + f32(i.x - i.y), 0.0, 0.0, 1.0));
        }
    `,
    plain: [
      X(0, [64, 8, 1], "2d", "r32float", upTo20(new Float32Array(64 * 8))),
      X(1, [64, 8, 1], "2d", "r32float"),
    ],
    workgroups: [64, 8, 1],
  },
  {
    // After the same file's test_compute_tex_3d_rgba16sint, 32 x 8 x 6 texels (the test's 128
    // wide): a texture_3d<i32> into a texture_storage_3d, the coordinate `vec3<i32>(index)`.
    name: "wgpu-py texture test 3d rgba16sint (texture_3d<i32> into texture_storage_3d)",
    source: `
        @group(0) @binding(0)
        var src: texture_3d<i32>;

        @group(0) @binding(1)
        var dst: texture_storage_3d<rgba16sint,write>;

        @compute @workgroup_size(1)
        fn main(@builtin(global_invocation_id) index: vec3<u32>) {
            let i = vec3<i32>(index);
            let t: vec4<i32> = textureLoad(src, i, 0);
            textureStore(dst, i, vec4<i32>(t.x + i.z, t.y - i.y, t.z * 2, t.a));
        }
    `,
    plain: [
      X(0, [32, 8, 6], "3d", "rgba16sint", upTo20(new Int16Array(32 * 8 * 6 * 4))),
      X(1, [32, 8, 6], "3d", "rgba16sint"),
    ],
    workgroups: [32, 8, 6],
  },
];

/** wgpu-py's compute_int64 example: plain WebGPU has no `shader-int64`, the client refuses it. */
export const WGPU_PY_REFUSED: readonly CorpusCase[] = [
  {
    // After examples/compute_int64.py: `array<i64>` needs wgpu-native's shader-int64, which no
    // WebGPU device has.
    name: "wgpu-py compute_int64 (`array<i64>`, a wgpu-native extension)",
    source: `
@group(0) @binding(0)
var<storage, read_write> data: array<i64>;

@compute
@workgroup_size(1)
fn main(@builtin(global_invocation_id) index: vec3<u32>) {
    let k = index.x * 3u;
    data[k + 2u] = data[k] - data[k + 1u];
}
`,
    plain: [B(0, 0, new Uint32Array(12))],
    workgroups: [2, 1, 1],
  },
];
