/**
 * QA wave 4, real-world WGSL that plain WebGPU refuses (old syntax, rules the code breaks): the
 * client must refuse each with a typed error and stay usable; see `_wgsl_corpus_qa4.ts`.
 * (Tint's textureDimensions/fbb15a, on a bgra8unorm storage texture, runs since the client asks
 * for `bgra8unorm-storage`: `_wgsl_corpus_texture_depth.ts`.)
 */
import { B, type CorpusCase } from "./_wgsl_corpus_qa_base.ts";
import { T } from "./_wgsl_corpus_qa3_base.ts";
import { lightSources } from "./_wgsl_corpus_qa4_graphics.ts";
import { reduce0 } from "./_wgsl_corpus_qa4_ml.ts";

export const REFUSED4: readonly CorpusCase[] = [
  {
    // The first version of the keyword-named case in `_wgsl_corpus_qa4_lang.ts`: an alias
    // named `storage` and one named `read` shadow the enumerants `var<storage, read>` needs.
    name: "aliases named storage and read shadowing var<storage, read>",
    source: /* wgsl */ `
alias storage = array<f32>;
alias read = vec2<f32>;
@group(0) @binding(0) var<storage, read> ins: array<read>;
@group(0) @binding(1) var<storage, read_write> outs: storage;
@compute @workgroup_size(16)
fn main(@builtin(global_invocation_id) g: vec3u) { outs[g.x] = ins[g.x].x; }`,
    plain: [B(0, 0, new Float32Array(32)), B(0, 1, new Float32Array(16))],
    workgroups: [1, 1, 1],
  },
  {
    // Skia's tests/sksl/compute/Workgroup.wgsl output
    // (https://github.com/google/skia/tree/main/tests/sksl/compute): `@workgroup_size(12, 34,
    // 56)`, 22,848 invocations, past WebGPU's limit of 256.
    name: "Skia SkSL compute output with @workgroup_size(12, 34, 56)",
    source: /* wgsl */ `diagnostic(off, derivative_uniformity);
diagnostic(off, chromium.unreachable_code);
struct Outputs {
  result: i32,
};
@group(0) @binding(0) var<storage, read_write> _storage0 : Outputs;
fn _skslMain() {
  {
    _storage0.result = 1;
  }
}
@compute @workgroup_size(12, 34, 56) fn main() {
  _skslMain();
}
`,
    plain: [B(0, 0, new Int32Array(1))],
    workgroups: [1, 1, 1],
  },
  {
    // https://github.com/jspdown/cloth/blob/main/src/physic/shaders/semi_explicit_euler.compute.wgsl
    // verbatim: pre-2022 WGSL, `@stage(compute)` and `var<storage, write>`.
    name: "jspdown/cloth semi_explicit_euler (@stage(compute), var<storage, write>)",
    source: /* wgsl */ `struct Config {
    deltaTime: f32,
    constraintCount: f32,
    particlesCount: f32,
    gravity: vec3<f32>,
};

@group(0) @binding(0) var<storage, read> positions: array<vec3<f32>>;
@group(0) @binding(1) var<storage, write> estimatedPositions: array<vec3<f32>>;
@group(0) @binding(2) var<storage, read_write> velocities: array<vec3<f32>>;
@group(0) @binding(3) var<storage, read> inverseMasses: array<f32>;

@group(1) @binding(0) var<uniform> config: Config;

@stage(compute) @workgroup_size(8, 8, 4)
fn main(@builtin(num_workgroups) workgroup_size: vec3<u32>, @builtin(global_invocation_id) global_id: vec3<u32>) {
    let w = workgroup_size.x * 8u;
    let h = workgroup_size.y * 8u;

    let id = global_id.x
        + (global_id.y * w)
        + (global_id.z * w * h);

    // Guard against out-of-bounds work group sizes.
    if (id >= u32(config.particlesCount)) {
        return;
    }

    if (inverseMasses[id] > 0.0) {
        velocities[id] += config.gravity * config.deltaTime;
    }

    estimatedPositions[id] = positions[id] + velocities[id] * config.deltaTime;
}
`,
    plain: [B(0, 0, new Float32Array(1024))],
    workgroups: [1, 1, 1],
  },
  {
    // https://github.com/MatiasHiltunen/simple-knn-wgpu/blob/main/src/shaders/sort.wgsl: its
    // `radix_reorder` entry point as published, with `;` between struct members (WGSL takes
    // `,`) and `array<atomic<u32>, 2>` in `var<storage, read>` (atomics need read_write).
    name: "simple-knn-wgpu radix_reorder (struct members ended by ';', read-only atomics)",
    entryPoint: "radix_reorder",
    source: /* wgsl */ `struct Params {
    num: u32;
    bit: u32;
};
@group(0) @binding(0)
var<storage, read> r_in_keys: array<u32>;
@group(0) @binding(1)
var<storage, read> r_in_indices: array<u32>;
@group(0) @binding(2)
var<storage, read> r_prefix: array<u32>;
@group(0) @binding(3)
var<storage, read> r_counts: array<atomic<u32>, 2>;
@group(0) @binding(4)
var<storage, read_write> out_keys: array<u32>;
@group(0) @binding(5)
var<storage, read_write> out_indices: array<u32>;
@group(0) @binding(6)
var<uniform> r_params: Params;

@compute @workgroup_size(256)
fn radix_reorder(@builtin(global_invocation_id) gid: vec3<u32>) {
    let idx = gid.x;
    if (idx >= r_params.num) { return; }

    let key = r_in_keys[idx];
    let bit = (key >> r_params.bit) & 1u;
    let p = r_prefix[idx];
    let zeros = atomicLoad(&r_counts[0]);

    var dst = p;
    if (bit == 1u) {
        dst = zeros + p;
    }

    out_keys[dst] = key;
    out_indices[dst] = r_in_indices[idx];
}
`,
    plain: [B(0, 4, new Uint32Array(256))],
    workgroups: [1, 1, 1],
  },
  {
    // https://github.com/st0rmbtw/TerrariaClone/blob/main/assets/shaders/light_map/light_sources.wgsl
    // (its r8unorm version) verbatim: `texture_storage_2d<r8unorm, write>`, not a storage
    // format of core WebGPU.
    name: "TerrariaClone light_sources (r8unorm storage texture)",
    source: lightSources("r8unorm") + /* wgsl */ `
@compute @workgroup_size(1, 1, 1)
fn light_sources(@builtin(global_invocation_id) invocation_id: vec3<u32>) {
    for (var i = 0; i < i32(lights_source_buffer.count); i++) {
        let light = lights_source_buffer.data[i];
        let width = i32(light.size.x);
        let height = i32(light.size.y);
        for (var x: i32 = -width / 2; x < height / 2; x++) {
            for (var y: i32 = -height / 2; y < height / 2; y++) {
                textureStore(light_texture, vec2<i32>(light.pos) + vec2(x, y), vec4(vec3(1.), 1.));
            }   
        }
    }
}`,
    plain: [T(0, 0, 16, 16, "r8unorm", undefined, true), B(0, 1, Uint32Array.of(1, 0, 2, 3, 4, 4))],
    workgroups: [1, 1, 1],
  },
  {
    // The reduction tutorial's `reduce_0` as published (see `_wgsl_corpus_qa4_ml.ts`): a
    // workgroup array counted by `workgroup_size`, a `vec3<u32>`.
    name: "reduction tutorial reduce_0 as published (array<f32, vec3 const>)",
    source: reduce0("workgroup_size"),
    plain: [B(0, 0, new Float32Array(256)), B(0, 1, new Float32Array(4))],
    workgroups: [4, 1, 1],
  },
];
