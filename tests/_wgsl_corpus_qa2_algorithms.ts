/**
 * The QA corpus, second wave, part 4: sorting, scans, FFTs and more ML runtimes
 * (kishimisu/WebGPU-Radix-Sort, KeKsBoTer/wgpu_sort, linebender/vello, a radix-2 FFT as in
 * IQEngine/webfft, pygfx/wgpu-py's examples, milhidaka/webgpu-blas, webonnx/wonnx,
 * huggingface/ratchet, cryscan/web-rwkv, tracel-ai/cubecl's generated WGSL). Each is written
 * after the credited file (not copied), sized to run fast.
 */
import { B, type CorpusCase, f, u } from "./_wgsl_corpus_qa_base.ts";

export const ALGORITHMS: readonly CorpusCase[] = [
  {
    // Fixed: wgsl_reflect walks neither a `switch` selector nor a `break if` condition, so a
    // binding used only there was left out of the layout (the client asked for one buffer
    // fewer than the WGSL's "auto" layout binds). A uniform read only as a switch selector as
    // webgpu-samples' bitonicSort's `switch uniforms.algo`, a loop ended by `break if` as in the
    // WGSL spec's continuing-statement example.
    name: "bindings used only in a switch selector (in a helper) and a break if condition",
    source: /* wgsl */ `
struct Cfg { mode: u32, iters: u32 }
@group(0) @binding(0) var<uniform> cfg: Cfg;
@group(0) @binding(1) var<storage, read> limits: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
fn apply(x: f32) -> f32 {
  switch cfg.mode {
    case 0u: { return x + 1.0; }
    case 1u: { return x * 2.0; }
    default: { return -x; }
  }
}
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3u) {
  var v = f32(g.x);
  var i = 0u;
  loop {
    v = apply(v);
    i++;
    continuing { break if i >= limits[g.x]; }
  }
  out[g.x] = v;
}`,
    plain: [
      B(0, 0, new Uint32Array([1, 0]), true),
      B(0, 1, Uint32Array.from(u(16, 6), (x) => x + 1)),
      B(0, 2, new Float32Array(16)),
    ],
    workgroups: [2, 1, 1],
    threads: 16,
    params: { mode: 1, iters: 0 },
  },
  {
    // After WebGPU-Radix-Sort's radix_sort kernel: overrides without defaults in a 2-D
    // @workgroup_size and in an override-expression workgroup array size, a workgroup index
    // folded from a 2-D grid, a 2-bit local prefix sum.
    name:
      "WebGPU-Radix-Sort local sort (overrides without defaults in workgroup size and array size)",
    entryPoint: "radix_sort",
    source: /* wgsl */ `
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> local_prefix_sums: array<u32>;
@group(0) @binding(2) var<storage, read_write> block_sums: array<u32>;
override WORKGROUP_COUNT: u32;
override THREADS_PER_WORKGROUP: u32;
override WORKGROUP_SIZE_X: u32;
override WORKGROUP_SIZE_Y: u32;
override CURRENT_BIT: u32;
override ELEMENT_COUNT: u32;
var<workgroup> s_prefix_sum: array<u32, 2 * (THREADS_PER_WORKGROUP + 1)>;
@compute @workgroup_size(WORKGROUP_SIZE_X, WORKGROUP_SIZE_Y, 1)
fn radix_sort(
    @builtin(workgroup_id) w_id: vec3<u32>,
    @builtin(num_workgroups) w_dim: vec3<u32>,
    @builtin(local_invocation_index) TID: u32,
) {
    let WORKGROUP_ID = w_id.x + w_id.y * w_dim.x;
    let WID = WORKGROUP_ID * THREADS_PER_WORKGROUP;
    let GID = WID + TID;
    let elm = select(input[GID], 0u, GID >= ELEMENT_COUNT);
    let extract_bits: u32 = (elm >> CURRENT_BIT) & 0x1;
    let bit_prefix_size = THREADS_PER_WORKGROUP + 1;
    // one bit: a prefix sum of (bit == 0) and of (bit == 1)
    var swap_offset: u32 = 0;
    var inOffset: u32 = TID;
    var outOffset: u32 = TID + bit_prefix_size;
    if (TID == 0) { s_prefix_sum[0] = 0; s_prefix_sum[bit_prefix_size] = 0; }
    s_prefix_sum[inOffset + 1] = select(0u, 1u, extract_bits == 0u);
    workgroupBarrier();
    for (var offset: u32 = 1; offset < THREADS_PER_WORKGROUP; offset *= 2) {
        if (TID >= offset) {
            s_prefix_sum[outOffset + 1] = s_prefix_sum[inOffset + 1] + s_prefix_sum[inOffset + 1 - offset];
        } else {
            s_prefix_sum[outOffset + 1] = s_prefix_sum[inOffset + 1];
        }
        outOffset = inOffset;
        swap_offset = bit_prefix_size - swap_offset;
        inOffset = TID + swap_offset;
        workgroupBarrier();
    }
    let prefix_sum = s_prefix_sum[inOffset + 1] - select(0u, 1u, extract_bits == 0u);
    if (GID < ELEMENT_COUNT) { local_prefix_sums[GID] = prefix_sum; }
    if (TID == THREADS_PER_WORKGROUP - 1) {
        block_sums[WORKGROUP_ID] = s_prefix_sum[inOffset + 1];
        block_sums[WORKGROUP_COUNT + WORKGROUP_ID] = THREADS_PER_WORKGROUP - s_prefix_sum[inOffset + 1];
    }
}`,
    plain: [B(0, 0, u(128, 1 << 16)), B(0, 1, new Uint32Array(128)), B(0, 2, new Uint32Array(8))],
    workgroups: [2, 2, 1],
    constants: {
      WORKGROUP_COUNT: 4,
      THREADS_PER_WORKGROUP: 32,
      WORKGROUP_SIZE_X: 8,
      WORKGROUP_SIZE_Y: 4,
      CURRENT_BIT: 3,
      ELEMENT_COUNT: 120,
    },
  },
  {
    // After WebGPU-Radix-Sort's prefix_sum kernel (Blelloch): an override-sized workgroup array
    // `ITEMS_PER_WORKGROUP * 2`, up-sweep and down-sweep loops, two entry points.
    name:
      "WebGPU-Radix-Sort Blelloch prefix sum (override-sized workgroup array, two entry points)",
    entryPoint: "reduce_downsweep",
    source: /* wgsl */ `
@group(0) @binding(0) var<storage, read_write> items: array<u32>;
@group(0) @binding(1) var<storage, read_write> blockSums: array<u32>;
override WORKGROUP_SIZE_X: u32;
override WORKGROUP_SIZE_Y: u32;
override THREADS_PER_WORKGROUP: u32;
override ITEMS_PER_WORKGROUP: u32;
override ELEMENT_COUNT: u32;
var<workgroup> temp: array<u32, ITEMS_PER_WORKGROUP*2>;
@compute @workgroup_size(WORKGROUP_SIZE_X, WORKGROUP_SIZE_Y, 1)
fn reduce_downsweep(@builtin(workgroup_id) w_id: vec3<u32>, @builtin(num_workgroups) w_dim: vec3<u32>,
                    @builtin(local_invocation_index) TID: u32) {
    let WORKGROUP_ID = w_id.x + w_id.y * w_dim.x;
    let WID = WORKGROUP_ID * THREADS_PER_WORKGROUP;
    let GID = WID + TID;
    let ELM_TID = TID * 2;
    let ELM_GID = GID * 2;
    temp[ELM_TID] = select(items[ELM_GID], 0u, ELM_GID >= ELEMENT_COUNT);
    temp[ELM_TID + 1] = select(items[ELM_GID + 1], 0u, ELM_GID + 1 >= ELEMENT_COUNT);
    var offset: u32 = 1;
    for (var d: u32 = ITEMS_PER_WORKGROUP >> 1; d > 0; d >>= 1) {
        workgroupBarrier();
        if (TID < d) {
            var ai: u32 = offset * (ELM_TID + 1) - 1;
            var bi: u32 = offset * (ELM_TID + 2) - 1;
            temp[bi] += temp[ai];
        }
        offset *= 2;
    }
    if (TID == 0) {
        let last_offset = ITEMS_PER_WORKGROUP - 1;
        blockSums[WORKGROUP_ID] = temp[last_offset];
        temp[last_offset] = 0;
    }
    for (var d: u32 = 1; d < ITEMS_PER_WORKGROUP; d *= 2) {
        offset >>= 1;
        workgroupBarrier();
        if (TID < d) {
            var ai: u32 = offset * (ELM_TID + 1) - 1;
            var bi: u32 = offset * (ELM_TID + 2) - 1;
            let t: u32 = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += t;
        }
    }
    workgroupBarrier();
    if (ELM_GID >= ELEMENT_COUNT) { return; }
    items[ELM_GID] = temp[ELM_TID];
    if (ELM_GID + 1 >= ELEMENT_COUNT) { return; }
    items[ELM_GID + 1] = temp[ELM_TID + 1];
}
@compute @workgroup_size(WORKGROUP_SIZE_X, WORKGROUP_SIZE_Y, 1)
fn add_block_sums(@builtin(workgroup_id) w_id: vec3<u32>, @builtin(num_workgroups) w_dim: vec3<u32>,
                  @builtin(local_invocation_index) TID: u32) {
    let WORKGROUP_ID = w_id.x + w_id.y * w_dim.x;
    let ELM_ID = (WORKGROUP_ID * THREADS_PER_WORKGROUP + TID) * 2;
    if (ELM_ID >= ELEMENT_COUNT) { return; }
    items[ELM_ID] += blockSums[WORKGROUP_ID];
}`,
    plain: [B(0, 0, u(256, 100)), B(0, 1, new Uint32Array(4))],
    workgroups: [2, 2, 1],
    constants: {
      WORKGROUP_SIZE_X: 16,
      WORKGROUP_SIZE_Y: 2,
      THREADS_PER_WORKGROUP: 32,
      ITEMS_PER_WORKGROUP: 64,
      ELEMENT_COUNT: 250,
    },
  },
  {
    // After wgpu_sort's radix_sort.wgsl: a storage struct of counters, histograms as
    // array<atomic<u32>>, consts built with shifts (`1u << rs_radix_log2`) sizing a workgroup
    // array of atomics, zero and histogram entry points.
    name:
      "wgpu_sort histogram (const shifts sizing workgroup atomics, storage info struct, two entries)",
    entryPoint: "calculate_histogram",
    source: /* wgsl */ `
struct GeneralInfo { keys_size: u32, padded_size: u32, passes: u32, even_pass: u32, odd_pass: u32, };
@group(0) @binding(0) var<storage, read_write> infos: GeneralInfo;
@group(0) @binding(1) var<storage, read_write> histograms: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> keys: array<u32>;
const histogram_sg_size: u32 = 32u;
const histogram_wg_size: u32 = 64u;
const rs_radix_log2: u32 = 4u;
const rs_radix_size: u32 = 1u << rs_radix_log2;
const rs_keyval_size: u32 = 32u / rs_radix_log2;
const rs_histogram_block_rows: u32 = 4u;
const rs_radix_mask: u32 = rs_radix_size - 1u;
var<workgroup> smem: array<atomic<u32>, rs_radix_size>;
@compute @workgroup_size(histogram_wg_size)
fn zero_histograms(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < rs_keyval_size * rs_radix_size) { atomicStore(&histograms[gid.x], 0u); }
}
@compute @workgroup_size(histogram_wg_size)
fn calculate_histogram(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    if (lid.x < rs_radix_size) { atomicStore(&smem[lid.x], 0u); }
    workgroupBarrier();
    let data_index = wid.x * histogram_wg_size * rs_histogram_block_rows + lid.x;
    for (var pass_ = 0u; pass_ < infos.passes; pass_++) {
        for (var i = 0u; i < rs_histogram_block_rows; i++) {
            let idx = data_index + i * histogram_wg_size;
            if (idx < infos.keys_size) {
                let digit = (keys[idx] >> (pass_ * rs_radix_log2)) & rs_radix_mask;
                atomicAdd(&histograms[pass_ * rs_radix_size + digit], 1u);
                if (pass_ == 0u) { atomicAdd(&smem[digit], 1u); }
            }
        }
    }
    workgroupBarrier();
    if (wid.x == 0u && lid.x < rs_radix_size) { keys[infos.padded_size + lid.x] = atomicLoad(&smem[lid.x]); }
}`,
    plain: [
      B(0, 0, new Uint32Array([400, 512, 3, 0, 1])),
      B(0, 1, new Uint32Array(8 * 16)),
      B(0, 2, u(512 + 16, 1 << 20)),
    ],
    workgroups: [2, 1, 1],
    threads: 128,
  },
  {
    // After vello's shader/pathtag_reduce.wgsl: a workgroup array of structs, a monoid
    // combine function, `firstTrailingBit(WG_SIZE)` as a loop bound, `if` without parentheses,
    // a config uniform and a storage array of structs.
    name:
      "vello pathtag reduce (workgroup array of structs, firstTrailingBit loop bound, if without parens)",
    source: /* wgsl */ `
struct Config { width_in_tiles: u32, height_in_tiles: u32, pathtag_base: u32, n_path: u32 }
struct TagMonoid { trans_ix: u32, pathseg_ix: u32, pathseg_offset: u32, style_ix: u32, path_ix: u32 }
@group(0) @binding(0) var<uniform> config: Config;
@group(0) @binding(1) var<storage> scene: array<u32>;
@group(0) @binding(2) var<storage, read_write> reduced: array<TagMonoid>;
const LG_WG_SIZE = 6u;
const WG_SIZE = 64u;
var<workgroup> sh_scratch: array<TagMonoid, WG_SIZE>;
fn tag_monoid_identity() -> TagMonoid { return TagMonoid(); }
fn combine_tag_monoid(a: TagMonoid, b: TagMonoid) -> TagMonoid {
    var c: TagMonoid;
    c.trans_ix = a.trans_ix + b.trans_ix;
    c.pathseg_ix = a.pathseg_ix + b.pathseg_ix;
    c.pathseg_offset = a.pathseg_offset + b.pathseg_offset;
    c.style_ix = a.style_ix + b.style_ix;
    c.path_ix = a.path_ix + b.path_ix;
    return c;
}
fn reduce_tag(tag_word: u32) -> TagMonoid {
    var c: TagMonoid;
    let point_count = tag_word & 0x3030303u;
    c.pathseg_ix = countOneBits((point_count * 7u) & 0x4040404u);
    c.trans_ix = countOneBits(tag_word & (0x20u * 0x1010101u));
    let n_points = point_count + ((tag_word >> 2u) & 0x1010101u);
    var a = n_points + (n_points & (((tag_word >> 3u) & 0x1010101u) * 15u));
    a += a >> 8u;
    a += a >> 16u;
    c.pathseg_offset = a & 0xffu;
    c.path_ix = countOneBits(tag_word & (0x10u * 0x1010101u));
    c.style_ix = countOneBits(tag_word & (0x40u * 0x1010101u)) * 2u;
    return c;
}
@compute @workgroup_size(256 / 4)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>, @builtin(local_invocation_id) local_id: vec3<u32>) {
    let ix = global_id.x;
    let tag_word = scene[config.pathtag_base + ix];
    var agg = reduce_tag(tag_word);
    sh_scratch[local_id.x] = agg;
    for (var i = 0u; i < firstTrailingBit(WG_SIZE); i += 1u) {
        workgroupBarrier();
        if local_id.x + (1u << i) < WG_SIZE {
            let other = sh_scratch[local_id.x + (1u << i)];
            agg = combine_tag_monoid(agg, other);
        }
        workgroupBarrier();
        sh_scratch[local_id.x] = agg;
    }
    if local_id.x == 0u {
        reduced[ix >> LG_WG_SIZE] = combine_tag_monoid(tag_monoid_identity(), agg);
    }
}`,
    plain: [
      B(0, 0, new Uint32Array([4, 4, 8, 2]), true),
      B(0, 1, u(8 + 128, 0xffffffff)),
      B(0, 2, new Uint32Array(2 * 5)),
    ],
    workgroups: [2, 1, 1],
    threads: 128,
    params: { width_in_tiles: 4, height_in_tiles: 4, pathtag_base: 8, n_path: 2 },
  },
  {
    // After a radix-2 Cooley-Tukey stage as in IQEngine/webfft's WebGPU kernel: complex values
    // as vec2<f32>, a complex multiply helper, a uniform stage, bit reversal on the first stage.
    name: "radix-2 FFT stage (array<vec2<f32>>, cmul helper, reverseBits, uniform stage)",
    source: /* wgsl */ `
struct Params { n: u32, log2n: u32, stage: u32, inverse: f32 }
@group(0) @binding(0) var<storage, read> src: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec2<f32>>;
@group(0) @binding(2) var<uniform> params: Params;
const TAU = 6.283185307179586;
fn cmul(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> { return vec2<f32>(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
fn bitrev(i: u32) -> u32 { return reverseBits(i) >> (32u - params.log2n); }
@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let k = gid.x;
  if (k >= params.n / 2u) { return; }
  let half_size = 1u << params.stage;
  let j = k % half_size;
  let base = (k / half_size) * half_size * 2u;
  let angle = params.inverse * TAU * f32(j) / f32(half_size * 2u);
  let w = vec2<f32>(cos(angle), -sin(angle));
  var a = src[base + j];
  var b = src[base + j + half_size];
  if (params.stage == 0u) { a = src[bitrev(base + j)]; b = src[bitrev(base + j + half_size)]; }
  let t = cmul(w, b);
  dst[base + j] = a + t;
  dst[base + j + half_size] = a - t;
}`,
    plain: [
      B(0, 0, f(128, 0.1, -3)),
      B(0, 1, new Float32Array(128)),
      B(0, 2, new Uint32Array([64, 6, 0, 0x3f800000]), true),
    ],
    workgroups: [1, 1, 1],
    threads: 32,
    params: { n: 64, log2n: 6, stage: 0, inverse: 1 },
  },
  {
    // After wgpu-py's examples/compute_noop.py: `var<storage,read>` without spaces, i32 data.
    name: "wgpu-py compute_noop (var<storage,read> without spaces, i32 copy)",
    source: /* wgsl */ `
@group(0) @binding(0)
var<storage,read> data1: array<i32>;

@group(0) @binding(1)
var<storage,read_write> data2: array<i32>;

@compute
@workgroup_size(1)
fn main(@builtin(global_invocation_id) index: vec3<u32>) {
    let i: u32 = index.x;
    data2[i] = data1[i];
}`,
    plain: [B(0, 0, Int32Array.from(u(20, 2000), (x) => x - 1000)), B(0, 1, new Int32Array(20))],
    workgroups: [20, 1, 1],
    threads: 20,
  },
];
