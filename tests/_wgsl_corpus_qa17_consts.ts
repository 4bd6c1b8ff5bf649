/**
 * QA wave 17, const expressions of vectors and matrices where the runtime needs their value (a
 * `@workgroup_size`, an array count of a binding's type), as WGSL allows and naga evaluates them:
 * a tile `vec2u` halved for the workgroup, `dot` and `length` of const vectors, a const matrix
 * times a vector. The runtime's evaluator computed scalars only and refused each ("'/' of a
 * vector, array or struct"), and computed abstract integers past 32 bits and f16 values wrong (a
 * silently wrong size); the builtins naga does not evaluate in const expressions
 * (`extractBits`, `smoothstep`) are refused by both. See `_wgsl_corpus_qa17.ts`.
 */
import { B, type CorpusCase, f } from "./_wgsl_corpus_qa_base.ts";

/** A size-probing kernel: each invocation writes its index and the launch's workgroup count. */
const probe = (decls: string, size: string) =>
  `${decls}
@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(${size})
fn main(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) n: vec3u) {
  if (id.x < arrayLength(&o)) { o[id.x] = id.x + 1000u * n.x; }
}`;

/** The cases that run. */
export const CONSTS: readonly CorpusCase[] = [
  {
    // A box blur in the shape of webgpu-samples' imageBlur and tiled image filters: the tile a
    // `vec2u` const, the workgroup half of it, the shared tile sized by the product of its
    // members; launched with `threads: [w, h]`.
    name: "a tile vec2u const halved for @workgroup_size (vector arithmetic in consts)",
    source: `
const TILE = vec2u(16, 8);
const WG = TILE / 2u;
const STEP = vec2u(TILE / WG);

@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;

var<workgroup> tile: array<f32, TILE.x * TILE.y>;

@compute @workgroup_size(WG.x, WG.y)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_id) lid: vec3u) {
  let origin = wid.xy * TILE;
  for (var dy = 0u; dy < STEP.y; dy++) {
    for (var dx = 0u; dx < STEP.x; dx++) {
      let p = lid.xy * STEP + vec2u(dx, dy);
      tile[p.y * TILE.x + p.x] = src[(origin.y + p.y) * 32u + origin.x + p.x];
    }
  }
  workgroupBarrier();
  for (var dy = 0u; dy < STEP.y; dy++) {
    for (var dx = 0u; dx < STEP.x; dx++) {
      let p = lid.xy * STEP + vec2u(dx, dy);
      let l = tile[p.y * TILE.x + max(p.x, 1u) - 1u];
      let r = tile[p.y * TILE.x + min(p.x + 1u, TILE.x - 1u)];
      dst[(origin.y + p.y) * 32u + origin.x + p.x] = (l + tile[p.y * TILE.x + p.x] + r) / 3.0;
    }
  }
}`,
    plain: [B(0, 0, f(32 * 16, 0.25)), B(0, 1, new Float32Array(32 * 16))],
    workgroups: [2, 2, 1],
    threads: [16, 8],
  },
  {
    name: "@workgroup_size of a const matrix times a vector",
    source: probe(
      "const SPIN = mat2x2f(0, 1, -1, 0);\nconst EXTENT = abs(SPIN * vec2f(8, 24));",
      "u32(EXTENT.x), 1, 1",
    ),
    plain: [B(0, 0, new Uint32Array(200))],
    workgroups: [9, 1, 1],
    threads: 200,
  },
  {
    // `dot`, `length` and a vector `min` in an array count of a storage struct: the binding's
    // size and stride follow them.
    name: "dot, length and min of const vectors in a storage struct's array counts",
    source: `
const A = vec3u(1, 2, 3);
const B = min(A * 2u, vec3u(4));
struct Cell { weights: array<f32, dot(A, B)>, tags: array<u32, u32(length(vec2f(3, 4)))> }
@group(0) @binding(0) var<storage, read_write> cells: array<Cell>;
@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) i: u32) {
  cells[i].tags[4] = u32(cells[i].weights[17] * 4.0) + i;
  cells[i].weights[0] = f32(B.z);
}`,
    plain: [B(0, 0, f(4 * 27, 0.5))],
    workgroups: [1, 1, 1],
  },
];

/**
 * A size from abstract integers past 32 bits (WGSL computes them as i64): the runtime shifted
 * `1 << 33` by 33 & 31 and read the size as 18, not 8; launched with `threads`, it dispatched 12
 * workgroups of the device's 8 invocations for 200 threads: 104 never ran, silently.
 */
export const CONSTS_I64: CorpusCase = {
  name: "@workgroup_size(((1 << 33) + 16) % 40): abstract integers past 32 bits (i64)",
  source: probe("const BIG = 1 << 33;", "(BIG + 16) % 40"),
  plain: [B(0, 0, new Uint32Array(200))],
  workgroups: [25, 1, 1],
  threads: 200,
};

/**
 * A size from f16 consts: naga rounds `2047.9h` to the f16 2048, so the size is 16; the runtime
 * kept 2047.9 (f16 literals and arithmetic unrounded) and read 15, so a launch of `threads`
 * counted 14 workgroups where plain WebGPU's 13 cover the same threads (num_workgroups differed).
 */
export const CONSTS_F16: CorpusCase = {
  name: "@workgroup_size(u32(2047.9h) / 128): f16 literals rounded to f16 (2048)",
  source: probe("enable f16;\nconst WIDE = 2047.9h;", "u32(WIDE) / 128"),
  plain: [B(0, 0, new Uint32Array(200))],
  workgroups: [13, 1, 1],
  threads: 200,
  features: ["shader-f16"],
};

/**
 * An f32 const compared with an abstract float: WGSL converts `0.7` to the f32 0.7 first, so
 * `T == 0.7` holds and the size is 16; the runtime compared the f32 0.699999988 with the double
 * 0.7, read 8, and a launch of `threads` ran 25 workgroups where plain WebGPU's 13 run.
 */
export const CONSTS_F32: CorpusCase = {
  name: "@workgroup_size(select(8u, 16u, T == 0.7)) of `const T: f32 = 0.7` (converted first)",
  source: probe("const T: f32 = 0.7;", "select(8u, 16u, T == 0.7)"),
  plain: [B(0, 0, new Uint32Array(200))],
  workgroups: [13, 1, 1],
  threads: 200,
};

/**
 * An override without a type is concrete (f32 here): `K * 100.0` is the f32 29; the runtime kept
 * its default as the abstract 0.29, read 28 (0.29 * 100 is 28.999999999999996 in f64), and a
 * launch of `threads` ran 8 workgroups where plain WebGPU's 7 run.
 */
export const CONSTS_OVERRIDE: CorpusCase = {
  name: "@workgroup_size(u32(K * 100.0)) of `override K = 0.29;` (an f32, not abstract)",
  source: probe("override K = 0.29;", "u32(K * 100.0)"),
  plain: [B(0, 0, new Uint32Array(200))],
  workgroups: [7, 1, 1],
  threads: 200,
};

/**
 * An HLSL-style port's aliases called as constructors (`alias uint2 = vec2<u32>;`, as
 * PlayCanvas' and ported shaders declare `float2`/`half` aliases): the runtime refused
 * `uint2(16, 4)` in a const its `@workgroup_size` reads ("uint2() is not evaluated").
 */
export const CONSTS_ALIAS: CorpusCase = {
  name: "@workgroup_size(GROUP.x, GROUP.y) of `const GROUP = uint2(16, 4)` (an alias constructor)",
  source: `alias float2 = vec2<f32>;
alias uint2 = vec2<u32>;
const GROUP = uint2(16, 4);

@group(0) @binding(0) var<storage, read_write> o: array<f32>;

@compute @workgroup_size(GROUP.x, GROUP.y)
fn main(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) n: vec3u) {
  let uv = float2(id.xy) / float2(32.0, 8.0);
  if (id.x < 32u && id.y < 8u) { o[id.y * 32u + id.x] = uv.x + uv.y * 10.0 + f32(n.x * 100u + n.y); }
}`,
  plain: [B(0, 0, new Float32Array(256))],
  workgroups: [2, 2, 1],
  threads: [32, 8],
};

/** Const builtins naga does not evaluate: plain WebGPU refuses them, and so must the client. */
export const CONSTS_REFUSED: readonly CorpusCase[] = [
  {
    name: "@workgroup_size(extractBits(0xF0u, 4u, 4u) * 4u) (naga evaluates no extractBits)",
    source: probe("", "extractBits(0xF0u, 4u, 4u) * 4u"),
    plain: [B(0, 0, new Uint32Array(200))],
    workgroups: [4, 1, 1],
  },
  {
    name: "@workgroup_size(u32(smoothstep(0.0, 10.0, 5.0) * 40)) (nor smoothstep)",
    source: probe("", "u32(smoothstep(0.0, 10.0, 5.0) * 40)"),
    plain: [B(0, 0, new Uint32Array(200))],
    workgroups: [10, 1, 1],
  },
];
