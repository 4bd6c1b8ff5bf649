/**
 * QA wave 12: real-world WGSL plain WebGPU refuses on this adapter, which the client must refuse
 * with a typed error; see `_wgsl_corpus_qa12.ts`.
 */
import { B, type CorpusCase } from "./_wgsl_corpus_qa_base.ts";

export const REFUSED12: readonly CorpusCase[] = [
  {
    // https://github.com/gfx-rs/wgpu/blob/trunk/examples/features/src/big_compute_buffers/shader.wgsl
    // (stored version 0a7c858a9cab789e330b07cac45453db97c89034) verbatim: a storage
    // `binding_array<ContiguousArray, NUM_BUFFERS>`, which needs a native-only wgpu feature
    // (core WebGPU has no binding arrays).
    name: "wgpu big_compute_buffers (binding_array of storage structs, a native-only feature)",
    source: /* wgsl */ `const OFFSET: u32 = 1u << 8u;
const BUFFER_MAX_ELEMENTS: u32 = 1u << 25u; // Think \`buffer.len()\`
const NUM_BUFFERS: u32 = 2u;
const TOTAL_SIZE: u32 = BUFFER_MAX_ELEMENTS * NUM_BUFFERS;


// \`binding_array\` requires a custom struct
struct ContiguousArray {
    inner: array<f32>
}

@group(0) @binding(0)
var<storage, read_write> storage_array: binding_array<ContiguousArray, NUM_BUFFERS>;


@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
    let base_index = global_id.x * OFFSET;

    for (var i = 0u; i < OFFSET; i++) {
        let index = base_index + i;

        if index < TOTAL_SIZE {
            let buffer_index = index / BUFFER_MAX_ELEMENTS;
            let inner_index = index % BUFFER_MAX_ELEMENTS;

            storage_array[buffer_index].inner[inner_index] = add_one(storage_array[buffer_index].inner[inner_index]);
        }
    }
}

fn add_one(n: f32) -> f32 {
    return n + 1.0;
}
`,
    plain: [B(0, 0, new Float32Array(256))],
    workgroups: [1, 1, 1],
  },
  {
    // https://github.com/gfx-rs/wgpu/blob/trunk/examples/features/src/ray_aabb_compute/shader.wgsl
    // (stored version af8ebe74af0f567612d36c3f0e1c77fc6b887ccf), trimmed to its declarations
    // and ray query: `enable wgpu_ray_query;`, an `acceleration_structure` binding, `ray_query`.
    name: "wgpu ray_aabb_compute (enable wgpu_ray_query, acceleration_structure binding)",
    source: /* wgsl */ `enable wgpu_ray_query;

@group(0) @binding(0)
var output: texture_storage_2d<rgba8unorm, write>;

@group(0) @binding(2)
var acc_struct: acceleration_structure;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
    var color = vec4<f32>(0.0, 0.0, 0.0, 1.0);
    var rq: ray_query;
    rayQueryInitialize(&rq, acc_struct, RayDesc(0u, 0xFFu, 0.01, 200.0, vec3<f32>(0.0), vec3<f32>(0.0, 0.0, 1.0)));
    while (rayQueryProceed(&rq)) {
    }
    let hit = rayQueryGetCommittedIntersection(&rq);
    if (hit.kind != RAY_QUERY_INTERSECTION_NONE) {
        color = vec4<f32>(1.0);
    }
    textureStore(output, global_id.xy, color);
}
`,
    plain: [{
      group: 0,
      binding: 0,
      texture: { width: 8, height: 8, format: "rgba8unorm" },
      storage: true,
    }],
    workgroups: [1, 1, 1],
  },
  {
    // https://github.com/webgpu/webgpu-samples/blob/main/src/sample/deferredRendering/lightUpdate.wgsl
    // (stored version 0f66fc9922130f868bd240f165260ac114925107, 2021) verbatim: pre-1.0 WGSL
    // (`[[block]]`, `[[group(0), binding(0)]]`, `[[stage(compute), workgroup_size(1)]]`, `;`
    // between struct members) that today's compilers refuse.
    name: "webgpu-samples deferredRendering lightUpdate of 2021 ([[block]] attributes)",
    source: /* wgsl */ `struct LightData {
  position : vec4<f32>;
  color : vec3<f32>;
  radius : f32;
};
[[block]] struct LightsBuffer {
  lights: array<LightData>;
};
[[group(0), binding(0)]] var<storage, read_write> lightsBuffer: LightsBuffer;

[[block]] struct Config {
  numLights : u32;
};
[[group(0), binding(1)]] var<uniform> config: Config;

[[block]] struct LightExtent {
  min : vec4<f32>;
  max : vec4<f32>;
};
[[group(0), binding(2)]] var<uniform> lightExtent: LightExtent;

[[stage(compute), workgroup_size(1)]]
fn main([[builtin(global_invocation_id)]] GlobalInvocationID : vec3<u32>) {
  var index = GlobalInvocationID.x;
  if (index >= config.numLights) {
    return;
  }

  lightsBuffer.lights[index].position.y = lightsBuffer.lights[index].position.y - 0.5 - 0.003 * (f32(index) - 64.0 * floor(f32(index) / 64.0));

  if (lightsBuffer.lights[index].position.y < lightExtent.min.y) {
    lightsBuffer.lights[index].position.y = lightExtent.max.y;
  }
}
`,
    plain: [B(0, 0, new Float32Array(32))],
    workgroups: [1, 1, 1],
  },
];
