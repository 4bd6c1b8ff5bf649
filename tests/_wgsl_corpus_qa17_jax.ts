/**
 * QA wave 17, written after the WGSL ekzhang/jax-js generates for WebGPU (stored version
 * 4014cc4979c76257ba160d6dc8fc4c978d03e0c4: `src/backend/webgpu.ts`, `webgpu/codegen.ts`,
 * `webgpu/routines.ts`, `webgpu/nullaryKernel.ts`; the constructs are theirs, the code is not
 * copied): user functions named `nan` and `inf` made of `bitcast`s, phony assignments
 * `_ = &in1;` that keep an otherwise unread input in the layout, a constants uniform in
 * @group(1) beside a result at @group(0) @binding(0), struct members with trailing commas, the
 * threefry2x32 and erf helpers (module consts named `_erf_p`), a grouped reduction through
 * workgroup memory, and the bitonic argsort routine; see `_wgsl_corpus_qa17.ts`.
 */
import { B, type CorpusCase, f } from "./_wgsl_corpus_qa_base.ts";
import { w } from "./_wgsl_corpus_qa3_base.ts";

/** codegen.ts's header: NaN and infinity as functions of bit patterns. */
const HEADER = `fn nan() -> f32 { let bits = 0xffffffffu; return bitcast<f32>(bits); }
fn inf() -> f32 { let bits = 0x7f800000u; return bitcast<f32>(bits); }`;

/** After builtins.ts's threefry2x32 (two of its rounds of four, rotations as jax's). */
const THREEFRY = `
fn threefry2x32(key: vec2<u32>, ctr: vec2<u32>) -> vec2<u32> {
  let ks0: u32 = key.x;
  let ks1: u32 = key.y;
  let ks2: u32 = ks0 ^ ks1 ^ 0x1BD11BDAu;
  var x0: u32 = ctr.x + ks0;
  var x1: u32 = ctr.y + ks1;
  x0 += x1; x1 = (x1 << 13u) | (x1 >> 19u); x1 ^= x0;
  x0 += x1; x1 = (x1 << 15u) | (x1 >> 17u); x1 ^= x0;
  x0 += x1; x1 = (x1 << 26u) | (x1 >> 6u); x1 ^= x0;
  x0 += x1; x1 = (x1 << 6u) | (x1 >> 26u); x1 ^= x0;
  x0 += ks1;
  x1 += ks2 + 1u;
  x0 += x1; x1 = (x1 << 17u) | (x1 >> 15u); x1 ^= x0;
  x0 += x1; x1 = (x1 << 29u) | (x1 >> 3u); x1 ^= x0;
  x0 += x1; x1 = (x1 << 16u) | (x1 >> 16u); x1 ^= x0;
  x0 += x1; x1 = (x1 << 24u) | (x1 >> 8u); x1 ^= x0;
  x0 += ks2;
  x1 += ks0 + 2u;
  return vec2<u32>(x0, x1);
}`;

/** After builtins.ts's erf (Abramowitz and Stegun 7.1.26, consts named `_erf_...`). */
const ERF = `
const _erf_p: f32 = 0.3275911;
const _erf_a1: f32 = 0.254829592;
const _erf_a2: f32 = -0.284496736;
const _erf_a3: f32 = 1.421413741;
const _erf_a4: f32 = -1.453152027;
const _erf_a5: f32 = 1.061405429;
fn erf(x: f32) -> f32 {
  let t = 1.0 / (1.0 + _erf_p * abs(x));
  let P_t = fma(fma(fma(fma(_erf_a5, t, _erf_a4), t, _erf_a3), t, _erf_a2), t, _erf_a1) * t;
  return sign(x) * (1.0 - P_t * exp(-x * x));
}`;

/** After routines.ts's bitonicSortShader(f32, n 12, 1 batch, argsort): 16 padded, 8 threads. */
const ARGSORT = `${HEADER}

struct Uniforms {
  kind: u32, // 0 = sort, 1 = merge
  merge_step: u32,
  merge_stage: u32,
}

@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;
@group(0) @binding(2) var<storage, read_write> output_idx: array<i32>;

@group(1) @binding(0) var<uniform> uniforms: Uniforms;

var<workgroup> shared_vals: array<f32, 16>;
var<workgroup> shared_idx: array<i32, 16>;

fn compare(a: f32, b: f32) -> bool {
  let min_value = min(a, b);
  return a == min_value && b != min_value;
}

fn compare_and_swap(i: u32, j: u32) {
  let val_i = shared_vals[i];
  let val_j = shared_vals[j];
  if (
    compare(val_j, val_i) ||
    (!compare(val_i, val_j) && shared_idx[j] < shared_idx[i])
  ) {
    shared_vals[i] = val_j;
    shared_vals[j] = val_i;
    let tmp_idx = shared_idx[i];
    shared_idx[i] = shared_idx[j];
    shared_idx[j] = tmp_idx;
  }
}

@compute @workgroup_size(8)
fn main(
  @builtin(workgroup_id) wg_id: vec3<u32>,
  @builtin(local_invocation_id) local_id: vec3<u32>,
) {
  let blockid = wg_id.x + wg_id.y * 16384u;
  let base = blockid * 12u;
  let tid = local_id.x;
  if (uniforms.kind == 0u) {
    let idx0 = tid * 2u;
    let idx1 = tid * 2u + 1u;
    shared_vals[idx0] = select(f32(nan()), input[base + idx0], idx0 < 12u);
    shared_vals[idx1] = select(f32(nan()), input[base + idx1], idx1 < 12u);
    shared_idx[idx0] = select(12, i32(idx0), idx0 < 12u);
    shared_idx[idx1] = select(12, i32(idx1), idx1 < 12u);
    workgroupBarrier();
    for (var stage = 0u; stage < 4u; stage++) {
      for (var step1 = stage + 1u; step1 > 0u; step1--) {
        let step = step1 - 1u;
        let half_block = 1u << step;
        let is_first_step = step == stage;
        let i = (tid / half_block) * half_block * 2u + tid % half_block;
        let j = select(i + half_block, i ^ (half_block * 2u - 1u), is_first_step);
        compare_and_swap(i, j);
        workgroupBarrier();
      }
    }
    if (idx0 < 12u) {
      output[base + idx0] = shared_vals[idx0];
      output_idx[base + idx0] = shared_idx[idx0];
    }
    if (idx1 < 12u) {
      output[base + idx1] = shared_vals[idx1];
      output_idx[base + idx1] = shared_idx[idx1];
    }
  }
}`;

/** jax-js's kernels. */
export const JAX: readonly CorpusCase[] = [
  {
    // The argsort of 12 f32s (two equal, a NaN and an infinity among them): ties by index,
    // NaNs last, as compare() and the index tie-break make them.
    name: "jax-js bitonic argsort (user nan(), i32 workgroup indices, a uniform in @group(1))",
    source: ARGSORT,
    plain: [
      B(0, 0, Float32Array.of(3, -1, 2.5, NaN, 7, 2.5, -Infinity, 0, -0, 9, 1e-3, -4)),
      B(0, 1, new Float32Array(12)),
      B(0, 2, new Int32Array(12)),
      B(1, 0, new Uint32Array(4), true),
    ],
    workgroups: [1, 1, 1],
    params: { kind: 0, merge_step: 0, merge_stage: 0 },
  },
  {
    // After webgpu.ts's pipelineSource for random bits of a fused expression (1,000 outputs,
    // workgroups of 256): `_ = &in0; _ = &in1;` on one line, in1 read by nothing else, the
    // threefry helper, `if (id.x >= 1000) { return; }` comparing with an abstract int.
    name: "jax-js elementwise threefry (`_ = &in0; _ = &in1;`, an input only a phony reads)",
    source: `${HEADER}
${THREEFRY}

@group(0) @binding(0) var<storage, read> in0 : array<u32>;
@group(0) @binding(1) var<storage, read> in1 : array<f32>;
@group(0) @binding(2) var<storage, read_write> result : array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) id : vec3<u32>) {
  if (id.x >= 1000) { return; }
  let gidx: i32 = i32(id.x);
  _ = &in0; _ = &in1;
  let bits = threefry2x32(vec2<u32>(in0[0], in0[1]), vec2<u32>(u32(gidx), 0u));
  result[gidx] = select(f32(bits.x >> 9u) / 8388608.0, inf(), bits.y == 0u);
}`,
    plain: [
      B(0, 0, Uint32Array.of(42, 7)),
      B(0, 1, f(4)),
      B(0, 2, new Float32Array(1000)),
    ],
    workgroups: [4, 1, 1],
  },
  {
    // After nullaryKernel.ts: the constants lifted into a `Uniforms` struct (members ending in
    // commas, the struct closed by `}` and a blank line) at @group(1) @binding(0), the result
    // at @group(0) @binding(0), `i32` arithmetic on the index.
    name: "jax-js nullary kernel (lifted constants in @group(1) @binding(0), trailing commas)",
    source: `${HEADER}

struct Uniforms {
  c0: f32,
  c1: i32,
  c2: u32,
}

@group(0) @binding(0) var<storage, read_write> result : array<f32>;
@group(1) @binding(0) var<uniform> uniforms: Uniforms;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id : vec3<u32>) {
  if (id.x >= 100) { return; }
  let gidx: i32 = i32(id.x);
  result[gidx] = f32((gidx * uniforms.c1) % 17) * uniforms.c0 + f32(uniforms.c2 & u32(gidx));
}`,
    plain: [B(0, 0, new Float32Array(100)), B(1, 0, w({ f: 0.25 }, { i: -3 }, 0x55), true)],
    workgroups: [2, 1, 1],
    params: { c0: 0.25, c1: -3, c2: 0x55 },
  },
  {
    // After pipelineSource's grouped reduction (erf summed over rows of 96 by 32 invocations,
    // 10 rows): `var<workgroup> partial0`, a trailing comma in the builtins, a workgroup-uniform
    // early return, the tree of halving strides unrolled as the generator writes it.
    name: "jax-js grouped reduction of erf (partial0 workgroup array, erf with `_erf_p` consts)",
    source: `${HEADER}
${ERF}

@group(0) @binding(0) var<storage, read> in0 : array<f32>;
@group(0) @binding(1) var<storage, read_write> result : array<f32>;
var<workgroup> partial0: array<f32, 32>;

@compute @workgroup_size(32)
fn main(
  @builtin(local_invocation_id) lid : vec3<u32>,
  @builtin(workgroup_id) wg_id : vec3<u32>,
) {
  if (wg_id.x >= 10u) { return; }
  let gidx: i32 = i32(wg_id.x);
  let group: i32 = i32(lid.x);
  _ = &in0;
  var acc0: f32 = 0.0;
  for (var ridx: i32 = 0; ridx < 3; ridx++) {
    acc0 += erf(in0[gidx * 96 + group * 3 + ridx]);
  }
  partial0[lid.x] = acc0;
  workgroupBarrier();
  if (lid.x < 16u) {
    partial0[lid.x] = partial0[lid.x] + partial0[lid.x + 16u];
  }
  workgroupBarrier();
  if (lid.x < 8u) {
    partial0[lid.x] = partial0[lid.x] + partial0[lid.x + 8u];
  }
  workgroupBarrier();
  if (lid.x < 4u) {
    partial0[lid.x] = partial0[lid.x] + partial0[lid.x + 4u];
  }
  workgroupBarrier();
  if (lid.x < 2u) {
    partial0[lid.x] = partial0[lid.x] + partial0[lid.x + 2u];
  }
  workgroupBarrier();
  if (lid.x < 1u) {
    partial0[lid.x] = partial0[lid.x] + partial0[lid.x + 1u];
  }
  workgroupBarrier();
  if (lid.x == 0u) {
    acc0 = partial0[0u];
    result[gidx] = acc0 * 0.5;
  }
}`,
    plain: [B(0, 0, f(960, 0.03, -1.5)), B(0, 1, new Float32Array(10))],
    workgroups: [12, 1, 1],
  },
];
