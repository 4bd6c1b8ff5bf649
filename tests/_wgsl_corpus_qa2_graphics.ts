/**
 * The QA corpus, second wave, part 3: graphics compute shaders (webgpufundamentals.org's compute
 * articles, Google's "Your first WebGPU app" codelab, webgpu-samples' particles, BabylonJS's
 * ocean FFT and compute demos, three.js's TSL output, Bevy's gpu_readback, Dawn's
 * ComputeDispatchTests). Each is written after the credited file (not copied), sized small.
 */
import { B, type CorpusCase, f, u } from "./_wgsl_corpus_qa_base.ts";

export const GRAPHICS: readonly CorpusCase[] = [
  {
    // After webgpufundamentals.org "WebGPU Compute Shader Basics": a 3-D workgroup size and
    // dispatch, every index builtin written to array<vec3u> bindings (16-byte stride).
    name: "webgpufundamentals compute basics (workgroup_size(2,3,4), 3-D dispatch, array<vec3u>)",
    source: /* wgsl */ `
@group(0) @binding(0) var<storage, read_write> workgroupResult: array<vec3u>;
@group(0) @binding(1) var<storage, read_write> localResult: array<vec3u>;
@group(0) @binding(2) var<storage, read_write> globalResult: array<vec3u>;
@compute @workgroup_size(2, 3, 4) fn computeSomething(
    @builtin(workgroup_id) workgroup_id : vec3<u32>,
    @builtin(local_invocation_id) local_invocation_id : vec3<u32>,
    @builtin(global_invocation_id) global_invocation_id : vec3<u32>,
    @builtin(local_invocation_index) local_invocation_index: u32,
    @builtin(num_workgroups) num_workgroups: vec3<u32>
) {
  // workgroup_index is similar to local_invocation_index except for workgroups
  let workgroup_index =
     workgroup_id.x +
     workgroup_id.y * num_workgroups.x +
     workgroup_id.z * num_workgroups.x * num_workgroups.y;
  let global_invocation_index = workgroup_index * 24 + local_invocation_index;
  workgroupResult[global_invocation_index] = workgroup_id;
  localResult[global_invocation_index] = local_invocation_id;
  globalResult[global_invocation_index] = global_invocation_id;
}`,
    plain: [
      B(0, 0, new Uint32Array(24 * 24 * 4)),
      B(0, 1, new Uint32Array(24 * 24 * 4)),
      B(0, 2, new Uint32Array(24 * 24 * 4)),
    ],
    workgroups: [4, 3, 2],
  },
  {
    // After webgpufundamentals.org "Compute Shaders - Image Histogram" (the chunk-sum pass): a
    // runtime array of fixed arrays of vec4u, a uniform stride, a `cs` entry point.
    name: "webgpufundamentals histogram chunk sum (array<array<vec4u, 16>>, uniform stride)",
    source: /* wgsl */ `
const chunkWidth = 16;
const chunkHeight = 1;
const chunkSize = chunkWidth * chunkHeight;
struct Uniforms { stride: u32, };
@group(0) @binding(0) var<storage, read_write> chunks: array<array<vec4u, chunkSize>>;
@group(0) @binding(1) var<uniform> uni: Uniforms;
@compute @workgroup_size(chunkSize, 1, 1) fn cs(
  @builtin(local_invocation_id) local_invocation_id: vec3u,
  @builtin(workgroup_id) workgroup_id: vec3u,
) {
  let chunk0 = workgroup_id.x * uni.stride * 2;
  let chunk1 = chunk0 + uni.stride;
  let sum = chunks[chunk0][local_invocation_id.x] +
            chunks[chunk1][local_invocation_id.x];
  chunks[chunk0][local_invocation_id.x] = sum;
}`,
    plain: [B(0, 0, u(8 * 16 * 4, 1000)), B(0, 1, new Uint32Array([1]), true)],
    workgroups: [4, 1, 1],
    params: { stride: 1 },
  },
  {
    // After Google's codelab "Your first WebGPU app" (the game of life's one module): vertex,
    // fragment and compute entries sharing a non-struct vec2f uniform, `var<storage>` without
    // an access mode, `switch` on a neighbour count with a case list.
    name:
      "WebGPU codelab game of life (render+compute module, uniform vec2f, var<storage> default access)",
    entryPoint: "computeMain",
    source: /* wgsl */ `
struct VertexInput { @location(0) pos: vec2f, @builtin(instance_index) instance: u32, };
struct VertexOutput { @builtin(position) pos: vec4f, @location(0) cell: vec2f, };
@group(0) @binding(0) var<uniform> grid: vec2f;
@group(0) @binding(1) var<storage> cellState: array<u32>;
@group(0) @binding(2) var<storage, read_write> cellStateOut: array<u32>;
@vertex
fn vertexMain(input: VertexInput) -> VertexOutput {
  let i = f32(input.instance);
  let cell = vec2f(i % grid.x, floor(i / grid.x));
  let state = f32(cellState[input.instance]);
  let cellOffset = cell / grid * 2;
  let gridPos = (input.pos * state + 1) / grid - 1 + cellOffset;
  var output: VertexOutput;
  output.pos = vec4f(gridPos, 0, 1);
  output.cell = cell;
  return output;
}
@fragment
fn fragmentMain(input: VertexOutput) -> @location(0) vec4f {
  let c = input.cell / grid;
  return vec4f(c, 1 - c.x, 1);
}
fn cellIndex(cell: vec2u) -> u32 {
  return (cell.y % u32(grid.y)) * u32(grid.x) + (cell.x % u32(grid.x));
}
fn cellActive(x: u32, y: u32) -> u32 { return cellState[cellIndex(vec2(x, y))]; }
@compute @workgroup_size(8, 8)
fn computeMain(@builtin(global_invocation_id) cell: vec3u) {
  let activeNeighbors = cellActive(cell.x+1, cell.y+1) + cellActive(cell.x+1, cell.y) +
                        cellActive(cell.x+1, cell.y-1) + cellActive(cell.x, cell.y-1) +
                        cellActive(cell.x-1, cell.y-1) + cellActive(cell.x-1, cell.y) +
                        cellActive(cell.x-1, cell.y+1) + cellActive(cell.x, cell.y+1);
  let i = cellIndex(cell.xy);
  switch activeNeighbors {
    case 2: { cellStateOut[i] = cellState[i]; }
    case 3: { cellStateOut[i] = 1; }
    case 4, 5, 6, 7, 8: { cellStateOut[i] = 0; }
    default: { cellStateOut[i] = 0; }
  }
}`,
    plain: [
      B(0, 0, new Float32Array([16, 16]), true),
      B(0, 1, u(256, 2)),
      B(0, 2, new Uint32Array(256)),
    ],
    workgroups: [2, 2, 1],
    threads: [16, 16],
    params: { grid: [16, 16] },
  },
  {
    // After webgpu-samples' particles sample (simulate pass): a Particle struct of vec3f,
    // f32 and vec4f fields in a runtime array inside a struct, var<private> random state
    // updated by helper functions, textureLoad from a texture_2d<f32>.
    name:
      "webgpu-samples particles simulate (var<private> rand state, struct of vec3f/vec4f, textureLoad)",
    source: /* wgsl */ `
var<private> rand_seed : vec2f;
fn init_rand(invocation_id : u32, seed : vec4f) {
  rand_seed = seed.xz;
  rand_seed = fract(rand_seed * cos(35.456 + f32(invocation_id) * seed.yw));
  rand_seed = fract(rand_seed * cos(41.235 + f32(invocation_id) * seed.xw));
}
fn rand() -> f32 {
  rand_seed.x = fract(cos(dot(rand_seed, vec2f(23.14077926, 232.61690225))) * 136.8168);
  rand_seed.y = fract(cos(dot(rand_seed, vec2f(54.47856553, 345.84153136))) * 534.7645);
  return rand_seed.y;
}
struct SimulationParams { deltaTime : f32, brightnessFactor : f32, seed : vec4f, }
struct Particle { position : vec3f, lifetime : f32, color : vec4f, velocity : vec3f, }
struct Particles { particles : array<Particle>, }
@binding(0) @group(0) var<uniform> sim_params : SimulationParams;
@binding(1) @group(0) var<storage, read_write> data : Particles;
@binding(2) @group(0) var texture : texture_2d<f32>;
@compute @workgroup_size(64)
fn simulate(@builtin(global_invocation_id) global_invocation_id : vec3u) {
  let idx = global_invocation_id.x;
  init_rand(idx, sim_params.seed);
  var particle = data.particles[idx];
  particle.velocity.z = particle.velocity.z - sim_params.deltaTime * 0.5;
  particle.position = particle.position + sim_params.deltaTime * particle.velocity;
  particle.lifetime = particle.lifetime - sim_params.deltaTime;
  particle.color.a = smoothstep(0.0, 0.5, particle.lifetime);
  if (particle.lifetime < 0.0) {
    var coord : vec2i;
    for (var level = u32(textureNumLevels(texture) - 1); level > 0; level--) {
      coord = coord * 2;
    }
    coord = vec2i(i32(rand() * 8.0) % 8, i32(rand() * 8.0) % 8);
    let uv = vec2f(coord) / vec2f(textureDimensions(texture));
    particle.position = vec3f((uv - 0.5) * 3.0 * vec2f(1.0, -1.0), 0.0);
    particle.color = textureLoad(texture, coord, 0);
    particle.color.r *= sim_params.brightnessFactor;
    particle.velocity.x = (rand() - 0.5) * 0.1;
    particle.lifetime = 0.5 + rand() * 3.0;
  }
  data.particles[idx] = particle;
}`,
    plain: [
      B(0, 0, new Float32Array([0.04, 1.5, 0, 0, 0.25, 0.5, 0.75, 0.125]), true),
      B(0, 1, f(128 * 12, 0.03, -1)),
      {
        group: 0,
        binding: 2,
        texture: { width: 8, height: 8, format: "rgba8unorm", data: Uint8Array.from(u(256, 256)) },
      },
    ],
    workgroups: [2, 1, 1],
    threads: 128,
    params: { deltaTime: 0.04, brightnessFactor: 1.5, seed: [0.25, 0.5, 0.75, 0.125] },
  },
  {
    // After BabylonJS's ocean demo (Popov72/OceanDemo, fftPrecompute.wgsl): twiddle factors
    // and bit-reversed indices into a write-only rgba32float storage texture, i32 uniforms.
    name: "BabylonJS ocean FFT precompute (texture_storage_2d<rgba32float, write>, reverseBits)",
    source: /* wgsl */ `
const PI: f32 = 3.1415926;
@group(0) @binding(0) var PrecomputeBuffer : texture_storage_2d<rgba32float, write>;
struct Params { Step : i32, Size : i32, };
@group(0) @binding(1) var<uniform> params : Params;
fn Complex(re: f32, im: f32) -> vec2<f32> { return vec2<f32>(re, im); }
fn ComplexExp(a: vec2<f32>) -> vec2<f32> { return vec2<f32>(cos(a.y), sin(a.y)) * exp(a.x); }
@compute @workgroup_size(1, 8, 1)
fn precomputeTwiddleFactorsAndInputIndices(@builtin(global_invocation_id) id : vec3<u32>) {
  let iid = vec3<i32>(id);
  let b = params.Size >> (id.x + 1u);
  let mult = 2.0 * PI * vec2<f32>(0.0, 1.0) / f32(params.Size);
  let i = (2 * b * (iid.y / b) + iid.y % b) % params.Size;
  let twiddle = ComplexExp(-mult * f32((iid.y / b) * b));
  let rev = i32(reverseBits(u32(iid.y)) >> (32u - countTrailingZeros(u32(params.Size))));
  textureStore(PrecomputeBuffer, iid.xy, vec4<f32>(twiddle.x, twiddle.y, f32(i), f32(i + b) + f32(rev) * 1000.0));
  textureStore(PrecomputeBuffer, vec2<i32>(iid.x, iid.y + params.Size / 2), vec4<f32>(-twiddle.x, -twiddle.y, f32(i), f32(i + b)));
}`,
    plain: [
      {
        group: 0,
        binding: 0,
        texture: { width: 4, height: 16, format: "rgba32float" },
        storage: true,
      },
      B(0, 1, new Int32Array([0, 16]), true),
    ],
    workgroups: [4, 1, 1],
    threads: [4, 8],
    params: { Step: 0, Size: 16 },
  },
  {
    // After BabylonJS's compute shader demo (copy a texture with textureLoad into a write-only
    // rgba8unorm storage texture) with its `dest`/`src` bindings and a vec2<i32> uniform.
    name: "BabylonJS compute texture copy (texture_2d<f32> + textureLoad into rgba8unorm storage)",
    source: /* wgsl */ `
@group(0) @binding(0) var dest : texture_storage_2d<rgba8unorm, write>;
@group(0) @binding(1) var src : texture_2d<f32>;
struct Params { offset : vec2<i32>, gain : f32, };
@group(0) @binding(2) var<uniform> params : Params;
@compute @workgroup_size(8, 8, 1)
fn main(@builtin(global_invocation_id) global_id : vec3<u32>) {
  let dims : vec2<u32> = textureDimensions(src, 0);
  let p = (vec2<i32>(global_id.xy) + params.offset) % vec2<i32>(dims);
  let pix : vec4<f32> = textureLoad(src, p, 0);
  textureStore(dest, vec2<i32>(global_id.xy), vec4<f32>(pix.rgb * params.gain, 1.0));
}`,
    plain: [
      {
        group: 0,
        binding: 0,
        texture: { width: 16, height: 8, format: "rgba8unorm" },
        storage: true,
      },
      {
        group: 0,
        binding: 1,
        texture: { width: 16, height: 8, format: "rgba8unorm", data: Uint8Array.from(u(512, 256)) },
      },
      B(0, 2, new Int32Array([3, 1, 0x3f000000, 0]), true), // offset [3, 1], gain 0.5
    ],
    workgroups: [2, 1, 1],
    threads: [16, 8],
    params: { offset: [3, 1], gain: 0.5 },
  },
  {
    // After three.js's WGSLNodeBuilder compute output (TSL's atomicAdd on an instanced
    // storage buffer): `// directives` then a diagnostic directive, struct-wrapped
    // `array< atomic<u32> >` and `array< vec4<f32> >`, a group-0 uniform struct named `object`,
    // `@binding` before `@group`, var<private> instanceIndex.
    name:
      "three.js TSL compute with atomics (diagnostic directive, struct-wrapped atomic array, object uniform)",
    source: /* wgsl */ `
// directives
diagnostic( off, derivative_uniformity );
// system
var<private> instanceIndex : u32;
// uniforms
struct objectStruct {
	nodeUniform0 : f32,
	nodeUniform1 : vec3<f32>
};
@binding( 0 ) @group( 0 )
var<uniform> object : objectStruct;
struct NodeBuffer_4Struct {
	value : array< atomic<u32> >
};
@binding( 1 ) @group( 0 )
var<storage, read_write> NodeBuffer_4 : NodeBuffer_4Struct;
struct NodeBuffer_5Struct {
	value : array< vec4<f32> >
};
@binding( 2 ) @group( 0 )
var<storage, read_write> NodeBuffer_5 : NodeBuffer_5Struct;
// codes
@compute @workgroup_size( 64, 1, 1 )
fn main( @builtin( global_invocation_id ) id : vec3<u32>,
	@builtin( workgroup_id ) workgroupId : vec3<u32>,
	@builtin( local_invocation_id ) localId : vec3<u32>,
	@builtin( num_workgroups ) numWorkgroups : vec3<u32> ) {
	// system
	instanceIndex = id.x + id.y * numWorkgroups.x * u32(64) + id.z * numWorkgroups.x * numWorkgroups.y * u32(64);
	// vars
	var nodeVar0 : vec4<f32>;
	// flow
	// code
	nodeVar0 = NodeBuffer_5.value[ instanceIndex ];
	atomicAdd( &NodeBuffer_4.value[ u32( clamp( nodeVar0.x * object.nodeUniform0, 0.0, 7.0 ) ) ], 1u );
	NodeBuffer_5.value[ instanceIndex ] = vec4<f32>( nodeVar0.xyz + object.nodeUniform1, nodeVar0.w );
}`,
    plain: [
      B(0, 0, new Float32Array([0.125, 0, 0, 0, 1, 2, 3, 0]), true),
      B(0, 1, new Uint32Array(8)),
      B(0, 2, f(128 * 4, 1)),
    ],
    workgroups: [2, 1, 1],
    threads: 128,
    params: { nodeUniform0: 0.125, nodeUniform1: [1, 2, 3] },
  },
  {
    // After Bevy's examples/shader/gpu_readback.wgsl: a storage buffer incremented in place and
    // a write-only r32uint storage texture.
    name: "Bevy gpu_readback (data += 1, texture_storage_2d<r32uint, write>)",
    source: /* wgsl */ `
// This shader is used for the gpu_readback example
// The actual work it does is not important for the example

// This is the data that lives in the gpu only buffer
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@group(0) @binding(1) var texture: texture_storage_2d<r32uint, write>;

@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
    // We use the global_id to index the array to make sure we don't
    // access data used in another workgroup.
    data[global_id.x] += 1u;
    // Write the same data to the texture
    textureStore(texture, vec2<i32>(i32(global_id.x), 0), vec4<u32>(data[global_id.x], 0, 0, 0));
}`,
    plain: [
      B(0, 0, u(16, 100)),
      { group: 0, binding: 1, texture: { width: 16, height: 1, format: "r32uint" }, storage: true },
    ],
    workgroups: [16, 1, 1],
    threads: 16,
  },
  {
    // After Dawn's end2end ComputeDispatchTests: the dispatch size read back through
    // @builtin(num_workgroups) into a storage struct of vec3u, compared with a uniform struct.
    name: "Dawn ComputeDispatchTests (num_workgroups into a storage struct vec3u, uniform vec3u)",
    source: /* wgsl */ `
struct InputBuf { expectedDispatch : vec3u }
struct OutputBuf { workGroups : vec3u }
@group(0) @binding(0) var<uniform> input : InputBuf;
@group(0) @binding(1) var<storage, read_write> output : OutputBuf;
@compute @workgroup_size(1, 1, 1)
fn main(@builtin(global_invocation_id) GlobalInvocationID : vec3u, @builtin(num_workgroups) dispatch : vec3u) {
  if (dispatch.x == 0u || dispatch.y == 0u || dispatch.z == 0u) {
    output.workGroups = vec3u(0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu);
    return;
  }
  if (all(GlobalInvocationID == input.expectedDispatch - vec3u(1u, 1u, 1u))) {
    output.workGroups = dispatch;
  }
}`,
    plain: [B(0, 0, new Uint32Array([3, 2, 4, 0]), true), B(0, 1, new Uint32Array(4))],
    workgroups: [3, 2, 4],
    params: { expectedDispatch: [3, 2, 4] },
  },
];
