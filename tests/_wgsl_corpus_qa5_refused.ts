/**
 * QA wave 5: real-world WGSL plain WebGPU refuses on this adapter, which the client must refuse
 * with a typed error; see `_wgsl_corpus_qa5.ts`.
 */
import { B, type CorpusCase, f } from "./_wgsl_corpus_qa_base.ts";
import { BOUNDING_INFO } from "./_wgsl_corpus_qa5_babylon.ts";

export const REFUSED5: readonly CorpusCase[] = [
  // wgpu's naga refuses `ptr<storage, atomic<i32>, read_write>` function parameters without
  // the unrestricted_pointer_parameters language feature ("Function 'atomicMinFloat' is invalid").
  BOUNDING_INFO,
  {
    // A uniform struct holding a struct at offset 8 (WGSL: a uniform member of struct type is
    // 16-byte aligned; needs `@align(16)`), as in hand-written params blocks that work in
    // storage but not as `var<uniform>` (https://www.w3.org/TR/WGSL/#address-space-layout-constraints).
    name: "uniform struct member of struct type at an offset not a multiple of 16",
    source: /* wgsl */ `struct Inner { x: f32, y: vec2f }
struct U { a: f32, inner: Inner, b: f32 }
@group(0) @binding(0) var<uniform> u: U;
@group(0) @binding(1) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(1) fn main() { o[0] = u.a + u.inner.y.x + u.b; }`,
    plain: [B(0, 0, new Float32Array(12), true), B(0, 1, f(1))],
    workgroups: [1, 1, 1],
  },
  {
    // https://github.com/BabylonJS/Babylon.js/blob/master/packages/dev/core/src/ShadersWGSL/iblCopyVoxelBufferToGrid.compute.fx
    // verbatim: a `texture_storage_3d<r8unorm, write>`, a storage format core WebGPU lacks.
    name: "Babylon.js iblCopyVoxelBufferToGrid (r8unorm storage texture)",
    source:
      /* wgsl */ `// Copies the packed per-voxel opacity buffer into the r8 voxel grid (mip 0).
@group(0) @binding(0) var<storage, read> voxelOpacityBuffer: array<u32>;
@group(0) @binding(1) var voxelGridTarget: texture_storage_3d<r8unorm, write>;

@compute @workgroup_size(4, 4, 4)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let size: vec3<u32> = textureDimensions(voxelGridTarget);
    if (id.x >= size.x || id.y >= size.y || id.z >= size.z) {
        return;
    }
    let res: u32 = size.x;
    let vidx: u32 = id.x + id.y * res + id.z * res * res;
    // Unpack this voxel's byte (4 voxels/u32, LSB-first) and decode [0,255] -> [0,1].
    let word: u32 = voxelOpacityBuffer[vidx >> 2u];
    let byteVal: u32 = (word >> ((vidx & 3u) * 8u)) & 0xFFu;
    let opacity: f32 = f32(byteVal) / 255.0;
    textureStore(voxelGridTarget, vec3<i32>(id), vec4f(opacity, 0.0, 0.0, 1.0));
}
`,
    plain: [B(0, 0, new Uint32Array(16))],
    workgroups: [1, 1, 1],
  },
];
