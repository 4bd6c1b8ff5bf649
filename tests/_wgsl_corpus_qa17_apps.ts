/**
 * QA wave 17, written after the compute passes of WebGPU applications (the constructs are
 * theirs, the code is not copied): toji/webgpu-metaballs (stored version
 * 7ed5434466f72e2f27f63aeb61cc454dbdd6725c: a `var<storage>` without an access mode holding a
 * runtime array of structs, a `vec3u` and an f32 before a runtime array, clustered lighting's
 * uniform in @group(0) and clusters in @group(1), a light list allocated by `atomicAdd` beside a
 * uniform the entry point never uses), webgpu-samples (stored version of webgpu/webgpu-samples:
 * radiosity's bindings all in @group(1) with a write-only `texture_storage_2d_array<rgba16float>`
 * and an f32 override, primitive picking's storage struct of matrices beside a
 * `texture_2d<u32>`, bitonicCompute's `switch` with an empty `default` and a bare atomic counter)
 * and Bevy's game of life (bevyengine/bevy, `assets/shaders/game_of_life.wgsl`: a read-only
 * `texture_storage_2d<rgba32float, read>`, `vec4(v.rgb, f32(b))`); see `_wgsl_corpus_qa17.ts`.
 */
import { B, type CorpusCase, u } from "./_wgsl_corpus_qa_base.ts";
import { w } from "./_wgsl_corpus_qa3_base.ts";

/** f32 words. */
const F = (...values: number[]) => Float32Array.from(values);

/** Little-endian bytes of several typed arrays one after the other. */
function concat(...parts: ArrayBufferView[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(new Uint8Array(p.buffer, p.byteOffset, p.byteLength), at);
    at += p.byteLength;
  }
  return out;
}

/** A view matrix (column-major): a rotation about y by 0.3 and a translation. */
const VIEW = [
  Math.cos(0.3),
  0,
  -Math.sin(0.3),
  0,
  0,
  1,
  0,
  0,
  Math.sin(0.3),
  0,
  Math.cos(0.3),
  0,
  0.5,
  -0.25,
  -3,
  1,
]; // deno-fmt-ignore

/** A projection and a matrix standing for its inverse (any invertible-looking numbers). */
const PROJECTION = [1.2, 0, 0, 0, 0, 1.6, 0, 0, 0, 0, -1.002, -1, 0, 0, -0.2002, 0];
const INVERSE = [0.83, 0, 0, 0, 0, 0.625, 0, 0, 0, 0, 0, -4.995, 0, 0, -1, 5.005];

/** Clustered lighting's tile grid: 4 x 4 x 4 tiles, at most 4 lights a tile. */
const TILES = 64, PER_TILE = 4;

/** Cluster bounds for the light assignment: tile t spans [t - 32, t - 30] on every axis / 8. */
const BOUNDS = new Float32Array(TILES * 8);
for (let t = 0; t < TILES; t++) {
  BOUNDS.set([(t - 32) / 8, (t - 32) / 8, (t - 32) / 8, 0], t * 8);
  BOUNDS.set([(t - 30) / 8, (t - 30) / 8, (t - 30) / 8, 0], t * 8 + 4);
}

/** Six lights (position, range, color, intensity); light 2 has no range (every tile). */
const LIGHTS = concat(
  w({ f: 0.1 }, { f: 0.2 }, { f: 0.3 }, 6), // ambient, lightCount
  ...[[-2, 0.3, 1, 1.5], [0.5, 0.5, -2.5, 2], [0, 0, 0, 0], [3, 1, 2, 1], [-1, -1, -3, 3], [
    1,
    0,
    -4,
    0.8,
  ]].map(([x, y, z, range], i) => F(x, y, z, range, 1, 0.5, 0.25, i + 1)),
);

/**
 * The light assignment's canonical form: every tile's list of light indices and the total the
 * atomic counter ends at. Which tile got which offset is the order the invocations ran in; the
 * lists must tile [0, total) without overlapping.
 */
function clusterCanonical(bytes: readonly Uint8Array[]): unknown {
  const b = bytes[2];
  const words = new Uint32Array(b.buffer, b.byteOffset, b.byteLength / 4);
  const total = words[0], taken = new Uint8Array(TILES * PER_TILE), lists: number[][] = [];
  for (let t = 0; t < TILES; t++) {
    const offset = words[1 + 2 * t], count = words[2 + 2 * t];
    if (count > PER_TILE || offset + count > total) {
      throw new Error(`tile ${t}: ${offset}+${count}`);
    }
    for (let k = offset; k < offset + count; k++) {
      if (taken[k]++) throw new Error(`tile ${t} overlaps at ${k}`);
    }
    lists.push([...words.subarray(1 + 2 * TILES + offset, 1 + 2 * TILES + offset + count)]);
  }
  if (taken.subarray(0, total).some((x) => x !== 1)) throw new Error("a gap in the lists");
  return { total, lists };
}

/** After radiosity.wgsl: photons accumulated as u32 atomics, then copied into a lightmap. */
const RADIOSITY = `
@group(1) @binding(0)
var<storage, read_write> accumulation : array<atomic<u32>>;

@group(1) @binding(1)
var lightmap : texture_storage_2d_array<rgba16float, write>;

struct Uniforms {
  accumulation_to_lightmap_scale : f32,
  accumulation_buffer_scale : f32,
  light_width : f32,
  light_height : f32,
  light_center : vec3f,
}

@group(1) @binding(2) var<uniform> uniforms : Uniforms;

override PhotonsPerWorkgroup : u32;
override PhotonEnergy : f32;
const PhotonBounces = 3;
const LightAbsorbtion = 0.5;

var<private> seed : vec3u;

fn rand() -> f32 {
  seed = seed * 1664525u + 1013904223u;
  seed.x += seed.y * seed.z;
  seed.y += seed.z * seed.x;
  seed.z += seed.x * seed.y;
  return f32(seed.x >> 8) / f32(1u << 24);
}

@compute @workgroup_size(PhotonsPerWorkgroup)
fn radiosity(@builtin(global_invocation_id) invocation_id : vec3u) {
  seed = invocation_id * vec3u(7u, 13u, 29u) + vec3u(1u);
  var color = PhotonEnergy * vec3f(1, 0.8, 0.6);
  for (var i = 0; i < (PhotonBounces+1); i++) {
    let uv = vec2f(rand(), rand()) + uniforms.light_center.xy * 0.0;
    accumulate(uv, u32(rand() * 3.0), color * LightAbsorbtion);
    color *= 1 - LightAbsorbtion;
  }
}

fn accumulate(uv : vec2f, quad : u32, color : vec3f) {
  let dims = textureDimensions(lightmap);
  let base_idx = accumulation_base_index(vec2u(uv * vec2f(dims)), quad);
  atomicAdd(&accumulation[base_idx + 0], u32(color.r + 0.5));
  atomicAdd(&accumulation[base_idx + 1], u32(color.g + 0.5));
  atomicAdd(&accumulation[base_idx + 2], u32(color.b + 0.5));
}

fn accumulation_base_index(coord : vec2u, quad : u32) -> u32 {
  let dims = textureDimensions(lightmap);
  let c = min(vec2u(dims) - 1, coord);
  return 3 * (c.x + dims.x * c.y + dims.x * dims.y * quad);
}

override AccumulationToLightmapWorkgroupSizeX : u32;
override AccumulationToLightmapWorkgroupSizeY : u32;

@compute @workgroup_size(AccumulationToLightmapWorkgroupSizeX, AccumulationToLightmapWorkgroupSizeY)
fn accumulation_to_lightmap(@builtin(global_invocation_id) invocation_id : vec3u,
                            @builtin(workgroup_id)         workgroup_id  : vec3u) {
  let dims = textureDimensions(lightmap);
  let quad = workgroup_id.z;
  let coord = invocation_id.xy;
  if (all(coord < dims)) {
    let base_idx = accumulation_base_index(coord, quad);
    let color = vec3(f32(atomicLoad(&accumulation[base_idx + 0])),
                     f32(atomicLoad(&accumulation[base_idx + 1])),
                     f32(atomicLoad(&accumulation[base_idx + 2])));
    textureStore(lightmap, coord, quad, vec4(color * uniforms.accumulation_to_lightmap_scale, 1));
    if (uniforms.accumulation_buffer_scale != 1.0) {
      let scaled = color * uniforms.accumulation_buffer_scale + 0.5;
      atomicStore(&accumulation[base_idx + 0], u32(scaled.r));
      atomicStore(&accumulation[base_idx + 1], u32(scaled.g));
      atomicStore(&accumulation[base_idx + 2], u32(scaled.b));
    }
  }
}
`;

/** Radiosity's lightmap: 8 x 8, 3 layers (one a quad), bound as a 2-D array. */
const LIGHTMAP = {
  group: 1,
  binding: 1,
  texture: { width: 8, height: 8, depthOrArrayLayers: 3, format: "rgba16float" as const },
  viewDimension: "2d-array" as const,
  storage: true,
};

/** Radiosity's uniform, as params. */
const RADIOSITY_PARAMS = {
  accumulation_to_lightmap_scale: 0.001,
  accumulation_buffer_scale: 1,
  light_width: 0.5,
  light_height: 0.25,
  light_center: [0.1, 0.9, -0.2],
};

/** After bitonicCompute.ts's NaiveBitonicCompute(8). */
const BITONIC = `

struct Uniforms {
  width: f32,
  height: f32,
  algo: u32,
  blockHeight: u32,
}

var<workgroup> local_data: array<u32, 16>;

@group(0) @binding(0) var<storage, read> input_data: array<u32>;
@group(0) @binding(1) var<storage, read_write> output_data: array<u32>;
@group(0) @binding(2) var<uniform> uniforms: Uniforms;
@group(0) @binding(3) var<storage, read_write> counter: atomic<u32>;

fn local_compare_and_swap(before: u32, after: u32) {
  if (local_data[after] < local_data[before]) {
    atomicAdd(&counter, 1);
    var temp: u32 = local_data[before];
    local_data[before] = local_data[after];
    local_data[after] = temp;
  }
  return;
}

fn flip_indices(id: u32, height: u32) -> vec2u {
  let block_offset: u32 = ((2 * id) / height) * height;
  let half_height = height / 2;
  var idx: vec2u = vec2u(
    id % half_height, height - (id % half_height) - 1,
  );
  idx.x += block_offset;
  idx.y += block_offset;
  return idx;
}

fn disperse_indices(id: u32, height: u32) -> vec2u {
  var block_offset: u32 = ((2 * id) / height) * height;
  let half_height = height / 2;
	var idx: vec2u = vec2u(
    id % half_height, (id % half_height) + half_height
  );
  idx += vec2u(block_offset);
  return idx;
}

fn global_compare_and_swap(before: u32, after: u32) {
  if (input_data[after] < input_data[before]) {
    output_data[before] = input_data[after];
    output_data[after] = input_data[before];
  } 
}

const ALGO_NONE = 0;
const ALGO_LOCAL_FLIP = 1;
const ALGO_LOCAL_DISPERSE = 2;
const ALGO_GLOBAL_FLIP = 3;

@compute @workgroup_size(8, 1, 1)
fn computeMain(
  @builtin(global_invocation_id) global_id: vec3u,
  @builtin(local_invocation_id) local_id: vec3u,
  @builtin(workgroup_id) workgroup_id: vec3u,
) {
  let offset = 8 * 2 * workgroup_id.x;
  if (uniforms.algo <= 2) {
    local_data[local_id.x * 2] = input_data[offset + local_id.x * 2];
    local_data[local_id.x * 2 + 1] = input_data[offset + local_id.x * 2 + 1];
  }
  workgroupBarrier();
  switch uniforms.algo {
    case 1: { // local flip
      let idx = flip_indices(local_id.x, uniforms.blockHeight);
      local_compare_and_swap(idx.x, idx.y);
    } 
    case 2: { // local disperse
      let idx = disperse_indices(local_id.x, uniforms.blockHeight);
      local_compare_and_swap(idx.x, idx.y);
    } 
    case ALGO_GLOBAL_FLIP: {
      let idx = flip_indices(global_id.x, uniforms.blockHeight);
      global_compare_and_swap(idx.x, idx.y);
    }
    case 4: { 
      let idx = disperse_indices(global_id.x, uniforms.blockHeight);
      global_compare_and_swap(idx.x, idx.y);
    }
    default: { 
      
    }
  }
  workgroupBarrier();
  if (uniforms.algo <= ALGO_LOCAL_DISPERSE) {
    output_data[offset + local_id.x * 2] = local_data[local_id.x * 2];
    output_data[offset + local_id.x * 2 + 1] = local_data[local_id.x * 2 + 1];
  }
}`;

/** After Bevy's game_of_life.wgsl: `init` seeds the board, `update` steps it. */
const LIFE = `
@group(0) @binding(0) var input: texture_storage_2d<rgba32float, read>;

@group(0) @binding(1) var output: texture_storage_2d<rgba32float, write>;

@group(0) @binding(2) var<uniform> config: LifeUniforms;

struct LifeUniforms {
    alive_color: vec4<f32>,
}

fn hash(value: u32) -> u32 {
    var state = value;
    state = state ^ 2747636419u;
    state = state * 2654435769u;
    state = state ^ (state >> 16u);
    return state * 2654435769u;
}

@compute @workgroup_size(8, 8, 1)
fn init(@builtin(global_invocation_id) invocation_id: vec3<u32>, @builtin(num_workgroups) num_workgroups: vec3<u32>) {
    let location = vec2<i32>(i32(invocation_id.x), i32(invocation_id.y));
    let alive = f32(hash((invocation_id.y << 16u) | invocation_id.x)) / 4294967295.0 > 0.7;
    textureStore(output, location, vec4(config.alive_color.rgb, f32(alive)));
}

fn is_alive(location: vec2<i32>, dx: i32, dy: i32) -> i32 {
    let size = vec2<i32>(textureDimensions(input));
    let value: vec4<f32> = textureLoad(input, clamp(location + vec2<i32>(dx, dy), vec2(0), size - 1));
    return i32(value.a);
}

@compute @workgroup_size(8, 8, 1)
fn update(@builtin(global_invocation_id) invocation_id: vec3<u32>) {
    let location = vec2<i32>(i32(invocation_id.x), i32(invocation_id.y));
    let n = is_alive(location, -1, -1) + is_alive(location, -1,  0) + is_alive(location, -1,  1) +
            is_alive(location,  0, -1) +                              is_alive(location,  0,  1) +
            is_alive(location,  1, -1) + is_alive(location,  1,  0) + is_alive(location,  1,  1);
    var alive: bool;
    if (n == 3) {
        alive = true;
    } else if (n == 2) {
        alive = bool(is_alive(location, 0, 0));
    } else {
        alive = false;
    }
    textureStore(output, location, vec4(config.alive_color.rgb, f32(alive)));
}
`;

/** The game of life's written board: 16 x 16. */
const LIFE_OUT = {
  group: 0,
  binding: 1,
  texture: { width: 16, height: 16, format: "rgba32float" as const },
  storage: true,
};

/** The applications' cases. */
export const APPS: readonly CorpusCase[] = [
  {
    // After js/webgpu-renderer/shaders/metaball.js's MetaballFieldComputeSource: the field of
    // three balls over a 6 x 5 x 4 volume (workgroups of 4 x 4 x 4).
    name: "webgpu-metaballs field (var<storage> without access, struct runtime arrays, vec3u)",
    source: `
  struct Ball {
    position: vec3f,
    radius: f32,
    strength: f32,
    subtract: f32,
  }

  struct BallList {
    count: u32,
    balls: array<Ball>,
  }
  @group(0) @binding(0) var<storage> metaballs : BallList;

  struct Volume {
    min: vec3f,
    max: vec3f,
    step: vec3f,
    size: vec3u,
    threshold: f32,
    values: array<f32>,
  }
  @group(0) @binding(1) var<storage, read_write> volume : Volume;

  fn positionAt(index : vec3u) -> vec3f {
    return volume.min + (volume.step * vec3f(index.xyz));
  }

  fn density(position : vec3f) -> f32 {
    var result = 0.0;
    if ((position.x*position.x + position.z*position.z < 0.3) && position.y < 0) {
      return 50;
    }
    for (var i = 0u; i < metaballs.count; i = i + 1) {
      let ball = metaballs.balls[i];
      let d = distance(position, ball.position);
      let v = ball.strength / (0.00001 + (d * d)) - ball.subtract;
      if (v > 0.0) {
        result = result + v;
      }
    }
    return result + volume.threshold * 0.0;
  }

  @compute @workgroup_size(4, 4, 4)
  fn computeMain(@builtin(global_invocation_id) global_id : vec3u) {
    if (any(global_id >= volume.size)) { return; }
    let index = global_id.x + global_id.y * volume.size.x + global_id.z * volume.size.x * volume.size.y;
    volume.values[index] = density(positionAt(global_id));
  }
`,
    plain: [
      B(
        0,
        0,
        concat(
          w(3, 0, 0, 0),
          F(0.2, 0.1, -0.3, 0.5, 0.04, 0.01, 0, 0),
          F(-0.4, 0.3, 0.2, 0.4, 0.03, 0.02, 0, 0),
          F(0.1, -0.2, 0.4, 0.6, 0.05, 0.005, 0, 0),
        ),
      ),
      B(
        0,
        1,
        concat(
          F(-1, -1, -1, 0, 1, 1, 1, 0, 0.4, 0.5, 0.6, 0),
          w(6, 5, 4, { f: 0.5 }),
          new Float32Array(120),
        ),
      ),
    ],
    workgroups: [2, 2, 1],
  },
  {
    // After js/webgpu-renderer/shaders/clustered-compute.js's ClusterBoundsSource (tiles 4 x 4
    // x 4): the projection uniform in @group(0), the clusters in @group(1), `vec4(view.w)`.
    name: "webgpu-metaballs cluster bounds (a uniform of two mat4x4f in group 0, storage in 1)",
    source: `
  struct ProjectionUniforms {
    matrix : mat4x4f,
    inverseMatrix : mat4x4f,
    outputSize : vec2f,
    zNear : f32,
    zFar : f32,
  }
  @group(0) @binding(0) var<uniform> projection : ProjectionUniforms;

  struct ClusterBounds {
    minAABB : vec3f,
    maxAABB : vec3f,
  }
  struct Clusters {
    bounds : array<ClusterBounds, 64>,
  }
  @group(1) @binding(0) var<storage, read_write> clusters : Clusters;

  fn toZPlane(a : vec3f, b : vec3f, z : f32) -> vec3f {
    let normal = vec3(0.0, 0.0, 1.0);
    let t = (z - dot(normal, a)) / dot(normal, b - a);
    return a + t * (b - a);
  }

  fn screenToView(screen : vec4f) -> vec4f {
    let uv = screen.xy / projection.outputSize.xy;
    let clip = vec4(vec2(uv.x, 1.0 - uv.y) * 2.0 - vec2(1.0), screen.z, screen.w);
    let view = projection.inverseMatrix * clip;
    return view / vec4(view.w);
  }

  const tileCount = vec3u(4u, 4u, 4u);
  const eyePos = vec3f(0.0, 0.0, 0.0);

  @compute @workgroup_size(4, 4, 4)
  fn main(@builtin(global_invocation_id) global_id : vec3u) {
    let tile = global_id.x + global_id.y * tileCount.x + global_id.z * tileCount.x * tileCount.y;
    let size = projection.outputSize / vec2f(tileCount.xy);
    let hi = screenToView(vec4(vec2(f32(global_id.x + 1u), f32(global_id.y + 1u)) * size, 0.0, 1.0)).xyz;
    let lo = screenToView(vec4(vec2(f32(global_id.x), f32(global_id.y)) * size, 0.0, 1.0)).xyz;
    let ratio = projection.zFar / projection.zNear;
    let near = -projection.zNear * pow(ratio, f32(global_id.z) / f32(tileCount.z));
    let far = -projection.zNear * pow(ratio, f32(global_id.z + 1u) / f32(tileCount.z));
    let a = toZPlane(eyePos, lo, near);
    let b = toZPlane(eyePos, lo, far);
    let c = toZPlane(eyePos, hi, near);
    let d = toZPlane(eyePos, hi, far);
    clusters.bounds[tile].minAABB = min(min(a, b), min(c, d));
    clusters.bounds[tile].maxAABB = max(max(a, b), max(c, d));
  }
`,
    plain: [
      B(0, 0, F(...PROJECTION, ...INVERSE, 64, 48, 0.1, 100), true),
      B(1, 0, new Float32Array(TILES * 8)),
    ],
    workgroups: [1, 1, 1],
    params: {
      matrix: PROJECTION,
      inverseMatrix: INVERSE,
      outputSize: [64, 48],
      zNear: 0.1,
      zFar: 100,
    },
  },
  {
    // After the same file's ClusterLightsSource (at most 4 lights a tile, 64 tiles): each tile's
    // lights appended at an offset an atomicAdd hands out; the projection uniform is declared
    // (for helpers main does not call) and not bound, as the auto layout leaves it out.
    name: "webgpu-metaballs cluster lights (atomicAdd offsets, an unused uniform, two groups)",
    source: `
  struct ProjectionUniforms {
    matrix : mat4x4f,
    inverseMatrix : mat4x4f,
    outputSize : vec2f,
    zNear : f32,
    zFar : f32,
  }
  @group(0) @binding(0) var<uniform> projection : ProjectionUniforms;

  struct ViewUniforms {
    matrix : mat4x4f,
    position : vec3f,
    time : f32,
  }
  @group(0) @binding(1) var<uniform> view : ViewUniforms;

  struct Light {
    position : vec3f,
    range : f32,
    color : vec3f,
    intensity : f32,
  }
  struct GlobalLights {
    ambient : vec3f,
    lightCount : u32,
    lights : array<Light>,
  }
  @group(0) @binding(2) var<storage> globalLights : GlobalLights;

  struct ClusterLights {
    offset : u32,
    count : u32,
  }
  struct ClusterLightGroup {
    offset : atomic<u32>,
    lights : array<ClusterLights, 64>,
    indices : array<u32, 256>,
  }
  @group(0) @binding(3) var<storage, read_write> clusterLights : ClusterLightGroup;

  struct ClusterBounds {
    minAABB : vec3f,
    maxAABB : vec3f,
  }
  struct Clusters {
    bounds : array<ClusterBounds, 64>,
  }
  @group(1) @binding(0) var<storage> clusters : Clusters;

  const tileCount = vec3u(4u, 4u, 4u);

  fn linearDepth(depthSample : f32) -> f32 {
    return projection.zFar * projection.zNear / fma(depthSample, projection.zNear-projection.zFar, projection.zFar);
  }

  fn sqDistPointAABB(pt : vec3f, minAABB : vec3f, maxAABB : vec3f) -> f32 {
    var sqDist = 0.0;
    for(var i = 0; i < 3; i = i + 1) {
      let v = pt[i];
      if(v < minAABB[i]){
        sqDist = sqDist + (minAABB[i] - v) * (minAABB[i] - v);
      }
      if(v > maxAABB[i]){
        sqDist = sqDist + (v - maxAABB[i]) * (v - maxAABB[i]);
      }
    }
    return sqDist;
  }

  @compute @workgroup_size(4, 4, 4)
  fn main(@builtin(global_invocation_id) global_id : vec3u) {
    let tileIndex = global_id.x + global_id.y * tileCount.x + global_id.z * tileCount.x * tileCount.y;
    var count = 0u;
    var found : array<u32, 4>;
    for (var i = 0u; i < globalLights.lightCount; i = i + 1u) {
      let light = globalLights.lights[i];
      var inCluster = light.range <= 0.0;
      if (!inCluster) {
        let p = view.matrix * vec4(light.position, 1.0);
        let sq = sqDistPointAABB(p.xyz, clusters.bounds[tileIndex].minAABB, clusters.bounds[tileIndex].maxAABB);
        inCluster = sq <= (light.range * light.range);
      }
      if (inCluster) {
        found[count] = i;
        count = count + 1u;
      }
      if (count == 4u) {
        break;
      }
    }
    var offset = atomicAdd(&clusterLights.offset, count);
    for (var i = 0u; i < count; i = i + 1u) {
      clusterLights.indices[offset + i] = found[i];
    }
    clusterLights.lights[tileIndex].offset = offset;
    clusterLights.lights[tileIndex].count = count;
  }
`,
    plain: [
      B(0, 1, F(...VIEW, 0.5, -0.25, -3, 2.5), true),
      B(0, 2, LIGHTS),
      B(0, 3, new Uint32Array(1 + 2 * TILES + TILES * PER_TILE)),
      B(1, 0, BOUNDS),
    ],
    workgroups: [1, 1, 1],
    params: { matrix: VIEW, position: [0.5, -0.25, -3], time: 2.5 },
    orderFree: {
      bindings: [2],
      why: "each tile's list of lights and the counter's total; the lists tile [0, total)",
      canonical: clusterCanonical,
    },
  },
  {
    // After webgpu-samples' sample/cornell/radiosity.wgsl (its common.wgsl's quads and random
    // numbers left out): both entry points' bindings all in @group(1) (no @group(0)), a write-only
    // rgba16float 2-D array storage texture, an f32 override; `radiosity` adds photons with
    // atomicAdd (u32 sums: the order does not matter).
    name: "webgpu-samples radiosity photons (bindings only in @group(1), an f32 override)",
    source: RADIOSITY,
    entryPoint: "radiosity",
    plain: [
      B(1, 0, new Uint32Array(8 * 8 * 3 * 3)),
      LIGHTMAP,
      B(1, 2, F(0.001, 1, 0.5, 0.25, 0.1, 0.9, -0.2, 0), true),
    ],
    workgroups: [4, 1, 1],
    constants: { PhotonsPerWorkgroup: 16, PhotonEnergy: 1000.5 },
    params: RADIOSITY_PARAMS,
  },
  {
    // The same module's accumulation_to_lightmap: the layer from workgroup_id.z, atomicLoad and
    // atomicStore, the accumulation rescaled (a scale other than 1).
    name: "webgpu-samples radiosity accumulation_to_lightmap (texture_storage_2d_array layers)",
    source: RADIOSITY,
    entryPoint: "accumulation_to_lightmap",
    plain: [
      B(1, 0, u(8 * 8 * 3 * 3, 5000)),
      LIGHTMAP,
      B(1, 2, F(0.001, 0.75, 0.5, 0.25, 0.1, 0.9, -0.2, 0), true),
    ],
    workgroups: [2, 2, 3],
    constants: { AccumulationToLightmapWorkgroupSizeX: 4, AccumulationToLightmapWorkgroupSizeY: 4 },
    params: { ...RADIOSITY_PARAMS, accumulation_buffer_scale: 0.75 },
  },
  {
    // After webgpu-samples' sample/primitivePicking/computePickPrimitive.wgsl: a storage struct
    // of two mat4x4f, a vec2f and a u32 written by a parameterless entry point from a
    // texture_2d<u32>.
    name: "webgpu-samples computePickPrimitive (a parameterless entry, texture_2d<u32>)",
    source: `
struct Frame {
  viewProjectionMatrix : mat4x4f,
  invViewProjectionMatrix : mat4x4f,
  pickCoord : vec2f,
  pickedPrimitive : u32,
}
@group(0) @binding(0) var<storage, read_write> frame : Frame;
@group(0) @binding(1) var primitiveTex : texture_2d<u32>;

@compute @workgroup_size(1)
fn main() {
  let texel = vec2u(frame.pickCoord);
  frame.pickedPrimitive = textureLoad(primitiveTex, texel, 0).x + u32(frame.viewProjectionMatrix[3].y);
}
`,
    plain: [
      B(0, 0, concat(F(...PROJECTION, ...INVERSE, 5.5, 2.25), w(0, 0))),
      {
        group: 0,
        binding: 1,
        texture: { width: 8, height: 4, format: "r32uint", data: u(32, 1 << 20) },
      },
    ],
    workgroups: [1, 1, 1],
  },
  {
    // After webgpu-samples' sample/bitonicSort/bitonicCompute.ts (NaiveBitonicCompute(8),
    // rendered): a `switch` on a uniform with commented cases and an empty `default`, consts of
    // abstract ints compared with u32s, a bare `atomic<u32>` counting swaps (a sum: order-free).
    name: "webgpu-samples bitonicCompute (switch with an empty default, a bare atomic counter)",
    source: BITONIC,
    plain: [
      B(0, 0, Uint32Array.from({ length: 16 }, (_, i) => (i * 7 + 3) % 16)),
      B(0, 1, new Uint32Array(16)),
      B(0, 2, w({ f: 4 }, { f: 4 }, 1, 16), true),
      B(0, 3, new Uint32Array(1)),
    ],
    workgroups: [1, 1, 1],
    params: { width: 4, height: 4, algo: 1, blockHeight: 16 },
  },
  {
    // The same kernel's global disperse step (algo 4), over 2 workgroups.
    name: "webgpu-samples bitonicCompute global disperse (case 4 of the switch)",
    source: BITONIC,
    plain: [
      B(0, 0, Uint32Array.from({ length: 32 }, (_, i) => (i * 11 + 5) % 32)),
      B(0, 1, Uint32Array.from({ length: 32 }, (_, i) => 1000 + i)),
      B(0, 2, w({ f: 8 }, { f: 4 }, 4, 8), true),
      B(0, 3, Uint32Array.of(3)),
    ],
    workgroups: [2, 1, 1],
    params: { width: 8, height: 4, algo: 4, blockHeight: 8 },
  },
  {
    // After Bevy's assets/shaders/game_of_life.wgsl `init`: a hash of the invocation id, the
    // read-only texture the module also declares left unused by this entry point.
    name: "Bevy game_of_life init (an entry point without the read-only storage texture)",
    source: LIFE,
    entryPoint: "init",
    plain: [LIFE_OUT, B(0, 2, F(0.2, 0.8, 0.4, 1), true)],
    workgroups: [2, 2, 1],
    params: { alive_color: [0.2, 0.8, 0.4, 1] },
  },
  {
    // The same module's `update`: a texture_storage_2d<rgba32float, read> loaded at the eight
    // neighbours (clamped inside), `bool(i32)`, `vec4(v.rgb, f32(b))`.
    name: "Bevy game_of_life update (texture_storage_2d<rgba32float, read>)",
    source: LIFE,
    entryPoint: "update",
    plain: [
      {
        group: 0,
        binding: 0,
        texture: {
          width: 16,
          height: 16,
          format: "rgba32float",
          data: Float32Array.from(
            { length: 16 * 16 * 4 },
            (_, i) => i % 4 === 3 ? ((i >> 2) * 2654435761 >>> 0) % 3 === 0 ? 1 : 0 : 0.5,
          ),
        },
        storage: true,
      },
      LIFE_OUT,
      B(0, 2, F(0.2, 0.8, 0.4, 1), true),
    ],
    workgroups: [2, 2, 1],
    params: { alive_color: [0.2, 0.8, 0.4, 1] },
  },
];
