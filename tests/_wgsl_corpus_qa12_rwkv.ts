/**
 * QA wave 12, web-rwkv's WGSL (cryscan/web-rwkv, `src/shaders/`): several uniforms at once (a
 * bare `vec4<u32>` beside `View` structs, given to the client by variable name), f16 pairs
 * packed in `array<vec2<u32>>` read with `unpack2x16float`, workgroup reductions in helpers that
 * call `workgroupBarrier()`; see `_wgsl_corpus_qa12.ts` (`_wgsl_corpus_qa12_rwkv_matmul.ts`
 * has the softmax and matrix-vector kernels).
 */
import { B, type CorpusCase, f } from "./_wgsl_corpus_qa_base.ts";

/** `n` f16 pairs packed two to a u32, halves in ±[0.5, 1) (no NaN or infinity). */
export const halves = (n: number): Uint32Array<ArrayBuffer> =>
  Uint32Array.from({ length: n }, (_, i) => {
    const h = (k: number) => (k % 3 === 0 ? 0x8000 : 0) | 0x3800 | ((k * 37) % 0x400);
    return (h(2 * i + 1) << 16 | h(2 * i)) >>> 0;
  });

/** web-rwkv's `View` uniform (stride, offset, shape as vec4<u32>): its words and its params. */
export function view(
  stride: number[],
  offset: number[],
  shape: number[],
): { words: Uint32Array<ArrayBuffer>; params: Record<string, number[]> } {
  return {
    words: Uint32Array.from([...stride, ...offset, ...shape]),
    params: { stride, offset, shape },
  };
}

// https://github.com/cryscan/web-rwkv/blob/main/src/shaders/token_shift.wgsl (stored version
// 01b130d74c86ea30f79f2225a84e4c6158da840e) verbatim.
const TOKEN_SHIFT = /* wgsl */ `struct View {
    stride: vec4<u32>,
    offset: vec4<u32>,
    shape: vec4<u32>,  
};

struct Cursor {
    batch: u32,
    token: u32,
    len: u32,
};

@group(0) @binding(0) var<uniform> vt: View;
@group(0) @binding(1) var<uniform> vx: View;                                // [C, _, B] / [C, 5L, B]
@group(0) @binding(2) var<storage, read> cursors: array<u32>;               // [A]

@group(0) @binding(3) var<storage, read> time_mix: array<vec2<u32>>;        // (C)
@group(0) @binding(4) var<storage, read> time_mix_fp32: array<vec4<f32>>;   // (C)

@group(0) @binding(5) var<storage, read> x: array<vec4<f32>>;               // (1, A, C)
@group(0) @binding(6) var<storage, read> sx: array<vec4<f32>>;              // (B, 1, C)
@group(0) @binding(7) var<storage, read_write> output: array<vec4<f32>>;    // (1, A, C)

const BLOCK_SIZE: u32 = 128u;

fn compute_time_mix_index(view: View, index: u32) -> u32 {
    let stride = view.stride.x / 4u;
    let offset = view.offset.x / 4u;
    return ((view.offset.z) * view.stride.y + view.offset.y) * stride + offset + index;
}

fn compute_index(view: View, batch: u32, token: u32, index: u32) -> u32 {
    let stride = view.stride.x / 4u;
    let offset = view.offset.x / 4u;
    return ((view.offset.z + batch) * view.stride.y + view.offset.y + token) * stride + offset + index;
}

fn compute_cursor(x: u32) -> Cursor {
    // let unpacked = vec4<u32>(unpack4x8unorm(x) * 255.0 + 0.5);
    var cursor: Cursor;
    cursor.batch = x & 0xffu;
    cursor.token = (x >> 8u) & 0xffffu;
    cursor.len = (x >> 24u) & 0xffu;
    return cursor;
}

fn unpack4x16float(x: vec2<u32>) -> vec4<f32> {
    return vec4<f32>(unpack2x16float(x.x), unpack2x16float(x.y));
}

@compute @workgroup_size(128, 1, 1)
fn token_shift(@builtin(global_invocation_id) invocation_id: vec3<u32>, @builtin(num_workgroups) num_blocks: vec3<u32>) {
    let stride = vx.shape.x / 4u;
    let index = invocation_id.x;
    let stack = invocation_id.y;
    let cursor = compute_cursor(cursors[stack]);
    let token = stack - cursor.token;

    if index >= stride {
        return;
    }

    let bti = stack * stride + index;
    let t = time_mix[compute_time_mix_index(vt, index)];
    if token == 0u {
        output[bti] = mix(sx[compute_index(vx, cursor.batch, 0u, index)], x[bti], unpack4x16float(t));
    } else {
        output[bti] = mix(x[bti - stride], x[bti], unpack4x16float(t));
    }
}

@compute @workgroup_size(128, 1, 1)
fn token_shift_fp32(@builtin(global_invocation_id) invocation_id: vec3<u32>, @builtin(num_workgroups) num_blocks: vec3<u32>) {
    let stride = vx.shape.x / 4u;
    let index = invocation_id.x;
    let stack = invocation_id.y;
    let cursor = compute_cursor(cursors[stack]);
    let token = stack - cursor.token;

    if index >= stride {
        return;
    }

    let bti = stack * stride + index;
    let t = time_mix_fp32[compute_time_mix_index(vt, index)];
    if token == 0u {
        output[bti] = mix(sx[compute_index(vx, cursor.batch, 0u, index)], x[bti], t);
    } else {
        output[bti] = mix(x[bti - stride], x[bti], t);
    }
}`;

// C = 16 channels (4 vec4s), three stacked tokens: two of batch 0 (from token 0), one of batch 1.
const VT = view([16, 1, 1, 0], [0, 0, 0, 0], [16, 1, 1, 0]);
const VX = view([16, 1, 2, 0], [0, 0, 0, 0], [16, 1, 2, 0]);
const CURSORS = Uint32Array.from([2 << 24, 2 << 24, 1 | 2 << 8 | 1 << 24]);

// https://github.com/cryscan/web-rwkv/blob/main/src/shaders/layer_norm.wgsl (stored version
// 143bc30cd41bc7784918222c29891598398798a2) as web-rwkv's preprocessor emits it without FP16:
// the `#ifdef FP16` branches dropped, BLOCK_SIZE and EPS (macros there) declared as consts.
const LAYER_NORM = /* wgsl */ `const BLOCK_SIZE: u32 = 128u;
const EPS: f32 = 1.0e-5;

@group(0) @binding(0) var<uniform> shape: vec4<u32>;                        // [C, T, B]

@group(0) @binding(1) var<storage, read> w: array<vec2<u32>>;               // (C)
@group(0) @binding(2) var<storage, read> b: array<vec2<u32>>;               // (C)
@group(0) @binding(3) var<storage, read_write> x: array<vec4<f32>>;         // (B, T, C)

var<workgroup> sum: array<vec4<f32>, BLOCK_SIZE>;
var<workgroup> sum_squared: array<vec4<f32>, BLOCK_SIZE>;
var<workgroup> mean: f32;
var<workgroup> deviation: f32;

fn pack4x16float(x: vec4<f32>) -> vec2<u32> {
    return vec2<u32>(pack2x16float(x.xy), pack2x16float(x.zw));
}

fn unpack4x16float(x: vec2<u32>) -> vec4<f32> {
    return vec4<f32>(unpack2x16float(x.x), unpack2x16float(x.y));
}

fn reduce_step(index: u32, stride: u32) {
    if index < stride {
        sum[index] += sum[index + stride];
        sum_squared[index] += sum_squared[index + stride];
    }
    workgroupBarrier();
}

@compute @workgroup_size(BLOCK_SIZE, 1, 1)
fn layer_norm(@builtin(global_invocation_id) invocation_id: vec3<u32>) {
    let stride = shape[0] / 4u;
    let index = invocation_id.x;
    let token = invocation_id.y;
    let batch = invocation_id.z;

    let bb = (batch * shape[1] + token) * stride;

    for (var i = index; i < stride; i += BLOCK_SIZE) {
        let value = x[bb + i];
        sum[index] += value;
        sum_squared[index] += value * value;
    }
    workgroupBarrier();

    reduce_step(index, 64u);
    reduce_step(index, 32u);
    reduce_step(index, 16u);
    reduce_step(index, 8u);
    reduce_step(index, 4u);
    reduce_step(index, 2u);
    reduce_step(index, 1u);

    if index == 0u {
        mean = dot(sum[0], vec4<f32>(1.0)) / f32(shape[0]);
        deviation = inverseSqrt(dot(sum_squared[0], vec4<f32>(1.0)) / f32(shape[0]) - mean * mean + EPS);
    }
    workgroupBarrier();

    for (var i = index; i < stride; i += BLOCK_SIZE) {
        let value = (x[bb + i] - mean) * deviation;
        x[bb + i] = fma(value, unpack4x16float(w[i]), unpack4x16float(b[i]));
    }
}

@compute @workgroup_size(BLOCK_SIZE, 1, 1)
fn group_norm(@builtin(global_invocation_id) invocation_id: vec3<u32>) {
    let stride = shape[0] / 4u;
    let index = invocation_id.x;
    let head = invocation_id.y;
    let token = invocation_id.z;

    let h = head * stride;
    let th = (token * shape[1] + head) * stride;

    for (var i = index; i < stride; i += BLOCK_SIZE) {
        let value = x[th + i];
        sum[index] += value;
        sum_squared[index] += value * value;
    }
    workgroupBarrier();

    reduce_step(index, 16u);
    reduce_step(index, 8u);
    reduce_step(index, 4u);
    reduce_step(index, 2u);
    reduce_step(index, 1u);

    if index == 0u {
        mean = dot(sum[0], vec4<f32>(1.0)) / f32(shape[0]);
        deviation = inverseSqrt(dot(sum_squared[0], vec4<f32>(1.0)) / f32(shape[0]) - mean * mean + EPS);
    }
    workgroupBarrier();

    for (var i = index; i < stride; i += BLOCK_SIZE) {
        let value = (x[th + i] - mean) * deviation;
        x[th + i] = fma(value, unpack4x16float(w[h + i]), unpack4x16float(b[h + i]));
    }
}`;

export const RWKV12: readonly CorpusCase[] = [
  {
    // Two `View` struct uniforms (params by variable name), a `Cursor` struct unpacked from a
    // u32, an unused `@builtin(num_workgroups)` parameter, a binding only the other entry uses.
    name: "web-rwkv token_shift (two View uniforms, packed f16 time_mix, Cursor struct)",
    source: TOKEN_SHIFT,
    entryPoint: "token_shift",
    plain: [
      B(0, 0, VT.words, true),
      B(0, 1, VX.words, true),
      B(0, 2, CURSORS),
      B(0, 3, halves(8)),
      B(0, 5, f(48, 0.25, -3)),
      B(0, 6, f(32, 0.5, 1)),
      B(0, 7, new Float32Array(48)),
    ],
    workgroups: [1, 3, 1],
    params: { vt: VT.params, vx: VX.params },
  },
  {
    name: "web-rwkv token_shift_fp32 (the same module's second entry, vec4<f32> time_mix)",
    source: TOKEN_SHIFT,
    entryPoint: "token_shift_fp32",
    plain: [
      B(0, 0, VT.words, true),
      B(0, 1, VX.words, true),
      B(0, 2, CURSORS),
      B(0, 4, f(16, 0.01)),
      B(0, 5, f(48, 0.25, -3)),
      B(0, 6, f(32, 0.5, 1)),
      B(0, 7, new Float32Array(48)),
    ],
    workgroups: [1, 3, 1],
    params: { vt: VT.params, vx: VX.params },
  },
  {
    // A bare `vec4<u32>` uniform indexed `shape[0]`, workgroup arrays of vec4 reduced in a
    // helper that calls `workgroupBarrier()`, workgroup scalars, `inverseSqrt`, `fma`.
    name: "web-rwkv layer_norm (bare vec4<u32> uniform, barrier in a helper, packed f16 w/b)",
    source: LAYER_NORM,
    entryPoint: "layer_norm",
    plain: [
      B(0, 0, Uint32Array.from([32, 2, 2, 0]), true),
      B(0, 1, halves(16)),
      B(0, 2, halves(16)),
      B(0, 3, f(128, 0.125, -5)),
    ],
    workgroups: [1, 2, 2],
    params: { shape: [32, 2, 2, 0] },
  },
];
