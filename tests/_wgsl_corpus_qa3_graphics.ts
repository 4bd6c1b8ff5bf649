/**
 * QA wave 3, graphics compute: the Cornell box sample's ray tracer (webgpu-samples), Bevy's
 * auto-exposure histogram, vello's second pathtag reduction, wgpu's timestamp_queries
 * example; see `_wgsl_corpus_qa3.ts`.
 */
import { B, type CorpusCase, u } from "./_wgsl_corpus_qa_base.ts";
import { T, w } from "./_wgsl_corpus_qa3_base.ts";

const ID = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
const MVP = [2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1, 0, 0.1, -0.1, 0, 1];
// Quads: plane, right, up, color + emissive (64 bytes each).
const QUADS = [
  [0, 0, -1, 0.5, 2, 0, 0, 0, 0, 2, 0, 0, 0.8, 0.2, 0.1, 0],
  [0, 0, -1, 0.8, 1, 0, 0, 0.2, 0, 1, 0, 0, 0.1, 0.9, 0.3, 1],
  [-1, 0, -0.2, 0.9, 0, 1, 0, 0, 0, 0, 1, 0, 0.3, 0.3, 0.9, 0.5],
].flat();
const AUTO_EXPOSURE = {
  min_log_lum: -8,
  inv_log_lum_range: 1 / 11,
  log_lum_range: 11,
  low_percent: 0.6,
  high_percent: 0.95,
  speed_up: 3,
  speed_down: 1,
  exponential_transition_distance: 1.5,
};

const BEVY_AUTO_EXPOSURE = /* wgsl */ `
struct AutoExposure {
    min_log_lum: f32,
    inv_log_lum_range: f32,
    log_lum_range: f32,
    low_percent: f32,
    high_percent: f32,
    speed_up: f32,
    speed_down: f32,
    exponential_transition_distance: f32,
}

@group(0) @binding(1) var<uniform> settings: AutoExposure;
@group(0) @binding(2) var tex_color: texture_2d<f32>;
@group(0) @binding(6) var<storage, read_write> histogram: array<atomic<u32>, 64>;
@group(0) @binding(7) var<storage, read_write> exposure: f32;

var<workgroup> histogram_shared: array<atomic<u32>, 64>;

// For a given color, return the histogram bin index
fn color_to_bin(hdr: vec3<f32>) -> u32 {
    // Convert color to luminance
    let lum = dot(hdr, vec3<f32>(0.2125, 0.7154, 0.0721));

    if lum < exp2(settings.min_log_lum) {
        return 0u;
    }

    // Calculate the log_2 luminance and express it as a value in [0.0, 1.0]
    // where 0.0 represents the minimum luminance, and 1.0 represents the max.
    let log_lum = saturate((log2(lum) - settings.min_log_lum) * settings.inv_log_lum_range);

    // Map [0, 1] to [1, 63]. The zeroth bin is handled by the epsilon check above.
    return u32(log_lum * 62.0 + 1.0);
}

@compute @workgroup_size(16, 16, 1)
fn compute_histogram(
    @builtin(global_invocation_id) global_invocation_id: vec3<u32>,
    @builtin(local_invocation_index) local_invocation_index: u32
) {
    if local_invocation_index < 64 {
        atomicStore(&histogram_shared[local_invocation_index], 0u);
    }

    // Wait for all workgroup threads to clear the shared histogram
    workgroupBarrier();

    let dim = vec2<u32>(textureDimensions(tex_color));
    let uv = vec2<f32>(global_invocation_id.xy) / vec2<f32>(dim);

    if global_invocation_id.x < dim.x && global_invocation_id.y < dim.y {
        let col = textureLoad(tex_color, vec2<i32>(global_invocation_id.xy), 0).rgb;
        let index = color_to_bin(col);
        let weight = u32(16.0 * (1.0 - length(uv - 0.5)));

        atomicAdd(&histogram_shared[index], weight);
    }

    // Wait for all workgroup threads to finish binning their pixels
    workgroupBarrier();

    if local_invocation_index < 64 {
        atomicAdd(&histogram[local_invocation_index], atomicLoad(&histogram_shared[local_invocation_index]));
    }
}

@compute @workgroup_size(1, 1, 1)
fn compute_average(@builtin(local_invocation_index) local_index: u32) {
    var histogram_sum = 0u;
    for (var i=0u; i<64u; i+=1u) {
        histogram_sum += atomicLoad(&histogram[i]);
    }
    exposure = f32(histogram_sum) * settings.speed_up;
}`;

export const GRAPHICS3: readonly CorpusCase[] = [
  {
    // https://github.com/webgpu/webgpu-samples/blob/main/sample/cornell/common.wgsl verbatim
    // with a compute entry point after the sample's raytracer.wgsl: a uniform of two mat4x4f
    // and a vec3u (params by field), a runtime array of Quad structs read in a loop bounded by
    // `arrayLength(&quads)`, var<private> random state, abstract-int const vectors
    // (`140893 * 1609 * 13` is past i32), `HitInfo()` zero construction, trailing commas.
    name:
      "webgpu-samples Cornell box ray tracing (mat4x4f uniforms, arrayLength loop, var<private>)",
    source: /* wgsl */ `
const pi = 3.14159265359;

// Quad describes 2D rectangle on a plane
struct Quad {
  // The surface plane
  plane    : vec4f,
  right    : vec4f,
  up       : vec4f,
  // The diffuse color of the quad
  color    : vec3f,
  // Emissive value. 0=no emissive, 1=full emissive.
  emissive : f32,
};

// Ray is a start point and direction.
struct Ray {
  start : vec3f,
  dir   : vec3f,
}

// Value for HitInfo.quad if no intersection occured.
const kNoHit = 0xffffffff;

// HitInfo describes the hit location of a ray-quad intersection
struct HitInfo {
  dist : f32,
  quad : u32,
  pos : vec3f,
  uv : vec2f,
}

// CommonUniforms uniform buffer data
struct CommonUniforms {
  mvp : mat4x4f,
  inv_mvp : mat4x4f,
  seed : vec3u,
}

@group(0) @binding(0) var<uniform> common_uniforms : CommonUniforms;
@group(0) @binding(1) var<storage> quads : array<Quad>;

fn intersect_ray_quad(r : Ray, quad : u32, closest : HitInfo) -> HitInfo {
  let q = quads[quad];
  let plane_dist = dot(q.plane, vec4(r.start, 1));
  let ray_dist = plane_dist / -dot(q.plane.xyz, r.dir);
  let pos = r.start + r.dir * ray_dist;
  let uv = vec2(dot(vec4f(pos, 1), q.right),
                dot(vec4f(pos, 1), q.up)) * 0.5 + 0.5;
  let hit = plane_dist > 0 &&
            ray_dist > 0 &&
            ray_dist < closest.dist &&
            all((uv > vec2f()) & (uv < vec2f(1)));
  return HitInfo(
    select(closest.dist, ray_dist, hit),
    select(closest.quad, quad,     hit),
    select(closest.pos,  pos,      hit),
    select(closest.uv,   uv,       hit),
  );
}

fn raytrace(ray : Ray) -> HitInfo {
  var hit = HitInfo();
  hit.dist = 1e20;
  hit.quad = kNoHit;
  for (var quad = 0u; quad < arrayLength(&quads); quad++) {
    hit = intersect_ray_quad(ray, quad, hit);
  }
  return hit;
}

var<private> rnd : vec3u;

fn init_rand(invocation_id : vec3u) {
  const A = vec3(1741651 * 1009,
                 140893  * 1609 * 13,
                 6521    * 983  * 7 * 2);
  rnd = (invocation_id * A) ^ common_uniforms.seed;
}

fn rand() -> f32 {
  const C = vec3(60493  * 9377,
                 11279  * 2539 * 23,
                 7919   * 631  * 5 * 3);

  rnd = (rnd * C) ^ (rnd.yzx >> vec3(4u));
  return f32(rnd.x ^ rnd.y) / f32(0xffffffff);
}

fn rand_unit_sphere() -> vec3f {
    var u = rand();
    var v = rand();
    var theta = u * 2.0 * pi;
    var phi = acos(2.0 * v - 1.0);
    var r = pow(rand(), 1.0/3.0);
    return vec3f(r * sin(phi) * sin(theta), r * sin(phi) * cos(theta), r * cos(phi));
}

@group(0) @binding(2) var<storage, read_write> hits : array<vec4f>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) invocation_id : vec3u) {
  init_rand(invocation_id);
  let uv = (vec2f(invocation_id.xy) + 0.5) / 8.0 - 1.0;
  let near = common_uniforms.inv_mvp * vec4f(uv, 0, 1);
  let far = common_uniforms.inv_mvp * vec4f(uv, 1, 1);
  let start = near.xyz / near.w;
  let dir = normalize(far.xyz / far.w - start + rand_unit_sphere() * 0.05);
  let hit = raytrace(Ray(start, dir));
  let clip = common_uniforms.mvp * vec4f(hit.pos, 1);
  hits[invocation_id.y * 16 + invocation_id.x] = vec4f(clip.xy, hit.uv.x, f32(hit.quad % 7u));
}`,
    plain: [
      B(0, 0, w(...[...MVP, ...ID].map((x) => ({ f: x })), 11, 22, 33, 0), true),
      B(0, 1, new Float32Array(QUADS)),
      B(0, 2, new Float32Array(16 * 16 * 4)),
    ],
    workgroups: [2, 2, 1],
    threads: [16, 16],
    params: { mvp: MVP, inv_mvp: ID, seed: [11, 22, 33] },
  },
  {
    // After Bevy's crates/bevy_core_pipeline/src/auto_exposure/auto_exposure.wgsl
    // (https://github.com/bevyengine/bevy/blob/main/crates/bevy_core_pipeline/src/auto_exposure/auto_exposure.wgsl),
    // compute_histogram with its #imports and the mask/compensation bindings left out: a
    // workgroup `array<atomic<u32>, 64>` flushed into a storage `array<atomic<u32>, 64>`,
    // an 8-field settings uniform at binding 1, a texture at binding 2, bindings 6 and 7.
    name: "Bevy auto_exposure compute_histogram (workgroup atomics into storage atomics, texture)",
    entryPoint: "compute_histogram",
    source: BEVY_AUTO_EXPOSURE,
    plain: [
      B(0, 1, w(...Object.values(AUTO_EXPOSURE).map((x) => ({ f: x }))), true),
      T(0, 2, 32, 16, "rgba8unorm", Uint8Array.from(u(32 * 16 * 4, 256))),
      B(0, 6, u(64, 5)),
    ],
    workgroups: [2, 1, 1],
    threads: [32, 16],
    params: AUTO_EXPOSURE,
  },
  {
    // The same module's compute_average: the storage atomics read with atomicLoad, a bare
    // `f32` storage binding at 7 written, the uniform at 1 (bindings 1, 6, 7 in its layout).
    name: "Bevy auto_exposure compute_average (bare f32 storage binding, shared bindings)",
    entryPoint: "compute_average",
    source: BEVY_AUTO_EXPOSURE,
    plain: [
      B(0, 1, w(...Object.values(AUTO_EXPOSURE).map((x) => ({ f: x }))), true),
      B(0, 6, u(64, 5000)),
      B(0, 7, new Float32Array([0.25])),
    ],
    workgroups: [1, 1, 1],
    threads: 1,
    params: AUTO_EXPOSURE,
  },
  {
    // https://github.com/linebender/vello/blob/main/vello_shaders/shader/pathtag_reduce2.wgsl
    // (#imports inlined; its module-scope `let`, since removed from WGSL, as `const`): a
    // runtime array of 20-byte TagMonoid structs in and out, `var<storage>` without an
    // access mode, a workgroup array of structs sized by a const, `firstTrailingBit` bounds.
    name: "vello pathtag_reduce2 (array<TagMonoid> of 20-byte structs, workgroup struct array)",
    source: /* wgsl */ `
struct TagMonoid {
    trans_ix: u32,
    // TODO: I don't think pathseg_ix is used.
    pathseg_ix: u32,
    pathseg_offset: u32,
    style_ix: u32,
    path_ix: u32,
}

fn combine_tag_monoid(a: TagMonoid, b: TagMonoid) -> TagMonoid {
    var c: TagMonoid;
    c.trans_ix = a.trans_ix + b.trans_ix;
    c.pathseg_ix = a.pathseg_ix + b.pathseg_ix;
    c.pathseg_offset = a.pathseg_offset + b.pathseg_offset;
    c.style_ix = a.style_ix + b.style_ix;
    c.path_ix = a.path_ix + b.path_ix;
    return c;
}

@group(0) @binding(0)
var<storage> reduced_in: array<TagMonoid>;

@group(0) @binding(1)
var<storage, read_write> reduced: array<TagMonoid>;

const LG_WG_SIZE = 8u;
const WG_SIZE = 256u;

var<workgroup> sh_scratch: array<TagMonoid, WG_SIZE>;

@compute @workgroup_size(256)
fn main(
    @builtin(global_invocation_id) global_id: vec3<u32>,
    @builtin(local_invocation_id) local_id: vec3<u32>,
) {
    let ix = global_id.x;
    var agg = reduced_in[ix];
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
        reduced[ix >> LG_WG_SIZE] = agg;
    }
}`,
    plain: [B(0, 0, u(512 * 5, 97)), B(0, 1, new Uint32Array(2 * 5))],
    workgroups: [2, 1, 1],
    threads: 512,
  },
  {
    // https://github.com/gfx-rs/wgpu/blob/trunk/examples/features/src/timestamp_queries/shader.wgsl
    // verbatim: vertex, fragment and compute entry points in one module, a binding named
    // `buffer`, a 128-round PCG hash.
    name: "wgpu timestamp_queries main_cs (vertex+fragment+compute module, binding named buffer)",
    entryPoint: "main_cs",
    source: /* wgsl */ `
@vertex
fn vs_main(@builtin(vertex_index) in_vertex_index: u32) -> @builtin(position) vec4<f32> {
    let x = f32(i32(in_vertex_index) - 1);
    let y = f32(i32(in_vertex_index & 1u) * 2 - 1);
    return vec4<f32>(x, y, 0.0, 1.0);
}

@fragment
fn fs_main() -> @location(0) vec4<f32> {
    return vec4<f32>(1.0, 0.0, 0.0, 1.0);
}


@group(0)
@binding(0)
var<storage, read_write> buffer: array<u32>; // Used as both input and output for convenience.

fn pcg_hash(input: u32) -> u32 {
    let state = input * 747796405u + 2891336453u;
    let word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

@compute
@workgroup_size(1)
fn main_cs(@builtin(global_invocation_id) global_id: vec3<u32>) {
    var value = buffer[0];

    for (var i = 0u; i < 128u; i += 1u) {
        value = pcg_hash(value);
    }

    buffer[0] = value;
}`,
    plain: [B(0, 0, w(7, 11, 13))],
    workgroups: [1, 1, 1],
    threads: 1,
  },
];
