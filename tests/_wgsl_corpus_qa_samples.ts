/** The QA corpus, part 1: webgpu-samples, wgpu and naga shaders (see `_wgsl_corpus_qa.ts`). */
import { B, type CorpusCase, f, u } from "./_wgsl_corpus_qa_base.ts";

export const SAMPLES: readonly CorpusCase[] = [
  {
    name: "webgpu-samples computeBoids updateSprites",
    source: `
struct Particle { pos : vec2f, vel : vec2f, }
struct SimParams { deltaT : f32, rule1Distance : f32, rule2Distance : f32, rule3Distance : f32, rule1Scale : f32, rule2Scale : f32, rule3Scale : f32, }
struct Particles { particles : array<Particle>, }
@binding(0) @group(0) var<uniform> params : SimParams;
@binding(1) @group(0) var<storage, read> particlesA : Particles;
@binding(2) @group(0) var<storage, read_write> particlesB : Particles;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) GlobalInvocationID : vec3u) {
  var index = GlobalInvocationID.x;
  if (index >= arrayLength(&particlesA.particles)) { return; }
  var vPos = particlesA.particles[index].pos;
  var vVel = particlesA.particles[index].vel;
  var cMass = vec2(0.0); var cVel = vec2(0.0); var colVel = vec2(0.0);
  var cMassCount = 0u; var cVelCount = 0u; var pos : vec2f; var vel : vec2f;
  for (var i = 0u; i < arrayLength(&particlesA.particles); i++) {
    if (i == index) { continue; }
    pos = particlesA.particles[i].pos.xy; vel = particlesA.particles[i].vel.xy;
    if (distance(pos, vPos) < params.rule1Distance) { cMass += pos; cMassCount++; }
    if (distance(pos, vPos) < params.rule2Distance) { colVel -= pos - vPos; }
    if (distance(pos, vPos) < params.rule3Distance) { cVel += vel; cVelCount++; }
  }
  if (cMassCount > 0) { cMass = (cMass / vec2(f32(cMassCount))) - vPos; }
  if (cVelCount > 0) { cVel /= f32(cVelCount); }
  vVel += (cMass * params.rule1Scale) + (colVel * params.rule2Scale) + (cVel * params.rule3Scale);
  vVel = normalize(vVel) * clamp(length(vVel), 0.0, 0.1);
  vPos = vPos + (vVel * params.deltaT);
  if (vPos.x < -1.0) { vPos.x = 1.0; }
  if (vPos.x > 1.0) { vPos.x = -1.0; }
  if (vPos.y < -1.0) { vPos.y = 1.0; }
  if (vPos.y > 1.0) { vPos.y = -1.0; }
  particlesB.particles[index].pos = vPos;
  particlesB.particles[index].vel = vVel;
}`,
    plain: [
      B(0, 0, new Float32Array([0.04, 0.1, 0.025, 0.025, 0.02, 0.05, 0.005, 0]), true),
      B(0, 1, f(400, 0.019, -0.95)),
      B(0, 2, new Float32Array(400)),
    ],
    workgroups: [2, 1, 1],
    threads: 100,
    params: {
      deltaT: 0.04,
      rule1Distance: 0.1,
      rule2Distance: 0.025,
      rule3Distance: 0.025,
      rule1Scale: 0.02,
      rule2Scale: 0.05,
      rule3Scale: 0.005,
    },
  },
  {
    name: "webgpu-samples gameOfLife compute (override blockSize, var<storage> vec2u)",
    source: `
@binding(0) @group(0) var<storage, read> size: vec2u;
@binding(1) @group(0) var<storage, read> current: array<u32>;
@binding(2) @group(0) var<storage, read_write> next: array<u32>;
override blockSize = 8;
fn getIndex(x: u32, y: u32) -> u32 {
  let h = size.y; let w = size.x;
  return (y % h) * w + (x % w);
}
fn getCell(x: u32, y: u32) -> u32 { return current[getIndex(x, y)]; }
fn countNeighbors(x: u32, y: u32) -> u32 {
  return getCell(x - 1, y - 1) + getCell(x, y - 1) + getCell(x + 1, y - 1) +
         getCell(x - 1, y) +                         getCell(x + 1, y) +
         getCell(x - 1, y + 1) + getCell(x, y + 1) + getCell(x + 1, y + 1);
}
@compute @workgroup_size(blockSize, blockSize)
fn main(@builtin(global_invocation_id) grid: vec3u) {
  let x = grid.x; let y = grid.y;
  let n = countNeighbors(x, y);
  next[getIndex(x, y)] = select(u32(n == 3u), u32(n == 2u || n == 3u), getCell(x, y) == 1u);
}`,
    plain: [B(0, 0, new Uint32Array([32, 16])), B(0, 1, u(512, 2)), B(0, 2, new Uint32Array(512))],
    workgroups: [4, 2, 1],
    threads: [32, 16],
  },
  {
    name: "webgpu-samples gameOfLife with blockSize override 4",
    source: `
@binding(0) @group(0) var<storage, read> size: vec2u;
@binding(1) @group(0) var<storage, read> current: array<u32>;
@binding(2) @group(0) var<storage, read_write> next: array<u32>;
override blockSize = 8;
@compute @workgroup_size(blockSize, blockSize)
fn main(@builtin(global_invocation_id) grid: vec3u, @builtin(num_workgroups) nw: vec3u) {
  let i = (grid.y % size.y) * size.x + (grid.x % size.x);
  next[i] = current[i] * 100u + nw.x * 10u + nw.y;
}`,
    plain: [B(0, 0, new Uint32Array([32, 16])), B(0, 1, u(512, 2)), B(0, 2, new Uint32Array(512))],
    workgroups: [8, 4, 1],
    threads: [32, 16],
    constants: { blockSize: 4 },
  },
  {
    name: "wgpu hello_compute collatz",
    source: `
@group(0)
@binding(0)
var<storage, read_write> v_indices: array<u32>; // this is used as both input and output for convenience

// The Collatz Conjecture states that for any integer n:
fn collatz_iterations(n_base: u32) -> u32{
    var n: u32 = n_base;
    var i: u32 = 0u;
    loop {
        if (n <= 1u) {
            break;
        }
        if (n % 2u == 0u) {
            n = n / 2u;
        }
        else {
            // Overflow? (i.e. 3*n + 1 > 0xffffffffu?)
            if (n >= 1431655765u) {   // 0x55555555u
                return 4294967295u;   // 0xffffffffu
            }

            n = 3u * n + 1u;
        }
        i = i + 1u;
    }
    return i;
}

@compute
@workgroup_size(1)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
    v_indices[global_id.x] = collatz_iterations(v_indices[global_id.x]);
}`,
    plain: [B(0, 0, Uint32Array.from({ length: 300 }, (_, i) => i + 1))],
    workgroups: [300, 1, 1],
    threads: 300,
  },
  {
    name: "naga access.wgsl atomics entry (struct Bar, runtime array of @align struct)",
    source: `
struct GlobalConst { a: u32, b: vec3<u32>, c: i32, }
var<private> global_const: GlobalConst = GlobalConst(0u, vec3<u32>(0u, 0u, 0u), 0);
struct AlignedWrapper { @align(8) value: i32 }
struct Bar {
    _matrix: mat4x3<f32>,
    matrix_array: array<mat2x2<f32>, 2>,
    atom: atomic<i32>,
    atom_arr: array<atomic<i32>, 10>,
    arr: array<vec2<u32>, 2>,
    data: array<AlignedWrapper>,
}
@group(0) @binding(0) var<storage,read_write> bar: Bar;
struct Baz { m: mat3x2<f32>, }
@group(0) @binding(1) var<uniform> baz: Baz;
@group(0) @binding(2) var<storage,read_write> qux: vec2<i32>;
@compute @workgroup_size(1)
fn atomics() {
    var tmp: i32;
    let value = atomicLoad(&bar.atom);
    tmp = atomicAdd(&bar.atom, 5);
    tmp = atomicSub(&bar.atom, 5);
    tmp = atomicAnd(&bar.atom, 5);
    tmp = atomicOr(&bar.atom, 5);
    tmp = atomicXor(&bar.atom, 5);
    tmp = atomicMin(&bar.atom, 5);
    tmp = atomicMax(&bar.atom, 5);
    tmp = atomicExchange(&bar.atom, 5);
    atomicStore(&bar.atom, value + 7);
    atomicAdd(&bar.atom_arr[3], 11);
    bar.arr[1] = vec2<u32>(u32(baz.m[1].y * 10.0), 9u);
    bar.data[arrayLength(&bar.data) - 1u].value = i32(arrayLength(&bar.data));
    qux = vec2<i32>(-1, i32(baz.m[2].x * 4.0));
}`,
    entryPoint: "atomics",
    plain: [
      B(0, 0, new Int32Array(48 + 32 + 4 + 40 + 4 + 16 + 40).fill(3)),
      B(0, 1, new Float32Array([1, 2, 3, 4, 5, 6, 0, 0]), true),
      B(0, 2, new Int32Array(2)),
    ],
    workgroups: [1, 1, 1],
    threads: 1,
    params: { m: [1, 2, 3, 4, 5, 6] },
  },
  {
    name: "naga workgroup-var-init (array<u32,512> storage, workgroup struct with atomics)",
    source: `
struct WStruct { arr: array<u32, 512>, atom: atomic<i32>, atom_arr: array<array<atomic<i32>, 8>, 8>, }
var<workgroup> w_mem: WStruct;
@group(0) @binding(0)
var<storage, read_write> output: array<u32, 512>;
@compute @workgroup_size(1)
fn main() {
    output = w_mem.arr;
}`,
    plain: [B(0, 0, new Uint32Array(512).fill(7))],
    workgroups: [1, 1, 1],
    threads: 1,
  },
  {
    name: "naga globals-style uniforms (non-struct uniforms, arrays of vec4 and mat)",
    source: `
@group(0) @binding(1) var<storage, read_write> dummy: array<vec2<f32>>;
@group(0) @binding(2) var<uniform> float_vecs: array<vec4<f32>, 20>;
@group(0) @binding(3) var<uniform> global_vec: vec3<f32>;
@group(0) @binding(4) var<uniform> global_mat: mat3x2<f32>;
@compute @workgroup_size(1)
fn main() {
    dummy[0] = float_vecs[3].xy + float_vecs[19].zw;
    dummy[1] = global_vec.yz;
    dummy[2] = global_mat[2];
    dummy[3] = vec2f(global_mat[0].x, global_vec.x);
}`,
    plain: [
      B(0, 1, new Float32Array(8)),
      B(0, 2, f(80, 0.5), true),
      B(0, 3, new Float32Array([7, 8, 9, 0]), true),
      B(0, 4, new Float32Array([1, 2, 3, 4, 5, 6]), true),
    ],
    workgroups: [1, 1, 1],
    threads: 1,
    params: {
      float_vecs: Array.from({ length: 20 }, (_, i) => [...f(80, 0.5).slice(4 * i, 4 * i + 4)]),
      global_vec: [7, 8, 9],
      global_mat: [1, 2, 3, 4, 5, 6],
    },
  },
  {
    name: "naga padding.wgsl layouts (vec3 in struct, array<vec3>, mat4x3) as compute",
    source: `
struct S { a: vec3<f32>, }
struct Test { a: S, b: f32, }
struct Test2 { a: array<vec3<f32>, 2>, b: f32, }
struct Test3 { a: mat4x3<f32>, b: f32, }
@group(0) @binding(0) var<uniform> input1: Test;
@group(0) @binding(1) var<uniform> input2: Test2;
@group(0) @binding(2) var<uniform> input3: Test3;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(1)
fn main() {
    out[0] = input1.b; out[1] = input2.b; out[2] = input3.b;
    out[3] = input1.a.a.z; out[4] = input2.a[1].y; out[5] = input3.a[3].z;
}`,
    plain: [
      B(0, 0, new Float32Array([1, 2, 3, 0, 4, 0, 0, 0]), true),
      B(0, 1, new Float32Array([1, 2, 3, 0, 5, 6, 7, 0, 9, 0, 0, 0]), true),
      B(
        0,
        2,
        new Float32Array([1, 2, 3, 0, 5, 6, 7, 0, 9, 10, 11, 0, 13, 14, 15, 0, 17, 0, 0, 0]),
        true,
      ),
      B(0, 3, new Float32Array(6)),
    ],
    workgroups: [1, 1, 1],
    threads: 1,
    params: {
      input1: { a: { a: [1, 2, 3] }, b: 4 },
      input2: { a: [[1, 2, 3], [5, 6, 7]], b: 9 },
      input3: { a: [1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15], b: 17 },
    },
  },
  {
    name: "tfjs-backend-webgpu unary (Uniforms NAN/INFINITY/vec shapes, getCoordsFromIndex)",
    source: `
struct Uniforms { NAN : f32, INFINITY : f32, xShape : vec2<i32>, outShape : vec2<i32>, outShapeStrides: i32, size : i32, };
@group(0) @binding(0) var<storage, read_write> result: array<f32>;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<uniform> uniforms: Uniforms;
fn isnan(val: f32) -> bool { let floatToUint: u32 = bitcast<u32>(val); return (floatToUint & 0x7fffffffu) > 0x7f800000u; }
fn getCoordsFromIndex(index : i32) -> vec2<i32> {
  var index2 = index;
  let d0 = index2 / uniforms.outShapeStrides; index2 = index2 - d0 * uniforms.outShapeStrides;
  return vec2<i32>(d0, index2);
}
fn setOutputAtIndex(flatIndex : i32, value : f32) { result[flatIndex] = f32(value); }
fn getXByOutputIndex(globalIndex : i32) -> f32 { return f32(x[globalIndex]); }
fn unaryOperation(a : f32) -> f32 { if (isnan(a)) { return uniforms.NAN; } return select(a * 0.2, a, a >= 0.0); }
override workgroupSizeX = 64;
@compute @workgroup_size(workgroupSizeX, 1, 1)
fn _start(@builtin(local_invocation_id) LocalId : vec3<u32>, @builtin(global_invocation_id) GlobalId : vec3<u32>, @builtin(local_invocation_index) LocalIndex: u32, @builtin(workgroup_id) WorkgroupId : vec3<u32>, @builtin(num_workgroups) NumWorkgroups : vec3<u32>) {
  let index = i32(GlobalId.x);
  if (index < uniforms.size) {
    let coords = getCoordsFromIndex(index);
    let a = getXByOutputIndex(index);
    setOutputAtIndex(index, unaryOperation(a) + f32(coords.x) * 1000.0);
  }
}`,
    entryPoint: "_start",
    plain: [
      B(0, 0, new Float32Array(300)),
      B(0, 1, f(300, 0.1, -5)),
      B(0, 2, new Int32Array([0x7fc00000, 0x7f800000, 10, 30, 10, 30, 30, 300]), true),
    ],
    workgroups: [5, 1, 1],
    threads: 300,
    params: {
      NAN: NaN,
      INFINITY: Infinity,
      xShape: [10, 30],
      outShape: [10, 30],
      outShapeStrides: 30,
      size: 300,
    },
  },
  {
    name: "webgpu-samples bitonicSort compute (switch on uniform algo, local_data workgroup array)",
    source: `
struct Uniforms { width: f32, height: f32, algo: u32, blockHeight: u32, }
var<workgroup> local_data: array<u32, 64>;
@group(0) @binding(0) var<storage, read> input_data: array<u32>;
@group(0) @binding(1) var<storage, read_write> output_data: array<u32>;
@group(0) @binding(2) var<uniform> uniforms: Uniforms;
@group(0) @binding(3) var<storage, read_write> counter: atomic<u32>;
fn local_compare_and_swap(idx_before: u32, idx_after: u32) {
  if (local_data[idx_after] < local_data[idx_before]) {
    atomicAdd(&counter, 1);
    var temp: u32 = local_data[idx_before];
    local_data[idx_before] = local_data[idx_after];
    local_data[idx_after] = temp;
  }
  return;
}
fn get_flip_indices(thread_id: u32, block_height: u32) -> vec2<u32> {
  let block_offset: u32 = ((2 * thread_id) / block_height) * block_height;
  let half_height = block_height / 2;
  var idx: vec2<u32> = vec2<u32>(thread_id % half_height, block_height - (thread_id % half_height) - 1);
  idx.x += block_offset; idx.y += block_offset;
  return idx;
}
fn get_disperse_indices(thread_id: u32, block_height: u32) -> vec2<u32> {
  var block_offset: u32 = ((2 * thread_id) / block_height) * block_height;
  let half_height = block_height / 2;
  var idx: vec2<u32> = vec2<u32>(thread_id % half_height, (thread_id % half_height) + half_height);
  idx.x += block_offset; idx.y += block_offset;
  return idx;
}
fn global_compare_and_swap(idx_before: u32, idx_after: u32) {
  if (input_data[idx_after] < input_data[idx_before]) {
    output_data[idx_before] = input_data[idx_after];
    output_data[idx_after] = input_data[idx_before];
  }
}
const ALGO_NONE = 0;
const ALGO_LOCAL_FLIP = 1;
const ALGO_LOCAL_DISPERSE = 2;
const ALGO_GLOBAL_FLIP = 3;
@compute @workgroup_size(32, 1, 1)
fn computeMain(@builtin(global_invocation_id) global_id: vec3<u32>, @builtin(local_invocation_id) local_id: vec3<u32>, @builtin(workgroup_id) workgroup_id: vec3<u32>) {
  let offset = 32 * 2 * workgroup_id.x;
  if (uniforms.algo <= 2) {
    local_data[local_id.x * 2] = input_data[offset + local_id.x * 2];
    local_data[local_id.x * 2 + 1] = input_data[offset + local_id.x * 2 + 1];
  }
  workgroupBarrier();
  switch uniforms.algo {
    case 1: {
      for (var h: u32 = 2; h <= uniforms.blockHeight; h *= 2) {
        let idx = get_flip_indices(local_id.x, h);
        local_compare_and_swap(idx.x, idx.y);
        workgroupBarrier();
        for (var hh: u32 = h / 2; hh > 1; hh /= 2) {
          let idx2 = get_disperse_indices(local_id.x, hh);
          local_compare_and_swap(idx2.x, idx2.y);
          workgroupBarrier();
        }
      }
    }
    case ALGO_LOCAL_DISPERSE: {
      let idx = get_disperse_indices(local_id.x, uniforms.blockHeight);
      local_compare_and_swap(idx.x, idx.y);
    }
    case ALGO_GLOBAL_FLIP: {
      let idx = get_flip_indices(global_id.x, uniforms.blockHeight);
      global_compare_and_swap(idx.x, idx.y);
    }
    default: {}
  }
  workgroupBarrier();
  if (uniforms.algo <= ALGO_LOCAL_DISPERSE) {
    output_data[offset + local_id.x * 2] = local_data[local_id.x * 2];
    output_data[offset + local_id.x * 2 + 1] = local_data[local_id.x * 2 + 1];
  }
}`,
    plain: [
      B(0, 0, u(256, 1000)),
      B(0, 1, new Uint32Array(256)),
      B(0, 2, new Uint32Array([0x42800000, 0x40800000, 1, 64]), true),
      B(0, 3, new Uint32Array(1)),
    ],
    workgroups: [4, 1, 1],
    threads: 128,
    params: { width: 64, height: 4, algo: 1, blockHeight: 64 },
  },
];
