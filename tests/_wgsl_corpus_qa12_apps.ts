/**
 * QA wave 12, compute shaders of applications: jgnes' integer texture scaler (one entry point
 * per workgroup size over a `texture_2d<f32>` and a write-only rgba8unorm storage texture,
 * coordinates as `vec2<u32>`) and brush's prefix sum (naga_oil modules composed, 512-invocation
 * workgroups); see `_wgsl_corpus_qa12.ts`.
 */
import { B, type CorpusCase, u } from "./_wgsl_corpus_qa_base.ts";

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

// https://github.com/ArthurBrussee/brush/blob/main/crates/brush-prefix-sum/src/shaders/prefix_sum_helpers.wgsl
// (stored version 5c1b01658bc0295d53d7a9b0dbb82fa437a0245b) verbatim, the module the kernels
// below `#import ... as helpers` (naga_oil); their `helpers::` prefixes dropped as naga_oil's
// composition resolves them.
const BRUSH_HELPERS = /* wgsl */ `@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;

const THREADS_PER_GROUP: u32 = 512u;

// Maximum workgroups per dimension (WebGPU limit)
const MAX_WG_PER_DIM: u32 = 65535u;

// Compute linear workgroup ID from 2D dispatch
fn get_workgroup_id(wid: vec3u) -> u32 {
    return wid.x + wid.y * MAX_WG_PER_DIM;
}

// Compute linear global invocation ID from 2D dispatch
fn get_global_id(gid: vec3u, wid: vec3u, lid: u32) -> u32 {
    return get_workgroup_id(wid) * THREADS_PER_GROUP + lid;
}

var<workgroup> bucket: array<u32, THREADS_PER_GROUP>;

fn groupScan(id: u32, gi: u32, x: u32) {
    bucket[gi] = x;
    for (var t = 1u; t < THREADS_PER_GROUP; t = t * 2u) {
        workgroupBarrier();
        var temp = bucket[gi];
        if (gi >= t) {
            temp += bucket[gi - t];
        }
        workgroupBarrier();
        bucket[gi] = temp;
    }
    if id < arrayLength(&output) {
        output[id] = bucket[gi];
    }
}
`;
/** 512-invocation workgroups: past WebGPU's default limits, within the adapter's. */
const LIMITS = { maxComputeInvocationsPerWorkgroup: 512, maxComputeWorkgroupSizeX: 512 };

export const APPS12: readonly CorpusCase[] = [
  scaled(3),
  scaled(5),
  {
    // https://github.com/ArthurBrussee/brush/blob/main/crates/brush-prefix-sum/src/shaders/prefix_sum_scan.wgsl
    // (stored version 5c1b01658bc0295d53d7a9b0dbb82fa437a0245b) after its helpers: a
    // `@workgroup_size(THREADS_PER_GROUP, 1, 1)` of 512 (above WebGPU's default 256), the
    // attributes on lines of their own, `arrayLength` of a binding inside a helper.
    name: "brush prefix_sum_scan (512-invocation workgroups, arrayLength in a helper)",
    source: BRUSH_HELPERS + /* wgsl */ `
@compute
@workgroup_size(THREADS_PER_GROUP, 1, 1)
fn main(
    @builtin(global_invocation_id) gid: vec3u,
    @builtin(workgroup_id) wid: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let id = get_global_id(gid, wid, lid);

    var x = 0u;
    if (id < arrayLength(&input)) {
        x = input[id];
    }

    groupScan(id, lid, x);
}
`,
    plain: [B(0, 0, u(1000, 100)), B(0, 1, new Uint32Array(1000))],
    workgroups: [2, 1, 1],
    limits: LIMITS,
  },
  {
    // https://github.com/ArthurBrussee/brush/blob/main/crates/brush-prefix-sum/src/shaders/prefix_sum_add_scanned_sums.wgsl
    // (stored version 5c1b01658bc0295d53d7a9b0dbb82fa437a0245b) after its helpers: the
    // helpers' `bucket` workgroup array and `groupScan` unused by this entry point.
    name: "brush prefix_sum_add_scanned_sums (unused workgroup array and helper, 512 invocations)",
    source: BRUSH_HELPERS + /* wgsl */ `
@compute
@workgroup_size(THREADS_PER_GROUP, 1, 1)
fn main(
    @builtin(global_invocation_id) gid: vec3u,
    @builtin(workgroup_id) wid: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let id = get_global_id(gid, wid, lid);
    let workgroup_id = get_workgroup_id(wid);

    if (id < arrayLength(&output)) {
        output[id] += input[workgroup_id];
    }
}
`,
    plain: [B(0, 0, Uint32Array.from([0, 4000, 9000])), B(0, 1, u(1500, 1000))],
    workgroups: [3, 1, 1],
    limits: LIMITS,
  },
];
